// What the Files tab needs to commit audio through Git LFS, as git-lfs does on a desktop: the
// object id of a file (its sha256, with WebCrypto), the pointer file that stands for it, and the
// `.gitattributes` lines that make git treat the extension as LFS (what `git lfs track` writes).

/** The attribute line `git lfs track "*.wav"` writes. */
export function lfsTrackLine(pattern: string): string {
  return `${pattern} filter=lfs diff=lfs merge=lfs -text`;
}

/** The extension of a name ("Kick.WAV" → "WAV"), as git matches it (case-sensitive); undefined without one. */
export function extensionOf(name: string): string | undefined {
  const dot = name.lastIndexOf('.');
  return dot > 0 && dot < name.length - 1 ? name.slice(dot + 1) : undefined;
}

/** Patterns that `text` (a `.gitattributes`) gives `filter=lfs`, as written (the last line for a pattern wins). */
function lfsPatternsOf(text: string): ReadonlySet<string> {
  const tracked = new Set<string>();
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const [pattern, ...attributes] = line.split(/\s+/);
    if (!pattern) continue;
    for (const attribute of attributes) {
      if (attribute === 'filter=lfs') tracked.add(pattern);
      else if (attribute === '-filter' || attribute === '!filter' || attribute.startsWith('filter=')) tracked.delete(pattern);
    }
  }
  return tracked;
}

/**
 * The `.gitattributes` to commit so every name in `names` is tracked by LFS through its extension
 * (`*.wav`), keeping what `existing` has; undefined when it already tracks them all. A file named
 * by another pattern (`stems/**`) gets the extension line too: harmless, and no guess at git's matching.
 */
export function gitattributesTracking(existing: string | undefined, names: readonly string[]): string | undefined {
  const tracked = lfsPatternsOf(existing ?? '');
  const missing: string[] = [];
  for (const name of names) {
    const ext = extensionOf(name);
    const pattern = ext === undefined ? name : `*.${ext}`;
    if (!tracked.has(pattern) && !missing.includes(pattern)) missing.push(pattern);
  }
  if (missing.length === 0) return undefined;
  const base = existing ?? '';
  const separator = base === '' || base.endsWith('\n') ? '' : '\n';
  return `${base}${separator}${missing.map((p) => `${lfsTrackLine(p)}\n`).join('')}`;
}

/** The pointer file git-lfs commits for an object (spec v1: version, oid, size, one per line). */
export function lfsPointerText(object: { readonly oid: string; readonly size: number }): string {
  return `version https://git-lfs.github.com/spec/v1\noid sha256:${object.oid}\nsize ${object.size}\n`;
}

/** The LFS object id of a file: the sha256 of its bytes, in lowercase hex (WebCrypto). */
export async function lfsOidOf(file: Blob): Promise<string> {
  if (!globalThis.crypto?.subtle)
    throw new Error('This page is not in a secure context (https or localhost), so the browser cannot hash files for Git LFS.');
  const digest = await globalThis.crypto.subtle.digest('SHA-256', await file.arrayBuffer());
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}
