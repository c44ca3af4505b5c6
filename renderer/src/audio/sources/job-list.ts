// The source jobs this browser started, remembered in localStorage (ids only: the server has the
// rest) per tenant, so a reload or another visit shows them again, refreshed from the server.

/** A remembered job: its id, the URL it fetches, and when it was started (ms since the epoch). */
export interface RememberedJob {
  readonly id: string;
  readonly url: string;
  readonly added: number;
}

/** The localStorage key for a tenant's list. */
export function jobListKey(tenant: string): string {
  return `cratehouse.sources.jobs.${tenant}`;
}

/** At most this many jobs are remembered; the oldest are forgotten first. */
export const maxRememberedJobs = 50;

function isRememberedJob(value: unknown): value is RememberedJob {
  if (typeof value !== 'object' || value === null) return false;
  const job = value as Record<string, unknown>;
  return typeof job.id === 'string' && job.id !== '' && typeof job.url === 'string' && typeof job.added === 'number';
}

/** Parse a stored list, newest first; anything unreadable (another version, a hand edit) is dropped. */
export function parseJobList(text: string | null): RememberedJob[] {
  if (!text) return [];
  try {
    const value: unknown = JSON.parse(text);
    if (!Array.isArray(value)) return [];
    const seen = new Set<string>();
    return value.filter(isRememberedJob).filter((job) => !seen.has(job.id) && Boolean(seen.add(job.id)));
  } catch {
    return [];
  }
}

/** The list with `job` first (replacing an entry with the same id), cut to maxRememberedJobs. */
export function withJob(list: readonly RememberedJob[], job: RememberedJob): RememberedJob[] {
  return [job, ...list.filter((entry) => entry.id !== job.id)].slice(0, maxRememberedJobs);
}

/** The list without the job `id`. */
export function withoutJob(list: readonly RememberedJob[], id: string): RememberedJob[] {
  return list.filter((entry) => entry.id !== id);
}

/** Read a tenant's list; unavailable storage reads as empty. */
export function loadJobList(storage: Pick<Storage, 'getItem'> | null, tenant: string): RememberedJob[] {
  try {
    return parseJobList(storage?.getItem(jobListKey(tenant)) ?? null);
  } catch {
    return [];
  }
}

/** Write a tenant's list; when storage is unavailable the list lasts until the page closes. */
export function saveJobList(storage: Pick<Storage, 'setItem' | 'removeItem'> | null, tenant: string, list: readonly RememberedJob[]): void {
  try {
    if (list.length === 0) storage?.removeItem(jobListKey(tenant));
    else storage?.setItem(jobListKey(tenant), JSON.stringify(list));
  } catch {
    // Private modes and full storage: the jobs still show until the page closes.
  }
}
