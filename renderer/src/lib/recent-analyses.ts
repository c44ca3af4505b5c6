// The files analysed in this browser, newest first, for Home's "Recent work". Only what a list needs
// (name, when, duration, role, tempo, key): never the audio. localStorage is read as hostile input.

/** One analysed file. */
export interface RecentAnalysis {
  readonly name: string;
  /** Bytes: with the name, tells two files apart. */
  readonly size: number;
  /** When it was analysed, ms since the epoch. */
  readonly at: number;
  readonly durationS: number | null;
  readonly role: string | null;
  readonly tempoBpm: number | null;
  /** "A minor". */
  readonly key: string | null;
}

/** How many are kept. */
export const RECENT_LIMIT = 12;

const storageKey = 'cratehouse.recent-analyses';

const finiteOrNull = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);
const textOrNull = (value: unknown, max: number): string | null =>
  typeof value === 'string' && value.length > 0 && value.length <= max ? value : null;

/** The list from stored JSON, dropping every entry that is not a valid one. */
export function parseRecentAnalyses(text: string | null): RecentAnalysis[] {
  let raw: unknown;
  try {
    raw = text === null ? [] : JSON.parse(text);
  } catch {
    return [];
  }
  if (!Array.isArray(raw)) return [];
  const out: RecentAnalysis[] = [];
  for (const item of raw as unknown[]) {
    if (typeof item !== 'object' || item === null) continue;
    const r = item as Record<string, unknown>;
    const name = textOrNull(r.name, 1000);
    const size = finiteOrNull(r.size);
    const at = finiteOrNull(r.at);
    if (name === null || size === null || at === null) continue;
    out.push({
      name,
      size,
      at,
      durationS: finiteOrNull(r.durationS),
      role: textOrNull(r.role, 40),
      tempoBpm: finiteOrNull(r.tempoBpm),
      key: textOrNull(r.key, 40),
    });
    if (out.length === RECENT_LIMIT) break;
  }
  return out;
}

/** The list with `entry` first: the same file (name and size) analysed again moves up, replaced. */
export function withRecentAnalysis(list: readonly RecentAnalysis[], entry: RecentAnalysis): RecentAnalysis[] {
  return [entry, ...list.filter((item) => item.name !== entry.name || item.size !== entry.size)].slice(0, RECENT_LIMIT);
}

/** The stored list. */
export function loadRecentAnalyses(): RecentAnalysis[] {
  try {
    return parseRecentAnalyses(window.localStorage.getItem(storageKey));
  } catch {
    return [];
  }
}

/** Remember an analysis (or update the one of the same file). */
export function rememberAnalysis(entry: RecentAnalysis): void {
  try {
    window.localStorage.setItem(storageKey, JSON.stringify(withRecentAnalysis(loadRecentAnalyses(), entry)));
  } catch {
    // Storage unavailable: Home simply has nothing to list.
  }
}
