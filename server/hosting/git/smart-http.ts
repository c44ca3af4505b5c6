/**
 * Git's smart HTTP protocol for one repository, served by `git http-backend` as a CGI child over
 * plain node request and response objects (no express: only routes.ts may import it). Git itself
 * speaks the protocol (v0 and v2, gzip'd requests, no-cache headers, refusals); this module moves
 * bytes both ways as streams and reads, on the side, which refs a push changed. Authentication and
 * authorization are the caller's: it decides before calling.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { AppError } from '../../http/errors.js';
import { isZeroId } from './git-names.js';
import { PushCommandReader, ReportStatusReader, type PushCommand } from './pkt-line.js';
import { childEnvironment, lastLine, runGit, startTracked } from './run-git.js';

/** The three requests of the smart protocol. */
export type GitHttpService = 'info-refs' | 'upload-pack' | 'receive-pack';

/** A git URL taken apart: which project, which request, and whether it reads or writes. */
export interface GitHttpTarget {
  /** The project's full path, `namespace/sub/project`, without `.git`. */
  readonly fullPath: string;
  readonly service: GitHttpService;
  /** `write` for receive-pack and its ref advertisement (`info/refs?service=git-receive-pack`). */
  readonly access: 'read' | 'write';
}

const SUFFIXES: readonly [string, GitHttpService][] = [
  ['/info/refs', 'info-refs'],
  ['/git-upload-pack', 'upload-pack'],
  ['/git-receive-pack', 'receive-pack'],
];

/**
 * Map `/<namespace…>/<project>[.git]/info/refs|git-upload-pack|git-receive-pack` (a query string
 * may follow) to the project and request; null for anything else, including `info/refs` without a
 * smart `service` (the dumb protocol is not served) and paths with empty, `.` or `..` segments.
 */
export function parseGitPath(url: string): GitHttpTarget | null {
  const q = url.indexOf('?');
  const pathname = q < 0 ? url : url.slice(0, q);
  const query = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
  const match = SUFFIXES.find(([suffix]) => pathname.endsWith(suffix));
  if (!match) return null;
  const [suffix, service] = match;
  let segments: string[];
  try {
    segments = pathname
      .slice(0, -suffix.length)
      .split('/')
      .slice(1)
      .map((s) => decodeURIComponent(s));
  } catch {
    return null;
  }
  if (
    pathname[0] !== '/' ||
    segments.length < 2 ||
    segments.some((s) => s === '' || s === '.' || s === '..' || s.includes('/') || s.includes('\\'))
  )
    return null;
  const last = segments[segments.length - 1]!.replace(/\.git$/, '');
  if (last === '') return null;
  segments[segments.length - 1] = last;
  let access: 'read' | 'write' = service === 'receive-pack' ? 'write' : 'read';
  if (service === 'info-refs') {
    const wanted = query.get('service');
    if (wanted !== 'git-upload-pack' && wanted !== 'git-receive-pack') return null;
    if (wanted === 'git-receive-pack') access = 'write';
  }
  return { fullPath: segments.join('/'), service, access };
}

/** One ref a push changed. A creation has an all-zero `before`, a deletion an all-zero `after`. */
export interface RefUpdate {
  readonly ref: string;
  readonly before: string;
  readonly after: string;
}

/** What serving one request did. */
export interface GitHttpResult {
  /** The ref updates a successful receive-pack applied (empty for other requests and for refused ones). */
  readonly refUpdates: readonly RefUpdate[];
}

/** Which repository and request to serve. */
export interface ServeGitHttpOptions {
  /** The bare repository directory. */
  readonly repoDir: string;
  /** The git executable; `git` on PATH when omitted. */
  readonly gitPath?: string;
  readonly service: GitHttpService;
  /** Who is pushing (git records it as the committer of reflog entries); anonymous when omitted. */
  readonly remoteUser?: string;
  /** Stops git (and the response) when aborted. */
  readonly signal?: AbortSignal;
  /** Stop a request that runs longer than this; none by default (a large clone may take long). */
  readonly timeoutMs?: number;
  /** git configuration for this request only (`GIT_CONFIG_KEY_n`), e.g. `core.hooksPath` for a push's checks. */
  readonly config?: Readonly<Record<string, string>>;
  /** More environment for git and its hooks (the CGI variables win over these). */
  readonly env?: Readonly<Record<string, string>>;
}

/** The largest CGI header block accepted from http-backend. */
const MAX_CGI_HEADERS = 64 * 1024;
/** receive-pack's answer is a report and progress lines; more than this is not kept for reading. */
const MAX_REPORT_BYTES = 4 * 1024 * 1024;

/**
 * Serve one smart-HTTP request for a repository with `git http-backend`. The request body streams
 * into git and git's output streams to the client, never buffered whole. For a push, the command
 * list is read from the request as it passes and the outcome from receive-pack's report, so the
 * result lists exactly the ref updates that git applied. Resolves with no updates when a client
 * left before a fetch ended. Rejects with an AppError when git fails; if the response had already
 * begun, it has been destroyed and the caller must not answer.
 */
export async function serveGitHttp(req: IncomingMessage, res: ServerResponse, options: ServeGitHttpOptions): Promise<GitHttpResult> {
  const repo = path.resolve(options.repoDir);
  const env = cgiEnvironment(req, repo, options);
  const tracked = startTracked(
    options.gitPath ?? 'git',
    ['http-backend'],
    { signal: options.signal, timeoutMs: options.timeoutMs },
    env,
    null,
  );
  const { child } = tracked;

  // The client going away stops git and everything it started (a blocked pack-objects would
  // otherwise wait forever), except a push whose upload is complete: receive-pack is then applying
  // it, and stopping it halfway would leave some refs updated and none reported.
  let clientGone = false;
  const onGone = () => {
    if (res.writableFinished) return;
    clientGone = true;
    if (!(options.service === 'receive-pack' && req.complete)) tracked.kill();
    // The pipe to the response is gone (and may have paused git's output): read on, so git never blocks.
    else setImmediate(() => child.stdout.resume());
  };
  res.on('close', onGone);

  const commands = options.service === 'receive-pack' ? watchCommands(req) : null;
  if (req.method === 'POST') req.pipe(child.stdin);
  else child.stdin.end();

  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    if (stderr.length < 16_000) stderr += chunk.toString('utf8');
  });

  const reportBytes: Buffer[] = [];
  let reportSize = 0;
  const keepReport = (chunk: Buffer) => {
    if (options.service !== 'receive-pack' || reportSize > MAX_REPORT_BYTES) return;
    reportBytes.push(chunk);
    reportSize += chunk.length;
  };

  let status = 0;
  let headerBytes = Buffer.alloc(0);
  const onHeaderData = (chunk: Buffer) => {
    headerBytes = Buffer.concat([headerBytes, chunk]);
    const text = headerBytes.toString('latin1');
    const end = /\r?\n\r?\n/.exec(text);
    if (!end) {
      if (headerBytes.length > MAX_CGI_HEADERS) tracked.kill();
      return;
    }
    // Everything happens synchronously here, so no chunk is emitted between the listener and the pipe.
    child.stdout.off('data', onHeaderData);
    const headers = parseCgiHeaders(text.slice(0, end.index));
    status = headers.status;
    const rest = headerBytes.subarray(end.index + end[0].length);
    keepReport(rest);
    child.stdout.on('data', keepReport);
    if (res.destroyed) return;
    res.writeHead(status, headers.fields);
    if (rest.length > 0) res.write(rest);
    child.stdout.pipe(res);
  };
  child.stdout.on('data', onHeaderData);

  let code: number | null;
  try {
    code = await tracked.exited;
  } catch (e) {
    if (res.headersSent) res.destroy();
    throw e;
  } finally {
    // git may answer (404, 403) without reading the body: stop feeding it, let the client finish sending.
    req.unpipe(child.stdin);
    if (!req.complete) req.resume();
  }
  if (clientGone && options.service !== 'receive-pack') return { refUpdates: [] }; // nobody left to answer
  if (code !== 0 || status === 0) {
    if (res.headersSent) res.destroy();
    const reason = lastLine(stderr).split(repo).join(path.basename(repo));
    throw new AppError('unavailable', `git could not serve the request${reason ? `: ${reason}` : ''}`, { code: 'git_http_failed' });
  }
  try {
    await finished(res);
  } catch {
    // The client left before the end; nothing more to send.
  }
  if (!commands || status !== 200) return { refUpdates: [] };
  return { refUpdates: await appliedUpdates(repo, commands, Buffer.concat(reportBytes), options) };
}

/** The CGI variables http-backend reads, on top of the server's environment. */
function cgiEnvironment(req: IncomingMessage, repo: string, options: ServeGitHttpOptions): Record<string, string> {
  let pathInfo: string;
  let queryString = '';
  if (options.service === 'info-refs') {
    const wanted = new URL(req.url ?? '/', 'http://localhost').searchParams.get('service');
    if (wanted !== 'git-upload-pack' && wanted !== 'git-receive-pack')
      throw new AppError('forbidden', "Only git's smart HTTP protocol is served; use git 1.6.6 or newer", { code: 'dumb_http' });
    pathInfo = '/info/refs';
    queryString = `service=${wanted}`;
  } else pathInfo = options.service === 'upload-pack' ? '/git-upload-pack' : '/git-receive-pack';
  const extra: Record<string, string> = {
    ...options.env,
    GIT_PROJECT_ROOT: path.dirname(repo),
    PATH_INFO: `/${path.basename(repo)}${pathInfo}`,
    REQUEST_METHOD: req.method ?? 'GET',
    QUERY_STRING: queryString,
    CONTENT_TYPE: req.headers['content-type'] ?? '',
    REMOTE_ADDR: req.socket.remoteAddress ?? '',
    GIT_HTTP_EXPORT_ALL: '1',
  };
  // The caller authorized this request, so the repository's own switch is not a second gate.
  const config = Object.entries({ 'http.receivepack': 'true', ...options.config });
  extra.GIT_CONFIG_COUNT = String(config.length);
  config.forEach(([key, value], i) => {
    extra[`GIT_CONFIG_KEY_${i}`] = key;
    extra[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  if (options.remoteUser) extra.REMOTE_USER = options.remoteUser;
  // Without a length (a chunked body) http-backend reads to the end of its input.
  const length = req.headers['content-length'];
  if (length && /^\d+$/.test(length) && !req.headers['transfer-encoding']) extra.CONTENT_LENGTH = length;
  const encoding = req.headers['content-encoding'];
  if (encoding) extra.HTTP_CONTENT_ENCODING = encoding;
  // Protocol v2 is negotiated through this header (`version=2`); anything odd is left out.
  const protocol = req.headers['git-protocol'];
  if (typeof protocol === 'string' && /^[A-Za-z0-9=:._-]{1,256}$/.test(protocol)) extra.HTTP_GIT_PROTOCOL = protocol;
  return childEnvironment(extra);
}

/** A CGI header block: `Status: 404 Not Found` sets the status (200 without one); the rest are headers. */
function parseCgiHeaders(block: string): { status: number; fields: Record<string, string> } {
  let status = 200;
  const fields: Record<string, string> = {};
  for (const line of block.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === 'status') status = Number(/^\d{3}/.exec(value)?.[0] ?? 200);
    else fields[name] = value;
  }
  return { status, fields };
}

/**
 * Read the command list of a receive-pack request as it streams into git, decompressing on the side
 * when the client gzip'd the body. Reading stops at the flush that ends the list; the pack after it
 * only passes through.
 */
function watchCommands(req: IncomingMessage): PushCommandReader {
  const reader = new PushCommandReader();
  const encoding = (req.headers['content-encoding'] ?? '').toLowerCase();
  if (encoding === 'gzip' || encoding === 'x-gzip') {
    const gunzip = createGunzip();
    const stop = () => {
      req.off('data', onData);
      gunzip.destroy();
    };
    gunzip.on('data', (d: Buffer) => {
      if (reader.push(d) || reader.failed) stop();
    });
    gunzip.on('error', stop); // a corrupt body fails in git too
    const onData = (chunk: Buffer) => {
      gunzip.write(chunk);
    };
    req.on('data', onData);
    req.once('end', () => gunzip.end());
  } else {
    const onData = (chunk: Buffer) => {
      if (reader.push(chunk) || reader.failed) req.off('data', onData);
    };
    req.on('data', onData);
  }
  return reader;
}

/**
 * The commands receive-pack applied: those its report marks `ok`. A client that asked for no report
 * gets none to read, so then each ref is checked: it was applied if it now holds the new value.
 */
async function appliedUpdates(
  repo: string,
  reader: PushCommandReader,
  response: Buffer,
  options: ServeGitHttpOptions,
): Promise<RefUpdate[]> {
  if (!reader.done || reader.commands.length === 0) return [];
  const caps = reader.capabilities;
  if (caps.has('report-status') || caps.has('report-status-v2')) {
    const report = new ReportStatusReader(caps.has('side-band-64k') || caps.has('side-band'));
    report.push(response);
    const result = report.result();
    if (!result || !result.unpackOk) return [];
    return reader.commands.filter((c) => result.refs.get(c.ref) === true).map(toUpdate);
  }
  const refs = reader.commands.map((c) => c.ref);
  const out = await runGit(
    ['--git-dir=' + repo, 'for-each-ref', '--format=%(objectname) %(refname)', '--', ...refs],
    { gitPath: options.gitPath, signal: options.signal },
    { timeoutMs: 30_000 },
  );
  const now = new Map<string, string>();
  for (const line of out.stdout.toString('utf8').split('\n')) {
    const space = line.indexOf(' ');
    if (space > 0) now.set(line.slice(space + 1), line.slice(0, space));
  }
  return reader.commands.filter((c) => (isZeroId(c.after) ? !now.has(c.ref) : now.get(c.ref) === c.after)).map(toUpdate);
}

function toUpdate(c: PushCommand): RefUpdate {
  return { ref: c.ref, before: c.before, after: c.after };
}
