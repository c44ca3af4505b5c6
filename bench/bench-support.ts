/**
 * What the benchmarks share: the printed report (and its `--write` append to RESULTS.md), the machine
 * header line, medians and percentiles, the server started in a child process, a keep-alive JSON client
 * for its API, a process's RSS, and git as a client.
 */
import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { cpus, totalmem } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** The repository's root (the server child's working directory). */
export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The value after `name` on the command line (`--rounds 4` → `'4'`), or undefined. */
export function optionValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
}

/** Every line printed with `say`, for `writeResults`. */
const lines: string[] = [];

/** Print a line of the report (and keep it for RESULTS.md). */
export function say(s: string): void {
  lines.push(s);
  process.stdout.write(s + '\n');
}

/** With `--write` on the command line: append the printed report to bench/RESULTS.md and say so. */
export async function writeResults(): Promise<void> {
  if (!process.argv.includes('--write')) return;
  const file = path.join(root, 'bench', 'RESULTS.md');
  const before = await readFile(file, 'utf8').catch(() => '# Benchmark results\n');
  await writeFile(file, `${before.trimEnd()}\n\n${lines.join('\n')}\n`);
  say(`appended to ${file}`);
}

/** The report's first line: the title, the date and the machine. */
export function machineHeader(title: string): string {
  return `# ${title} — ${new Date().toISOString().slice(0, 10)}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
}

/** The upper median (the middle element; of an even count, the higher of the two middle ones). */
export const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Nearest-rank percentile (`p` in (0, 100]). */
export function percentile(xs: readonly number[], p: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** A server running in a child process. */
export interface ServerProcess {
  readonly url: string;
  readonly pid: number;
  /** SIGTERM, resolved when the process has exited. */
  stop(): Promise<void>;
}

/**
 * Start the server with `node <nodeArgs>` from the repository's root (node directly, so the pid is the
 * server's own, for /proc) with `env` on top of this process's environment; resolves with the URL the
 * server prints once it listens.
 */
export async function startServerProcess(nodeArgs: readonly string[], env: Readonly<Record<string, string>>): Promise<ServerProcess> {
  const child = spawn(process.execPath, nodeArgs, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (l) => {
      const m = /listening on (\S+)/.exec(l);
      if (m?.[1]) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`server exited (${String(code)})`)));
  });
  return {
    url,
    pid: child.pid!,
    stop: () =>
      new Promise((r) => {
        child.once('exit', () => r());
        child.kill('SIGTERM');
      }),
  };
}

/** One HTTP answer with its wall time. */
export interface Answer {
  readonly status: number;
  readonly body: unknown;
  readonly headers: http.IncomingHttpHeaders;
  readonly bytes: number;
  readonly ms: number;
}

/** A keep-alive JSON client for one token against a server's `/api/v4`. */
export class Client {
  private readonly agent: http.Agent;

  constructor(
    private readonly base: string,
    private readonly token: string,
    sockets = 1,
  ) {
    this.agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
  }

  /** Send a request; the time runs from the call to the last byte of the body. */
  request(method: string, route: string, body?: Record<string, unknown>): Promise<Answer> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = { 'PRIVATE-TOKEN': this.token };
    if (payload !== undefined)
      Object.assign(headers, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(payload)) });
    const t0 = performance.now();
    return new Promise((resolve, reject) => {
      const req = http.request(`${this.base}/api/v4${route}`, { method, headers, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const ms = performance.now() - t0;
          const raw = Buffer.concat(chunks);
          const text = raw.toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            body: text === '' ? null : (JSON.parse(text) as unknown),
            headers: res.headers,
            bytes: raw.length,
            ms,
          });
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** Like request, but a non-2xx answer is an error. */
  async ok(method: string, route: string, body?: Record<string, unknown>): Promise<Answer> {
    const a = await this.request(method, route, body);
    if (a.status < 200 || a.status >= 300) throw new Error(`${method} ${route}: ${a.status} ${JSON.stringify(a.body)}`);
    return a;
  }

  close(): void {
    this.agent.destroy();
  }
}

/** A process's resident set size in bytes, from /proc (0 when it is gone). */
export function rssOf(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** git as a client would run it: no credential helper or system config, `home` as HOME; resolves with stdout. */
export function git(args: readonly string[], cwd: string, home: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      ['-c', 'credential.helper=', '-c', 'init.defaultBranch=main', '-c', 'user.name=Bench', '-c', 'user.email=bench@example.com', ...args],
      { cwd, env: { ...process.env, HOME: home, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1' }, maxBuffer: 1 << 26 },
      (error, stdout, stderr) => (error ? reject(new Error(`git ${args.join(' ')}: ${stderr}`)) : resolve(stdout)),
    );
  });
}
