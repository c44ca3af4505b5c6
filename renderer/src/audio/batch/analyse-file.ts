// The four requests that analyse one file of a batch, one after the other (the server has few
// cores, and the batch already runs two files at once). The file is uploaded once, into the library,
// with the first of them; the others ask by hash (held-audio.ts).
import { holdAudio, httpTransport, type HeldAudioTransport } from '../../api/held-audio';
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

/** analyseFile over a given transport (the tests count its requests). */
export function createAnalyseFile(transportOf: (token: string) => HeldAudioTransport): AnalyseFile {
  return async (file, index, { token, signal, onProgress }) => {
    const audio = holdAudio(file, file.name, transportOf(token), { signal });
    // The upload is the first half of the file's progress; the four analyses share the second.
    const step = (stage: Stage) => {
      const start = 0.5 + stages.indexOf(stage) / (2 * stages.length);
      onProgress(stage, stage === 'loudness' ? 0 : start);
      return {
        signal,
        onProgress: ({ loaded, total }: { loaded: number; total: number }) => {
          if (stage === 'loudness') onProgress(stage, total > 0 ? (0.5 * loaded) / total : 0);
        },
      };
    };

    const loudness = (await audio.analyse('loudness', {}, step('loudness'))).result;
    const analysis = (await audio.analyse('analyze', {}, step('analyze'))).result;
    const role = analysis.sample.role;
    // The same request as the Analyse screen's (no role hint): one file, one grade.
    const grade = (await requestGrade(audio, step('grade'))).result;
    const naming = (await audio.analyse('naming', { index }, step('naming'))).result;
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
      libraryItemId: audio.item()?.id ?? null,
    };
  };
}

/** /loudness, /analyze, /grade (the shared query of requestGrade) and /naming?index=N for one file. */
export const analyseFile: AnalyseFile = createAnalyseFile(httpTransport);
