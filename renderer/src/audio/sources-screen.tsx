import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { createSourceJob } from '../api/audio';
import { useSignedIn } from '../lib/session-context';
import { EmptyState, Panel } from '../ui/panel';
import { Problem } from '../ui/status';
import { jobListKey, loadJobList, saveJobList, withJob, withoutJob, type RememberedJob } from './sources/job-list';
import { SourceJobCard, sourceJobKey } from './sources/source-job-card';
import { submitProblem } from './sources/source-format';
import './sources/sources.css';

function storage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

/** The tenant's remembered jobs, kept in step with localStorage (and with other tabs). */
function useJobList(tenant: string) {
  const [jobs, setJobs] = useState<RememberedJob[]>(() => loadJobList(storage(), tenant));
  // The tenant cannot change while this screen is shown (signing out unmounts it), so the first
  // read stands; another tab's changes arrive as storage events.
  useEffect(() => {
    const onStorage = (event: StorageEvent) => {
      if (event.key === null || event.key === jobListKey(tenant)) setJobs(loadJobList(storage(), tenant));
    };
    window.addEventListener('storage', onStorage);
    return () => window.removeEventListener('storage', onStorage);
  }, [tenant]);
  const change = (next: (list: RememberedJob[]) => RememberedJob[]) =>
    setJobs((list) => {
      const updated = next(list);
      saveJobList(storage(), tenant, updated);
      return updated;
    });
  return {
    jobs,
    add: (job: RememberedJob) => change((list) => withJob(list, job)),
    forget: (id: string) => change((list) => withoutJob(list, id)),
  };
}

function SourceForm({ token, onStarted }: { readonly token: string; readonly onStarted: (job: RememberedJob) => void }) {
  const queryClient = useQueryClient();
  const [url, setUrl] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const ids = { url: useId(), help: useId(), problem: useId() };
  const submit = useMutation({
    mutationFn: (value: string) => createSourceJob(token, { url: value }),
    onSuccess: (job, value) => {
      queryClient.setQueryData(sourceJobKey(job.job_id), job);
      onStarted({ id: job.job_id, url: value, added: Date.now() });
      setUrl('');
    },
    onError: (error) => {
      setProblem(submitProblem(error));
      input.current?.focus();
    },
  });

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (submit.isPending) return;
    const value = url.trim();
    if (value === '') {
      setProblem('Paste the address of a page or a media file first.');
      input.current?.focus();
      return;
    }
    setProblem(null);
    submit.mutate(value);
  };

  return (
    <form className="sources-form" onSubmit={onSubmit} noValidate aria-busy={submit.isPending}>
      <label className="label" htmlFor={ids.url}>
        Page or media URL
      </label>
      <div className="token-row">
        <input
          ref={input}
          id={ids.url}
          name="url"
          className="input mono"
          type="url"
          inputMode="url"
          autoComplete="off"
          spellCheck={false}
          placeholder="https://example.com/track-page"
          value={url}
          onChange={(event) => {
            setUrl(event.target.value);
            setProblem(null);
          }}
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? `${ids.problem} ${ids.help}` : ids.help}
        />
        <button type="submit" className="button button-primary" aria-disabled={submit.isPending}>
          {submit.isPending ? 'Starting…' : 'Fetch audio'}
        </button>
      </div>
      <p className="help" id={ids.help}>
        A direct link to a file (WAV, FLAC, MP3, AAC, Ogg, video…) or a page with a player. The server downloads it and keeps a 44.1 kHz
        WAV.
      </p>
      {problem ? (
        <Problem id={ids.problem} title="This URL cannot be fetched.">
          <p>{problem}</p>
        </Problem>
      ) : null}
    </form>
  );
}

/** Sources: fetch the audio behind a URL as a job, watch it, then download the WAV or analyse it. */
export function SourcesScreen() {
  const { token, me } = useSignedIn();
  const { jobs, add, forget } = useJobList(me.tenant.id);

  return (
    <div className="sources-screen">
      <div className="intro">
        <p className="eyebrow">Sources</p>
        <p className="lead">Turn a media link or a page with audio into a 44.1 kHz WAV, then download it or open it in Analyse.</p>
      </div>
      <Panel title="Fetch from a URL">
        <SourceForm token={token} onStarted={add} />
      </Panel>
      <Panel title="Jobs" className="sources-jobs-panel">
        {jobs.length === 0 ? (
          <EmptyState title="No sources fetched yet">
            <p>Paste a URL above and choose Fetch audio. Jobs started here are remembered in this browser and refreshed from the server.</p>
          </EmptyState>
        ) : (
          <ul className="sources-job-list" aria-label="Source jobs">
            {jobs.map((job) => (
              <li key={job.id}>
                <SourceJobCard token={token} job={job} onForget={forget} />
              </li>
            ))}
          </ul>
        )}
      </Panel>
    </div>
  );
}
