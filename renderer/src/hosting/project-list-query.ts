// The list's filters live in the address (?search=…&visibility=…&page=2), so Back, reload and a
// shared link show the same page; these turn the address into the API query and back.
import type { ProjectListQuery } from '../api/hosting';

/** Orderings GET /projects accepts, with their labels. */
export const orderings = [
  { value: 'last_activity_at', label: 'Last activity' },
  { value: 'created_at', label: 'Created' },
  { value: 'updated_at', label: 'Updated' },
  { value: 'name', label: 'Name' },
  { value: 'path', label: 'Path' },
  { value: 'star_count', label: 'Stars' },
  { value: 'id', label: 'ID' },
] as const;

/** Page sizes offered (GitLab caps per_page at 100). */
export const pageSizes = [10, 20, 50, 100] as const;

const orderValues = new Set<string>(orderings.map((o) => o.value));

function positiveInt(value: string | null, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(value);
  return Number.isInteger(n) && n >= 1 ? Math.min(n, max) : fallback;
}

/** The API query for the address's parameters; unknown values fall back to GitLab's defaults. */
export function listQueryOf(params: URLSearchParams): ProjectListQuery {
  const archived = params.get('archived');
  const visibility = params.get('visibility');
  const orderBy = params.get('order_by');
  const sort = params.get('sort');
  return {
    search: params.get('search')?.trim() || undefined,
    archived: archived === 'true' ? true : archived === 'false' ? false : undefined,
    visibility: visibility === 'private' || visibility === 'internal' || visibility === 'public' ? visibility : undefined,
    starred: params.get('starred') === 'true' || undefined,
    owned: params.get('owned') === 'true' || undefined,
    order_by: orderBy && orderValues.has(orderBy) ? (orderBy as ProjectListQuery['order_by']) : 'created_at',
    sort: sort === 'asc' ? 'asc' : 'desc',
    page: positiveInt(params.get('page'), 1),
    per_page: positiveInt(params.get('per_page'), 20, 100),
  };
}

/**
 * The address for a change of the filters. Any change but the page goes back to page 1 (page 3 of
 * another filter means nothing), and defaults are left out to keep the address short.
 */
export function withListChange(params: URLSearchParams, change: Readonly<Record<string, string | null>>): URLSearchParams {
  const next = new URLSearchParams(params);
  for (const [name, value] of Object.entries(change)) {
    if (value === null || value === '') next.delete(name);
    else next.set(name, value);
  }
  if (!('page' in change)) next.delete('page');
  if (next.get('page') === '1') next.delete('page');
  if (next.get('order_by') === 'created_at') next.delete('order_by');
  if (next.get('sort') === 'desc') next.delete('sort');
  if (next.get('per_page') === '20') next.delete('per_page');
  return next;
}

/** True when the list is narrowed by anything (then an empty list means "no match", not "no projects"). */
export function isFiltered(query: ProjectListQuery): boolean {
  return (
    query.search !== undefined ||
    query.archived !== undefined ||
    query.visibility !== undefined ||
    Boolean(query.starred) ||
    Boolean(query.owned)
  );
}

/** "3 minutes ago", "2 days ago", or the date for anything older than a month. */
export function formatWhen(iso: string, now: number): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return iso;
  const seconds = Math.round((now - then) / 1000);
  if (seconds < 45) return 'just now';
  const units: [number, string][] = [
    [60, 'minute'],
    [3600, 'hour'],
    [86400, 'day'],
  ];
  if (seconds < 30 * 86400) {
    let value = 0;
    let unit = 'minute';
    for (const [size, name] of units) if (seconds >= size) [value, unit] = [Math.round(seconds / size), name];
    return `${value} ${unit}${value === 1 ? '' : 's'} ago`;
  }
  return new Date(then).toISOString().slice(0, 10);
}
