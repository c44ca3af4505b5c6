import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { useNavigate } from 'react-router';
import { cancelJob, downloadArtifact, getJob, type JobStatus, type SourceDescriptor } from '../../api/audio';
import { ApiError } from '../../api/http';
import { formatBytes, formatChannels } from '../../lib/format';
import { saveBlob } from '../../lib/save-blob';
import { Fact } from '../../ui/fact';
import { ProgressBar } from '../../ui/progress-bar';
import { Busy, Pill, Problem } from '../../ui/status';
import { setPendingAnalysis } from './handoff';
import type { RememberedJob } from './job-list';
import { descriptorOf, formatDuration, formatVia, jobErrorSentence } from './source-format';

/** The query key of one job's status. */
export function sourceJobKey(id: string): readonly unknown[] {
  return ['audio', 'job', id];
}

const active = (job: JobStatus | undefined) => job?.status === 'pending' || job?.status === 'running';
const time = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

function StatusPill({ job }: { readonly job: JobStatus }) {
  switch (job.status) {
    case 'pending':
      return <Pill tone="neutral">Waiting</Pill>;
    case 'running':
      return <Pill tone="neutral">Fetching</Pill>;
    case 'done':
      return <Pill tone="ok">Done</Pill>;
    case 'error':
      return job.error === 'cancelled' ? <Pill tone="warn">Cancelled</Pill> : <Pill tone="bad">Failed</Pill>;
  }
}

/** What the job is doing, from the progress checkpoints the server documents (0.7 downloaded, 0.95 converted). */
function phaseOf(job: JobStatus): string {
  if (job.status === 'pending') return 'Waiting for the job queue';
  if (job.progress < 0.7) return 'Downloading';
  if (job.progress < 0.95) return 'Converting to a 44.1 kHz WAV';
  return 'Storing the WAV';
}

function Descriptor({ source }: { readonly source: SourceDescriptor }) {
  return (
    <dl className="facts sources-facts">
      <Fact term="File">
        <span className="mono truncate">{source.name}</span>
      </Fact>
      <Fact term="Found via">{formatVia(source.via)}</Fact>
      <Fact term="Source codec">
        <span>
          <span className="mono">{source.source_codec}</span>
          <span className="muted">
            {' '}
            · {source.source_sample_rate.toLocaleString()} Hz{source.media_type ? ` · ${source.media_type}` : ''}
          </span>
        </span>
      </Fact>
      <Fact term="Duration">{formatDuration(source.duration_s)}</Fact>
      <Fact term="Sample rate">{source.sample_rate.toLocaleString()} Hz</Fact>
      <Fact term="Channels">{formatChannels(source.channels)}</Fact>
      <Fact term="Bits">{source.bits_per_sample}-bit PCM</Fact>
      <Fact term="Size">{formatBytes(source.bytes)}</Fact>
      {source.final_url !== source.url ? (
        <Fact term="Came from">
          <span className="mono truncate" title={source.final_url}>
            {source.final_url}
          </span>
        </Fact>
      ) : null}
    </dl>
  );
}

function FinishedActions({ token, source }: { readonly token: string; readonly source: SourceDescriptor }) {
  const navigate = useNavigate();
  const [busy, setBusy] = useState<'download' | 'analyse' | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const problemId = useId();

  const fetchWav = async (purpose: 'download' | 'analyse') => {
    if (busy) return;
    setBusy(purpose);
    setProblem(null);
    try {
      const blob = await downloadArtifact(token, source.content_id, source.name);
      if (purpose === 'download') {
        saveBlob(blob, source.name);
        setBusy(null);
      } else {
        // The server holds the artifact (content_id is its SHA-256): Analyse asks by hash, uploading nothing.
        setPendingAnalysis(new File([blob], source.name, { type: 'audio/wav' }), source.content_id);
        void navigate('/analyse');
      }
    } catch (error) {
      setBusy(null);
      setProblem(error instanceof Error ? error.message : 'The WAV could not be downloaded.');
    }
  };

  return (
    <div className="sources-finished">
      <div className="row">
        <button
          type="button"
          className="button button-primary"
          onClick={() => void fetchWav('download')}
          aria-disabled={busy !== null}
          aria-describedby={problem ? problemId : undefined}
        >
          {busy === 'download' ? 'Downloading…' : 'Download WAV'}
        </button>
        <button
          type="button"
          className="button button-secondary"
          onClick={() => void fetchWav('analyse')}
          aria-disabled={busy !== null}
          aria-describedby={problem ? problemId : undefined}
        >
          {busy === 'analyse' ? 'Opening…' : 'Analyse'}
        </button>
      </div>
      {problem ? (
        <Problem id={problemId} title="The WAV could not be downloaded.">
          <p>{problem}</p>
        </Problem>
      ) : null}
    </div>
  );
}

/** One source job: its progress while it runs, what it fetched when done, or why it failed. */
export function SourceJobCard({
  token,
  job: remembered,
  onForget,
}: {
  readonly token: string;
  readonly job: RememberedJob;
  readonly onForget: (id: string) => void;
}) {
  const queryClient = useQueryClient();
  const headingId = useId();
  const query = useQuery({
    queryKey: sourceJobKey(remembered.id),
    queryFn: ({ signal }) => getJob(token, remembered.id, signal),
    // Poll while the server works on it; a finished job never changes again.
    refetchInterval: (q) => (active(q.state.data) ? 1000 : false),
    staleTime: (q) => (active(q.state.data) ? 0 : Infinity),
  });
  const [cancelling, setCancelling] = useState(false);
  const [cancelProblem, setCancelProblem] = useState<string | null>(null);
  const job = query.data;
  const source = job ? descriptorOf(job) : null;
  const gone = query.error instanceof ApiError && query.error.status === 404;

  const cancel = () => {
    if (cancelling) return;
    setCancelling(true);
    setCancelProblem(null);
    cancelJob(token, remembered.id).then(
      (status) => {
        queryClient.setQueryData(sourceJobKey(remembered.id), status);
        setCancelling(false);
      },
      (error: unknown) => {
        setCancelling(false);
        setCancelProblem(error instanceof Error ? error.message : 'The job could not be cancelled.');
      },
    );
  };

  return (
    <article
      className="sources-job"
      aria-labelledby={headingId}
      data-status={job ? (job.error === 'cancelled' ? 'cancelled' : job.status) : 'unknown'}
      aria-busy={active(job) || undefined}
    >
      <header className="sources-job-header">
        <div className="sources-job-title">
          <h3 id={headingId} className="sources-job-url mono" title={remembered.url}>
            {remembered.url}
          </h3>
          <p className="muted small">Started {time.format(new Date(remembered.added))}</p>
        </div>
        {job ? <StatusPill job={job} /> : null}
      </header>

      {query.isPending ? <Busy>Reading the job from the server…</Busy> : null}
      {query.error && !job ? (
        <Problem title={gone ? 'The server no longer knows this job.' : 'The job could not be read.'}>
          <p>{gone ? 'It may have been started by another token or removed from the server.' : query.error.message}</p>
        </Problem>
      ) : null}

      {job && active(job) ? (
        <div className="sources-progress">
          {/* Without a Content-Length the server may report no progress for a while: show work, not 0 %. */}
          <ProgressBar label={phaseOf(job)} value={job.status === 'pending' || job.progress === 0 ? null : job.progress} />
        </div>
      ) : null}

      {job?.status === 'error' ? (
        job.error === 'cancelled' ? (
          <p className="sources-cancelled">Cancelled. Nothing was kept; submit the URL again to fetch it.</p>
        ) : (
          <Problem title="Fetching failed.">
            <p>{jobErrorSentence(job)}</p>
          </Problem>
        )
      ) : null}

      {source ? <Descriptor source={source} /> : null}
      {job?.status === 'done' && !source ? (
        <Problem title="The job finished without a WAV.">
          <p>Its result does not describe a fetched source.</p>
        </Problem>
      ) : null}

      <div className="sources-job-footer">
        {source ? <FinishedActions token={token} source={source} /> : null}
        <div className="row sources-secondary">
          {active(job) ? (
            <button type="button" className="button button-secondary" onClick={cancel} aria-disabled={cancelling}>
              {cancelling ? 'Cancelling…' : 'Cancel'}
            </button>
          ) : (
            <button
              type="button"
              className="button button-ghost"
              onClick={() => onForget(remembered.id)}
              aria-label={`Remove ${remembered.url} from the list`}
            >
              Remove from list
            </button>
          )}
        </div>
        {cancelProblem ? (
          <Problem title="The job could not be cancelled.">
            <p>{cancelProblem}</p>
          </Problem>
        ) : null}
      </div>
    </article>
  );
}
