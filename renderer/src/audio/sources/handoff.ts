// Hands a file from one place to the Analyse screen across a navigation: Sources puts the fetched
// WAV here, and so does a file dropped anywhere on the window; the Analyse screen takes it once,
// when it mounts or, if it is already open, as soon as it is left.

let pending: File | null = null;
const listeners = new Set<() => void>();

/** Leave `file` for the Analyse screen to open (replaces one it has not taken yet). */
export function setPendingAnalysis(file: File): void {
  pending = file;
  for (const listener of listeners) listener();
}

/** The file left for analysis, once: a second call answers null. */
export function takePendingAnalysis(): File | null {
  const file = pending;
  pending = null;
  return file;
}

/** Be told when a file is left while the Analyse screen is open; returns the unsubscribe. */
export function onPendingAnalysis(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
