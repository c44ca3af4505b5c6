// How the batch table writes its figures (the person's locale; exports keep the raw numbers).
import type { BatchResult, Stage } from './batch-model';

const oneDecimal = new Intl.NumberFormat(undefined, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const twoDecimals = new Intl.NumberFormat(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** A figure (LUFS, dBTP, BPM) with one decimal, or null for a missing one (−∞ dB, no tempo: the API's null). */
export function formatOneDecimal(value: number | null): string | null {
  return value === null ? null : oneDecimal.format(value);
}

/** A 0..1 score with two decimals. */
export function formatScore(value: number): string {
  return twoDecimals.format(value);
}

/** What each request of a file does, for the row's progress. */
export const stageLabels: Readonly<Record<Stage, string>> = {
  loudness: 'Measuring loudness',
  analyze: 'Finding role, tempo and key',
  grade: 'Grading',
  naming: 'Naming',
};

/** Why a figure is missing, for a title on the dash. */
export function missingReason(column: 'lufs' | 'clipLufs' | 'truePeak' | 'tempo' | 'key', result: BatchResult): string {
  switch (column) {
    case 'lufs':
      return 'Silent, or shorter than the 0.4 s loudness needs';
    case 'clipLufs':
      return result.clipLufs === undefined ? 'Analysed before clip loudness was measured: retry to measure it' : 'Silent';
    case 'truePeak':
      return 'Silent';
    case 'tempo':
      return 'Too few onsets for a tempo';
    case 'key':
      return result.keyReason === 'low_confidence' ? 'No key fits clearly' : 'No stable pitch (drums, noise or silence)';
  }
}
