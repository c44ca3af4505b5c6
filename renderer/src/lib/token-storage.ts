// The personal access token the person signed in with. It lives in this tab's sessionStorage: it
// survives a reload but not the tab, and is never in localStorage, where any page that ever ran on
// this origin, in any tab, at any later time, could read it. Storage can be unavailable (privacy
// modes, a sandboxed frame): then the session lasts one page load.

const key = 'cratehouse.token';

/** The token this tab signed in with, or null. A token an older version left in localStorage moves here once. */
export function loadToken(): string | null {
  try {
    const legacy = window.localStorage.getItem(key);
    if (legacy !== null) {
      window.localStorage.removeItem(key);
      if (legacy.trim() !== '' && !window.sessionStorage.getItem(key)) window.sessionStorage.setItem(key, legacy);
    }
    const token = window.sessionStorage.getItem(key);
    return token && token.trim() !== '' ? token : null;
  } catch {
    return null;
  }
}

/** Remember the token for this tab's reloads. */
export function saveToken(token: string): void {
  try {
    window.sessionStorage.setItem(key, token);
  } catch {
    // Not remembered; the session still works until the page is closed.
  }
}

/** Forget the token (signing out, or the server refused it). */
export function forgetToken(): void {
  try {
    window.sessionStorage.removeItem(key);
    window.localStorage.removeItem(key);
  } catch {
    // Nothing stored.
  }
}

/** Why a pasted token cannot be one (tokens are printable ASCII without spaces), or null. */
export function tokenProblem(token: string): string | null {
  if (token === '') return 'Paste a personal access token first.';
  if (!/^[\x21-\x7e]+$/.test(token)) return 'A token has no spaces or special characters. Check what you pasted.';
  return null;
}
