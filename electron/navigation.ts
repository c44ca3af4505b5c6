/** True when `target` is on the app's own origin (the embedded server); everything else opens outside. */
export function isAppUrl(target: string, appOrigin: string): boolean {
  try {
    return new URL(target).origin === new URL(appOrigin).origin;
  } catch {
    return false;
  }
}

/** True for URLs the system browser may be asked to open (never file:, javascript: or custom schemes). */
export function isExternalSafe(target: string): boolean {
  try {
    return ['http:', 'https:', 'mailto:'].includes(new URL(target).protocol);
  } catch {
    return false;
  }
}
