// Words and figures for a source job: its state, what was fetched, and why a request was refused
// (sizes and channel counts are lib/format's).
import type { JobStatus, SourceDescriptor } from '../../api/audio';
import { messageOf } from '../../api/error-message';
import { ApiError } from '../../api/http';

const oneDecimal = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });

/** A duration as "4.2 s", "3:07" or "1:02:05". */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '—';
  if (seconds < 60) return `${oneDecimal.format(seconds)} s`;
  const total = Math.round(seconds);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** How the audio was found: the URL itself, a page's player, or yt-dlp. */
export function formatVia(via: SourceDescriptor['via']): string {
  switch (via) {
    case 'direct':
      return 'Direct link to the media';
    case 'page':
      return 'Found on the web page';
    case 'yt-dlp':
      return 'yt-dlp (site extractor)';
  }
}

/** A job's result as a source descriptor, or null when it is not one (not finished, another job type). */
export function descriptorOf(job: JobStatus): SourceDescriptor | null {
  const result = job.result;
  if (job.status !== 'done' || !result) return null;
  const { content_id, name, duration_s, channels } = result as Partial<Record<keyof SourceDescriptor, unknown>>;
  if (typeof content_id !== 'string' || typeof name !== 'string' || typeof duration_s !== 'number' || typeof channels !== 'number')
    return null;
  return result as unknown as SourceDescriptor;
}

/** What a finished-in-error job says: "Cancelled." for a cancelled one, else the server's sentence. */
export function jobErrorSentence(job: JobStatus): string {
  if (job.error === 'cancelled') return 'Cancelled.';
  const text = (job.error ?? '').trim();
  if (text === '') return 'The job failed without saying why.';
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/**
 * Why POST /sources refused a request, as a sentence about the URL: a 422 for the url field gives
 * the validator's own words without the field path; anything else the API error's sentence.
 */
export function submitProblem(error: unknown): string {
  if (error instanceof ApiError) {
    const detail = (error.body as { detail?: unknown } | undefined)?.detail;
    if (error.status === 422 && Array.isArray(detail)) {
      const urlIssue = detail.find(
        (item): item is { loc: unknown[]; msg: string } =>
          typeof item === 'object' &&
          item !== null &&
          Array.isArray((item as { loc?: unknown }).loc) &&
          (item as { loc: unknown[] }).loc.includes('url') &&
          typeof (item as { msg?: unknown }).msg === 'string',
      );
      if (urlIssue) return /[.!?]$/.test(urlIssue.msg) ? urlIssue.msg : `${urlIssue.msg}.`;
    }
    return error.message;
  }
  return messageOf(error, 'The request could not be sent.');
}
