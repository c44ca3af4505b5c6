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

/** One item's searchable facts, computed once per change of that item. */
interface Row {
  readonly item: LibraryItemRecord;
  readonly id: number;
  readonly text: string;
  readonly role: string | null;
  readonly camelot: string | null;
  readonly tier: string | null;
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
    id: item.id,
    text: [item.name, s?.suggested_name ?? '', ...tags].join('\n').toLowerCase(),
    role: s?.role ?? null,
    camelot: s?.camelot ?? null,
    tier: s?.grade_tier ?? null,
    bpm: bpmOf(item) ?? NaN,
    lufs: s?.loudness_lufs ?? NaN,
    duration: s?.duration_s ?? NaN,
    keyOrder: camelot ? Number(camelot[1]) * 2 + (camelot[2] === 'B' ? 1 : 0) : NaN,
    tags,
  };
}

const sortValue: Readonly<Record<LibrarySortField, (r: Row) => number | string>> = {
  added_at: (r) => r.id,
  name: (r) => r.item.name.toLowerCase(),
  bpm: (r) => r.bpm,
  duration_s: (r) => r.duration,
  loudness_lufs: (r) => r.lufs,
  rating: (r) => r.item.rating,
  key: (r) => r.keyOrder,
};

const isUnknown = (v: number | string) => typeof v === 'number' && Number.isNaN(v);

/** One sort order: rows with the value ascending (ties by id), then rows without it by id. */
class SortOrder {
  readonly known: Row[] = [];
  readonly unknown: Row[] = [];
  /** Each row's value when it was placed (the row may be replaced before it is taken out). */
  private readonly placed = new Map<number, number | string>();

  constructor(
    private readonly value: (r: Row) => number | string,
    rows: Iterable<Row>,
  ) {
    for (const r of rows) {
      const v = value(r);
      this.placed.set(r.id, v);
      (isUnknown(v) ? this.unknown : this.known).push(r);
    }
    this.known.sort((a, b) => compare(this.placed.get(a.id)!, a.id, this.placed.get(b.id)!, b.id));
    this.unknown.sort((a, b) => a.id - b.id);
  }

  insert(r: Row): void {
    const v = this.value(r);
    this.placed.set(r.id, v);
    const list = isUnknown(v) ? this.unknown : this.known;
    list.splice(this.position(list, v, r.id), 0, r);
  }

  remove(id: number): void {
    const v = this.placed.get(id);
    if (v === undefined) return;
    this.placed.delete(id);
    const list = isUnknown(v) ? this.unknown : this.known;
    const at = this.position(list, v, id);
    if (list[at]?.id === id) list.splice(at, 1);
  }

  /** The first index whose (value, id) is not below (v, id): binary search, so a change costs a splice. */
  private position(list: readonly Row[], v: number | string, id: number): number {
    const unknown = isUnknown(v);
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const m = list[mid]!;
      const below = unknown ? m.id < id : compare(this.placed.get(m.id)!, m.id, v, id) < 0;
      if (below) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

function compare(va: number | string, ia: number, vb: number | string, ib: number): number {
  return va < vb ? -1 : va > vb ? 1 : ia - ib;
}

/**
 * One tenant's items, searchable without a per-request allocation per item: a row of precomputed
 * facts per item (lower-cased text, bpm, …) and each sort order built on first use, both kept up to
 * date item by item (a write re-places one row by binary search, never rebuilds the rest). A request
 * walks one order testing the filters, keeping only the requested page.
 */
export class TenantLibraryIndex {
  private readonly rows = new Map<number, Row>();
  private readonly orders = new Map<LibrarySortField, SortOrder>();

  constructor(items: Iterable<LibraryItemRecord>) {
    for (const item of items) this.rows.set(item.id, toRow(item));
  }

  /** An item was added or changed. */
  upsert(item: LibraryItemRecord): void {
    const row = toRow(item);
    for (const order of this.orders.values()) {
      order.remove(item.id);
      order.insert(row);
    }
    this.rows.set(item.id, row);
  }

  /** An item was removed. */
  remove(id: number): void {
    for (const order of this.orders.values()) order.remove(id);
    this.rows.delete(id);
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

  private orderBy(field: LibrarySortField): SortOrder {
    let order = this.orders.get(field);
    if (!order) {
      order = new SortOrder(sortValue[field], this.rows.values());
      this.orders.set(field, order);
    }
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
  if (q.role) tests.push((r) => r.role === q.role);
  if (q.camelot) tests.push((r) => r.camelot === q.camelot);
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
  if (q.tier) tests.push((r) => r.tier === q.tier);
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
