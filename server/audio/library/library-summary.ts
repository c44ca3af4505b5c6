import type { AnalysisRequest, AnalysisService, HeldFile } from '../analysis/analysis-service.js';
import type { SourceInfo } from '../analysis/analysis-worker.js';
import type { AnalyzeResponse, LoudnessResponse, OnsetsResponse, WaveformResponse } from '../api-types.js';
import { scopeGrade, type GradeResult } from '../engines/grade-policy.js';
import { pitchClassNames, camelotOf, keyNameOf } from './camelot.js';
import { computeFeatureVector, featureVectorVersion } from './feature-vector.js';
import type { LibrarySummary } from './library-repo.js';

/** The analyses a summary is made of (the composition builds them from the route specs). */
export interface SummaryPlan {
  readonly analyze: AnalysisRequest;
  readonly loudness: AnalysisRequest;
  readonly onsets: AnalysisRequest;
  readonly grade: AnalysisRequest;
  readonly naming: AnalysisRequest;
  /** 64 bins: the row thumbnail. */
  readonly waveform: AnalysisRequest;
}

/** A computed summary and the similarity vector. */
export interface ComputedSummary {
  readonly summary: LibrarySummary;
  readonly vector: readonly number[];
  readonly vectorVersion: number;
}

/**
 * Summarise a held file through the AnalysisService at interactive priority: /analyze (role, key,
 * MFCCs), /loudness, /onsets (tempo), /grade, /naming and a 64-bin /waveform, each cached as an upload
 * to its route would be, so opening the item in Analyse answers from the cache.
 */
export async function computeSummary(
  analysis: AnalysisService,
  tenant: string,
  file: HeldFile,
  plan: SummaryPlan,
): Promise<ComputedSummary> {
  const run = async <T>(r: AnalysisRequest): Promise<T> => {
    const answer = await analysis.analyseFile(tenant, file, r.route, r.engine, r.params, {
      priority: 'interactive',
      ...(r.headSeconds !== undefined ? { headSeconds: r.headSeconds } : {}),
    });
    return { source: answer.source, ...(answer.result as object) } as T;
  };
  const analyzing = run<AnalyzeResponse>(plan.analyze);
  // Asked once /analyze is cached: the service then derives it from /analyze's sample analysis (the
  // same engine over the same 30 s) instead of a pass of its own (derived-analyses.ts).
  const naming = analyzing.then(() => run<{ name: string; source: SourceInfo }>(plan.naming));
  const [analyze, loudness, onsets, grade, { name }, waveform] = await Promise.all([
    analyzing,
    run<LoudnessResponse>(plan.loudness),
    run<OnsetsResponse>(plan.onsets),
    run<GradeResult & { source: SourceInfo }>(plan.grade),
    naming,
    run<WaveformResponse>(plan.waveform),
  ]);
  const source = analyze.source;
  const f = analyze.features.chroma;
  const pc = f.key ? pitchClassNames.indexOf(f.key) : -1;
  const mode = f.mode;
  const tier = scopeGrade(grade, source.duration_s).tier;
  return {
    summary: {
      duration_s: source.duration_s,
      sample_rate: source.sample_rate,
      channels: source.channels,
      format: source.format,
      role: analyze.sample.role,
      role_confidence: analyze.sample.confidence,
      tempo_bpm: onsets.tempo_bpm,
      key: pc >= 0 && mode ? keyNameOf(pc, mode) : null,
      camelot: pc >= 0 && mode ? camelotOf(pc, mode) : null,
      loudness_lufs: loudness.integrated_lufs ?? loudness.clip_lufs,
      true_peak_dbtp: loudness.true_peak_dbtp,
      grade_tier: tier,
      suggested_name: name,
      thumbnail: waveform.min_max.map(([lo, hi]) => Math.round(Math.min(1, Math.max(Math.abs(lo), Math.abs(hi))) * 1000) / 1000),
    },
    vector: Array.from(computeFeatureVector({ analyze, loudness, onsets })),
    vectorVersion: featureVectorVersion,
  };
}
