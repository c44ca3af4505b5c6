/**
 * What GitLab's LFS integrity check costs a push (not a test): the same large push (many small
 * files, which the check reads, and one large binary, which it must not) into fresh projects with
 * `lfs_enabled` (checked) and without (not checked), alternated, against a server child. Prints the
 * median wall time of each and the difference.
 *
 *   npx tsx bench/lfs-push-check-bench.ts [--files 5000] [--mb 100] [--rounds 3]
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { serverNodeFlags } from '../server/config/node-flags.js';
import { median, say, startServerProcess } from './bench-support.js';

const adminToken = 'bench-admin';
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const files = arg('files', 5000);
const megabytes = arg('mb', 100);
const rounds = arg('rounds', 3);

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

async function main(): Promise<void> {
  const work = mkdtempSync(path.join(tmpdir(), 'cratehouse-lfs-check-bench-'));
  const home = path.join(work, 'home');
  mkdirSync(home);
  const server = await startServerProcess(['--import', 'tsx', ...serverNodeFlags, 'server/main.ts'], {
    CRATEHOUSE_PORT: '0',
    CRATEHOUSE_HOST: '127.0.0.1',
    CRATEHOUSE_DATA_DIR: path.join(work, 'data'),
    CRATEHOUSE_ADMIN_TOKEN: adminToken,
    CRATEHOUSE_LOG_LEVEL: 'error',
  });
  try {
    const src = path.join(work, 'src');
    await git(['init', '-q', src], work, home);
    say(`writing ${files} small files (each read by the check) and a ${megabytes} MB binary (never read)…`);
    mkdirSync(path.join(src, 'notes'));
    for (let i = 0; i < files; i++) writeFileSync(path.join(src, 'notes', `${i}.txt`), `take ${i}: ${randomBytes(40).toString('hex')}\n`);
    writeFileSync(path.join(src, 'mix.bin'), randomBytes(megabytes * 1024 * 1024));
    await git(['add', '.'], src, home);
    await git(['commit', '-q', '-m', 'session'], src, home);

    const times: Record<'checked' | 'unchecked', number[]> = { checked: [], unchecked: [] };
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? (['checked', 'unchecked'] as const) : (['unchecked', 'checked'] as const);
      for (const kind of order) {
        const res = await fetch(`${server.url}/api/v4/projects`, {
          method: 'POST',
          headers: { 'PRIVATE-TOKEN': adminToken, 'Content-Type': 'application/json' },
          body: JSON.stringify({ name: `push ${kind} ${round}`, lfs_enabled: kind === 'checked' }),
        });
        const project = (await res.json()) as { http_url_to_repo: string };
        const remote = project.http_url_to_repo.replace('http://', `http://root:${adminToken}@`);
        const start = performance.now();
        await git(['push', '-q', remote, 'main'], src, home);
        times[kind].push((performance.now() - start) / 1000);
      }
    }
    const checked = median(times.checked);
    const unchecked = median(times.unchecked);
    say(`LFS integrity check, push of ${files} small files + ${megabytes} MB, ${rounds} rounds, node ${process.version}`);
    say(`  checked (lfs_enabled):      median ${checked.toFixed(2)} s  [${times.checked.map((t) => t.toFixed(2)).join(', ')}]`);
    say(`  unchecked (lfs_enabled off): median ${unchecked.toFixed(2)} s  [${times.unchecked.map((t) => t.toFixed(2)).join(', ')}]`);
    say(`  difference: ${(checked - unchecked).toFixed(2)} s`);
  } finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
