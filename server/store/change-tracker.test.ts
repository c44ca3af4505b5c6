import { describe, expect, it } from 'vitest';
import { trackChange, undoChanges, type ChangeTrack } from './change-tracker.js';
import { composeChanges, diffTable, type TableChange } from './row-diff.js';
import { emptyDb, type DbSchema } from './schema.js';

/** Minimal rows keyed like projects (rowKeys.projects reads only `id`). */
interface Row {
  readonly id: number;
  readonly v: number;
}

const rows = (d: DbSchema) => d.projects as unknown as Row[];
const setRows = (d: DbSchema, r: Row[]) => ((d as unknown as { projects: Row[] }).projects = r);

/** A document whose table holds rows 1, 2 and 3 (v 0), and a copy of the table as it was. */
function threeRows(): { db: DbSchema; before: Row[] } {
  const db = emptyDb();
  setRows(db, [
    { id: 1, v: 0 },
    { id: 2, v: 0 },
    { id: 3, v: 0 },
  ]);
  return { db, before: rows(db).slice() };
}

/**
 * What a SQL table holding the rows in insertion order (`ord`) looks like after a change is written
 * the way the PostgreSQL store writes it: deletes, then replacements in place, then inserts at the
 * end. Independent of the tracker: it only reads the change.
 */
function applyToTable(table: readonly Row[], change: TableChange | undefined): Row[] {
  if (!change) return table.slice();
  const gone = new Set((change.deletes as Row[]).map((r) => r.id));
  const replaced = new Map((change.updates as Row[]).map((r) => [r.id, r]));
  const out = table.filter((r) => !gone.has(r.id)).map((r) => replaced.get(r.id) ?? r);
  expect(replaced.size === 0 || [...replaced.keys()].every((id) => out.some((r) => r.id === id))).toBe(true);
  return [...out, ...(change.inserts as Row[])];
}

/** A deterministic pseudo-random source (so a failure can be replayed). */
function random(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

type Op = (d: DbSchema, next: () => number) => void;

/** Writes the tracker records as they happen (no copy of the table). */
const recordedOps: readonly Op[] = [
  (d, next) => void rows(d).push({ id: next(), v: 0 }),
  (d) => {
    const r = rows(d);
    if (r.length === 0) return;
    const i = Math.floor(r.length / 2);
    r[i] = { ...r[i]!, v: r[i]!.v + 1 };
  },
  (d) => void rows(d).pop(),
  (d) => {
    const r = rows(d);
    r.length = Math.max(0, r.length - 2);
  },
];

/** Writes it cannot record: the table falls back to a copy and a full diff. */
const fallbackOps: readonly Op[] = [
  (d) => void rows(d).splice(0, 1),
  (d) =>
    setRows(
      d,
      rows(d).filter((r) => r.id % 3 !== 0),
    ),
  (d) => void rows(d).sort((a, b) => b.id - a.id),
  (d, next) => void rows(d).unshift({ id: next(), v: 0 }),
];

function run(seed: number, ops: readonly Op[], steps: number) {
  const rand = random(seed);
  let nextId = 1000;
  const next = () => nextId++;
  const db = emptyDb();
  setRows(
    db,
    Array.from({ length: 20 }, (_, i) => Object.freeze({ id: i + 1, v: 0 })),
  );
  const tracks: ChangeTrack[] = [];
  const changes: (readonly TableChange[])[] = [];
  const states: Row[][] = [rows(db).slice()];
  for (let c = 0; c < steps; c++) {
    const { doc, track } = trackChange(db);
    const count = 1 + Math.floor(rand() * 4);
    for (let k = 0; k < count; k++) ops[Math.floor(rand() * ops.length)]!(doc, next);
    changes.push(track.collect());
    tracks.push(track);
    states.push(rows(db).slice());
  }
  return { db, tracks, changes, states };
}

describe('change tracker', () => {
  it('records appends, same-key replacements and truncations without a copy, and the write reproduces the table', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const { tracks, changes, states } = run(seed, recordedOps, 6);
      for (let c = 0; c < tracks.length; c++) {
        expect(tracks[c]!.recorded('projects')).toBe(true);
        // A missed append, replacement or delete leaves the written table unlike the mirror.
        expect(
          applyToTable(
            states[c]!,
            changes[c]!.find((x) => x.table === 'projects'),
          ),
        ).toEqual(states[c + 1]);
      }
    }
  });

  it('falls back to a full diff for splices, sorts and reassignments, still exact', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const { tracks, changes, states } = run(seed, [...recordedOps, ...fallbackOps], 6);
      for (let c = 0; c < tracks.length; c++)
        expect(
          applyToTable(
            states[c]!,
            changes[c]!.find((x) => x.table === 'projects'),
          ),
        ).toEqual(states[c + 1]);
    }
  });

  it('a splice after recorded writes in one change still reports them (the fallback rebuilds the table before the change)', () => {
    const { db, before } = threeRows();
    const { doc, track } = trackChange(db);
    rows(doc).push({ id: 4, v: 0 });
    rows(doc)[1] = { id: 2, v: 1 };
    expect(track.recorded('projects')).toBe(true);
    rows(doc).splice(0, 1);
    expect(track.recorded('projects')).toBe(false);
    const change = track.collect().find((x) => x.table === 'projects')!;
    expect(applyToTable(before, change)).toEqual([
      { id: 2, v: 1 },
      { id: 3, v: 0 },
      { id: 4, v: 0 },
    ]);
    track.undo();
    expect(rows(db)).toEqual(before);
  });

  it('a row that moves position through recorded writes is written as a delete and an insert, to the same table as the whole-table diff', () => {
    const { db, before } = threeRows();
    const { doc, track } = trackChange(db);
    // Truncate past row 2, then append it again behind row 3 (edited): row 2 moves from the middle to the end.
    rows(doc).length = 1;
    rows(doc).push(before[2]!);
    rows(doc).push({ id: 2, v: 1 });
    expect(track.recorded('projects')).toBe(true);
    const after = rows(db).slice();
    expect(after).toEqual([
      { id: 1, v: 0 },
      { id: 3, v: 0 },
      { id: 2, v: 1 },
    ]);
    const recorded = track.collect().find((x) => x.table === 'projects')!;
    const whole = diffTable('projects', before, after);
    expect(recorded.deletes).toContainEqual({ id: 2, v: 0 });
    expect(recorded.inserts.at(-1)).toEqual({ id: 2, v: 1 });
    // The two differ in how much they rewrite (the tracker also moves row 3, which it deleted and re-added), not in the table they leave.
    expect(applyToTable(before, recorded)).toEqual(after);
    expect(applyToTable(before, recorded)).toEqual(applyToTable(before, whole));
  });

  it('undoes any sequence of changes, newest first, back to the table before the oldest', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const { db, tracks, states } = run(seed, [...recordedOps, ...fallbackOps], 5);
      const from = 1 + (seed % 4);
      undoChanges(tracks.slice(from));
      expect(rows(db)).toEqual(states[from]);
    }
  });

  it('composes a batch of changes into one write that reproduces the table', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const { changes, states } = run(seed, seed % 2 === 0 ? recordedOps : [...recordedOps, ...fallbackOps], 6);
      const net = composeChanges(changes).find((x) => x.table === 'projects');
      expect(applyToTable(states[0]!, net)).toEqual(states[states.length - 1]);
    }
  });

  it('freezes the rows a change wrote', () => {
    const db = emptyDb();
    const { doc, track } = trackChange(db);
    rows(doc).push({ id: 1, v: 0 });
    track.collect();
    expect(Object.isFrozen(rows(db)[0])).toBe(true);
  });
});
