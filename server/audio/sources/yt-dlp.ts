import { spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { probeTool } from '../../http/tool-probe.js';

/** yt-dlp as found at start: its path and version. */
export interface YtDlp {
  readonly path: string;
  readonly version: string;
}

/** Find yt-dlp: CRATEHOUSE_YTDLP (or `off`), else `yt-dlp` on PATH; null when none runs. */
export async function resolveYtDlp(configured: string | null): Promise<YtDlp | null> {
  if (configured === 'off') return null;
  const candidate = configured ?? 'yt-dlp';
  const version = await probeTool(candidate, '--version');
  return version === null ? null : { path: candidate, version: version.trim() };
}

/** What yt-dlp fetched. */
export interface YtDlpDownload {
  readonly file: string;
  readonly title: string | null;
}

/** yt-dlp has no extractor for the page (only its generic one would have tried): use the plain path. */
export class YtDlpUnsupportedError extends Error {}

/**
 * Download the best audio of a page with yt-dlp into `dir` (file names start with `prefix`).
 * Only site-specific extractors run (`--ies default,-generic`): the generic extractor would fetch
 * arbitrary pages and their media with yt-dlp's own network code, outside the server's address
 * checks, and the plain path already handles generic pages. Throws YtDlpUnsupportedError when
 * no extractor matches, and an Error with yt-dlp's last message for other failures.
 */
export async function downloadWithYtDlp(options: {
  readonly ytdlp: YtDlp;
  readonly url: string;
  readonly dir: string;
  readonly prefix: string;
  readonly maxBytes: number;
  readonly signal: AbortSignal;
  readonly onProgress: (fraction: number) => void;
}): Promise<YtDlpDownload> {
  const args = [
    '--ies',
    'default,-generic',
    '--no-playlist',
    '--no-config',
    '--no-cache-dir',
    '--no-part',
    '--no-mtime',
    '--newline',
    '--no-colors',
    '--socket-timeout',
    '30',
    '--max-filesize',
    String(options.maxBytes),
    '-f',
    'bestaudio/best',
    '--progress-template',
    'download:PROGRESS %(progress.downloaded_bytes)s %(progress.total_bytes)s %(progress.total_bytes_estimate)s',
    '--no-simulate',
    '--print',
    'after_move:TITLE %(title)s',
    '-o',
    path.join(options.dir, `${options.prefix}.%(ext)s`),
    '--',
    options.url,
  ];
  const child = spawn(options.ytdlp.path, args, { stdio: ['ignore', 'pipe', 'pipe'], signal: options.signal });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    if (stderr.length < 16_000) stderr += d.toString();
  });
  let title: string | null = null;
  createInterface({ input: child.stdout }).on('line', (line) => {
    const progress = /^PROGRESS (\d+) (\S+) (\S+)/.exec(line);
    if (progress) {
      const total = Number(progress[2]) || Number(progress[3]);
      if (total > 0) options.onProgress(Math.min(1, Number(progress[1]) / total));
    } else if (line.startsWith('TITLE ')) title = line.slice(6).trim() || null;
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  if (code !== 0) {
    if (/Unsupported URL|No suitable extractor/i.test(stderr)) throw new YtDlpUnsupportedError(`yt-dlp does not support ${options.url}`);
    const last =
      stderr
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('ERROR'))
        .pop() ??
      stderr.trim().split('\n').pop() ??
      `exit code ${code}`;
    throw new Error(`yt-dlp failed: ${last.replace(/^ERROR:\s*/, '')}`);
  }
  const file = (await readdir(options.dir)).find((f) => f.startsWith(`${options.prefix}.`));
  if (!file) throw new Error('yt-dlp finished without writing a file (over the size limit?)');
  return { file: path.join(options.dir, file), title };
}
