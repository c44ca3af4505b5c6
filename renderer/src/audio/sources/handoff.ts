// Hands a file from one screen to another across a navigation: Sources puts the fetched WAV here
// and opens /analyse; the Analyse screen takes it once, when it mounts.

let pending: File | null = null;

/** Leave `file` for the Analyse screen to open (replaces one it has not taken yet). */
export function setPendingAnalysis(file: File): void {
  pending = file;
}

/** The file left for analysis, once: a second call answers null. */
export function takePendingAnalysis(): File | null {
  const file = pending;
  pending = null;
  return file;
}
