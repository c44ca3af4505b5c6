/**
 * The RepositoryAudio capability hosting is handed (see hosting/repository/repository-audio.ts),
 * over the audio AnalysisService: a repository file is analysed in place, as /audio/v1/analyze and
 * /audio/v1/waveform (800 bins) would analyse an upload of the same bytes, and cached the same way.
 * Part of the composition: the one place that knows both services.
 */
import type { AnalysisService } from './audio/analysis/analysis-service.js';
import { presentAnalysis } from './audio/http/present.js';
import { audioRouteSpecs } from './audio/http/route-specs.js';
import { waveformQuerySchema } from './audio/http/schemas.js';
import type { AudioAnswers, RepositoryAudio } from './hosting/repository/repository-audio.js';

/** The two routes whose answers the project view shows, with the parameters an upload to them would carry. */
const routes = {
  analysis: {
    path: audioRouteSpecs.analyze.path,
    engine: audioRouteSpecs.analyze.engine,
    params: {},
    head: audioRouteSpecs.analyze.headSeconds,
  },
  waveform: {
    path: audioRouteSpecs.waveform.path,
    engine: audioRouteSpecs.waveform.engine,
    params: waveformQuerySchema.parse({ bins: 800 }) as Record<string, unknown>,
    head: undefined,
  },
} as const;

/** Repository audio over the analysis service; `owner` is the analysis tenant, so answers stay the owner's. */
export function createRepositoryAudio(analysis: AnalysisService): RepositoryAudio {
  return {
    async find(owner, sha256) {
      const [a, w] = await Promise.all(
        [routes.analysis, routes.waveform].map((r) => analysis.lookup(owner, sha256, r.path, r.engine, r.params, r.head)),
      );
      if (!a || !w) return undefined;
      return { analysis: presentAnalysis(a.source, a.result), waveform: presentAnalysis(w.source, w.result) };
    },
    async analyse(owner, file, priority): Promise<AudioAnswers> {
      // One after the other: the waveform of a file that is not audio is not tried.
      const a = await analysis.analyseFile(owner, file, routes.analysis.path, routes.analysis.engine, routes.analysis.params, {
        headSeconds: routes.analysis.head,
        priority,
      });
      const w = await analysis.analyseFile(owner, file, routes.waveform.path, routes.waveform.engine, routes.waveform.params, { priority });
      return { analysis: presentAnalysis(a.source, a.result), waveform: presentAnalysis(w.source, w.result) };
    },
  };
}
