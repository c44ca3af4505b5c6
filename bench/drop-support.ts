/**
 * What the drop benchmarks share (gui-drop-bench.ts, drop-cpu-ab.ts): a checkout's built server, fresh
 * bytes per round, the server process's and Chromium's CPU time, and the Analyse screen's requests sent
 * from node as the page sends them.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { serverNodeFlags } from '../server/config/node-flags.js';
import { isSummaryAnalysis, type SummaryAnalysis } from '../renderer/src/api/held-audio-summary.js';
import { startServerProcess, type ServerProcess } from './bench-support.js';

/** The built server of `checkout` (its dist/) on `dataDir`, with `token` as its admin token, answering on a free port. */
export function startBuiltServer(checkout: string, dataDir: string, token: string): Promise<ServerProcess> {
  return startServerProcess([...serverNodeFlags, path.join(path.resolve(checkout), 'dist/server/main.js')], {
    CRATEHOUSE_PORT: '0',
    CRATEHOUSE_HOST: '127.0.0.1',
    CRATEHOUSE_DATA_DIR: dataDir,
    CRATEHOUSE_ADMIN_TOKEN: token,
    CRATEHOUSE_LOG_LEVEL: 'error',
  });
}

/** `track` with one sample changed by `variant`: new bytes, a new sha256, nothing cached. */
export function withOneSampleChanged(track: Buffer, variant: number): Buffer {
  const copy = Buffer.from(track);
  copy.writeInt16LE(variant, 44 + 4 * 1000);
  return copy;
}

/** CPU milliseconds the server process has used so far (all its threads), from /proc. */
export function serverCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * (1000 / 100); // utime + stime, in clock ticks of 10 ms
}

/** The kind of a Chromium process from its command line: browser, renderer, gpu, network, or another utility's name. */
function chromiumKind(cmdline: string): string {
  const type = /--type=([a-z-]+)/.exec(cmdline)?.[1];
  if (!type) return 'browser';
  if (type === 'gpu-process') return 'gpu';
  if (type !== 'utility') return type;
  const service = /--utility-sub-type=([A-Za-z.]+)/.exec(cmdline)?.[1] ?? 'utility';
  return service === 'network.mojom.NetworkService' ? 'network' : service;
}

/**
 * CPU milliseconds used so far by every process whose command line contains `marker` (Chromium's
 * browser, renderer, GPU and network processes: the bench machine runs no other Chromium), by kind
 * of process (`chromiumKind`). Processes that exited meanwhile are not counted.
 */
export function processesCpuMsByKind(marker: string): Record<string, number> {
  const byKind: Record<string, number> = {};
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (!cmdline.includes(marker)) continue;
      const kind = chromiumKind(cmdline);
      byKind[kind] = (byKind[kind] ?? 0) + serverCpuMs(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return byKind;
}

/** The kinds' CPU used between two readings of processesCpuMsByKind. */
export function cpuSince(before: Readonly<Record<string, number>>, after: Readonly<Record<string, number>>): Record<string, number> {
  return Object.fromEntries(Object.entries(after).map(([kind, ms]) => [kind, ms - (before[kind] ?? 0)]));
}

/** As the page decides (held-audio.ts isUnderWay, the same code): the upload answer lists this request's analysis as under way. */
function isUnderWay(listed: readonly SummaryAnalysis[], request: URL): boolean {
  const query = Object.fromEntries([...request.searchParams].filter(([k]) => k !== 'sha256'));
  return isSummaryAnalysis(listed, request.pathname.replace('/audio/v1', ''), query);
}

/**
 * The page's requests (`/audio/v1` paths with their queries) as node sends them: upload to the library
 * once, then by hash the analyses the upload answer lists as under way at once, the rest two at a time.
 * Resolves to the ms until the upload answered and until the last answer.
 */
export async function sendAsPage(
  url: string,
  token: string,
  bytes: Buffer,
  requests: readonly string[],
): Promise<{ readonly uploaded: number; readonly wall: number }> {
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const auth = { Authorization: `Bearer ${token}` };
  const start = performance.now();
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)], { type: 'audio/wav' }), 'track.wav');
  const up = await fetch(`${url}/audio/v1/library/items`, { method: 'POST', headers: auth, body: form });
  if (!up.ok) throw new Error(`upload: ${up.status}`);
  const listed = ((await up.json()) as { summary_analyses?: SummaryAnalysis[] }).summary_analyses ?? [];
  const uploaded = performance.now() - start;
  const urls = requests.map((r) => {
    const u = new URL(r, url);
    u.searchParams.set('sha256', sha256);
    return u;
  });
  const ask = async (next: URL) => {
    const res = await fetch(next, { method: 'POST', headers: auth });
    if (!res.ok) throw new Error(`${next.toString()}: ${res.status}`);
    await res.arrayBuffer();
  };
  const queue = urls.filter((u) => !isUnderWay(listed, u));
  const lane = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) await ask(next);
  };
  await Promise.all([lane(), lane(), ...urls.filter((u) => isUnderWay(listed, u)).map(ask)]);
  return { uploaded, wall: performance.now() - start };
}
