import { devNull } from 'node:os';
import type { CheckedDestination } from '../../http/outbound.js';

/** A remote URL split into what git may see and the credentials it must not. */
export interface RemoteCredentials {
  /** The URL without user info: what git is given, what messages may show. */
  readonly publicUrl: string;
  /** `Authorization: Basic …` for the URL's user and password, or null without credentials. */
  readonly authorization: string | null;
  /** Every spelling of a secret that must never appear in a message. */
  readonly secrets: readonly string[];
}

/**
 * Take the credentials out of a checked URL (https://user:token@host/… is how GitLab imports take
 * them). They travel to git as an HTTP header in the child's environment, never in its arguments:
 * arguments are visible to every local user in the process list, and git would store a URL's user
 * info in the new repository's config and repeat it in its error messages.
 */
export function splitCredentials(url: URL): RemoteCredentials {
  const bare = new URL(url.href);
  bare.username = '';
  bare.password = '';
  if (!url.username && !url.password) return { publicUrl: bare.href, authorization: null, secrets: [] };
  const user = safeDecode(url.username);
  const password = safeDecode(url.password);
  const token = Buffer.from(`${user}:${password}`, 'utf8').toString('base64');
  const secrets = [url.password, password, token, `${url.username}:${url.password}`].filter((s) => s.length >= 3);
  return { publicUrl: bare.href, authorization: `Basic ${token}`, secrets };
}

/** Replace every secret (and any user info still inside a URL) in a message. */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^/\s@'"]*@/gi, '$1*****@');
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) out = out.split(secret).join('*****');
  return out;
}

/**
 * git options for one clone of an untrusted remote: only the http and https transports (no file://,
 * ssh, ext::, fd::), no redirects (each hop would need its own address check), curl pinned to the
 * address the outbound rules checked (so a second DNS answer cannot point it elsewhere), no proxy
 * (a proxy would resolve the name itself), and no credential helper or askpass (the server's own
 * stored credentials must never be offered to a user-chosen host).
 */
export function pinnedCloneArgs(destination: CheckedDestination): string[] {
  const args = [
    '-c',
    'protocol.allow=never',
    '-c',
    'protocol.http.allow=always',
    '-c',
    'protocol.https.allow=always',
    '-c',
    'http.followRedirects=false',
    '-c',
    'http.proxy=',
    '-c',
    'credential.helper=',
    '-c',
    'core.askPass=',
  ];
  // An IP literal needs no resolving; a name is mapped to the checked address for this host and port only.
  if (destination.host !== destination.address) {
    const address = destination.family === 6 ? `[${destination.address}]` : destination.address;
    args.push('-c', `http.curloptResolve=${destination.host}:${destination.port}:${address}`);
  }
  return args;
}

/**
 * Environment for that clone: no terminal prompt, no system or user config (a user's `insteadOf`,
 * proxy or helper settings must not change where the server connects), and the authorization
 * header, when there is one, as configuration passed through the environment.
 */
export function pinnedCloneEnv(credentials: RemoteCredentials): Record<string, string> {
  const env: Record<string, string> = { GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: devNull };
  if (credentials.authorization) {
    env.GIT_CONFIG_COUNT = '1';
    env.GIT_CONFIG_KEY_0 = 'http.extraHeader';
    env.GIT_CONFIG_VALUE_0 = `Authorization: ${credentials.authorization}`;
  }
  return env;
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
