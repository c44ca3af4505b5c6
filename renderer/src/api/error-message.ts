// Turn an error body of either API into one sentence a person can read.
//   audio API (FastAPI style): {"detail": "Invalid token"} or {"detail": [{loc, msg, type}, ...]}
//   hosting API (GitLab style): {"message": "401 Unauthorized"}, {"message": {"name": ["is missing"]}}, {"error": "..."}

/** Capitalise the first letter and end with a full stop, unless it already ends a sentence. */
export function asSentence(text: string): string {
  const trimmed = text.trim().replace(/\s+/g, ' ');
  if (trimmed === '') return '';
  const capitalised = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?…]$/.test(capitalised) ? capitalised : `${capitalised}.`;
}

/** A thrown error's own message when it has one, else `fallback` (for errors that are not API answers). */
export function messageOf(error: unknown, fallback: string): string {
  return error instanceof Error && error.message.trim() !== '' ? error.message : fallback;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The server's own words, if the body carries any. */
function serverWords(body: unknown): string | null {
  if (typeof body === 'string') return body;
  if (!isRecord(body)) return null;
  const { detail, message, error } = body;
  // OAuth-style refusals (insufficient_scope, invalid_token) carry the words in error_description.
  if (typeof body.error_description === 'string') return body.error_description;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) {
    const parts = detail.filter(isRecord).map((item) => {
      const loc = Array.isArray(item.loc) ? item.loc.filter((p) => p !== 'body' && p !== 'query').join('.') : '';
      const msg = typeof item.msg === 'string' ? item.msg : 'is invalid';
      // "URL should be an absolute URL" already names its field: no "url:" in front of it.
      const last = loc.split('.').pop() ?? '';
      const named = last !== '' && new RegExp(`\\b${last.replace(/[^a-z0-9_]/gi, '')}\\b`, 'i').test(msg);
      return loc && !named ? `${loc}: ${msg}` : msg;
    });
    if (parts.length > 0) return parts.join('; ');
  }
  if (typeof message === 'string') return message.replace(/^\d{3}\s+/, ''); // "401 Unauthorized" → "Unauthorized"
  // GitLab's rate limits: {"message": {"error": "..."}}.
  if (isRecord(message) && typeof message.error === 'string' && Object.keys(message).length === 1) return message.error;
  if (isRecord(message)) {
    const parts = Object.entries(message).map(([field, value]) => `${field} ${Array.isArray(value) ? value.join(', ') : String(value)}`);
    if (parts.length > 0) return parts.join('; ');
  }
  if (typeof error === 'string') return error;
  return null;
}

const fallbackByStatus: Readonly<Record<number, string>> = {
  401: 'The server did not accept this token',
  403: 'This token is not allowed to do that',
  404: 'The server does not know this address',
  413: 'The request is too large for the server',
  429: 'The server is busy; try again in a moment',
  500: 'The server failed while answering',
  502: 'The server could not be reached through the proxy',
  503: 'The server is not available right now',
};

/** One readable sentence for a failed response with this status and (parsed JSON) body. */
export function describeApiError(status: number, body: unknown): string {
  const words = serverWords(body);
  if (words && words.trim() !== '') return asSentence(words);
  return asSentence(fallbackByStatus[status] ?? `The server answered with status ${status}`);
}
