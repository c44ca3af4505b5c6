/**
 * Audio analysis of repository files for the project view: the file read through the git layer,
 * an LFS pointer resolved to the project's object, and the bytes handed to the audio capability in
 * place (a blob is written to a temporary file; an LFS object is read where it is stored). Answers
 * are kept under an owner that is the project, so only those who may read the project see them.
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { ProjectRecord } from '../../store/schema.js';
import { AppError } from '../../http/errors.js';
import type { Logger } from '../../http/logger.js';
import type { RepositoryFileAnalysis } from '../api-types.js';
import type { ChangedFile } from '../git/changed-files.js';
import type { RefChange } from './repository-writer.js';
import type { LfsContent } from './lfs-content.js';
import { isAudioPath, type AudioPriority, type HeldAudioFile, type RepositoryAudio } from './repository-audio.js';
import type { FileHandle, RepositoryReader } from './repository-reader.js';

/** Limits of the analyses a push queues. */
export interface FileAnalysisOptions {
  /** Audio files one push queues at most. */
  readonly maxFilesPerPush: number;
  /** Larger files are not queued by a push (they are analysed when someone asks). */
  readonly maxBytes: number;
  /** Where a blob is written while it is analysed. */
  readonly tmpDir: string;
}

/** The bytes to analyse: the blob, or the LFS object its pointer names. */
interface AudioContent {
  readonly sha256: string;
  readonly size: number;
  /** The stored LFS object, read in place; absent for a blob (written to a temporary file). */
  readonly objectPath?: string;
  readonly file: FileHandle;
}

const notAudio = () => new AppError('unprocessable', 'Not an audio file', { code: 'not_audio' });

/** Remembered refusals (not audio), so a poll does not decode the same file again; bounded. */
const MAX_REMEMBERED_REFUSALS = 1000;

/** The analysis route's service, and what a push queues. */
export class RepositoryFileAnalyses {
  private readonly running = new Map<string, Promise<void>>();
  private readonly refused = new Set<string>();
  /** Pushes whose files are still being listed. */
  private readonly queueing = new Set<Promise<void>>();

  constructor(
    private readonly reader: RepositoryReader,
    private readonly lfs: LfsContent,
    private readonly audio: RepositoryAudio,
    private readonly listChanged: (project: Readonly<ProjectRecord>, before: string, after: string) => Promise<ChangedFile[]>,
    private readonly options: FileAnalysisOptions,
    private readonly log: Logger,
  ) {}

  /** The analysis of `filePath` at `ref`: ready, or pending (and queued when it was not); 422 when not audio. */
  async analysisOf(project: Readonly<ProjectRecord>, filePath: string, ref: string): Promise<RepositoryFileAnalysis> {
    const file = await this.reader.file(project, filePath, ref);
    const { file_path, blob_id } = file.metadata;
    if (!isAudioPath(file_path)) throw notAudio();
    const content = await this.contentOf(project, file);
    const owner = ownerOf(project);
    const found = await this.audio.find(owner, content.sha256);
    if (found) return { status: 'ready', file_path, blob_id, sha256: content.sha256, size: content.size, ...found };
    if (this.refused.has(keyOf(owner, content.sha256))) throw notAudio();
    await this.start(owner, content, 'interactive');
    return { status: 'pending', file_path, blob_id };
  }

  /** After a push or an API commit: queue the analysis of the audio files it added or changed, at background priority. */
  queueAfterPush(project: Readonly<ProjectRecord>, changes: readonly RefChange[]): void {
    const queued = this.queue(project, changes)
      .catch((error: unknown) => this.log.error(`queueing the analysis of a push to ${project.id}`, error))
      .finally(() => this.queueing.delete(queued));
    this.queueing.add(queued);
  }

  /** Resolves once no analysis this service started is running (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.running.size > 0 || this.queueing.size > 0) await Promise.allSettled([...this.queueing, ...this.running.values()]);
  }

  private async queue(project: Readonly<ProjectRecord>, changes: readonly RefChange[]): Promise<void> {
    const seen = new Set<string>();
    let queued = 0;
    for (const change of changes) {
      if (!change.ref.startsWith('refs/heads/') || /^0+$/.test(change.after)) continue;
      for (const changed of await this.listChanged(project, change.before, change.after)) {
        if (queued >= this.options.maxFilesPerPush) return;
        if (!isAudioPath(changed.path) || seen.has(changed.blobId)) continue;
        seen.add(changed.blobId);
        try {
          const content = await this.contentOf(project, await this.reader.file(project, changed.path, change.after));
          if (content.size > this.options.maxBytes) continue;
          queued += 1;
          await this.start(ownerOf(project), content, 'background');
        } catch (error) {
          // One file that cannot be read (a branch moved on meanwhile) does not stop the others.
          this.log.error(`queueing the analysis of ${changed.path} in project ${project.id}`, error);
        }
      }
    }
  }

  /** The bytes a file stands for: the LFS object when it is a pointer the project has the object of. */
  private async contentOf(project: Readonly<ProjectRecord>, file: FileHandle): Promise<AudioContent> {
    const object = await this.lfs.objectOf(project, file);
    if (object) return { sha256: object.oid, size: object.size, objectPath: object.path, file };
    return { sha256: file.metadata.content_sha256, size: file.size, file };
  }

  /** Start an analysis unless one of these bytes for this owner runs already. */
  private async start(owner: string, content: AudioContent, priority: AudioPriority): Promise<void> {
    const key = keyOf(owner, content.sha256);
    if (this.running.has(key)) return;
    const run = this.analyse(owner, content, priority)
      .catch((error: unknown) => {
        if (error instanceof AppError && (error.kind === 'unsupported-media' || error.kind === 'unprocessable')) {
          if (this.refused.size >= MAX_REMEMBERED_REFUSALS) this.refused.clear();
          this.refused.add(key);
        } else this.log.error(`analysing ${content.sha256} for ${owner}`, error);
      })
      .finally(() => this.running.delete(key));
    this.running.set(key, run);
  }

  private async analyse(owner: string, content: AudioContent, priority: AudioPriority): Promise<void> {
    if (content.objectPath) {
      await this.audio.analyse(owner, { path: content.objectPath, sha256: content.sha256, size: content.size }, priority);
      return;
    }
    const held: HeldAudioFile = {
      path: path.join(this.options.tmpDir, `repository-audio-${randomUUID()}`),
      sha256: content.sha256,
      size: content.size,
    };
    try {
      await pipeline(content.file.open(), createWriteStream(held.path, { mode: 0o600 }));
      await this.audio.analyse(owner, held, priority);
    } finally {
      await rm(held.path, { force: true });
    }
  }
}

/**
 * The owner a project's analyses are kept under. Not a tenant id (those never hold ':'), so no
 * caller's own hash-first lookups can reach it.
 */
function ownerOf(project: Readonly<ProjectRecord>): string {
  return `project:${project.id}`;
}

function keyOf(owner: string, sha256: string): string {
  return `${owner}/${sha256}`;
}
