/**
 * The similarity quality measure: for each query, the share of its 5 nearest neighbours (the query and
 * its own darker copy excluded, searched within the pooled libraries) that have the query's role AND
 * instrument family (families.ts); the mean over queries, and per role and per library.
 */
import { createSimilarityIndex } from '../../server/audio/library/similarity-index.js';
import type { Family } from './families.js';

/** One item of the pool. */
export interface PoolItem {
  readonly library: string;
  readonly key: string;
  readonly role: string;
  readonly family: Family;
  readonly vector: Float32Array;
}

/** Mean share and count of the queries of a group. */
export interface Share {
  readonly mean: number;
  readonly queries: number;
}

/** The figures of one measurement. */
export interface Quality {
  readonly overall: Share;
  readonly byRole: Readonly<Record<string, Share>>;
  readonly byLibrary: Readonly<Record<string, Share>>;
  readonly byFamily: Readonly<Record<string, Share>>;
}

/** The recording a file was made from: a `_dark` copy (two one-pole low-passes of the same render) and its original share it. */
export const recordingOf = (item: Pick<PoolItem, 'library' | 'key'>): string => `${item.library}/${item.key.replace(/_dark$/, '')}`;

/**
 * Measure: every item of `pool` is searchable; items with a family whose library is in `queryLibraries`
 * (all when omitted) are queries. With `excludeCopies` (the default) the query's darker copy is not
 * counted as a neighbour either, so the figure is not lifted by near-duplicates. `queryEvery` n queries
 * only every n-th item (faster, for the fitting's many trials).
 */
export function measureQuality(
  pool: readonly PoolItem[],
  options: {
    readonly k?: number;
    readonly queryLibraries?: readonly string[];
    readonly excludeCopies?: boolean;
    readonly queryEvery?: number;
  } = {},
): Quality {
  const k = options.k ?? 5;
  const excludeCopies = options.excludeCopies ?? true;
  const dim = pool[0]?.vector.length ?? 1;
  const index = createSimilarityIndex(dim);
  pool.forEach((item, i) => index.add(i, item.vector));
  const groups = {
    overall: new Map<string, number[]>(),
    role: new Map<string, number[]>(),
    library: new Map<string, number[]>(),
    family: new Map<string, number[]>(),
  };
  const push = (m: Map<string, number[]>, key: string, v: number) => {
    const list = m.get(key) ?? [];
    list.push(v);
    m.set(key, list);
  };
  pool.forEach((q, qi) => {
    if (q.family === null) return;
    if (options.queryLibraries && !options.queryLibraries.includes(q.library)) return;
    if (options.queryEvery && qi % options.queryEvery !== 0) return;
    const rec = recordingOf(q);
    const hits = index.nearest(q.vector, k, (id) => id !== qi && !(excludeCopies && recordingOf(pool[id]!) === rec));
    const good = hits.filter((h) => pool[h.id]!.role === q.role && pool[h.id]!.family === q.family).length;
    const share = good / k;
    push(groups.overall, 'all', share);
    push(groups.role, q.role, share);
    push(groups.library, q.library, share);
    push(groups.family, `${q.role}/${q.family}`, share);
  });
  const summarise = (m: Map<string, number[]>): Record<string, Share> =>
    Object.fromEntries(
      [...m]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([key, xs]) => [key, { mean: xs.reduce((s, x) => s + x, 0) / xs.length, queries: xs.length }]),
    );
  return {
    overall: summarise(groups.overall).all ?? { mean: 0, queries: 0 },
    byRole: summarise(groups.role),
    byLibrary: summarise(groups.library),
    byFamily: summarise(groups.family),
  };
}
