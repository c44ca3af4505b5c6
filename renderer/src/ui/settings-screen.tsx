import { useQuery } from '@tanstack/react-query';
import { useEffect, useEffectEvent, useState } from 'react';
import { HealthPanel } from '../audio/health-panel';
import type { useHealth } from '../audio/use-health';
import { desktopBridge } from '../lib/desktop-bridge';
import { useSessionContext, useSignedIn } from '../lib/session-context';
import { CopyButton } from './copy-button';
import { Fact } from './fact';
import { Panel } from './panel';
import { PreferencesPanel } from './preferences-panel';
import { Busy, Pill, Problem } from './status';
import { UsageStats } from './usage-stats';

function TokenField({ token }: { readonly token: string }) {
  const [shown, setShown] = useState(false);
  return (
    <div className="token-row">
      <input className="input mono" readOnly aria-label="Personal access token" type={shown ? 'text' : 'password'} value={token} />
      <button type="button" className="button button-secondary" onClick={() => setShown((value) => !value)} aria-pressed={shown}>
        {shown ? 'Hide' : 'Show'}
      </button>
      <CopyButton text={token} />
    </div>
  );
}

function LocalApiPanel({ url }: { readonly url: string }) {
  const bridge = desktopBridge();
  const localApi = useQuery({
    queryKey: ['local-api'],
    queryFn: async () => (bridge?.localApi ? bridge.localApi() : null),
    enabled: Boolean(bridge?.localApi),
  });
  const details = localApi.data ?? null;
  const apiUrl = details?.url ?? url;
  const example = `curl -H "Authorization: Bearer $CRATEHOUSE_TOKEN" -F file=@loop.wav ${apiUrl}/audio/v1/analyze`;
  return (
    <Panel title="Local API for plugins">
      <p className="muted">
        Plugins and scripts call the same HTTP API as this window: <code>/audio/v1</code> for analysis and <code>/api/v4</code> for
        projects, with a token.{' '}
        {bridge
          ? 'The desktop app writes the URL and token to local-api.json in its data folder (readable only by you) while it runs, and removes it on quit.'
          : 'In the desktop app the URL and token are written to local-api.json in its data folder while it runs; against this server, use its URL and a token from your account.'}
      </p>
      {localApi.isLoading ? <Busy>Reading the local API details…</Busy> : null}
      {localApi.error ? (
        <Problem title="The local API details could not be read.">
          <p>{localApi.error.message}</p>
        </Problem>
      ) : null}
      <dl className="facts">
        <Fact term="API URL">
          <span className="mono">{apiUrl}</span>
        </Fact>
        {details ? (
          <>
            <Fact term="Discovery file">
              <span className="mono truncate">{details.file}</span>
            </Fact>
            <Fact term="Server process">
              <span className="mono">pid {details.pid}</span> · <span className="mono">v{details.version}</span>
            </Fact>
          </>
        ) : null}
      </dl>
      <p className="label">Example: analyse a file from a script</p>
      <pre className="code-block">
        <code>{example}</code>
      </pre>
      <div className="actions">
        <CopyButton text={example} label="Copy example" />
      </div>
    </Panel>
  );
}

/** Settings: preferences, the connection, usage from /me, the local API details for plugins, and About (the server's versions and tools). */
export function SettingsScreen({ health }: { readonly health: ReturnType<typeof useHealth> }) {
  const session = useSessionContext();
  const { token, user, me, refreshing, refreshProblem } = useSignedIn();
  const bridge = desktopBridge();
  const url = window.location.origin;
  // The usage is the session's (the Home screen shows the same figures); opening Settings refreshes it.
  const refreshOnOpen = useEffectEvent(() => session.refresh());
  useEffect(() => refreshOnOpen(), []);

  return (
    <>
      <div className="intro">
        <p className="eyebrow">Settings</p>
        <p className="lead">How Cratehouse shows things, where this window connects, and how plugins reach the same server.</p>
      </div>
      <div className="grid settings-grid">
        <PreferencesPanel />

        <Panel title="Connection" actions={bridge ? <Pill tone="ok">Desktop app</Pill> : <Pill tone="neutral">Browser</Pill>}>
          <dl className="facts">
            <Fact term="Server URL">
              <span className="mono">{url}</span>
            </Fact>
            <Fact term="Signed in as">
              {user.name} <span className="muted mono">@{user.username}</span>
            </Fact>
          </dl>
          <p className="label">Token</p>
          <TokenField token={token} />
          <p className="help">
            {bridge ? 'The desktop app signed you in with its own token.' : 'Kept in this tab until you sign out or close it.'}
          </p>
          <div className="actions">
            <button type="button" className="button button-ghost" onClick={session.signOut}>
              Sign out
            </button>
          </div>
        </Panel>

        <Panel
          title="Usage"
          busy={refreshing}
          actions={
            <button
              type="button"
              className="button button-secondary"
              onClick={() => !refreshing && session.refresh()}
              aria-disabled={refreshing}
            >
              {refreshing ? 'Refreshing…' : 'Refresh'}
            </button>
          }
        >
          {refreshProblem ? (
            <Problem title="Usage could not be read.">
              <p>{refreshProblem}</p>
            </Problem>
          ) : null}
          <UsageStats me={me} showTenant />
        </Panel>

        <LocalApiPanel url={url} />
        <div id="about" className="settings-about">
          <HealthPanel state={health.state} onRecheck={health.recheck} title="About" />
        </div>
      </div>
    </>
  );
}
