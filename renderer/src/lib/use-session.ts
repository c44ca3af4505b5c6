import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError, getCurrentUser, getMe, type Me, type UserDetail } from '../api/client';
import { onUnauthorized } from '../api/connection-events';
import { desktopBridge } from './desktop-bridge';
import { forgetToken, loadToken, saveToken } from './token-storage';

/** A problem to show next to the sign-in form: the server's sentence and, maybe, what to do about it. */
export interface SignInProblem {
  readonly message: string;
  readonly hint: string | null;
}

export type SessionState =
  | {
      readonly status: 'signed-out';
      readonly problem: SignInProblem | null;
      readonly draft: string;
      /** Reached by signing out: keyboard focus moves to the token field. */
      readonly focusForm: boolean;
    }
  | { readonly status: 'signing-in' }
  | { readonly status: 'restoring' }
  | {
      readonly status: 'signed-in';
      readonly token: string;
      readonly me: Me;
      readonly user: UserDetail;
      /** How this state was reached: the panel moves keyboard focus only after an explicit sign-in. */
      readonly via: 'sign-in' | 'restore' | 'refresh';
      readonly refreshing: boolean;
      readonly refreshProblem: string | null;
      /**
       * Set when the server refused this token (revoked or expired) on any request: the shell asks
       * to sign in again, once, over the screen, which stays as it is.
       */
      readonly expired: ExpiredSession | null;
    };

/** A session whose token the server no longer accepts, while the person signs in again. */
export interface ExpiredSession {
  readonly busy: boolean;
  readonly problem: SignInProblem | null;
}

export interface Session {
  readonly state: SessionState;
  signIn(token: string): void;
  /** Sign in again after the token was refused, keeping the screen (and its work) as it is. */
  reauthenticate(token: string): void;
  signOut(): void;
  refresh(): void;
}

const unauthorizedHint = 'Check that you pasted the whole token and that it has not been revoked or expired.';

function problemOf(error: unknown, savedToken: boolean): SignInProblem {
  if (!(error instanceof ApiError)) return { message: 'Signing in failed unexpectedly. Try again.', hint: null };
  if (!error.unauthorized) return { message: error.message, hint: null };
  return savedToken
    ? { message: `Your saved token is no longer accepted: ${error.message}`, hint: 'Sign in again with a current token.' }
    : { message: error.message, hint: unauthorizedHint };
}

async function fetchAccount(token: string, signal?: AbortSignal): Promise<{ me: Me; user: UserDetail }> {
  // Both at once, but a refusal is reported from the audio API first whichever answers first, so the
  // person always reads the same sentence ("Invalid token.") for the same mistake.
  const [me, user] = await Promise.allSettled([getMe(token, signal), getCurrentUser(token, signal)]);
  if (me.status === 'rejected') throw me.reason;
  if (user.status === 'rejected') throw user.reason;
  return { me: me.value, user: user.value };
}

/**
 * The signed-in person. The token is checked against both APIs (GET /audio/v1/me and GET /api/v4/user)
 * and remembered for this tab (sessionStorage) only once both accepted it.
 */
export function useSession(): Session {
  // In the desktop app the embedded server's token comes from the bridge; a browser remembers its own.
  const [storedToken] = useState<string | Promise<string> | null>(() => {
    const bridge = desktopBridge();
    if (bridge?.connection) return bridge.connection().then((c) => c.token);
    return loadToken();
  });
  const [state, setState] = useState<SessionState>(() =>
    storedToken ? { status: 'restoring' } : { status: 'signed-out', problem: null, draft: '', focusForm: false },
  );
  // Every sign-in, refresh and sign-out gets a number; answers to an older one are dropped.
  const generation = useRef(0);

  useEffect(() => {
    if (!storedToken) return;
    const controller = new AbortController();
    const mine = ++generation.current;
    let token = '';
    Promise.resolve(storedToken)
      .then((value) => {
        token = value;
        return fetchAccount(value, controller.signal);
      })
      .then(
        ({ me, user }) => {
          if (mine !== generation.current) return;
          setState({ status: 'signed-in', token, me, user, via: 'restore', refreshing: false, refreshProblem: null, expired: null });
        },
        (error: unknown) => {
          if (controller.signal.aborted || mine !== generation.current) return;
          if (error instanceof ApiError && error.unauthorized) forgetToken();
          // Keep an unverified token in the form so a person can retry once the server is back.
          setState({
            status: 'signed-out',
            problem: problemOf(error, true),
            draft: error instanceof ApiError && error.unauthorized ? '' : token,
            focusForm: false,
          });
        },
      );
    return () => controller.abort();
  }, [storedToken]);

  const signIn = useCallback((token: string) => {
    const mine = ++generation.current;
    setState({ status: 'signing-in' });
    fetchAccount(token).then(
      ({ me, user }) => {
        if (mine !== generation.current) return;
        saveToken(token);
        setState({ status: 'signed-in', token, me, user, via: 'sign-in', refreshing: false, refreshProblem: null, expired: null });
      },
      (error: unknown) => {
        if (mine !== generation.current) return;
        setState({ status: 'signed-out', problem: problemOf(error, false), draft: token, focusForm: false });
      },
    );
  }, []);

  const signOut = useCallback(() => {
    generation.current++;
    forgetToken();
    setState({ status: 'signed-out', problem: null, draft: '', focusForm: true });
  }, []);

  const refresh = useCallback(() => {
    if (state.status !== 'signed-in') return;
    const token = state.token;
    const mine = ++generation.current;
    setState({ ...state, refreshing: true, refreshProblem: null });
    fetchAccount(token).then(
      ({ me, user }) => {
        if (mine !== generation.current) return;
        setState({ status: 'signed-in', token, me, user, via: 'refresh', refreshing: false, refreshProblem: null, expired: null });
      },
      (error: unknown) => {
        if (mine !== generation.current) return;
        if (error instanceof ApiError && error.unauthorized) {
          // The token was refused: the shell's sign-in dialog (not a sign-out that would drop the screen).
          setState((current) =>
            current.status === 'signed-in'
              ? { ...current, refreshing: false, expired: current.expired ?? { busy: false, problem: null } }
              : current,
          );
          return;
        }
        const message = error instanceof ApiError ? error.message : 'Refreshing failed unexpectedly.';
        setState((current) => (current.status === 'signed-in' ? { ...current, refreshing: false, refreshProblem: message } : current));
      },
    );
  }, [state]);

  // Any request refused with this session's token means it was revoked or expired: ask once.
  useEffect(
    () =>
      onUnauthorized((token) =>
        setState((current) =>
          current.status === 'signed-in' && current.token === token && current.expired === null
            ? { ...current, expired: { busy: false, problem: null } }
            : current,
        ),
      ),
    [],
  );

  const reauthenticate = useCallback((token: string) => {
    const mine = ++generation.current;
    setState((current) => (current.status === 'signed-in' ? { ...current, expired: { busy: true, problem: null } } : current));
    fetchAccount(token).then(
      ({ me, user }) => {
        if (mine !== generation.current) return;
        saveToken(token);
        setState({ status: 'signed-in', token, me, user, via: 'refresh', refreshing: false, refreshProblem: null, expired: null });
      },
      (error: unknown) => {
        if (mine !== generation.current) return;
        setState((current) =>
          current.status === 'signed-in' ? { ...current, expired: { busy: false, problem: problemOf(error, false) } } : current,
        );
      },
    );
  }, []);

  return { state, signIn, reauthenticate, signOut, refresh };
}
