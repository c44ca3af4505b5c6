// What every request learns about the connection, told to the shell in one place: the server could
// not be reached (the health watcher checks at once), or it refused the session's token (the session
// asks to sign in again, once). Screens keep handling their own answers; these are extra signals.

type Listener<T> = (value: T) => void;

const networkListeners = new Set<Listener<void>>();
const unauthorizedListeners = new Set<Listener<string>>();

/** A request could not reach the server (fetch or XHR network error, not an HTTP status). */
export function reportNetworkFailure(): void {
  for (const listener of networkListeners) listener();
}

/** The server answered 401 to a request sent with `token`. */
export function reportUnauthorized(token: string): void {
  for (const listener of unauthorizedListeners) listener(token);
}

/** Be told of network failures; returns the unsubscribe. */
export function onNetworkFailure(listener: Listener<void>): () => void {
  networkListeners.add(listener);
  return () => networkListeners.delete(listener);
}

/** Be told of 401 answers with the token that was refused; returns the unsubscribe. */
export function onUnauthorized(listener: Listener<string>): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}
