// Hands a file from one place to the Analyse screen across a navigation: Sources puts the fetched
// WAV here, the Library an item's audio (with its hash, so nothing is uploaded again), and so does a
// file dropped anywhere on the window; the Analyse screen takes it once, when it mounts or, if it is
// already open, as soon as it is left.

/** A file for the Analyse screen and, when the server already holds it, its SHA-256. */
export interface PendingAnalysis {
  readonly file: File;
  readonly sha256?: string;
}

let pending: PendingAnalysis | null = null;
const listeners = new Set<() => void>();

/** Leave `file` for the Analyse screen to open (replaces one it has not taken yet). */
export function setPendingAnalysis(file: File, sha256?: string): void {
  pending = { file, sha256 };
  for (const listener of listeners) listener();
}

/** The file left for analysis, once: a second call answers null. */
export function takePendingAnalysis(): PendingAnalysis | null {
  const taken = pending;
  pending = null;
  return taken;
}

/** Be told when a file is left while the Analyse screen is open; returns the unsubscribe. */
export function onPendingAnalysis(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
