import { spawn, type ChildProcess, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { AppError } from '../../http/errors.js';

/** How to run one git (or tar) call: which git, how long it may take, and how to cancel it. */
export interface GitRunOptions {
  /** The git executable (resolveGit's path); `git` on PATH when omitted. */
  readonly gitPath?: string;
  /** Cancels the call: the child (and its own children) are killed. */
  readonly signal?: AbortSignal;
  /** Kill the call after this many milliseconds; each operation has its own default. */
  readonly timeoutMs?: number;
}

/** A child that exited unsuccessfully, with what it said; callers turn it into a sentence. */
export class GitCommandError extends Error {
  readonly exitCode: number | null;
  readonly stderr: string;

  constructor(command: string, exitCode: number | null, stderr: string) {
    super(`${command} exited with ${exitCode ?? 'a signal'}: ${lastLine(stderr)}`);
    this.name = 'GitCommandError';
    this.exitCode = exitCode;
    this.stderr = stderr;
  }
}

/** The sentence that says why a program failed: its last `fatal:` line, else its last `error:` line, else its last line. */
export function lastLine(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const last = (prefix: string) => [...lines].reverse().find((l) => l.startsWith(prefix));
  return last('fatal:') ?? last('error:') ?? lines[lines.length - 1] ?? '';
}

const STDERR_LIMIT = 64 * 1024;

/**
 * The environment for a child: the server's own, minus every GIT_* variable (a GIT_DIR or
 * GIT_INDEX_FILE inherited from an outer git, such as a hook running the server or its tests, would
 * silently redirect our calls) and minus askpass helpers (a prompt must never wait on a server), in
 * the C locale so the messages we recognise are git's English ones; then `extra`.
 */
export function childEnvironment(extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  // eslint-disable-next-line no-restricted-properties -- handing the server's environment down to a child is not reading configuration
  const base = process.env;
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(base)) {
    if (value === undefined || /^GIT_/i.test(key) || key === 'SSH_ASKPASS' || /^LC_|^LANG/.test(key)) continue;
    env[key] = value;
  }
  return { ...env, LC_ALL: 'C', ...extra };
}

/** A running child whose lifetime is bounded by a signal and a timeout. */
export interface TrackedChild<P extends ChildProcess> {
  readonly child: P;
  /** Resolves with the exit code once the child exited and its pipes closed; rejects on abort, timeout or spawn failure. */
  readonly exited: Promise<number | null>;
  /** Kill the child and everything it started. */
  kill(): void;
}

/**
 * Start a program with piped stdio under the run options. On POSIX the child leads its own process
 * group, so killing it also stops what it started (http-backend's upload-pack, clone's
 * remote-https, pack-objects), which would otherwise keep burning CPU after a client went away.
 */
export function startTracked(
  command: string,
  args: readonly string[],
  run: GitRunOptions,
  env: Record<string, string>,
  defaultTimeoutMs: number | null,
): TrackedChild<ChildProcessByStdio<Writable, Readable, Readable>> {
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], env, detached: process.platform !== 'win32', windowsHide: true });
  let stopped: AppError | null = null;
  const kill = () => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    try {
      if (process.platform !== 'win32') process.kill(-child.pid, 'SIGKILL');
      else child.kill('SIGKILL');
    } catch {
      child.kill('SIGKILL'); // the group is already gone; make sure the leader is too
    }
  };
  const stop = (error: AppError) => {
    stopped ??= error;
    kill();
  };
  const onAbort = () => {
    const reason: unknown = run.signal?.reason;
    stop(reason instanceof AppError ? reason : new AppError('unavailable', 'The git operation was cancelled', { code: 'cancelled' }));
  };
  if (run.signal?.aborted) queueMicrotask(onAbort);
  else run.signal?.addEventListener('abort', onAbort, { once: true });
  const timeoutMs = run.timeoutMs ?? defaultTimeoutMs;
  const timer =
    timeoutMs === null
      ? null
      : setTimeout(
          () =>
            stop(
              new AppError('unavailable', `${describe(command, args)} took longer than ${formatDuration(timeoutMs)} and was stopped`, {
                code: 'timeout',
              }),
            ),
          timeoutMs,
        );
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once('error', (e: NodeJS.ErrnoException) => {
      cleanup();
      const hint = /git(\.exe)?$/.test(command) ? " (set CRATEHOUSE_GIT to git's path)" : '';
      reject(
        e.code === 'ENOENT'
          ? new AppError('unavailable', `${command} is not installed or could not be started${hint}`, { code: 'tool_missing', cause: e })
          : e,
      );
    });
    child.once('close', (code) => {
      cleanup();
      if (stopped) reject(stopped);
      else resolve(code);
    });
  });
  // A caller that only streams may never await `exited`; its rejection is reported where it is awaited.
  exited.catch(() => undefined);
  function cleanup() {
    if (timer) clearTimeout(timer);
    run.signal?.removeEventListener('abort', onAbort);
  }
  // Writes into a child that already exited (EPIPE) are expected; the exit code tells the story.
  child.stdin.on('error', () => undefined);
  return { child, exited, kill };
}

/** What a finished git call printed. */
export interface GitOutput {
  readonly stdout: Buffer;
  readonly stderr: string;
}

/** Extra knobs for one call. */
export interface GitCallSpec {
  /** Added to the child's environment. */
  readonly env?: Readonly<Record<string, string>>;
  /** Default timeout when the run options give none. */
  readonly timeoutMs?: number;
  /** Refuse output beyond this many bytes (a bounded read, such as a log of `limit` commits). */
  readonly maxStdout?: number;
}

/**
 * Run git with an argument array (never a shell) and collect its output. A non-zero exit rejects
 * with GitCommandError; abort and timeout reject with AppErrors.
 */
export async function runGit(args: readonly string[], run: GitRunOptions = {}, spec: GitCallSpec = {}): Promise<GitOutput> {
  const tracked = startTracked(run.gitPath ?? 'git', args, run, childEnvironment(spec.env), spec.timeoutMs ?? 30_000);
  const { child } = tracked;
  child.stdin.end();
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  const maxStdout = spec.maxStdout ?? 64 * 1024 * 1024;
  child.stdout.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > maxStdout) {
      tooLarge = true;
      tracked.kill();
    } else chunks.push(chunk);
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    if (stderr.length < STDERR_LIMIT) stderr += chunk.toString('utf8');
  });
  const code = await tracked.exited;
  if (tooLarge) throw new AppError('too-large', `${describe('git', args)} printed more than ${maxStdout} bytes`);
  if (code !== 0) throw new GitCommandError(describe('git', args), code, stderr);
  return { stdout: Buffer.concat(chunks), stderr };
}

/** `git gc` rather than the whole argument list (which may hold paths or URLs). */
function describe(command: string, args: readonly string[]): string {
  const sub = args.find((a, i) => !a.startsWith('-') && args[i - 1] !== '-c');
  return command.endsWith('git') || command.endsWith('git.exe') ? `git ${sub ?? ''}`.trim() : command;
}

function formatDuration(ms: number): string {
  return ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : `${Math.max(1, Math.round(ms / 1000))} s`;
}
