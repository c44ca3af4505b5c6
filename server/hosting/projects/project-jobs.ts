import type { JobContext, JobHandler } from '../../queue/job-runner.js';
import { scrubCredentials } from './present-project.js';
import { projectJobTypes, type ProjectService } from './projects.js';

/** What fork and import jobs carry (stored on the job, so a restart runs them again). */
export interface ProjectJobParams {
  readonly projectId: number;
}

/**
 * The handlers of the project jobs. Each moves the project's `import_status` scheduled → started →
 * finished, or failed with `import_error`; a rerun after a restart starts from a clean target folder.
 * A failed import still leaves an empty repository, so the project stays usable.
 */
export function createProjectJobHandlers(service: ProjectService): ReadonlyMap<string, JobHandler> {
  const run = (copy: (service: ProjectService, ctx: JobContext, target: string, projectId: number) => Promise<void>): JobHandler =>
    async (ctx) => {
      const { projectId } = ctx.params as ProjectJobParams;
      const project = service.repo.byId(projectId);
      if (!project) return { result: { project_id: projectId, skipped: 'project deleted' } };
      const target = service.paths.repository(project);
      await service.repo.update(projectId, { importStatus: 'started', importError: null });
      try {
        ctx.checkpoint(0);
        await service.git.remove(target);
        await copy(service, ctx, target, projectId);
        ctx.checkpoint(1);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        if (service.repo.byId(projectId)) {
          await service.git.remove(target);
          await service.git.init(target, project.defaultBranch);
          await service.repo.update(projectId, { importStatus: 'failed', importError: message });
        }
        throw error;
      }
      const stats = await service.git.stats(target, project.defaultBranch);
      const readmePath = await service.git.readme(target, stats.defaultBranch ?? project.defaultBranch);
      const updated = await service.repo.update(projectId, { importStatus: 'finished', importError: null, emptyRepo: stats.empty, readmePath, ...(stats.defaultBranch ? { defaultBranch: stats.defaultBranch } : {}) });
      return { result: { project_id: updated.id, import_status: updated.importStatus } };
    };

  return new Map<string, JobHandler>([
    [
      projectJobTypes.fork,
      run(async (service, ctx, target, projectId) => {
        const fork = service.repo.byId(projectId)!;
        const source = fork.forkedFromId === null ? undefined : service.repo.byId(fork.forkedFromId);
        if (!source) throw new Error('The project this fork was made from no longer exists');
        await service.git.fork(service.paths.repository(source), target, ctx.signal);
      }),
    ],
    [
      projectJobTypes.import,
      run(async (service, ctx, target, projectId) => {
        const url = service.repo.byId(projectId)?.importUrl;
        if (!url) throw new Error('The project has no import URL');
        try {
          await service.git.importFrom(url, target, ctx.signal);
        } catch (error) {
          // Never keep a token from the URL in a message a reader of the project may see.
          const message = error instanceof Error ? error.message : String(error);
          const raw = new URL(url);
          throw new Error(raw.password || raw.username ? message.split(url).join(scrubCredentials(url) ?? '') : message);
        }
      }),
    ],
  ]);
}
