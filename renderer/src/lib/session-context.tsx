import { createContext, useContext, type ReactNode } from 'react';
import type { Session, SessionState } from './use-session';

type SignedIn = Extract<SessionState, { status: 'signed-in' }>;

const SessionContext = createContext<Session | null>(null);

/** Makes the session available to every screen below it. */
export function SessionProvider({ session, children }: { readonly session: Session; readonly children: ReactNode }) {
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}

/** The session (signed in or not). */
export function useSessionContext(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSessionContext outside SessionProvider');
  return session;
}

/** The signed-in state: screens behind the sign-in gate use it for the token and the user. */
export function useSignedIn(): SignedIn {
  const { state } = useSessionContext();
  if (state.status !== 'signed-in') throw new Error('useSignedIn on a screen that is shown signed out');
  return state;
}
