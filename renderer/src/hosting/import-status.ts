// The states of GitLab's import_status that the screens wait on (forks and imports share them).
import type { Project } from '../api/hosting';
import { pathFromName } from './project-form-model';

/** True while an import or a fork is still filling the repository (polling continues). */
export function importRunning(status: Project['import_status'] | undefined): boolean {
  return status === 'scheduled' || status === 'started';
}

/** How long to wait before asking again: quick at first, then calmer, never more than 5 s. */
export function pollDelay(attempt: number): number {
  return Math.min(5000, 500 * 2 ** Math.max(0, Math.min(attempt, 4)));
}

/** A project path from an export's file name: "2024-…_root_album_export.tar.gz" → "album". */
export function pathFromArchiveName(fileName: string): string {
  const stem = fileName.replace(/\.(tar\.gz|tgz|gz|tar)$/i, '').replace(/_export$/i, '');
  // GitLab's names are <timestamp>_<namespace>_<project>: the project is the last part.
  const parts = stem.split('_').filter(Boolean);
  return pathFromName(parts.length >= 3 && /^\d{4}-\d{2}-\d{2}/.test(parts[0] ?? '') ? (parts[parts.length - 1] ?? stem) : stem);
}
