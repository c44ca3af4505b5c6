// The Library screen's pure parts: the address ⇄ filter mapping, Camelot display, keyboard
// navigation, tempo correction and thumbnail thinning.
import type { LibraryFilter, LibraryRole, LibrarySort, LibrarySortField, TempoMultiplier } from '../api/library';
import { defaultSort, librarySortFields } from '../api/library';

/** The roles the library files items under, in the server's order. */
export const libraryRoles: readonly LibraryRole[] = ['percs', 'bass', 'melodic', 'tops', 'atmos'];
/** Grade tiers, best first. */
export const libraryTiers = ['S', 'A', 'B', 'C', 'D'] as const;

// The Camelot wheel: position n (1..12) of the minor (A) and major (B) rings.
const minorRing = ['G#', 'D#', 'A#', 'F', 'C', 'G', 'D', 'A', 'E', 'B', 'F#', 'C#'];
const majorRing = ['B', 'F#', 'C#', 'G#', 'D#', 'A#', 'F', 'C', 'G', 'D', 'A', 'E'];
const enharmonic: Readonly<Record<string, string>> = { DB: 'C#', EB: 'D#', GB: 'F#', AB: 'G#', BB: 'A#' };

/** A Camelot code split into its number (1..12) and ring, or undefined for anything else. */
export function parseCamelot(code: string): { readonly number: number; readonly ring: 'A' | 'B' } | undefined {
  const match = /^(1[0-2]|[1-9])([AB])$/i.exec(code.trim());
  if (!match) return undefined;
  return { number: Number(match[1]), ring: match[2]!.toUpperCase() as 'A' | 'B' };
}

/** "A minor" (or "Am", "Bb major", "F#") → "8A"-style code; undefined when the text names no key. */
export function camelotOfKey(key: string): string | undefined {
  const match = /^\s*([A-Ga-g])\s*([#b♯♭]?)\s*(m|min|minor|maj|major)?\s*$/.exec(key);
  if (!match) return undefined;
  const accidental = match[2] === '♯' ? '#' : match[2] === '♭' ? 'b' : match[2];
  let pitch = `${match[1]!.toUpperCase()}${accidental}`;
  if (pitch.endsWith('b')) pitch = enharmonic[pitch.toUpperCase()] ?? pitch;
  const minor = match[3] === 'm' || match[3] === 'min' || match[3] === 'minor';
  const ring = minor ? minorRing : majorRing;
  const index = ring.indexOf(pitch);
  return index < 0 ? undefined : `${index + 1}${minor ? 'A' : 'B'}`;
}

/** "8A" → "A minor": the key name of a Camelot code (sharps, as the server names keys). */
export function keyOfCamelot(code: string): string | undefined {
  const parsed = parseCamelot(code);
  if (!parsed) return undefined;
  return parsed.ring === 'A' ? `${minorRing[parsed.number - 1]} minor` : `${majorRing[parsed.number - 1]} major`;
}

/** Every key as the key filter offers it, 1A..12B, with both notations in the label. */
export const camelotOptions: readonly { readonly code: string; readonly label: string }[] = Array.from({ length: 24 }, (_, i) => {
  const code = `${Math.floor(i / 2) + 1}${i % 2 === 0 ? 'A' : 'B'}`;
  return { code, label: `${code} · ${keyOfCamelot(code)}` };
});

/**
 * The hue of a Camelot badge: the wheel's twelve positions evenly round the colour circle, so keys
 * that mix well (neighbours on the wheel) get neighbouring colours, as DJ software shows them.
 */
export function camelotHue(code: string): number | undefined {
  const parsed = parseCamelot(code);
  return parsed ? (parsed.number - 1) * 30 : undefined;
}

/** Keys that mix with `code`: itself, ±1 on its ring, and the same number on the other ring. */
export function compatibleCamelot(code: string): readonly string[] {
  const parsed = parseCamelot(code);
  if (!parsed) return [];
  const wrap = (n: number) => ((n + 11) % 12) + 1;
  const other = parsed.ring === 'A' ? 'B' : 'A';
  return [
    `${parsed.number}${parsed.ring}`,
    `${wrap(parsed.number - 1)}${parsed.ring}`,
    `${wrap(parsed.number + 1)}${parsed.ring}`,
    `${parsed.number}${other}`,
  ];
}

/** The keys that move the selection. */
export type NavigationKey = 'ArrowDown' | 'ArrowUp' | 'PageDown' | 'PageUp' | 'Home' | 'End';

/** True for a key the list handles as navigation. */
export function isNavigationKey(key: string): key is NavigationKey {
  return key === 'ArrowDown' || key === 'ArrowUp' || key === 'PageDown' || key === 'PageUp' || key === 'Home' || key === 'End';
}

/**
 * The row selected after `key`, from `current` (null: nothing selected yet) in a list of `total`
 * rows of which `pageRows` fit on screen. Stays within the list; an empty list selects nothing.
 */
export function moveSelection(current: number | null, key: NavigationKey, total: number, pageRows: number): number | null {
  if (total <= 0) return null;
  const last = total - 1;
  const page = Math.max(1, Math.floor(pageRows));
  if (current === null) return key === 'End' || key === 'ArrowUp' ? last : 0;
  const from = Math.min(Math.max(current, 0), last);
  switch (key) {
    case 'ArrowDown':
      return Math.min(from + 1, last);
    case 'ArrowUp':
      return Math.max(from - 1, 0);
    case 'PageDown':
      return Math.min(from + page, last);
    case 'PageUp':
      return Math.max(from - page, 0);
    case 'Home':
      return 0;
    case 'End':
      return last;
  }
}

/** The three tempo readings a person can pick from: the measured tempo halved, as is, doubled. */
export function tempoChoices(tempoBpm: number | null): readonly { readonly multiplier: TempoMultiplier; readonly bpm: number | null }[] {
  const multipliers: readonly TempoMultiplier[] = [0.5, 1, 2];
  return multipliers.map((multiplier) => ({
    multiplier,
    bpm: tempoBpm === null || !Number.isFinite(tempoBpm) ? null : Math.round(tempoBpm * multiplier * 10) / 10,
  }));
}

/** "½×", "1×", "2×". */
export function multiplierLabel(multiplier: TempoMultiplier): string {
  return multiplier === 0.5 ? '½×' : `${multiplier}×`;
}

/**
 * Thin a thumbnail's peaks to `bars` values: each bar is the largest peak of its share of the input
 * (a peak must not vanish when thinned), clamped to 0..1; bad values count as silence. Fewer peaks
 * than bars are returned as they are.
 */
export function thinPeaks(peaks: readonly number[], bars: number): number[] {
  const clean = peaks.map((p) => (Number.isFinite(p) ? Math.min(1, Math.max(0, p)) : 0));
  const count = Math.max(1, Math.floor(bars));
  if (clean.length <= count) return clean;
  const out: number[] = [];
  for (let bar = 0; bar < count; bar++) {
    const start = Math.floor((bar * clean.length) / count);
    const end = Math.floor(((bar + 1) * clean.length) / count);
    let max = 0;
    for (let i = start; i < end; i++) max = Math.max(max, clean[i]!);
    out.push(max);
  }
  return out;
}

// The address keeps the filter, so reload, Back and a shared link show the same list.
const numberParams = {
  bpmMin: 'bpm_min',
  bpmMax: 'bpm_max',
  lufsMin: 'lufs_min',
  lufsMax: 'lufs_max',
  durationMin: 'duration_min',
  durationMax: 'duration_max',
} as const;

function numberOf(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
}

/** The filter and sort an address holds; unknown values are ignored. */
export function filterFromParams(params: URLSearchParams): { readonly filter: LibraryFilter; readonly sort: LibrarySort } {
  const role = params.get('role');
  const tier = params.get('tier');
  const collection = Number(params.get('collection_id'));
  const numbers: Record<string, number | undefined> = {};
  for (const [field, name] of Object.entries(numberParams)) numbers[field] = numberOf(params.get(name));
  const sortText = params.get('sort') ?? '';
  const descending = sortText.startsWith('-');
  const field = (descending ? sortText.slice(1) : sortText) as LibrarySortField;
  return {
    filter: {
      q: params.get('q') ?? undefined,
      role: libraryRoles.includes(role as LibraryRole) ? (role as LibraryRole) : undefined,
      key: params.get('key') ?? undefined,
      bpmRelated: params.get('bpm_related') === 'true' || undefined,
      tier: (libraryTiers as readonly string[]).includes(tier ?? '') ? (tier as LibraryFilter['tier']) : undefined,
      tag: params.get('tag') ?? undefined,
      favourite: params.get('favourite') === 'true' || undefined,
      collectionId: Number.isInteger(collection) && collection > 0 ? collection : undefined,
      ...numbers,
    },
    sort: librarySortFields.includes(field) ? { field, descending } : defaultSort,
  };
}

/** The address for a filter and sort, with unset values and the default sort left out. */
export function paramsOfFilter(filter: LibraryFilter, sort: LibrarySort): URLSearchParams {
  const params = new URLSearchParams();
  const set = (name: string, value: string | number | boolean | undefined) => {
    if (value === undefined || value === '' || value === false) return;
    params.set(name, String(value));
  };
  set('q', filter.q);
  set('role', filter.role);
  set('key', filter.key);
  for (const [field, name] of Object.entries(numberParams)) set(name, filter[field as keyof typeof numberParams]);
  set('bpm_related', filter.bpmRelated);
  set('tier', filter.tier);
  set('tag', filter.tag);
  set('favourite', filter.favourite);
  set('collection_id', filter.collectionId);
  if (sort.field !== defaultSort.field || sort.descending !== defaultSort.descending)
    params.set('sort', `${sort.descending ? '-' : ''}${sort.field}`);
  return params;
}

/** Rows the virtual list renders for a scroll position: the visible ones and `overscan` either side. */
export function visibleRange(
  scrollTop: number,
  viewportHeight: number,
  rowHeight: number,
  total: number,
  overscan = 8,
): { readonly start: number; readonly end: number } {
  if (total <= 0 || rowHeight <= 0) return { start: 0, end: 0 };
  const first = Math.floor(Math.max(0, scrollTop) / rowHeight);
  const count = Math.ceil(Math.max(0, viewportHeight) / rowHeight) + 1;
  return { start: Math.max(0, first - overscan), end: Math.min(total, first + count + overscan) };
}

/** The pages of `perPage` rows that hold rows start..end-1 (1-based page numbers). */
export function pagesFor(start: number, end: number, perPage: number): number[] {
  if (end <= start) return [];
  const pages: number[] = [];
  for (let page = Math.floor(start / perPage) + 1; page <= Math.floor((end - 1) / perPage) + 1; page++) pages.push(page);
  return pages;
}
