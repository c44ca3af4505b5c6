import type { SummaryPlan, SummaryRequest } from '../library/library-summary.js';
import { audioRouteSpecs, type AudioRouteSpec } from './route-specs.js';

/** A route's analysis with its default parameters (`overrides` on top), as a request without a query would run it. */
function requestOf(
  spec: AudioRouteSpec & { readonly engine: SummaryRequest['engine'] },
  overrides: Record<string, unknown> = {},
): SummaryRequest {
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
