import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useState } from 'react';
import { BrowserRouter, Navigate, NavLink, Route, Routes } from 'react-router';
import { ApiError } from './api/http';
import { AnalyseScreen } from './audio/analyse-screen';
import { BatchScreen } from './audio/batch-screen';
import { useHealth, type HealthState } from './audio/use-health';
import { SourcesScreen } from './audio/sources-screen';
import { ProjectsScreen } from './hosting/projects-screen';
import { LibraryScreen } from './library/library-screen';
import { SessionProvider } from './lib/session-context';
import { useSession } from './lib/use-session';
import { BrandMark } from './ui/brand-mark';
import { HomeScreen } from './ui/home-screen';
import { SettingsScreen } from './ui/settings-screen';
import { Pill } from './ui/status';
import { WindowDrop } from './ui/window-drop';

/** Queries retry once on a network or server failure, never on a 4xx (the answer will not change). */
function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        retry: (failures, error) => failures < 1 && !(error instanceof ApiError && error.status >= 400 && error.status < 500),
        refetchOnWindowFocus: false,
        staleTime: 5_000,
      },
      mutations: { retry: false },
    },
  });
}

const screens = [
  { to: '/library', label: 'Library' },
  { to: '/analyse', label: 'Analyse' },
  { to: '/batch', label: 'Batch' },
  { to: '/sources', label: 'Sources' },
  { to: '/projects', label: 'Projects' },
  { to: '/settings', label: 'Settings' },
] as const;

function ServerStatus({ state }: { readonly state: HealthState }) {
  if (state.status === 'ready')
    return (
      <Pill tone="ok">
        Server online <span className="mono muted">v{state.health.version}</span>
      </Pill>
    );
  if (state.status === 'error') return <Pill tone="bad">Server unreachable</Pill>;
  return <Pill tone="neutral">Connecting…</Pill>;
}

/** The Cratehouse GUI: the same bundle in the desktop app and from a headless server. */
export function App() {
  const [queryClient] = useState(createQueryClient);
  const health = useHealth();
  const session = useSession();
  const signedIn = session.state.status === 'signed-in';

  return (
    <QueryClientProvider client={queryClient}>
      <BrowserRouter>
        <SessionProvider session={session}>
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
              {signedIn ? (
                <nav className="main-nav" aria-label="Screens">
                  <NavLink to="/" end className="nav-link">
                    Home
                  </NavLink>
                  {screens.map((screen) => (
                    <NavLink key={screen.to} to={screen.to} className="nav-link">
                      {screen.label}
                    </NavLink>
                  ))}
                </nav>
              ) : null}
              <div className="topbar-status" aria-live="polite">
                <ServerStatus state={health.state} />
              </div>
            </header>

            <main id="main" className="content" tabIndex={-1}>
              {signedIn ? (
                <WindowDrop>
                  <Routes>
                    <Route path="/" element={<HomeScreen health={health} session={session} />} />
                    <Route path="/library" element={<LibraryScreen />} />
                    <Route path="/analyse" element={<AnalyseScreen />} />
                    <Route path="/batch" element={<BatchScreen />} />
                    <Route path="/sources" element={<SourcesScreen />} />
                    <Route path="/projects/*" element={<ProjectsScreen />} />
                    <Route path="/settings" element={<SettingsScreen />} />
                    <Route path="*" element={<Navigate to="/" replace />} />
                  </Routes>
                </WindowDrop>
              ) : (
                <HomeScreen health={health} session={session} />
              )}
            </main>
          </div>
        </SessionProvider>
      </BrowserRouter>
    </QueryClientProvider>
  );
}
