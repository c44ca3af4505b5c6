/**
 * What the benchmarks share: the printed report (and its `--write` append to RESULTS.md), the machine
 * header line, medians, the server started in a child process, a process's RSS, and git as a client.
 */
import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** The repository's root (the server child's working directory). */
export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

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
