import { useId } from 'react';
import type { Health } from '../api/client';
import { Fact } from '../ui/fact';
import { Busy, Pill, Problem } from '../ui/status';
import type { HealthState } from './use-health';

type Tool = Health['ffmpeg'];

function ToolStatus({ tool }: { readonly tool: Tool }) {
  if (!tool.found) return <Pill tone="warn">Not found</Pill>;
  return (
    <>
      <Pill tone="ok">Found</Pill>
      {tool.version ? <span className="fact-detail mono">{tool.version}</span> : null}
    </>
  );
}

const timeFormat = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });

/** The server panel (About): version, API version, the external tools found and where the APIs are. */
export function HealthPanel({
  state,
  onRecheck,
  title = 'Server',
}: {
  readonly state: HealthState;
  readonly onRecheck: () => void;
  readonly title?: string;
}) {
  const headingId = useId();
  const origin = window.location.origin;
  return (
    <section className="panel" aria-labelledby={headingId} aria-busy={state.status === 'loading'}>
      <header className="panel-header">
        <h2 id={headingId}>{title}</h2>
        {state.status === 'ready' ? <Pill tone="ok">Online</Pill> : null}
        {state.status === 'offline' ? <Pill tone="bad">Unreachable</Pill> : null}
      </header>

      {state.status === 'loading' ? <Busy>Checking the server…</Busy> : null}

      {state.status === 'offline' ? (
        <>
          <Problem title="The health check failed.">
            <p>{state.message}</p>
          </Problem>
          <div className="actions">
            <button type="button" className="button button-secondary" onClick={onRecheck}>
              Try again
            </button>
          </div>
        </>
      ) : null}

      {state.status === 'ready' ? (
        <>
          <dl className="facts">
            <Fact term="Server version">
              <span className="mono">{state.health.version}</span>
            </Fact>
            <Fact term="API version">
              <span className="mono">{state.health.api_version}</span>
            </Fact>
            <Fact term="ffmpeg">
              <ToolStatus tool={state.health.ffmpeg} />
            </Fact>
            <Fact term="git">
              <ToolStatus tool={state.health.git} />
            </Fact>
            <Fact term="Address">
              <span className="mono truncate" title={origin}>
                {origin}
              </span>
            </Fact>
            <Fact term="Audio API">
              <span className="mono">/audio/v1</span>
            </Fact>
            <Fact term="Hosting API">
              <span className="mono">/api/v4</span>
            </Fact>
          </dl>
          {!state.health.ffmpeg.found ? (
            <p className="note">
              Without ffmpeg, audio decoding falls back to the built-in decoders. Install ffmpeg or set CRATEHOUSE_FFMPEG.
            </p>
          ) : null}
          {!state.health.git.found ? <p className="note">Project repositories need git. Install git or set CRATEHOUSE_GIT.</p> : null}
          <div className="panel-footer">
            <span className="muted small">Checked at {timeFormat.format(state.checkedAt)}</span>
            <button type="button" className="button button-ghost" onClick={onRecheck}>
              Check again
            </button>
          </div>
        </>
      ) : null}
    </section>
  );
}
