import type { LibraryItemRecord } from './library-repo.js';

/** The fields a library list can be sorted by. */
export const librarySortFields = ['added_at', 'name', 'bpm', 'duration_s', 'loudness_lufs', 'rating', 'key'] as const;
export type LibrarySortField = (typeof librarySortFields)[number];

/** A list request after validation (key spellings already turned into a Camelot code). */
export interface LibraryQuery {
  readonly q?: string;
  readonly role?: string;
  readonly camelot?: string;
  readonly bpmMin?: number;
  readonly bpmMax?: number;
  /** Also match items whose bpm is half or double a value in range. */
  readonly bpmRelated?: boolean;
  readonly lufsMin?: number;
  readonly lufsMax?: number;
  readonly tier?: string;
  readonly durationMin?: number;
  readonly durationMax?: number;
  readonly tag?: string;
  readonly favourite?: boolean;
  readonly collectionId?: number;
  readonly sort: LibrarySortField;
  readonly descending: boolean;
  readonly page: number;
  readonly perPage: number;
}

/** One item's searchable facts, precomputed once per change of the tenant's items. */
interface Row {
  readonly item: LibraryItemRecord;
  readonly text: string;
  readonly bpm: number;
  readonly lufs: number;
  readonly duration: number;
  /** Camelot code as a number for sorting: 1A = 2, 1B = 3, … 12B = 25; NaN without a key. */
  readonly keyOrder: number;
  readonly tags: readonly string[];
}

/** The bpm search uses: the measured tempo times the user's ½×/2× correction. */
export function bpmOf(item: LibraryItemRecord): number | null {
  const t = item.summary?.tempo_bpm;
  return t === null || t === undefined ? null : Math.round(t * item.tempoMultiplier * 100) / 100;
}

function toRow(item: LibraryItemRecord): Row {
  const s = item.summary;
  const tags = item.tags.map((t) => t.toLowerCase());
  const camelot = s?.camelot ? /^(\d+)([AB])$/.exec(s.camelot) : null;
  return {
    item,
    text: [item.name, s?.suggested_name ?? '', ...tags].join('\n').toLowerCase(),
    bpm: bpmOf(item) ?? NaN,
    lufs: s?.loudness_lufs ?? NaN,
    duration: s?.duration_s ?? NaN,
    keyOrder: camelot ? Number(camelot[1]) * 2 + (camelot[2] === 'B' ? 1 : 0) : NaN,
    tags,
  };
}

const sortValue: Readonly<Record<LibrarySortField, (r: Row) => number | string>> = {
  added_at: (r) => r.item.id,
  name: (r) => r.item.name.toLowerCase(),
  bpm: (r) => r.bpm,
  duration_s: (r) => r.duration,
  loudness_lufs: (r) => r.lufs,
  rating: (r) => r.item.rating,
  key: (r) => r.keyOrder,
};

/**
 * One tenant's items, searchable without a per-request allocation per item: rows (lower-cased text,
 * bpm, …) are built once per change, each sort order once per change on first use (values without a
 * measurement last in both directions), and a request walks one order testing the filters, keeping
 * only the requested page.
 */
export class TenantLibraryIndex {
  private rows: Row[] | null = null;
  private readonly orders = new Map<LibrarySortField, { readonly known: Row[]; readonly unknown: Row[] }>();

  constructor(private readonly itemsOf: () => Iterable<LibraryItemRecord>) {}

  /** The tenant's items changed: rebuild on next use. */
  invalidate(): void {
    this.rows = null;
    this.orders.clear();
  }

  /** The page of matching items, and how many match. */
  search(query: LibraryQuery): { readonly items: readonly LibraryItemRecord[]; readonly total: number } {
    const order = this.orderBy(query.sort);
    const matches = compileFilter(query);
    const start = (query.page - 1) * query.perPage;
    const end = start + query.perPage;
    const items: LibraryItemRecord[] = [];
    let total = 0;
    const visit = (r: Row) => {
      if (!matches(r)) return;
      if (total >= start && total < end) items.push(r.item);
      total++;
    };
    const { known, unknown } = order;
    if (query.descending) for (let i = known.length - 1; i >= 0; i--) visit(known[i]!);
    else for (let i = 0; i < known.length; i++) visit(known[i]!);
    for (let i = 0; i < unknown.length; i++) visit(unknown[i]!);
    return { items, total };
  }

  private orderBy(field: LibrarySortField) {
    const cached = this.orders.get(field);
    if (cached) return cached;
    this.rows ??= [...this.itemsOf()].map(toRow);
    const value = sortValue[field];
    const known: Row[] = [];
    const unknown: Row[] = [];
    for (const r of this.rows) {
      const v = value(r);
      (typeof v === 'number' && Number.isNaN(v) ? unknown : known).push(r);
    }
    known.sort((a, b) => {
      const va = value(a);
      const vb = value(b);
      return va < vb ? -1 : va > vb ? 1 : a.item.id - b.item.id;
    });
    unknown.sort((a, b) => a.item.id - b.item.id);
    const order = { known, unknown };
    this.orders.set(field, order);
    return order;
  }
}

function inRange(v: number, min: number | undefined, max: number | undefined): boolean {
  return (min === undefined || v >= min) && (max === undefined || v <= max);
}

/** One predicate for the request's filters (only the ones given are tested). */
function compileFilter(q: LibraryQuery): (r: Row) => boolean {
  const tests: ((r: Row) => boolean)[] = [];
  if (q.q) {
    const needle = q.q.toLowerCase();
    tests.push((r) => r.text.includes(needle));
  }
  if (q.role) tests.push((r) => r.item.summary?.role === q.role);
  if (q.camelot) tests.push((r) => r.item.summary?.camelot === q.camelot);
  if (q.bpmMin !== undefined || q.bpmMax !== undefined) {
    const { bpmMin: lo, bpmMax: hi } = q;
    tests.push(
      q.bpmRelated
        ? (r) => inRange(r.bpm, lo, hi) || inRange(r.bpm * 2, lo, hi) || inRange(r.bpm / 2, lo, hi)
        : (r) => inRange(r.bpm, lo, hi),
    );
  }
  if (q.lufsMin !== undefined || q.lufsMax !== undefined) tests.push((r) => inRange(r.lufs, q.lufsMin, q.lufsMax));
  if (q.durationMin !== undefined || q.durationMax !== undefined) tests.push((r) => inRange(r.duration, q.durationMin, q.durationMax));
  if (q.tier) tests.push((r) => r.item.summary?.grade_tier === q.tier);
  if (q.tag) {
    const tag = q.tag.toLowerCase();
    tests.push((r) => r.tags.includes(tag));
  }
  if (q.favourite !== undefined) tests.push((r) => r.item.favourite === q.favourite);
  if (q.collectionId !== undefined) {
    const c = q.collectionId;
    tests.push((r) => r.item.collectionIds.includes(c));
  }
  // NaN fails every range test, so an unmeasured value never matches a range.
  return (r) => {
    for (let i = 0; i < tests.length; i++) if (!tests[i]!(r)) return false;
    return true;
  };
}
