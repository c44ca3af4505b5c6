// What the batch knows about each file, and the pure functions the table and the exports use.
import type { GradeResponse, SampleAnalysisResponse } from '../../api/audio';
import { toCsv } from './csv';

export type SampleRole = SampleAnalysisResponse['role'];
export type Tier = GradeResponse['tier'];
export type KeyMode = 'major' | 'minor';

/** The roles the server knows, in its order (for the role filter). */
export const sampleRoles: readonly SampleRole[] = ['percs', 'bass', 'melodic', 'tops', 'atmos'];
/** Grade tiers, best first. */
export const tiers: readonly Tier[] = ['S', 'A', 'B', 'C', 'D'];
const pitchClasses = ['C', 'C#', 'D', 'D#', 'E', 'F', 'F#', 'G', 'G#', 'A', 'A#', 'B'];

/** The figures the batch keeps from the four analyses of one file (not the whole answers: a pack can be large). */
export interface BatchResult {
  readonly durationS: number;
  readonly role: SampleRole;
  readonly roleConfidence: number;
  readonly tier: Tier;
  readonly score: number;
  /** Seconds the grade read (the head of a longer file); absent in results stored before it was reported. */
  readonly gradedS?: number;
  readonly flags: readonly { readonly code: string; readonly message: string }[];
  readonly integratedLufs: number | null;
  /** K-weighted, ungated loudness over the whole clip (/loudness `clip_lufs`); absent in results stored before it was reported. */
  readonly clipLufs?: number | null;
  readonly truePeakDbtp: number | null;
  readonly tempoBpm: number | null;
  readonly key: string | null;
  readonly mode: KeyMode | null;
  readonly keyConfidence: number;
  /** Why key is null (the API's key_reason); absent in results stored before it was reported. */
  readonly keyReason?: 'no_pitched_content' | 'low_confidence' | null;
  readonly suggestedName: string;
  /** The library item the file was kept as (null on a server without the library); absent in older results. */
  readonly libraryItemId?: number | null;
}

export type ItemStatus = 'queued' | 'running' | 'done' | 'failed' | 'cancelled';
export type Stage = 'loudness' | 'analyze' | 'grade' | 'naming';

/** One file of the batch through its life: queued, analysed, and done or failed. */
export interface BatchItem {
  readonly id: string;
  readonly file: File;
  /** The file's name (with its folder when it came from a picked folder). */
  readonly name: string;
  /** Where the file is on disk, when the desktop app knows it (for renaming in place). */
  readonly path: string | null;
  /** NN of the suggested name: the file's 1-based position in the batch when it was added. */
  readonly index: number;
  readonly status: ItemStatus;
  readonly stage: Stage | null;
  /** 0..1 over the four requests. */
  readonly progress: number;
  readonly error: string | null;
  readonly result: BatchResult | null;
}

/** Columns the table sorts by. */
export type SortKey = 'name' | 'status' | 'role' | 'tier' | 'lufs' | 'clipLufs' | 'truePeak' | 'tempo' | 'key' | 'suggestedName';
export type SortDirection = 'ascending' | 'descending';

export interface SortOrder {
  readonly key: SortKey;
  readonly direction: SortDirection;
}

export interface BatchFilter {
  /** Words matched against the file name, the suggested name, the role and the key. */
  readonly text: string;
  readonly role: SampleRole | 'all';
  readonly tier: Tier | 'all';
}

const statusRank: Readonly<Record<ItemStatus, number>> = { running: 0, queued: 1, done: 2, failed: 3, cancelled: 4 };
const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

/** "A minor", "F# major", or null without a key. */
export function keyLabel(result: Pick<BatchResult, 'key' | 'mode'>): string | null {
  if (!result.key) return null;
  return result.mode ? `${result.key} ${result.mode}` : result.key;
}

type SortValue = string | number | null;

function sortValue(item: BatchItem, key: SortKey): SortValue {
  const result = item.result;
  switch (key) {
    case 'name':
      return item.name;
    case 'status':
      return statusRank[item.status];
    case 'role':
      return result?.role ?? null;
    case 'tier':
      // Tiers follow the score, so sorting by score orders tiers and files within a tier.
      return result?.score ?? null;
    case 'lufs':
      return result?.integratedLufs ?? null;
    case 'clipLufs':
      return result?.clipLufs ?? null;
    case 'truePeak':
      return result?.truePeakDbtp ?? null;
    case 'tempo':
      return result?.tempoBpm ?? null;
    case 'key':
      // Circle order of pitch classes, minor after major on the same tonic.
      return result?.key ? pitchClasses.indexOf(result.key) * 2 + (result.mode === 'minor' ? 1 : 0) : null;
    case 'suggestedName':
      return result?.suggestedName ?? null;
  }
}

function compareValues(a: SortValue, b: SortValue): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return collator.compare(String(a), String(b));
}

/**
 * The items in the order asked for. Files without a value (queued, failed, no tempo) go last in
 * both directions so the figures stay together; ties keep the batch order.
 */
export function sortItems(items: readonly BatchItem[], order: SortOrder): BatchItem[] {
  const sign = order.direction === 'ascending' ? 1 : -1;
  return items
    .map((item, position) => ({ item, position, value: sortValue(item, order.key) }))
    .sort((a, b) => {
      if (a.value === null || b.value === null) {
        if (a.value === b.value) return a.position - b.position;
        return a.value === null ? 1 : -1;
      }
      return sign * compareValues(a.value, b.value) || a.position - b.position;
    })
    .map((entry) => entry.item);
}

/** True when nothing is filtered out. */
export function isUnfiltered(filter: BatchFilter): boolean {
  return filter.text.trim() === '' && filter.role === 'all' && filter.tier === 'all';
}

/**
 * The items the filter lets through. A role or tier filter keeps only analysed files with that
 * value; the words must all appear (in any order, any case) in the name, suggested name, role or key.
 */
export function filterItems(items: readonly BatchItem[], filter: BatchFilter): BatchItem[] {
  const words = filter.text.toLowerCase().split(/\s+/).filter(Boolean);
  return items.filter((item) => {
    const result = item.result;
    if (filter.role !== 'all' && result?.role !== filter.role) return false;
    if (filter.tier !== 'all' && result?.tier !== filter.tier) return false;
    if (words.length === 0) return true;
    const haystack = [
      item.name,
      result?.suggestedName,
      result?.role,
      result ? keyLabel(result) : null,
      result ? `tier ${result.tier}` : null,
    ]
      .filter(Boolean)
      .join(' ')
      .toLowerCase();
    return words.every((word) => haystack.includes(word));
  });
}

/** The columns of the CSV export, in order. */
export const csvHeader = [
  'file',
  'role',
  'role_confidence',
  'tier',
  'score',
  'integrated_lufs',
  'clip_lufs',
  'true_peak_dbtp',
  'tempo_bpm',
  'key',
  'mode',
  'key_confidence',
  'duration_s',
  'graded_s',
  'suggested_name',
  'flags',
] as const;

/** A file whose analysis finished, with its result. */
export type AnalysedItem = BatchItem & { readonly result: BatchResult };

/** The files whose analysis finished, in the given order. */
export function analysed(items: readonly BatchItem[]): AnalysedItem[] {
  return items.filter((item): item is AnalysedItem => item.status === 'done' && item.result !== null);
}

/** The analysed files as CSV (RFC 4180), one row each in the given order; unfinished files are left out. */
export function batchCsv(items: readonly BatchItem[]): string {
  return toCsv(
    csvHeader,
    analysed(items).map(({ name, result: r }) => [
      name,
      r.role,
      r.roleConfidence,
      r.tier,
      r.score,
      r.integratedLufs,
      r.clipLufs,
      r.truePeakDbtp,
      r.tempoBpm,
      r.key,
      r.mode,
      r.keyConfidence,
      r.durationS,
      r.gradedS,
      r.suggestedName,
      r.flags.map((flag) => flag.code).join(' '),
    ]),
  );
}

/** The analysed files as JSON: one object each, with the same names as the CSV's columns and the flags' sentences. */
export function batchJson(items: readonly BatchItem[]): string {
  const files = analysed(items).map(({ name, result: r }) => ({
    file: name,
    role: r.role,
    role_confidence: r.roleConfidence,
    tier: r.tier,
    score: r.score,
    integrated_lufs: r.integratedLufs,
    // Results stored before these were reported have neither: null, as for a missing figure.
    clip_lufs: r.clipLufs ?? null,
    true_peak_dbtp: r.truePeakDbtp,
    tempo_bpm: r.tempoBpm,
    key: r.key,
    mode: r.mode,
    key_confidence: r.keyConfidence,
    duration_s: r.durationS,
    graded_s: r.gradedS ?? null,
    suggested_name: r.suggestedName,
    flags: r.flags.map((flag) => ({ code: flag.code, message: flag.message })),
  }));
  return `${JSON.stringify({ files }, null, 2)}\n`;
}
