/** The closed set of error kinds a service may throw; each API presents them in its own shape. */
export type ErrorKind =
  | 'invalid'
  | 'unauthorized'
  | 'forbidden'
  | 'not-found'
  | 'conflict'
  | 'unprocessable'
  | 'too-large'
  | 'unsupported-media'
  | 'rate-limited'
  | 'unavailable';

/** One problem with one input, in the FastAPI/pydantic vocabulary (`loc`, `msg`, `type`). */
export interface ValidationIssue {
  readonly loc: readonly (string | number)[];
  readonly msg: string;
  readonly type: string;
  readonly input?: unknown;
  readonly ctx?: Readonly<Record<string, unknown>>;
}

/** Extra facts a presenter may use; none of them are required. */
export interface AppErrorOptions {
  /** Parameter problems (request validation), for 422 detail lists and GitLab's `{"error": ...}`. */
  readonly issues?: readonly ValidationIssue[];
  /** Model validation: field → messages (GitLab's `{"message": {"name": ["has already been taken"]}}`). */
  readonly fields?: Readonly<Record<string, readonly string[]>>;
  /** Scopes any one of which would have allowed the request (`forbidden`, code `insufficient_scope`). */
  readonly scopes?: readonly string[];
  /** Seconds a client should wait before retrying (`unavailable`, `rate-limited`). */
  readonly retryAfter?: number;
  /** A machine-readable code for clients (for example `invalid_token`, `compute_pending`). */
  readonly code?: string;
  readonly cause?: unknown;
}

/** The one error type services throw. Unknown errors become a logged 500. */
export class AppError extends Error {
  readonly kind: ErrorKind;
  readonly options: AppErrorOptions;

  constructor(kind: ErrorKind, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.kind = kind;
    this.options = options;
  }
}

/** Status code each kind maps to; both presenters answer it, refining only `invalid` (400 or 422) and a few codes. */
export const statusForKind: Readonly<Record<ErrorKind, number>> = {
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  'not-found': 404,
  conflict: 409,
  unprocessable: 422,
  'too-large': 413,
  'unsupported-media': 415,
  'rate-limited': 429,
  unavailable: 503,
};

/** Build an `invalid` error from parameter issues. */
export function invalidParams(issues: readonly ValidationIssue[]): AppError {
  return new AppError('invalid', issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; '), { issues });
}

/** Shorthand for the common not-found case; `what` reads like "Project" or "Job". */
export function notFound(what: string): AppError {
  return new AppError('not-found', `${what} Not Found`);
}
