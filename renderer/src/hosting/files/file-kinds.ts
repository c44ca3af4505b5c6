// What the Files tab needs to know about paths and files, as pure functions: which files are audio,
// how a folder is sorted, the breadcrumb of a path, and the commit a drop of files becomes.
import type { RepositoryTreeEntry } from '../../api/repository';

/** The extensions the analysis endpoint treats as audio (the shared contract's list). */
const audioExtension = /\.(wav|aif|aiff|flac|mp3|ogg|m4a)$/i;
const imageExtension = /\.(png|jpe?g|gif|webp|svg|bmp|ico|avif|tiff?)$/i;

/** How the file view shows a file. */
export type FileKind = 'audio' | 'image' | 'other';

/** The kind of a file by its name. */
export function fileKindOf(name: string): FileKind {
  if (audioExtension.test(name)) return 'audio';
  if (imageExtension.test(name)) return 'image';
  return 'other';
}

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/** Folders first, then files, each by name as a person sorts them (2 before 10, case ignored). */
export function sortEntries(entries: readonly RepositoryTreeEntry[]): RepositoryTreeEntry[] {
  const rank = (e: RepositoryTreeEntry) => (e.type === 'tree' ? 0 : e.type === 'commit' ? 1 : 2);
  return [...entries].sort((a, b) => rank(a) - rank(b) || collator.compare(a.name, b.name));
}

/** The folders of a path for a breadcrumb: "stems/drums" → [{stems, stems}, {drums, stems/drums}]. */
export function breadcrumbOf(path: string): readonly { readonly name: string; readonly path: string }[] {
  const parts = path.split('/').filter((p) => p !== '');
  return parts.map((name, i) => ({ name, path: parts.slice(0, i + 1).join('/') }));
}

/** The folder a path is in ("" at the root). */
export function parentOf(path: string): string {
  const at = path.lastIndexOf('/');
  return at < 0 ? '' : path.slice(0, at);
}

/** A README of a folder: README.md in any case (GitLab shows the first one it finds). */
export function findReadme(entries: readonly RepositoryTreeEntry[]): RepositoryTreeEntry | undefined {
  return entries.find((e) => e.type === 'blob' && /^readme\.(md|markdown)$/i.test(e.name));
}

/** One file of a drop as it goes into the commit. */
export interface PlannedFile {
  /** The index of the dropped file this is. */
  readonly source: number;
  readonly path: string;
  readonly action: 'create' | 'update';
}

/**
 * Where dropped files go (into `folder`) and whether each creates or updates a file: `existing` is
 * the set of file paths already in that folder. Names with a slash or control characters keep only
 * their last part, so a drop cannot write outside the folder it was dropped on.
 */
export function planFiles(names: readonly string[], folder: string, existing: ReadonlySet<string>): PlannedFile[] {
  const seen = new Set<string>();
  const planned: PlannedFile[] = [];
  for (const [source, raw] of names.entries()) {
    // eslint-disable-next-line no-control-regex -- control characters are what a file name must not carry
    const name = (raw.split(/[\\/]/).pop() ?? '').replace(/[\x00-\x1f\x7f]/g, '').trim();
    if (name === '' || name === '.' || name === '..') continue;
    const path = folder ? `${folder}/${name}` : name;
    if (seen.has(path)) continue;
    seen.add(path);
    planned.push({ source, path, action: existing.has(path) ? 'update' : 'create' });
  }
  return planned;
}

/** The commit message a drop suggests: "Add kick.wav", "Add 2 stems", "Update 3 files", "Add 2 files, update 1". */
export function defaultCommitMessage(planned: readonly PlannedFile[]): string {
  if (planned.length === 0) return '';
  const allAudio = planned.every((p) => fileKindOf(p.path) === 'audio');
  const noun = (n: number) => (allAudio ? (n === 1 ? 'stem' : 'stems') : n === 1 ? 'file' : 'files');
  const created = planned.filter((p) => p.action === 'create').length;
  const updated = planned.length - created;
  if (planned.length === 1) {
    const name = planned[0]?.path.split('/').pop() ?? '';
    return `${created === 1 ? 'Add' : 'Update'} ${name}`;
  }
  if (updated === 0) return `Add ${created} ${noun(created)}`;
  if (created === 0) return `Update ${updated} ${noun(updated)}`;
  return `Add ${created} ${noun(created)}, update ${updated}`;
}

/** True when the first 8000 bytes have no NUL and decode as UTF-8: show it as text. */
export function looksLikeText(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, 8000);
  if (head.includes(0)) return false;
  try {
    // A multi-byte character cut at the 8000th byte is still text: decode in streaming mode.
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: head.length < bytes.length });
    return true;
  } catch {
    return false;
  }
}

/** Bytes as base64, in chunks (String.fromCharCode cannot take a whole stem as arguments). */
export function base64Of(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
