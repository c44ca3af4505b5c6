import { useCallback, useEffect, useId, useMemo, useRef, useState } from 'react';
import { formatBytes, formatChannels } from '../lib/format';
import { useConnection } from '../lib/connection-context';
import { rememberAnalysis } from '../lib/recent-analyses';
import { useSignedIn } from '../lib/session-context';
import { FileDrop } from '../ui/file-drop';
import { Panel } from '../ui/panel';
import { Problem } from '../ui/status';
import './analyse/analyse.css';
import { EmotionPanel } from './analyse/emotion-panel';
import { FeaturesPanel } from './analyse/features-panel';
import { GradePanel } from './analyse/grade-panel';
import { LoudnessPanel } from './analyse/loudness-panel';
import { createPlayhead } from './analyse/playhead';
import { formatFixed } from './analyse/readouts';
import { Pending, PendingView, RequestList, UploadProgress } from './analyse/request-status';
import { NamePanel, RolePanel } from './analyse/role-name-panel';
import { SpectrogramView, spectrogramWorker } from './analyse/spectrogram-view';
import { tempoIsNone, tempoOf, tempoSourceOf } from './analyse/tempo';
import { useAnalysis, type AnalysisState } from './analyse/use-analysis';
import { WaveformView } from './analyse/waveform-view';
import { formatClock } from './analyse/waveform-math';
import { onPendingAnalysis, takePendingAnalysis } from './sources/handoff';

type Scale = 'mel' | 'log';

const sizeFormat = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });

/** The `source` block of whichever answer came first (every analysis answer carries it). */
function sourceOf(requests: AnalysisState['requests']) {
  for (const state of Object.values(requests)) if (state.status === 'done') return state.result.source;
  return null;
}

/** File name, duration, sample rate, channels, and the tempo and key large. */
function FileStrip({ state, onFiles }: { readonly state: AnalysisState; readonly onFiles: (files: File[]) => void }) {
  const { file, requests } = state;
  const source = sourceOf(requests);
  // Without an answer: still coming, or never coming when the server refused the file.
  const unknown = state.fileProblem ? '—' : '…';
  const chroma = requests.analyze.status === 'done' ? requests.analyze.result.features.chroma : null;
  const tempo = tempoOf(requests);
  const tempoSource = tempoSourceOf(requests);
  const tempoKnown = tempo !== null || tempoIsNone(requests);
  const keyKnown = chroma !== null;
  const pending = (key: 'onsets' | 'analyze') =>
    requests[key].status === 'failed' || requests[key].status === 'skipped' ? 'not measured' : '…';
  if (!file) return null;
  return (
    <section className="panel an-strip" aria-label="File">
      <div className="an-strip-file">
        <h2 className="an-file-name" title={file.name}>
          {file.name}
        </h2>
        <dl className="an-facts">
          <div>
            <dt>Duration</dt>
            <dd className="mono">{source ? formatClock(source.duration_s) : unknown}</dd>
          </div>
          <div>
            <dt>Sample rate</dt>
            <dd className="mono">{source ? `${sizeFormat.format(source.sample_rate / 1000)} kHz` : unknown}</dd>
          </div>
          <div>
            <dt>Channels</dt>
            <dd>{source ? formatChannels(source.channels) : unknown}</dd>
          </div>
          <div>
            <dt>Format</dt>
            <dd className="mono">{source ? source.format.toUpperCase() : unknown}</dd>
          </div>
          <div>
            <dt>Size</dt>
            <dd className="mono">{formatBytes(file.size)}</dd>
          </div>
        </dl>
      </div>
      <dl className="an-strip-key">
        <div>
          <dt>Tempo</dt>
          <dd>
            {tempoKnown ? (
              tempo === null ? (
                <span className="an-placeholder muted">none</span>
              ) : (
                <>
                  <span className="an-huge mono" data-testid="tempo">
                    {formatFixed(tempo, 1)}
                  </span>{' '}
                  <span className="muted">BPM</span>
                  {tempoSource ? (
                    <span className="muted small" data-testid="tempo-source">
                      {' '}
                      · {tempoSource}
                    </span>
                  ) : null}
                </>
              )
            ) : (
              <span className="an-placeholder muted">{pending('onsets')}</span>
            )}
          </dd>
        </div>
        <div>
          <dt>Key</dt>
          <dd>
            {keyKnown && chroma ? (
              chroma.key === null ? (
                <>
                  <span className="an-placeholder muted" data-testid="key">
                    no key
                  </span>
                  <span className="an-key-confidence small muted" data-testid="key-reason">
                    {noKeyReason(chroma)}
                  </span>
                </>
              ) : (
                <>
                  <span className="an-huge" data-testid="key">
                    {chroma.key} {chroma.mode}
                  </span>
                  <span className={`an-key-confidence small${chroma.key_confidence < 0.1 ? ' an-text-warn' : ' muted'}`}>
                    {chroma.key_confidence < 0.1 ? 'uncertain, ' : ''}confidence {formatFixed(chroma.key_confidence, 2)}
                  </span>
                </>
              )
            ) : (
              <span className="an-placeholder muted">{pending('analyze')}</span>
            )}
          </dd>
        </div>
      </dl>
      {/* A refused file will not be analysed: its row need not be kept. */}
      {state.fileProblem ? null : <UploadProgress requests={requests} size={file.size} />}
      <div className="an-strip-drop">
        <FileDrop compact label="Analyse another file" onFiles={onFiles} />
      </div>
    </section>
  );
}

/** Analyse one file: waveform, spectrogram, loudness, grade, role and name, emotion and features. */
export function AnalyseScreen() {
  const { token } = useSignedIn();
  const { state, start, requestSpectrumLog, setNamingIndex } = useAnalysis(token);
  const [scale, setScale] = useState<Scale>('mel');
  const [playhead] = useState(createPlayhead);
  const scaleName = useId();
  const { file, requests } = state;

  const url = useMemo(() => (file ? URL.createObjectURL(file) : null), [file]);
  useEffect(() => () => (url ? URL.revokeObjectURL(url) : undefined), [url]);

  // The log spectrum is fetched the first time it is shown for a file.
  useEffect(() => {
    if (file && scale === 'log') requestSpectrumLog();
  }, [file, scale, requestSpectrumLog]);

  const choose = useCallback(
    (files: File[], sha256?: string) => {
      const first = files[0];
      if (!first) return;
      // Start the spectrogram's worker while the upload runs, so the first spectrum does not wait for it.
      spectrogramWorker();
      start(first, sha256);
    },
    [start],
  );

  // A file handed over by Sources ("Analyse") or dropped anywhere on the window.
  useEffect(() => {
    const takeHandoff = () => {
      const handed = takePendingAnalysis();
      if (handed) choose([handed.file], handed.sha256);
    };
    takeHandoff();
    return onPendingAnalysis(takeHandoff);
  }, [choose]);

  // Requests that failed because the server was gone or the token refused run again once the shell
  // says the server is back and the person signed in again (the hook takes the new token).
  const connection = useConnection();
  const ready = connection.online && !connection.signInNeeded;
  const interrupted = Object.values(requests).some((r) => r.status === 'failed' && (r.httpStatus === 0 || r.httpStatus === 401));
  // Only on the change back to ready: a request that fails while the server answers its health check
  // keeps its failure (no retry loop).
  const wasReady = useRef(ready);
  useEffect(() => {
    const cameBack = ready && !wasReady.current;
    wasReady.current = ready;
    if (cameBack && interrupted && file) start(file);
  }, [ready, interrupted, file, start]);

  // Home lists recent work: remember the file once its role is known (again when the tempo arrives).
  const analyzed = requests.analyze.status === 'done' ? requests.analyze.result : null;
  const recentTempo = tempoOf(requests);
  useEffect(() => {
    if (!file || !analyzed) return;
    const chroma = analyzed.features.chroma;
    rememberAnalysis({
      name: file.name,
      size: file.size,
      at: Date.now(),
      durationS: analyzed.source.duration_s,
      role: analyzed.sample.role,
      tempoBpm: recentTempo,
      key: chroma.key ? `${chroma.key} ${chroma.mode}` : null,
    });
  }, [file, analyzed, recentTempo]);

  if (!file || !url) {
    return (
      <>
        <div className="intro">
          <p className="eyebrow">Analyse</p>
          <p className="lead">
            See and hear one sample or track: its waveform and spectrogram, loudness, grade, role, a suggested name, emotion and features.
          </p>
        </div>
        <FileDrop
          label="Drop an audio file here"
          hint="WAV, AIFF, FLAC, MP3, Ogg, M4A… The file goes to this Cratehouse server for analysis and plays here, in the browser."
          onFiles={choose}
        />
      </>
    );
  }

  const waveform = requests.waveform.status === 'done' ? requests.waveform.result : null;
  const onsets = requests.onsets.status === 'done' ? requests.onsets.result : null;
  const spectrumState = scale === 'mel' ? requests.spectrumMel : requests.spectrumLog;
  const analyze = requests.analyze.status === 'done' ? requests.analyze.result : null;
  const tempo = tempoOf(requests);
  const duration = waveform ? waveform.frames / waveform.source.sample_rate : (sourceOf(requests)?.duration_s ?? 0);

  return (
    <div className="an-screen">
      <FileStrip state={state} onFiles={choose} />
      {state.fileProblem ? (
        <Problem title="This file could not be analysed.">
          <p className="problem-message" data-testid="file-problem">
            {state.fileProblem}
          </p>
        </Problem>
      ) : null}
      <RequestList requests={requests} />

      <Panel title="Waveform" className="an-panel" busy={!waveform}>
        {waveform ? (
          <WaveformView url={url} waveform={waveform} onsets={onsets} tempoBpm={tempo} playhead={playhead} />
        ) : (
          <PendingView state={requests.waveform} what="waveform" view="waveform" />
        )}
        {requests.onsets.status === 'failed' ? <Pending state={requests.onsets} what="onsets" /> : null}
      </Panel>

      <Panel
        title="Spectrogram"
        className="an-panel"
        busy={spectrumState.status !== 'done'}
        actions={
          <fieldset className="an-segmented">
            <legend className="visually-hidden">Frequency scale</legend>
            {(['mel', 'log'] as const).map((option) => (
              <label key={option} className="an-segment">
                <input type="radio" name={scaleName} value={option} checked={scale === option} onChange={() => setScale(option)} />
                <span>{option === 'mel' ? 'Mel' : 'Log'}</span>
              </label>
            ))}
          </fieldset>
        }
      >
        {spectrumState.status === 'done' ? (
          <SpectrogramView spectrum={spectrumState.result} duration={duration} playhead={playhead} />
        ) : (
          <PendingView state={spectrumState} what={`${scale} spectrum`} view="spectrum" />
        )}
      </Panel>

      <div className="an-cards">
        <div className="an-column">
          <Panel title="Loudness" className="an-panel" busy={requests.loudness.status !== 'done'}>
            {requests.loudness.status === 'done' ? (
              <LoudnessPanel loudness={requests.loudness.result} />
            ) : (
              <Pending state={requests.loudness} what="loudness" />
            )}
          </Panel>
          <Panel title="Emotion" className="an-panel" busy={!analyze}>
            {analyze ? <EmotionPanel emotion={analyze.emotion} /> : <Pending state={requests.analyze} what="emotion" />}
          </Panel>
        </div>
        <div className="an-column">
          <Panel title="Grade" className="an-panel" busy={requests.grade.status !== 'done'}>
            {requests.grade.status === 'done' ? (
              <GradePanel grade={requests.grade.result} />
            ) : (
              <Pending state={requests.grade} what="grade" />
            )}
          </Panel>
        </div>
        <div className="an-column">
          <Panel title="Role and name" className="an-panel">
            {analyze ? <RolePanel sample={analyze.sample} /> : <Pending state={requests.analyze} what="role" />}
            <NamePanel
              key={file.name + file.size + file.lastModified}
              naming={requests.naming}
              index={state.namingIndex}
              onIndex={setNamingIndex}
              readings={{
                tempoBpm: tempo,
                key: analyze?.features.chroma.key ? `${analyze.features.chroma.key} ${analyze.features.chroma.mode}` : null,
              }}
            />
          </Panel>
        </div>
      </div>

      <Panel title="Features" className="an-panel" busy={!analyze}>
        {analyze ? <FeaturesPanel features={analyze.features} /> : <Pending state={requests.analyze} what="features" />}
      </Panel>
    </div>
  );
}

/** Why the key is withheld, in words (the API's key_reason), with the best guess when there is a profile. */
function noKeyReason(chroma: {
  key_reason: 'no_pitched_content' | 'low_confidence' | null;
  best_guess: { key: string; mode: string } | null;
}): string {
  const guess = chroma.best_guess ? ` (nearest: ${chroma.best_guess.key} ${chroma.best_guess.mode})` : '';
  if (chroma.key_reason === 'low_confidence') return `no key fits clearly${guess}`;
  return 'no stable pitch: drums, noise or silence';
}
