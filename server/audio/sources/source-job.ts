import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../http/errors.js';
import type { OutboundPolicy } from '../../http/outbound.js';
import type { JobContext, JobHandler } from '../../queue/job-runner.js';
import { toArtifactName, type ArtifactStore, type StoredArtifact } from '../artifacts/artifact-store.js';
import type { SourceDescriptor } from '../api-types.js';
import { readWavInfo } from '../decode/wav-reader.js';
import { convertToWav, probeSource, sourceSampleRate, type SourceProbe } from './convert-to-wav.js';
import { discoverCandidates, rankCandidates } from './discover-candidates.js';
import { fetchMedia } from './fetch-media.js';
import type { SourcesRepo } from './sources-repo.js';
import { downloadWithYtDlp, YtDlpUnsupportedError, type YtDlp } from './yt-dlp.js';

/** The job type of `POST /audio/v1/sources`. */
export const sourceJobType = 'source';

/** What a source job is given (stored on the job, so a restart can run it again). */
export interface SourceParams {
  readonly url: string;
}

/** Everything a source job needs. */
export interface SourceJobDeps {
  readonly artifacts: ArtifactStore;
  readonly repo: SourcesRepo;
  readonly tmpDir: string;
  /** Null when ffmpeg is missing: jobs then fail with a sentence saying so. */
  readonly ffmpegPath: string | null;
  readonly soxr: boolean;
  readonly ytdlp: YtDlp | null;
  readonly policy: OutboundPolicy;
  readonly maxBytes: number;
  readonly timeoutS: number;
}

/** Page candidates tried, best first, before giving up. */
const maxCandidates = 5;

/** Path of an artifact in the API. */
export function artifactRef(contentId: string, name: string): string {
  return `/audio/v1/artifacts/${contentId}/${encodeURIComponent(name)}`;
}

/** The URL as a source key: parsed, normalised, fragment dropped. */
export function sourceKey(url: string): string {
  const u = new URL(url);
  u.hash = '';
  return u.toString();
}

/**
 * The handler of `source` jobs: find the best audio behind the URL (direct media, yt-dlp for sites
 * it knows, or a page's best candidate), download it (0 → 0.7), convert it to a 44.1 kHz WAV
 * (0.7 → 0.95) and store it content-addressed. All work happens in a per-job folder under tmp/
 * that is removed whatever happens, so a cancelled or failed job leaves no partial artifact.
 */
export function createSourceJobHandler(deps: SourceJobDeps): JobHandler {
  return async (ctx) => {
    const { url } = ctx.params as SourceParams;
    const ffmpegPath = deps.ffmpegPath;
    if (!ffmpegPath)
      throw new AppError('unavailable', 'Fetching sources needs ffmpeg to convert them to WAV: install ffmpeg or set CRATEHOUSE_FFMPEG', {
        code: 'ffmpeg_missing',
      });
    const work = path.join(deps.tmpDir, `source-${ctx.jobId}`);
    await rm(work, { recursive: true, force: true }); // left by a run a restart interrupted
    await mkdir(work, { recursive: true });
    const deadline = AbortSignal.timeout(deps.timeoutS * 1000);
    const signal = AbortSignal.any([ctx.signal, deadline]);
    try {
      ctx.checkpoint(0);
      const acquired = await acquire(url, work, deps, ctx, signal);
      ctx.checkpoint(0.7);
      const probe = await probeSource(ffmpegPath, acquired.file, signal);
      const wav = path.join(work, 'converted.wav');
      await convertToWav({
        ffmpegPath,
        input: acquired.file,
        output: wav,
        probe,
        soxr: deps.soxr,
        signal,
        onProgress: (f) => report(ctx, 0.7 + 0.25 * f),
      });
      ctx.checkpoint(0.95);
      const stored = await deps.artifacts.put(wav, toArtifactName(acquired.title ?? 'source', 'wav'));
      const descriptor = await describe(stored, url, acquired, probe, ffmpegPath, signal);
      await deps.repo.save({
        url: sourceKey(url),
        contentId: stored.contentId,
        name: stored.name,
        descriptor: { ...descriptor },
        fetchedAt: new Date().toISOString(),
      });
      return { result: descriptor, resultRef: descriptor.artifact_ref };
    } catch (error) {
      if (ctx.signal.aborted) throw error; // cancelled or stopping: the runner decides
      if (deadline.aborted)
        throw new AppError(
          'unavailable',
          `Gave up on ${url} after ${deps.timeoutS} s (the source time limit, CRATEHOUSE_SOURCE_TIMEOUT_S)`,
          { code: 'timeout' },
        );
      throw humane(error, url);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  };
}

interface Acquired {
  readonly file: string;
  readonly finalUrl: string;
  readonly mediaType: string | null;
  readonly via: SourceDescriptor['via'];
  readonly title: string | null;
}

/** Progress from event callbacks: never throws (a cancelled job's signal already stops the child). */
function report(ctx: JobContext, progress: number): void {
  try {
    ctx.checkpoint(progress);
  } catch {
    // cancellation is delivered through the signal
  }
}

async function acquire(url: string, work: string, deps: SourceJobDeps, ctx: JobContext, signal: AbortSignal): Promise<Acquired> {
  const limits = { policy: deps.policy, maxBytes: deps.maxBytes };
  const onBytes = (from: number, to: number) => (bytes: number, total: number | null) =>
    ctx.checkpoint(from + (to - from) * (total ? bytes / total : 1 - Math.exp(-bytes / 64e6)));
  const first = await fetchMedia(url, path.join(work, 'download'), limits, signal, onBytes(0, 0.7));
  if (first.kind === 'media')
    return { file: first.file, finalUrl: first.finalUrl, mediaType: first.mediaType, via: 'direct', title: first.fileName };

  let ytdlpFailure: string | null = null;
  if (deps.ytdlp) {
    try {
      const got = await downloadWithYtDlp({
        ytdlp: deps.ytdlp,
        url: first.finalUrl,
        dir: work,
        prefix: 'ytdlp',
        maxBytes: deps.maxBytes,
        signal,
        onProgress: (f) => report(ctx, 0.05 + 0.65 * f),
      });
      return { file: got.file, finalUrl: first.finalUrl, mediaType: null, via: 'yt-dlp', title: got.title };
    } catch (error) {
      if (signal.aborted) throw error;
      if (!(error instanceof YtDlpUnsupportedError)) ytdlpFailure = error instanceof Error ? error.message : String(error);
    }
  }

  const page = discoverCandidates(first.html, first.finalUrl);
  const ranked = rankCandidates(page.candidates).slice(0, maxCandidates);
  if (ranked.length === 0) {
    throw new AppError(
      'unsupported-media',
      `${first.finalUrl} is a web page without audio or video on it (no <audio>, <video>, <source>, og:audio/og:video or media <link>)${ytdlpFailure ? `; ${ytdlpFailure}` : ''}`,
      { code: 'no_media' },
    );
  }
  const failures: string[] = [];
  for (const candidate of ranked) {
    ctx.checkpoint(0.05);
    try {
      const got = await fetchMedia(candidate.url, path.join(work, 'download'), limits, signal, onBytes(0.05, 0.7));
      if (got.kind === 'media')
        return {
          file: got.file,
          finalUrl: got.finalUrl,
          mediaType: got.mediaType ?? candidate.mediaType,
          via: 'page',
          title: page.title ?? got.fileName,
        };
      failures.push(`${candidate.url} is another web page`);
    } catch (error) {
      if (signal.aborted) throw error;
      failures.push(error instanceof Error ? error.message : String(error));
    }
  }
  throw new AppError('unsupported-media', `None of the media on ${first.finalUrl} could be downloaded: ${failures.join('; ')}`, {
    code: 'no_media',
  });
}

async function describe(
  stored: StoredArtifact,
  url: string,
  acquired: Acquired,
  probe: SourceProbe,
  ffmpegPath: string,
  signal: AbortSignal,
): Promise<SourceDescriptor> {
  const info = await readWavInfo(stored.file);
  // RF64 (over 4 GB) is not read by the WAV reader: ask ffmpeg for the length instead.
  const frames = info?.frames ?? Math.round(((await probeSource(ffmpegPath, stored.file, signal)).durationS ?? 0) * sourceSampleRate);
  const channels = info?.channels ?? probe.channels;
  return {
    content_id: stored.contentId,
    name: stored.name,
    artifact_ref: artifactRef(stored.contentId, stored.name),
    url,
    final_url: acquired.finalUrl,
    via: acquired.via,
    media_type: acquired.mediaType,
    source_codec: probe.codec,
    source_sample_rate: probe.sampleRate,
    duration_s: frames / sourceSampleRate,
    frames,
    sample_rate: sourceSampleRate,
    channels,
    bits_per_sample: info?.bitsPerSample ?? probe.bitsPerSample,
    bytes: stored.bytes,
  };
}

/** Errors a person understands: network failures name the host and what went wrong. */
function humane(error: unknown, url: string): Error {
  if (error instanceof AppError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (/^aborted$|ECONNRESET|socket hang up/i.test(message))
    return new AppError('unavailable', `The connection to ${new URL(url).host} was lost during the download`, {
      code: 'connection_lost',
      cause: error,
    });
  return new AppError('unavailable', `Fetching ${url} failed: ${message}`, { cause: error });
}
