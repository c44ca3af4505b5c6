import type { AnalysisRequest } from '../analysis/analysis-service.js';
import type { SummaryPlan } from '../library/library-summary.js';
import { audioRouteSpecs, type AudioRouteSpec } from './route-specs.js';

/** A route's analysis with its default parameters (`overrides` on top), as a request without a query would run it. */
function requestOf(
  spec: AudioRouteSpec & { readonly engine: AnalysisRequest['engine'] },
  overrides: Record<string, unknown> = {},
): AnalysisRequest {
  const params = spec.query ? (spec.query.parse(overrides) as Record<string, unknown>) : {};
  return { route: spec.path, engine: spec.engine, params, ...(spec.headSeconds !== undefined ? { headSeconds: spec.headSeconds } : {}) };
}

/**
 * The analyses of a library summary, from the route specs, so each is cached under the key its
 * route would use: opening the item in Analyse (by upload or `?sha256=`) is then a cache hit.
 */
export function librarySummaryPlan(): SummaryPlan {
  const s = audioRouteSpecs;
  return {
    analyze: requestOf(s.analyze),
    loudness: requestOf(s.loudness),
    onsets: requestOf(s.onsets),
    grade: requestOf(s.grade),
    naming: requestOf(s.naming),
    waveform: requestOf(s.waveform, { bins: 64 }),
  };
}

/** One analysis of a library summary as the upload answer lists it (`summary_analyses`). */
export interface SummaryAnalysis {
  /** The route's path under /audio/v1, as `/onsets`. */
  readonly route: string;
  /** Every parameter the summary runs it with, defaults included. */
  readonly params: Readonly<Record<string, string | number | boolean>>;
  /** The route's defaults: a request that leaves a parameter out gets this value. */
  readonly defaults: Readonly<Record<string, string | number | boolean>>;
}

let summaryAnalyses: readonly SummaryAnalysis[] | undefined;

/**
 * The analyses a new library item's summary is computing (or has computed), so a client can tell which
 * of its own requests add no work: one with the same route whose parameters, completed with `defaults`,
 * equal `params` joins that computation or reads its cached answer.
 */
export function listSummaryAnalyses(): readonly SummaryAnalysis[] {
  summaryAnalyses ??= Object.values(librarySummaryPlan()).map((request) => {
    const spec: AudioRouteSpec | undefined = Object.values(audioRouteSpecs).find((s) => s.path === request.route);
    const defaults = spec?.query ? (spec.query.parse({}) as Record<string, string | number | boolean>) : {};
    return { route: request.route, params: request.params as Record<string, string | number | boolean>, defaults };
  });
  return summaryAnalyses;
}
