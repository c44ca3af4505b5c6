import { HealthPanel } from './audio/health-panel';
import { useHealth } from './audio/use-health';
import { useSession } from './lib/use-session';
import { AccountPanel } from './ui/account-panel';
import { BrandMark } from './ui/brand-mark';
import { Pill } from './ui/status';

/** The Cratehouse GUI: the same bundle in the desktop app and from a headless server. */
export function App() {
  const health = useHealth();
  const session = useSession();
  const { state } = health;

  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <div className="brand">
          <BrandMark />
          <h1 className="brand-name">Cratehouse</h1>
          <span className="brand-tagline">Audio analysis and project hosting</span>
        </div>
        <div className="topbar-status" aria-live="polite">
          {state.status === 'ready' ? (
            <Pill tone="ok">
              Server online <span className="mono muted">v{state.health.version}</span>
            </Pill>
          ) : state.status === 'error' ? (
            <Pill tone="bad">Server unreachable</Pill>
          ) : (
            <Pill tone="neutral">Connecting…</Pill>
          )}
        </div>
      </header>

      <main id="main" className="content" tabIndex={-1}>
        <div className="intro">
          <p className="eyebrow">Workspace</p>
          <p className="lead">Analyse audio and keep your projects in one place. Sign in to see your tenant and what it has used.</p>
        </div>
        <div className="grid">
          <AccountPanel session={session} />
          <HealthPanel state={state} onRecheck={health.recheck} />
        </div>
      </main>
    </div>
  );
}
