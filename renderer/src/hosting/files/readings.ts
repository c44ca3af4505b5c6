// The figures the Files tab shows for an audio file, read from the /analyze body the analysis
// endpoint carries: one place decides which of its measurements is "the" tempo or loudness.
import type { AnalyzeResponse } from '../../api/audio';

/** What the file view shows under the player. */
export interface Readings {
  readonly durationS: number;
  /** Integrated loudness (EBU R128) of the first 60 s, LUFS; null for silence. */
  readonly loudnessLufs: number | null;
  readonly peakDbfs: number | null;
  readonly tempoBpm: number | null;
  /** "A minor", or null when the analysis withholds a key. */
  readonly key: string | null;
  readonly keyConfidence: number | null;
  readonly role: string;
  readonly roleConfidence: number;
}

/**
 * The readings of one analysis. Tempo: the onsets engine's (the rhythm group, then the emotion's
 * measure over 60 s), then the loop-length tempo of the sample analysis.
 */
export function readingsOf(analysis: AnalyzeResponse): Readings {
  const chroma = analysis.features.chroma;
  return {
    durationS: analysis.source.duration_s,
    loudnessLufs: analysis.emotion.measures.loudness_lufs,
    peakDbfs: analysis.sample.level.peak_dbfs,
    tempoBpm: analysis.features.rhythm?.tempo_bpm ?? analysis.emotion.measures.tempo_bpm ?? analysis.sample.loop.tempo_bpm ?? null,
    key: chroma.key === null ? null : `${chroma.key} ${chroma.mode ?? ''}`.trim(),
    keyConfidence: chroma.key === null ? null : chroma.key_confidence,
    role: analysis.sample.role,
    roleConfidence: analysis.sample.confidence,
  };
}
