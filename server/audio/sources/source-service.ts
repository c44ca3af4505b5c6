import { AppError } from '../../http/errors.js';
import type { JobRunner } from '../../queue/job-runner.js';
import type { JobRecord } from '../../store/schema.js';
import type { ArtifactStore, StoredArtifact } from '../artifacts/artifact-store.js';
import { sourceJobType, sourceKey, type SourceParams } from './source-job.js';
import type { SourcesRepo } from './sources-repo.js';

/** A validated `POST /sources` body. */
export interface SourceRequest {
  readonly url: string;
  readonly priority: number;
  readonly webhook_url: string | null;
}

/** Source fetching and artifact access, as the routes see them. */
export class SourceService {
  constructor(
    private readonly jobs: JobRunner,
    private readonly repo: SourcesRepo,
    private readonly artifacts: ArtifactStore,
    /** Null when ffmpeg is missing: sources cannot be converted, so none are accepted. */
    private readonly unavailableBecause: string | null,
  ) {}

  /**
   * Queue a fetch of the URL, or, when the URL was fetched before and its artifact still exists,
   * record a job born `done` with the same descriptor (no download).
   */
  async submit(tenant: string, request: SourceRequest): Promise<Readonly<JobRecord>> {
    const key = sourceKey(request.url);
    const submission = {
      type: sourceJobType,
      tenant,
      params: { url: request.url } satisfies SourceParams,
      priority: request.priority,
      webhookUrl: request.webhook_url,
    };
    const known = this.repo.byUrl(key);
    if (known) {
      if (await this.artifacts.find(known.contentId, known.name)) {
        return this.jobs.submitDone(submission, {
          result: { ...known.descriptor, url: request.url },
          resultRef: String(known.descriptor.artifact_ref),
        });
      }
      await this.repo.forget(key);
    }
    if (this.unavailableBecause) throw new AppError('unavailable', this.unavailableBecause, { code: 'ffmpeg_missing' });
    return this.jobs.submit(submission);
  }

  /**
   * The artifact with these bytes if this tenant fetched it (a source job of theirs ended with it);
   * undefined otherwise, also when another tenant fetched it: a hash is not possession.
   */
  async findFetchedArtifact(tenant: string, sha256: string): Promise<StoredArtifact | undefined> {
    const job = this.jobs.findDoneForTenant(tenant, sourceJobType, (r) => (r as { content_id?: unknown } | null)?.content_id === sha256);
    if (!job) return undefined;
    return (await this.artifacts.findByContent(sha256)) ?? undefined;
  }

  /** An artifact by its reference, or `not-found` (malformed references included: nothing escapes the folder). */
  async artifact(contentId: string, name: string): Promise<StoredArtifact> {
    const found = await this.artifacts.find(contentId, name);
    if (!found) throw new AppError('not-found', 'Artifact not found');
    return found;
  }
}
