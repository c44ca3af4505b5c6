import { QueryClient, QueryClientProvider, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { BrowserRouter, Navigate, Route, Routes } from 'react-router';
import { ApiError } from './api/http';
import { AnalyseScreen } from './audio/analyse-screen';
import { BatchScreen } from './audio/batch-screen';
import { useHealth, type HealthState } from './audio/use-health';
import { SourcesScreen } from './audio/sources-screen';
import { ProjectsScreen } from './hosting/projects-screen';
import { ConnectionProvider } from './lib/connection-context';
import { LibraryScreen } from './library/library-screen';
import { SessionProvider } from './lib/session-context';
import { useSession } from './lib/use-session';
import { AppHeader } from './ui/app-header';
import { HomeScreen } from './ui/home-screen';
import { OfflineBanner } from './ui/offline-banner';
import { SettingsScreen } from './ui/settings-screen';
import { SignInAgainDialog } from './ui/sign-in-again-dialog';
import { Pill } from './ui/status';
import { WindowDrop } from './ui/window-drop';

/**
 * Queries retry once on a server failure, never on a 4xx (the answer will not change). An unreachable
 * server is retried more: while the health watcher says it is offline, TanStack Query pauses the retry
 * until it is back, so a panel waits instead of failing.
 */
function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        retry: (failures, error) => {
          if (error instanceof ApiError && error.status === 0) return failures < 3;
          return failures < 1 && !(error instanceof ApiError && error.status >= 400 && error.status < 500);
        },
        refetchOnWindowFocus: false,
        staleTime: 5_000,
      },
      mutations: { retry: false },
    },
  });
}

/** The header's light: "Server online v…", "Server unreachable" or "Connecting…" ("Server" is dropped on a phone). */
function ServerStatus({ state }: { readonly state: HealthState }) {
  if (state.status === 'ready')
    return (
      <Pill tone="ok">
        <span className="status-label">
          <span className="status-wide">Server </span>online
        </span>{' '}
        <span className="mono muted status-version">v{state.health.version}</span>
      </Pill>
    );
  if (state.status === 'offline')
    return (
      <Pill tone="bad">
        <span className="status-label">
          <span className="status-wide">Server </span>unreachable
        </span>
      </Pill>
    );
  return (
    <Pill tone="neutral">
      <span className="status-label">Connecting…</span>
    </Pill>
  );
}

/** After signing in again (a new token), every query asks again: what failed with the old token now works. */
function RefetchOnNewToken({ token }: { readonly token: string | null }) {
  const queryClient = useQueryClient();
  const previous = useRef(token);
  useEffect(() => {
    if (token !== null && previous.current !== null && token !== previous.current) void queryClient.invalidateQueries();
    previous.current = token;
  }, [token, queryClient]);
  return null;
}

/** The Cratehouse GUI: the same bundle in the desktop app and from a headless server. */
export function App() {
  const [queryClient] = useState(createQueryClient);
  const health = useHealth();
  const session = useSession();
  const signedIn = session.state.status === 'signed-in';
  const expired = session.state.status === 'signed-in' ? session.state.expired : null;
  const connection = { online: health.state.status !== 'offline', signInNeeded: expired !== null };

  return (
    <QueryClientProvider client={queryClient}>
      <BrowserRouter>
        <SessionProvider session={session}>
          <ConnectionProvider value={connection}>
            <RefetchOnNewToken token={session.state.status === 'signed-in' ? session.state.token : null} />
            <WindowDrop enabled={signedIn} />
            <div className="app">
              <a className="skip-link" href="#main">
                Skip to content
              </a>
              <AppHeader signedIn={signedIn} status={<ServerStatus state={health.state} />} />
              {health.state.status === 'offline' ? <OfflineBanner state={health.state} onRetry={health.recheck} /> : null}

              <main id="main" className="content" tabIndex={-1}>
                {signedIn ? (
                  <Routes>
                    <Route path="/" element={<HomeScreen health={health} session={session} />} />
                    <Route path="/library" element={<LibraryScreen />} />
                    <Route path="/analyse" element={<AnalyseScreen />} />
                    <Route path="/batch" element={<BatchScreen />} />
                    <Route path="/sources" element={<SourcesScreen />} />
                    <Route path="/projects/*" element={<ProjectsScreen />} />
                    <Route path="/settings" element={<SettingsScreen health={health} />} />
                    <Route path="*" element={<Navigate to="/" replace />} />
                  </Routes>
                ) : (
                  <HomeScreen health={health} session={session} />
                )}
              </main>
            </div>
            {session.state.status === 'signed-in' && expired ? (
              <SignInAgainDialog
                expired={expired}
                username={session.state.user.username}
                onSignIn={session.reauthenticate}
                onSignOut={session.signOut}
              />
            ) : null}
          </ConnectionProvider>
        </SessionProvider>
      </BrowserRouter>
    </QueryClientProvider>
  );
}
