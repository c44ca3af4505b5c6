import path from 'node:path';
import type { OutboundPolicy } from '../../http/outbound.js';
import type { JobHandler, JobRunner } from '../../queue/job-runner.js';
import { ArtifactStore } from '../artifacts/artifact-store.js';
import { ffmpegHasSoxr } from './convert-to-wav.js';
import { createSourceJobHandler } from './source-job.js';
import { SourceService } from './source-service.js';
import type { SourcesRepo } from './sources-repo.js';
import { resolveYtDlp, type YtDlp } from './yt-dlp.js';

/** The parts of the sources capability, built before the job runner that needs the handler. */
export interface SourcesSetup {
  readonly handler: JobHandler;
  readonly ytdlp: YtDlp | null;
  /** The artifact store (the library's content store links from it). */
  readonly artifacts: ArtifactStore;
  /** The service the routes use, once the runner exists. */
  connect(jobs: JobRunner): SourceService;
}

/** Wire sources and artifacts for one data dir (used by startServer and the test harness alike). */
export async function setUpSources(options: {
  readonly repo: SourcesRepo;
  readonly dataDir: string;
  readonly ffmpegPath: string | null;
  readonly ytdlpPath: string | null;
  readonly policy: OutboundPolicy;
  readonly maxBytes: number;
  readonly timeoutS: number;
}): Promise<SourcesSetup> {
  const artifacts = new ArtifactStore(path.join(options.dataDir, 'artifacts'));
  const [ytdlp, soxr] = await Promise.all([
    resolveYtDlp(options.ytdlpPath),
    options.ffmpegPath ? ffmpegHasSoxr(options.ffmpegPath) : false,
  ]);
  const handler = createSourceJobHandler({
    artifacts,
    repo: options.repo,
    tmpDir: path.join(options.dataDir, 'tmp'),
    ffmpegPath: options.ffmpegPath,
    soxr,
    ytdlp,
    policy: options.policy,
    maxBytes: options.maxBytes,
    timeoutS: options.timeoutS,
  });
  const unavailable = options.ffmpegPath
    ? null
    : 'Fetching sources needs ffmpeg to convert them to WAV: install ffmpeg or set CRATEHOUSE_FFMPEG';
  return { handler, ytdlp, artifacts, connect: (jobs) => new SourceService(jobs, options.repo, artifacts, unavailable) };
}
