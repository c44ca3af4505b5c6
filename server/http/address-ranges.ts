/**
 * Which IP addresses count as "not public" for outbound calls (SSRF defence). The ranges come from
 * ipaddr.js's lists of the IANA special-purpose registries, not from prefixes written here, and any
 * IPv4 address carried inside an IPv6 one (mapped, translated, compatible, NAT64, 6to4, Teredo) is
 * checked as the IPv4 address it reaches.
 */
import ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';

/** ipaddr.js range names of IPv6 addresses that are globally reachable (IANA "Globally Reachable": True). */
const publicIpv6Ranges: ReadonlySet<string> = new Set(['unicast', 'amt', 'as112v6', 'droneRemoteIdProtocolEntityTags']);

/** IPv6 ranges whose addresses route to the IPv4 address they embed; that address decides. */
const embeddingIpv6Ranges: ReadonlySet<string> = new Set(['ipv4Mapped', 'rfc6145', 'rfc6052', '6to4', 'teredo']);

/** The only IPv6 block allocated for global unicast (RFC 4291); NAT64's well-known prefix sits outside it. */
const globalUnicast = ipaddr.IPv6.parseCIDR('2000::/3');
/** RFC 6052's well-known NAT64 prefix: the IPv4 address is the last 32 bits. */
const nat64WellKnown = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

/** True when an IP address is loopback, private, link-local, metadata or otherwise not public. */
export function isPrivateAddress(address: string): boolean {
  // Only the canonical literal forms (what a resolver or the URL parser gives); anything else is refused.
  const family = isIP(address);
  if (family === 4) return isPrivateIpv4(ipaddr.IPv4.parse(address));
  if (family === 6) return isPrivateIpv6(ipaddr.IPv6.parse(address));
  return true;
}

function isPrivateIpv4(address: ipaddr.IPv4): boolean {
  // Every named range (private, loopback, link-local, CGNAT, reserved, documentation, multicast…) is blocked.
  return address.range() !== 'unicast';
}

function isPrivateIpv6(address: ipaddr.IPv6): boolean {
  const embedded = embeddedIpv4(address);
  if (embedded === 'unknown') return true;
  if (embedded) return embedded.some(isPrivateIpv4);
  if (!address.match(globalUnicast)) return true;
  return !publicIpv6Ranges.has(address.range());
}

/**
 * The IPv4 addresses an IPv6 address leads to, null when it embeds none, or `unknown` for a range
 * that embeds one at a place we cannot know (NAT64 local-use prefixes: private networks anyway).
 */
function embeddedIpv4(address: ipaddr.IPv6): readonly ipaddr.IPv4[] | 'unknown' | null {
  const p = address.parts;
  const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 255, lo >> 8, lo & 255]);
  // IPv4-compatible (::a.b.c.d, RFC 4291 §2.5.5.1, deprecated but still parsed): ::/96, including :: and ::1.
  if (p.slice(0, 6).every((x) => x === 0)) return [v4(p[6]!, p[7]!)];
  const range: string = address.range();
  if (!embeddingIpv6Ranges.has(range)) return null;
  switch (range) {
    case '6to4':
      return [v4(p[1]!, p[2]!)];
    case 'teredo':
      // Server address in bits 32–63; the client's, obfuscated (inverted), in the last 32 bits.
      return [v4(p[2]!, p[3]!), v4(~p[6]! & 0xffff, ~p[7]! & 0xffff)];
    case 'rfc6052':
      return address.match(nat64WellKnown) ? [v4(p[6]!, p[7]!)] : 'unknown';
    default:
      // ipv4Mapped (::ffff:a.b.c.d) and rfc6145 (::ffff:0:a.b.c.d).
      return [v4(p[6]!, p[7]!)];
  }
}
