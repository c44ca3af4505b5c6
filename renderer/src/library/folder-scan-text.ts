// The sentences a folder's scan is shown with (pure: tested without a browser).
import type { LibraryFolderResponse } from '../api/library';

/** A folder's scan as the API reports it. */
export type FolderScan = NonNullable<LibraryFolderResponse['scan']>;

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;

/** The headline: what the scan is doing or did ("Scanning… 42 files found, 40 added"). */
export function describeScanProgress(scan: FolderScan): string {
  const found = plural(scan.seen, 'audio file');
  const changed = [
    `${scan.added.toLocaleString('en')} added`,
    scan.updated > 0 ? `${scan.updated.toLocaleString('en')} updated` : '',
    scan.unchanged > 0 ? `${scan.unchanged.toLocaleString('en')} already indexed` : '',
  ]
    .filter(Boolean)
    .join(', ');
  if (scan.state === 'scanning') return `Scanning${scan.resumed ? ' (resumed after a restart)' : ''}… ${found} found, ${changed}`;
  if (scan.state === 'failed') return `The scan stopped with an error after ${found}: ${changed}`;
  return `Scanned: ${found}, ${changed}`;
}

/** What the scan passed over and why, or '' when nothing ("3 skipped: 2 not audio, 1 link outside the allowed folders"). */
export function describeScanSkips(scan: FolderScan): string {
  const s = scan.skipped;
  const reasons = [
    s.not_audio > 0 ? `${s.not_audio.toLocaleString('en')} not audio` : '',
    s.outside_roots > 0 ? `${plural(s.outside_roots, 'link')} outside the allowed folders` : '',
    s.name_too_long > 0 ? `${plural(s.name_too_long, 'name')} too long` : '',
    scan.failed > 0 ? `${plural(scan.failed, 'file')} could not be read` : '',
  ].filter(Boolean);
  const skipped = s.not_audio + s.outside_roots + s.name_too_long + scan.failed;
  const limit = s.over_limit > 0 ? 'Stopped at 100,000 files, the most one folder may hold' : '';
  const counted = reasons.length === 0 ? '' : `${skipped.toLocaleString('en')} skipped: ${reasons.join(', ')}`;
  return [counted, limit].filter(Boolean).join('. ');
}
