import { composeEngines, mapWithFrames } from './compose.js';
import { headSeconds, type EngineSpec } from './engine.js';
import { featuresEngine, type FeaturesResult } from './features.js';
import { gradeEngine } from './grade.js';
import { scopeGrade, type GradeResult } from './grade-policy.js';
import { loudnessEngine, type LoudnessResult } from './loudness.js';
import { namingEngine, type NamingResult } from './naming.js';
import { onsetsEngine } from './onsets.js';

/** One batch row's worth of facts about a file (the CLI's `analyze` command). */
export interface SummaryResult {
  readonly role: string | null;
  readonly role_confidence: number | null;
  readonly tier: string | null;
  /** BS.1770 integrated loudness (null under 0.4 s). */
  readonly lufs: number | null;
  /** Ungated K-weighted loudness over the whole clip (`/loudness` `clip_lufs`): one-shots under 0.4 s get one too. */
  readonly clip_lufs: number | null;
  readonly true_peak_dbtp: number | null;
  readonly tempo_bpm: number | null;
  readonly key: string | null;
  readonly name: string | null;
  readonly duration_s: number;
}

/**
 * The batch summary: loudness over the whole file and the clip-tier analyses over its first 30 s,
 * from one decode. `index` numbers the suggested name.
 */
export const summaryEngine: EngineSpec<{ index: number }, SummaryResult> = {
  id: 'summary',
  version: '4',
  needsTotalFrames: false,
  create(format, params) {
    const inner = composeEngines('summary-parts', '1', [
      { key: 'loudness', engine: loudnessEngine as EngineSpec<never, unknown>, params: {} },
      { key: 'onsets', engine: onsetsEngine as EngineSpec<never, unknown>, params: {}, headSeconds: headSeconds.clip },
      { key: 'naming', engine: namingEngine as EngineSpec<never, unknown>, params: { index: params.index }, headSeconds: headSeconds.clip },
      { key: 'grade', engine: gradeEngine as EngineSpec<never, unknown>, params: { role: '' }, headSeconds: headSeconds.clip },
      { key: 'features', engine: featuresEngine as EngineSpec<never, unknown>, params: { rhythm: false }, headSeconds: headSeconds.clip },
    ]).create(format, {});
    return mapWithFrames(format, inner, (result, frames) => {
      const parts = result as {
        loudness: LoudnessResult;
        onsets: { tempo_bpm: number | null };
        naming: NamingResult;
        grade: GradeResult;
        features: FeaturesResult;
      };
      return {
        role: parts.naming.role,
        role_confidence: parts.naming.confidence,
        tier: scopeGrade(parts.grade, frames / format.sampleRate).tier,
        lufs: parts.loudness.integrated_lufs,
        clip_lufs: parts.loudness.clip_lufs,
        true_peak_dbtp: parts.loudness.true_peak_dbtp,
        tempo_bpm: parts.onsets.tempo_bpm,
        key: parts.features.chroma.key && parts.features.chroma.mode ? `${parts.features.chroma.key} ${parts.features.chroma.mode}` : null,
        name: parts.naming.name,
        duration_s: Math.round((frames / format.sampleRate) * 1000) / 1000,
      };
    });
  },
};
