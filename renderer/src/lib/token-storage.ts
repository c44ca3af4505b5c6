// The personal access token the person signed in with, remembered across reloads in localStorage.
// Storage can be unavailable (privacy modes, a sandboxed frame): then the session lasts one page load.

const key = 'cratehouse.token';

export function loadToken(): string | null {
  try {
    const token = window.localStorage.getItem(key);
    return token && token.trim() !== '' ? token : null;
  } catch {
    return null;
  }
}

export function saveToken(token: string): void {
  try {
    window.localStorage.setItem(key, token);
  } catch {
    // Not remembered; the session still works until the page is closed.
  }
}

export function forgetToken(): void {
  try {
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
