import { createContext, useContext, type ReactNode } from 'react';

/** What the shell knows about the connection, for panels that would otherwise each show a failure. */
export interface Connection {
  /** The server answers its health check (true until a check says otherwise). */
  readonly online: boolean;
  /** The server refused the session's token; the shell is asking to sign in again. */
  readonly signInNeeded: boolean;
}

const ConnectionContext = createContext<Connection>({ online: true, signInNeeded: false });

/** Makes the connection state available below it. */
export function ConnectionProvider({ value, children }: { readonly value: Connection; readonly children: ReactNode }) {
  return <ConnectionContext.Provider value={value}>{children}</ConnectionContext.Provider>;
}

/** The connection state: a panel shows a short "waiting" line instead of its own failure while the shell explains. */
export function useConnection(): Connection {
  return useContext(ConnectionContext);
}
