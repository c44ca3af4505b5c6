import type { JobContext, JobHandler } from '../../queue/job-runner.js';
import { scrubCredentials } from './present-project.js';
import { projectJobTypes, type ProjectStores } from './projects.js';

/** What fork and import jobs carry (stored on the job, so a restart runs them again). */
export interface ProjectJobParams {
  readonly projectId: number;
}

/** What a fork job does besides copying the repository. */
export interface ForkSteps {
  /** Make the parent's LFS objects the fork's (shared files, no copy). */
  readonly linkLfs?: (sourceId: number, forkId: number) => Promise<void>;
}

/**
 * The handlers of the project jobs. Each moves the project's `import_status` scheduled → started →
 * finished, or failed with `import_error`; a rerun after a restart starts from a clean target folder.
 * A failed import still leaves an empty repository, so the project stays usable. Everything a fork
 * gets is in place before it reads `finished`: a client that saw it can fetch the LFS objects.
 */
export function createProjectJobHandlers(stores: ProjectStores, forkSteps: ForkSteps = {}): ReadonlyMap<string, JobHandler> {
  const run =
    (copy: (stores: ProjectStores, ctx: JobContext, target: string, projectId: number) => Promise<void>): JobHandler =>
    async (ctx) => {
      const { projectId } = ctx.params as ProjectJobParams;
      const project = stores.repo.byId(projectId);
      if (!project) return { result: { project_id: projectId, skipped: 'project deleted' } };
      const target = stores.paths.repository(project);
      await stores.repo.update(projectId, { importStatus: 'started', importError: null });
      try {
        ctx.checkpoint(0);
        await stores.git.remove(target);
        await copy(stores, ctx, target, projectId);
        ctx.checkpoint(1);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        if (stores.repo.byId(projectId)) {
          await stores.git.remove(target);
          await stores.git.init(target, project.defaultBranch);
          await stores.repo.update(projectId, { importStatus: 'failed', importError: message });
        }
        throw error;
      }
      const stats = await stores.git.stats(target, project.defaultBranch);
      const readmePath = await stores.git.readme(target, stats.defaultBranch ?? project.defaultBranch);
      const updated = await stores.repo.update(projectId, {
        importStatus: 'finished',
        importError: null,
        emptyRepo: stats.empty,
        readmePath,
        ...(stats.defaultBranch ? { defaultBranch: stats.defaultBranch } : {}),
      });
      return { result: { project_id: updated.id, import_status: updated.importStatus } };
    };

  return new Map<string, JobHandler>([
    [
      projectJobTypes.fork,
      run(async (stores, ctx, target, projectId) => {
        const fork = stores.repo.byId(projectId)!;
        const source = fork.forkedFromId === null ? undefined : stores.repo.byId(fork.forkedFromId);
        if (!source) throw new Error('The project this fork was made from no longer exists');
        await stores.git.fork(stores.paths.repository(source), target, ctx.signal);
        await forkSteps.linkLfs?.(source.id, projectId);
      }),
    ],
    [
      projectJobTypes.import,
      run(async (stores, ctx, target, projectId) => {
        const url = stores.repo.byId(projectId)?.importUrl;
        if (!url) throw new Error('The project has no import URL');
        try {
          await stores.git.importFrom(url, target, ctx.signal);
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
