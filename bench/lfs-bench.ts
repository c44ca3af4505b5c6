/**
 * Git LFS benchmark (not a test): the real git-lfs client pushes a 500 MB WAV to a server child and
 * clones it back; prints the wall time of each and the server's peak RSS above its idle RSS, sampled
 * from /proc every 20 ms (target: at most 100 MB above idle, since uploads and downloads stream).
 *
 *   npx tsx bench/lfs-bench.ts [--mb 500]
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { serverNodeFlags } from '../server/config/node-flags.js';
import { say, startServerProcess } from './bench-support.js';
import { sha256File, writeNoiseWav } from '../server/test-support/signals.js';

const adminToken = 'bench-admin';
const mbArg = process.argv.indexOf('--mb');
const megabytes = mbArg > 0 ? Number(process.argv[mbArg + 1]) : 500;

function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

function git(args: readonly string[], cwd: string, home: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      ['-c', 'credential.helper=', '-c', 'init.defaultBranch=main', '-c', 'user.name=Bench', '-c', 'user.email=bench@example.com', ...args],
      { cwd, env: { ...process.env, HOME: home, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1' }, maxBuffer: 1 << 26 },
      (error, stdout, stderr) => (error ? reject(new Error(`git ${args.join(' ')}: ${stderr}`)) : resolve(stdout)),
    );
  });
}

/** Run `step` while sampling the server's RSS; the step's seconds and the highest RSS seen. */
async function measured(pid: number, step: () => Promise<unknown>): Promise<{ seconds: number; peak: number }> {
  let peak = rssOf(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 20);
  const start = performance.now();
  try {
    await step();
  } finally {
    clearInterval(timer);
  }
  return { seconds: (performance.now() - start) / 1000, peak: Math.max(peak, rssOf(pid)) };
}

const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;

async function main(): Promise<void> {
  const work = mkdtempSync(path.join(tmpdir(), 'cratehouse-lfs-bench-'));
  const dataDir = path.join(work, 'data');
  const home = path.join(work, 'home');
  mkdirSync(home);
  const server = await startServerProcess(['--import', 'tsx', ...serverNodeFlags, 'server/main.ts'], {
    CRATEHOUSE_PORT: '0',
    CRATEHOUSE_HOST: '127.0.0.1',
    CRATEHOUSE_DATA_DIR: dataDir,
    CRATEHOUSE_ADMIN_TOKEN: adminToken,
    CRATEHOUSE_LOG_LEVEL: 'error',
  });
  try {
    const res = await fetch(`${server.url}/api/v4/projects`, {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': adminToken, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'LFS bench', visibility: 'private' }),
    });
    const project = (await res.json()) as { http_url_to_repo: string };
    const remote = project.http_url_to_repo.replace('http://', `http://root:${adminToken}@`);

    const src = path.join(work, 'src');
    await git(['init', '-q', src], work, home);
    await git(['lfs', 'install', '--skip-repo'], work, home);
    await git(['lfs', 'track', '*.wav'], src, home);
    const wav = path.join(src, 'stem.wav');
    say(`writing a ${megabytes} MB WAV…`);
    writeNoiseWav(wav, megabytes * 1024 * 1024);
    const expected = await sha256File(wav);
    await git(['add', '.gitattributes', 'stem.wav'], src, home);
    await git(['commit', '-q', '-m', 'stem'], src, home);

    // Idle: after a first request has loaded the routes, with the garbage of startup given time to go.
    await new Promise((r) => setTimeout(r, 2000));
    const idle = rssOf(server.pid);
    const push = await measured(server.pid, () => git(['push', '-q', remote, 'main'], src, home));
    const clone = path.join(work, 'clone');
    const pull = await measured(server.pid, () => git(['clone', '-q', remote, clone], work, home));
    const same = (await sha256File(path.join(clone, 'stem.wav'))) === expected;
    const peak = Math.max(push.peak, pull.peak);
    say(`LFS bench, ${megabytes} MB WAV, node ${process.version}`);
    say(`  push:  ${push.seconds.toFixed(1)} s (${(megabytes / push.seconds).toFixed(0)} MB/s), server peak RSS ${mib(push.peak)}`);
    say(
      `  clone: ${pull.seconds.toFixed(1)} s (${(megabytes / pull.seconds).toFixed(0)} MB/s), server peak RSS ${mib(pull.peak)}, bytes identical: ${same}`,
    );
    say(
      `  server idle RSS ${mib(idle)}, peak ${mib(peak)}: ${mib(peak - idle)} above idle (target ≤ 100 MB: ${peak - idle <= 100 * 1024 * 1024 ? 'met' : 'MISSED'})`,
    );
    if (!same || peak - idle > 100 * 1024 * 1024) process.exitCode = 1;
  } finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
