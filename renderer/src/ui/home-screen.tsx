import { Link } from 'react-router';
import { HealthPanel } from '../audio/health-panel';
import type { useHealth } from '../audio/use-health';
import type { Session } from '../lib/use-session';
import { AccountPanel } from './account-panel';

const starts = [
  {
    to: '/analyse',
    title: 'Analyse a file',
    text: 'Loudness, waveform, spectrogram, grade, role, name and emotion of one sample or track.',
  },
  { to: '/batch', title: 'Batch a folder', text: 'Grade and name a whole pack at once, then export CSV or JSON and apply the names.' },
  { to: '/sources', title: 'Fetch from a URL', text: 'Turn a media link or a page with audio into a 44.1 kHz WAV to analyse or download.' },
  { to: '/projects', title: 'Projects', text: 'Git repositories for your sessions: share, fork, hooks, export and import.' },
] as const;

/** Home: sign in (or who is signed in), the server's health, and where to start. */
export function HomeScreen({ health, session }: { readonly health: ReturnType<typeof useHealth>; readonly session: Session }) {
  const signedIn = session.state.status === 'signed-in';
  return (
    <>
      <div className="intro">
        <p className="eyebrow">Workspace</p>
        <p className="lead">
          {signedIn
            ? 'Pick up where you left off: analyse a file, batch a pack, fetch audio from a link or open a project.'
            : 'Analyse audio and keep your projects in one place. Sign in to see your tenant and what it has used.'}
        </p>
      </div>
      {signedIn ? (
        <nav className="start-grid" aria-label="Start">
          {starts.map((start) => (
            <Link key={start.to} to={start.to} className="start-card">
              <span className="start-title">{start.title}</span>
              <span className="start-text">{start.text}</span>
            </Link>
          ))}
        </nav>
      ) : null}
      <div className="grid">
        <AccountPanel session={session} />
        <HealthPanel state={health.state} onRecheck={health.recheck} />
      </div>
    </>
  );
}
