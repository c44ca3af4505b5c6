import type { AnalysisEntry, Derivation } from '../analysis/analysis-service.js';
import type { AnalyzeResult } from '../engines/analyze.js';
import { headSeconds } from '../engines/engine.js';
import { nameFromAnalysis } from '../engines/naming.js';
import { librarySummaryPlan } from './summary-plan.js';
import { audioRouteSpecs } from './route-specs.js';

/**
 * The answer of a clip-tier route (first 30 s) from /analyze's (first 60 s), or undefined when the
 * `source` block could differ. Each route's source states the file's length, which the decoder knows up
 * front for nearly every file; when it does not, the length is what was decoded, the route's 30 s or
 * /analyze's 60 s. A stated length of 30–60 s could be either, so those files run the route's own engine.
 */
function fromAnalyzeHead(answer: AnalysisEntry, result: (analyze: AnalyzeResult) => unknown): AnalysisEntry | undefined {
  const seconds = answer.source.duration_s;
  if (seconds > headSeconds.clip && seconds <= headSeconds.emotion) return undefined;
  return { source: answer.source, result: result(answer.result as AnalyzeResult) };
}

/**
 * The routes whose answers /analyze contains, by path: its parts equal their dedicated routes' answers
 * (analyze.ts: the same engines over the same frames), so while a file's /analyze is cached or being
 * computed, /naming, /features (with rhythm), /analyze/samples (without a name) and /analyze/emotion
 * of that file cost no pass over its audio. The library summary relies on it for /naming.
 */
export function analyzeDerivations(): ReadonlyMap<string, Derivation> {
  const s = audioRouteSpecs;
  const from = librarySummaryPlan().analyze;
  return new Map<string, Derivation>([
    [
      s.naming.path,
      {
        from,
        headSeconds: s.naming.headSeconds,
        derive: (answer, params) => fromAnalyzeHead(answer, (a) => nameFromAnalysis(a.sample, params.index as number)),
      },
    ],
    [
      s.samples.path,
      {
        from,
        headSeconds: s.samples.headSeconds,
        // A name can mark percussive material as a loop; /analyze's sample analysis runs without one.
        derive: (answer, params) => (params.name === '' ? fromAnalyzeHead(answer, (a) => a.sample) : undefined),
      },
    ],
    [
      s.features.path,
      {
        from,
        headSeconds: s.features.headSeconds,
        derive: (answer, params) => (params.rhythm === true ? fromAnalyzeHead(answer, (a) => a.features) : undefined),
      },
    ],
    [
      s.emotion.path,
      {
        from,
        headSeconds: s.emotion.headSeconds,
        // The same 60 s head as /analyze: the same source block.
        derive: (answer) => ({ source: answer.source, result: (answer.result as AnalyzeResult).emotion }),
      },
    ],
  ]);
}
