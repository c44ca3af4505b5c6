// The four requests that analyse one file of a batch, one after the other: the server has few
// cores, and the batch already runs two files at once.
import { analyse } from '../../api/audio';
import { requestGrade } from '../grade/grade-request';
import type { BatchResult, Stage } from './batch-model';

/** Which request is under way and how far the whole file is, 0..1. */
export type FileProgress = (stage: Stage, fraction: number) => void;

/** Analyse one file; rejects with the server's sentence (ApiError) or an AbortError when cancelled. */
export type AnalyseFile = (
  file: File,
  index: number,
  options: { readonly token: string; readonly signal: AbortSignal; readonly onProgress: FileProgress },
) => Promise<BatchResult>;

const stages: readonly Stage[] = ['loudness', 'analyze', 'grade', 'naming'];

/** /loudness, /analyze, /grade (the shared query of requestGrade) and /naming?index=N for one file. */
export const analyseFile: AnalyseFile = async (file, index, { token, signal, onProgress }) => {
  // Each request is a quarter: its first half is the upload, its second the server's work.
  const step = (stage: Stage) => {
    const start = stages.indexOf(stage) / stages.length;
    onProgress(stage, start);
    return {
      token,
      signal,
      onProgress: ({ loaded, total }: { loaded: number; total: number }) =>
        onProgress(stage, start + (total > 0 ? loaded / total : 0) / (2 * stages.length)),
    };
  };

  const loudness = (await analyse('loudness', file, file.name, {}, step('loudness'))).result;
  const analysis = (await analyse('analyze', file, file.name, {}, step('analyze'))).result;
  const role = analysis.sample.role;
  // The same request as the Analyse screen's (no role hint): one file, one grade.
  const grade = (await requestGrade(file, step('grade'))).result;
  const naming = (await analyse('naming', file, file.name, { index }, step('naming'))).result;
  onProgress('naming', 1);

  const chroma = analysis.features.chroma;
  return {
    durationS: loudness.source.duration_s,
    role,
    roleConfidence: analysis.sample.confidence,
    tier: grade.tier,
    score: grade.score,
    gradedS: grade.graded_s,
    flags: grade.flags.map((flag) => ({ code: flag.code, message: flag.message })),
    integratedLufs: loudness.integrated_lufs,
    clipLufs: loudness.clip_lufs,
    truePeakDbtp: loudness.true_peak_dbtp,
    tempoBpm: analysis.features.rhythm?.tempo_bpm ?? null,
    key: chroma.key,
    mode: chroma.mode,
    keyConfidence: chroma.key_confidence,
    keyReason: chroma.key_reason,
    suggestedName: naming.name,
  };
};
