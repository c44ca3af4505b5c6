import type { Router } from 'express';
import type { ProjectService } from '../projects/projects.js';
import { paramsOf, readableProjectOf } from '../request.js';
import type { RepositoryFileAnalyses } from './file-analysis.js';

/** What the analysis route needs. */
export interface AnalysisRouteDeps {
  readonly projects: ProjectService;
  readonly analyses: RepositoryFileAnalyses;
}

/** Seconds the GUI waits between polls of a pending analysis. */
const retryAfterS = 2;

/**
 * GET /projects/:id/repository/files/:file_path/analysis (a Cratehouse extension, not in GitLab):
 * 200 with the audio analysis and waveform of the file at `ref` (the default branch when absent),
 * 202 while it runs (the first request queues it), 422 when the file is not audio; access and 404s
 * as the Files API.
 */
export function mountAnalysisRoutes(router: Router, deps: AnalysisRouteDeps): void {
  router.get('/projects/:id/repository/files/:file_path/analysis', async (req, res) => {
    const project = readableProjectOf(deps.projects, req, res);
    const params = paramsOf(req);
    const ref = params.string('ref');
    params.check();
    const answer = await deps.analyses.analysisOf(project, String(req.params.file_path), ref || project.defaultBranch);
    if (answer.status === 'pending') res.status(202).set('Retry-After', String(retryAfterS));
    res.set('Cache-Control', 'private, no-store').json(answer);
  });
}
