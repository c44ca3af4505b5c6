/**
 * Git LFS pointer files (spec: git-lfs docs/spec.md): `version https://git-lfs.github.com/spec/v1`,
 * `oid sha256:<hex>`, `size <bytes>`, one key per line, keys sorted after `version`, under 1024 bytes.
 */
import { oidPattern } from './lfs-objects.js';

/** A pointer is smaller than this (the spec's limit; git-lfs reads no further). */
export const maxPointerBytes = 1024;

/** What a pointer names. */
export interface LfsPointer {
  readonly oid: string;
  readonly size: number;
}

const versionLine = 'version https://git-lfs.github.com/spec/v1';

/** The object a pointer file names, or undefined when the bytes are not a pointer. */
export function parseLfsPointer(bytes: Buffer): LfsPointer | undefined {
  if (bytes.length >= maxPointerBytes) return undefined;
  const text = bytes.toString('utf8');
  if (!text.startsWith(`${versionLine}\n`) || !text.endsWith('\n')) return undefined;
  const fields = new Map<string, string>();
  for (const line of text.slice(versionLine.length + 1, -1).split('\n')) {
    const space = line.indexOf(' ');
    if (space <= 0) return undefined;
    fields.set(line.slice(0, space), line.slice(space + 1));
  }
  const oid = /^sha256:([0-9a-f]{64})$/.exec(fields.get('oid') ?? '')?.[1];
  const size = fields.get('size') ?? '';
  if (!oid || !oidPattern.test(oid) || !/^\d{1,15}$/.test(size)) return undefined;
  return { oid, size: Number(size) };
}

/** The pointer file git-lfs writes for an object. */
export function formatLfsPointer(pointer: LfsPointer): Buffer {
  return Buffer.from(`${versionLine}\noid sha256:${pointer.oid}\nsize ${pointer.size}\n`, 'utf8');
}
