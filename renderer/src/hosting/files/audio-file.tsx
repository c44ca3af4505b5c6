import { useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useState, type ReactNode } from 'react';
import type { Project } from '../../api/hosting';
import { ApiError } from '../../api/http';
import { getFileAnalysis, getRawFile, type FileAnalysis } from '../../api/repository';
import { formatFixed, humanize } from '../../audio/analyse/readouts';
import { formatClock } from '../../audio/analyse/waveform-math';
import { formatBytes } from '../../lib/format';
import { useSignedIn } from '../../lib/session-context';
import { Busy } from '../../ui/status';
import { readingsOf } from './readings';
import { repositoryKeys } from './repository-keys';
import { WaveformStrip } from './waveform-strip';

/** Files up to this size are fetched for playback at once; a larger one waits for a click. */
const autoLoadBytes = 50 * 1000 * 1000;

/** The analysis endpoint itself is missing (an older server): the router's 404, not the file's. */
function isMissingRoute(error: unknown): boolean {
  return error instanceof ApiError && error.status === 404 && !/File Not Found/i.test(JSON.stringify(error.body ?? ''));
}

/** The file's bytes as an object URL for the <audio> element (it cannot send the token header). */
function usePlayableUrl(projectId: number, refName: string, path: string, enabled: boolean) {
  const { token } = useSignedIn();
  const blob = useQuery({
    queryKey: [...repositoryKeys.meta(projectId, refName, path), 'raw'],
    queryFn: ({ signal }) => getRawFile(token, projectId, refName, path, signal),
    enabled,
    staleTime: Infinity,
    gcTime: 0,
  });
  const url = useMemo(() => (blob.data ? URL.createObjectURL(blob.data) : null), [blob.data]);
  useEffect(() => () => (url ? URL.revokeObjectURL(url) : undefined), [url]);
  return { url, blob };
}

function Fact({ label, children, testId }: { readonly label: string; readonly children: ReactNode; readonly testId?: string }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd data-testid={testId}>{children}</dd>
    </div>
  );
}

function Readouts({ analysis }: { readonly analysis: Extract<FileAnalysis, { status: 'ready' }> }) {
  const r = readingsOf(analysis.analysis);
  return (
    <dl className="fl-facts">
      <Fact label="Duration" testId="file-duration">
        <span className="fl-big mono">{formatClock(r.durationS)}</span>
      </Fact>
      <Fact label="Loudness" testId="file-loudness">
        {r.loudnessLufs === null ? (
          <span className="muted">silent</span>
        ) : (
          <>
            <span className="fl-big mono">{formatFixed(r.loudnessLufs, 1)}</span> <span className="muted">LUFS</span>
          </>
        )}
        {r.peakDbfs !== null ? <span className="muted small fl-sub">peak {formatFixed(r.peakDbfs, 1)} dBFS</span> : null}
      </Fact>
      <Fact label="Tempo" testId="file-tempo">
        {r.tempoBpm === null ? (
          <span className="muted">none</span>
        ) : (
          <>
            <span className="fl-big mono">{formatFixed(r.tempoBpm, 1)}</span> <span className="muted">BPM</span>
          </>
        )}
      </Fact>
      <Fact label="Key" testId="file-key">
        {r.key === null ? <span className="muted">no key</span> : <span className="fl-big">{r.key}</span>}
        {r.keyConfidence !== null ? <span className="muted small fl-sub">confidence {formatFixed(r.keyConfidence, 2)}</span> : null}
      </Fact>
      <Fact label="Role" testId="file-role">
        <span className="fl-big">{humanize(r.role)}</span>
        <span className="muted small fl-sub">{Math.round(r.roleConfidence * 100)} % sure</span>
      </Fact>
    </dl>
  );
}

/** An audio file: player, waveform and the server's analysis of it (polled while it runs). */
export function AudioFile({
  project,
  refName,
  path,
  size,
}: {
  readonly project: Project;
  readonly refName: string;
  readonly path: string;
  readonly size: number | null;
}) {
  const { token } = useSignedIn();
  const [asked, setAsked] = useState(false);
  const wantPlayer = asked || (size !== null && size <= autoLoadBytes);
  const [audio, setAudio] = useState<HTMLAudioElement | null>(null);
  const { url, blob } = usePlayableUrl(project.id, refName, path, wantPlayer);
  const analysis = useQuery({
    queryKey: repositoryKeys.analysis(project.id, refName, path),
    queryFn: ({ signal }) => getFileAnalysis(token, project.id, refName, path, signal),
    // 202 pending: ask again every 2 s (the endpoint's Retry-After) until it is ready.
    refetchInterval: (query) => (query.state.data?.status === 'pending' ? 2000 : false),
    retry: false,
  });

  const ready = analysis.data?.status === 'ready' ? analysis.data : null;
  const notAudio = analysis.error instanceof ApiError && analysis.error.status === 422;

  return (
    <div className="fl-audio">
      <div className="fl-player">
        {url ? (
          <audio ref={setAudio} className="fl-audio-element" controls preload="auto" src={url} data-testid="file-audio" />
        ) : wantPlayer ? (
          blob.isError ? (
            <p className="fl-problem">Could not load the file for playback: {blob.error.message}</p>
          ) : (
            <Busy>Loading the audio…</Busy>
          )
        ) : (
          <button type="button" className="button button-secondary" onClick={() => setAsked(true)}>
            Load for playback{size !== null ? ` (${formatBytes(size)})` : ''}
          </button>
        )}
        {ready ? <WaveformStrip waveform={ready.waveform} audio={audio} /> : null}
      </div>
      <section className="fl-analysis" aria-label="Analysis" aria-busy={analysis.isPending || analysis.data?.status === 'pending'}>
        {ready ? <Readouts analysis={ready} /> : null}
        {analysis.isPending || analysis.data?.status === 'pending' ? <Busy>Analysing…</Busy> : null}
        {notAudio ? <p className="muted">Not audio: the server could not decode this file.</p> : null}
        {analysis.isError && isMissingRoute(analysis.error) ? (
          <p className="muted">This server does not analyse repository files yet.</p>
        ) : null}
        {analysis.isError && !notAudio && !isMissingRoute(analysis.error) ? (
          <p className="fl-problem">The analysis failed: {analysis.error.message}</p>
        ) : null}
      </section>
    </div>
  );
}
