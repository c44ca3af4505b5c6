import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { listProjects } from '../api/hosting';
import { HealthPanel } from '../audio/health-panel';
import type { useHealth } from '../audio/use-health';
import { useConnection } from '../lib/connection-context';
import { formatAgo, formatAudioSeconds } from '../lib/format';
import { loadRecentAnalyses, type RecentAnalysis } from '../lib/recent-analyses';
import type { Session } from '../lib/use-session';
import { AccountPanel } from './account-panel';
import { EmptyState, Panel } from './panel';
import { Busy, Problem } from './status';

const starts = [
  { to: '/analyse', title: 'Analyse a file' },
  { to: '/batch', title: 'Batch a folder' },
  { to: '/sources', title: 'Fetch from a URL' },
  { to: '/projects/new', title: 'New project' },
] as const;

const capitalised = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** What is known of an analysed file in a few words: "Bass · 120 BPM · A minor · 0:04". */
function readingsOf(item: RecentAnalysis): string {
  const parts: string[] = [];
  if (item.role) parts.push(capitalised(item.role));
  if (item.tempoBpm !== null) parts.push(`${Math.round(item.tempoBpm)} BPM`);
  if (item.key) parts.push(item.key);
  if (item.durationS !== null) parts.push(formatAudioSeconds(item.durationS));
  return parts.join(' · ');
}

function RecentAnalyses() {
  const [items] = useState(loadRecentAnalyses);
  const [now] = useState(() => Date.now());
  return (
    <Panel title="Recent analyses" actions={items.length > 0 ? <Link to="/analyse">Analyse a file</Link> : null}>
      {items.length === 0 ? (
        <EmptyState title="Nothing analysed yet">
          <p>Drop a sample or a track anywhere on this window, or</p>
          <Link className="button button-primary home-cta" to="/analyse">
            Analyse a file
          </Link>
        </EmptyState>
      ) : (
        <ul className="recent-list" aria-label="Recent analyses">
          {items.map((item) => (
            <li key={`${item.name}:${item.size}`} className="recent-item">
              <span className="recent-name truncate" title={item.name}>
                {item.name}
              </span>
              <span className="recent-meta muted small">{readingsOf(item)}</span>
              <time className="recent-time muted small" dateTime={new Date(item.at).toISOString()}>
                {formatAgo(item.at, now)}
              </time>
            </li>
          ))}
        </ul>
      )}
    </Panel>
  );
}

function RecentProjects({ token }: { readonly token: string }) {
  const connection = useConnection();
  const [now] = useState(() => Date.now());
  const query = { order_by: 'last_activity_at', sort: 'desc', page: 1, per_page: 5 } as const;
  const projects = useQuery({
    queryKey: ['projects', 'recent', query],
    queryFn: ({ signal }) => listProjects(token, query, signal),
  });
  // Offline or signed out, the shell says so once; the panel just waits.
  const waiting = !connection.online || connection.signInNeeded;
  return (
    <Panel title="Recent projects" actions={<Link to="/projects">All projects</Link>}>
      {projects.isPending || (projects.isError && waiting) ? <Busy>Loading your projects…</Busy> : null}
      {projects.isError && !waiting ? (
        <Problem title="Your projects could not be listed.">
          <p>{projects.error.message}</p>
        </Problem>
      ) : null}
      {projects.data && projects.data.items.length === 0 ? (
        <EmptyState title="No projects yet">
          <p>Keep a session&apos;s stems and versions in a repository.</p>
          <Link className="button button-primary home-cta" to="/projects/new">
            Create a project
          </Link>
        </EmptyState>
      ) : null}
      {projects.data && projects.data.items.length > 0 ? (
        <ul className="recent-list" aria-label="Recent projects">
          {projects.data.items.map((project) => (
            <li key={project.id} className="recent-item">
              <Link className="recent-name truncate" to={`/projects/${project.id}`}>
                {project.name_with_namespace}
              </Link>
              <span className="recent-meta muted small truncate">{project.description || project.path_with_namespace}</span>
              <time className="recent-time muted small" dateTime={project.last_activity_at}>
                {formatAgo(Date.parse(project.last_activity_at), now)}
              </time>
            </li>
          ))}
        </ul>
      ) : null}
    </Panel>
  );
}

/**
 * Home. Signed out: the sign-in form and the server's health. Signed in: recent work (analyses in this
 * browser, projects by last activity) with a way to start when there is none, and the account; the
 * server's versions and tools are in Settings, About.
 */
export function HomeScreen({ health, session }: { readonly health: ReturnType<typeof useHealth>; readonly session: Session }) {
  const { state } = session;
  if (state.status !== 'signed-in')
    return (
      <>
        <div className="intro">
          <p className="eyebrow">Workspace</p>
          <p className="lead">Analyse audio and keep your projects in one place. Sign in to see your tenant and what it has used.</p>
        </div>
        <div className="grid">
          <AccountPanel session={session} />
          <HealthPanel state={health.state} onRecheck={health.recheck} />
        </div>
      </>
    );
  return (
    <>
      <div className="intro home-intro">
        <div>
          <p className="eyebrow">Workspace</p>
          <p className="lead">Pick up where you left off.</p>
        </div>
        <nav className="home-starts" aria-label="Start">
          {starts.map((start) => (
            <Link key={start.to} to={start.to} className="button button-secondary">
              {start.title}
            </Link>
          ))}
        </nav>
      </div>
      <div className="home-grid">
        <RecentAnalyses />
        <RecentProjects token={state.token} />
        <AccountPanel session={session} />
      </div>
    </>
  );
}
