import type { ProjectRecord } from '../../store/schema.js';

/** Lower-cased search text per record, recomputed only when the record's fields change. */
const searchText = new WeakMap<object, { name: string; path: string; description: string | null; text: string }>();

/**
 * What a project search matches against: name, path and description, lower-cased, joined by NUL (a
 * term matches when it is a substring of this, as GitLab's ILIKE '%term%' on each column would for
 * any term without a NUL).
 */
export function lowerText(p: Readonly<ProjectRecord>): string {
  const cached = searchText.get(p);
  if (cached && cached.name === p.name && cached.path === p.path && cached.description === p.description) return cached.text;
  const text = `${p.name}\u0000${p.path}\u0000${p.description ?? ''}`.toLowerCase();
  searchText.set(p, { name: p.name, path: p.path, description: p.description, text });
  return text;
}

/** Three UTF-16 code units as one number (exact: below 2^48). */
const gramAt = (s: string, i: number): number => s.charCodeAt(i) * 4_294_967_296 + s.charCodeAt(i + 1) * 65_536 + s.charCodeAt(i + 2);

/** The distinct trigrams of `s`. */
function gramsOf(s: string): Set<number> {
  const out = new Set<number>();
  for (let i = 0; i + 3 <= s.length; i++) out.add(gramAt(s, i));
  return out;
}

interface Indexed {
  record: Readonly<ProjectRecord>;
  text: string;
  /** The sync pass that last saw the record in the table (to find removed ones). */
  seen: number;
}

/**
 * A trigram index of every project's `lowerText`, kept row by row: a sync compares the table with what
 * was indexed by identity (rows are frozen: replaced, never edited, when they change) and indexes only
 * new or changed texts, whoever wrote them (this node, or another one through the store's catch-up). A
 * search of three or more code units reads the shortest posting list of its trigrams and checks each
 * candidate's text with `includes`: the same answer as a filter over every record, for the cost of
 * the candidates. Shorter terms (too common to index usefully) are that filter.
 *
 * Posting lists keep ids of records since removed or renamed away from a trigram (the check drops
 * them); the index is rebuilt when those outnumber the live entries.
 */
export class ProjectSearchIndex {
  private readonly byId = new Map<number, Indexed>();
  private readonly postings = new Map<number, number[]>();
  /** The rows as last indexed, by position (a copy: the table array may be edited in place). */
  private snapshot: Readonly<ProjectRecord>[] | null = null;
  private pass = 0;
  private liveEntries = 0;
  private staleEntries = 0;

  /** How many rows of the table the index was last brought up to. */
  indexedRows(): number {
    return this.snapshot?.length ?? 0;
  }

  /**
   * Index rows [indexedRows(), upTo) of `records`, a table whose earlier rows have not changed since the
   * last sync or extend (the warm-up checks its revision): no comparison of those rows, no copy.
   */
  extend(records: readonly Readonly<ProjectRecord>[], upTo: number): void {
    const snapshot = (this.snapshot ??= []);
    for (let k = snapshot.length; k < upTo; k++) {
      this.index(records[k]!, this.pass);
      snapshot.push(records[k]!);
    }
  }

  /** Bring the index up to `records` (the table, in id order; a prefix of it while warming). */
  sync(records: readonly Readonly<ProjectRecord>[]): void {
    if (!this.syncInPlace(records)) this.syncByIds(records);
    this.snapshot = records.slice();
    if (this.staleEntries > this.liveEntries + 10_000) this.rebuild();
  }

  /**
   * The common case, a create or an edit: every row indexed last time is still at its position (rows
   * replaced in place, rows appended). A pointer comparison per row, no map lookups; false when rows
   * went or moved (then `syncByIds`).
   */
  private syncInPlace(records: readonly Readonly<ProjectRecord>[]): boolean {
    const last = this.snapshot;
    if (!last || records.length < last.length) return false;
    const changed: Readonly<ProjectRecord>[] = [];
    for (let k = 0; k < last.length; k++) {
      const p = records[k]!;
      if (p === last[k]) continue;
      if (p.id !== last[k]!.id) return false;
      changed.push(p);
    }
    for (const p of changed) this.index(p, this.pass);
    for (let k = last.length; k < records.length; k++) this.index(records[k]!, this.pass);
    return true;
  }

  /** Any change: every row looked up by id; ids indexed but no longer in the table are dropped. */
  private syncByIds(records: readonly Readonly<ProjectRecord>[]): void {
    this.pass++;
    const pass = this.pass;
    for (const p of records) this.index(p, pass);
    // Ids are never reused, so the indexed count tells whether any went.
    if (this.byId.size !== records.length)
      for (const [id, entry] of this.byId)
        if (entry.seen !== pass) {
          this.byId.delete(id);
          const n = gramsOf(entry.text).size;
          this.liveEntries -= n;
          this.staleEntries += n;
        }
  }

  /** Index a row of the table, new or changed (or, seen again, unchanged). */
  private index(p: Readonly<ProjectRecord>, pass: number): void {
    const known = this.byId.get(p.id);
    if (known?.record === p) {
      known.seen = pass;
      return;
    }
    const text = lowerText(p);
    if (!known) {
      this.byId.set(p.id, { record: p, text, seen: pass });
      this.post(p.id, gramsOf(text), null);
      return;
    }
    if (known.text !== text) this.post(p.id, gramsOf(text), gramsOf(known.text));
    known.record = p;
    known.text = text;
    known.seen = pass;
  }

  /** The records whose `lowerText` contains `term` (already lower-cased), in table (id) order. */
  matching(term: string): Readonly<ProjectRecord>[] {
    const records = this.snapshot ?? [];
    if (term.length < 3) return records.filter((p) => lowerText(p).includes(term));
    let shortest: number[] | undefined;
    for (const g of gramsOf(term)) {
      const list = this.postings.get(g);
      if (!list) return [];
      if (!shortest || list.length < shortest.length) shortest = list;
    }
    const out: Readonly<ProjectRecord>[] = [];
    let ordered = true;
    for (const id of shortest!) {
      const entry = this.byId.get(id);
      if (!entry || !entry.text.includes(term)) continue;
      if (out.length > 0 && out[out.length - 1]!.id >= id) ordered = false;
      out.push(entry.record);
    }
    if (ordered) return out;
    // A record whose text changed was appended to its new trigrams' lists after newer ids (a second
    // time, when renamed away from a trigram and back: its first entry was left stale).
    out.sort((a, b) => a.id - b.id);
    return out.filter((p, k) => k === 0 || out[k - 1]!.id !== p.id);
  }

  /** Add `id` to the lists of `grams` it is not already in (`before`: the grams of its previous text). */
  private post(id: number, grams: ReadonlySet<number>, before: ReadonlySet<number> | null): void {
    for (const g of grams) {
      if (before?.has(g)) continue;
      let list = this.postings.get(g);
      if (!list) this.postings.set(g, (list = []));
      list.push(id);
    }
    if (before) {
      let gone = 0;
      for (const g of before) if (!grams.has(g)) gone++;
      this.staleEntries += gone;
      this.liveEntries += grams.size - before.size;
    } else this.liveEntries += grams.size;
  }

  private rebuild(): void {
    this.postings.clear();
    this.liveEntries = 0;
    this.staleEntries = 0;
    for (const [id, entry] of this.byId) this.post(id, gramsOf(entry.text), null);
  }
}
