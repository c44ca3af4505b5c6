/**
 * Library import A/B (issue 22 item 1; not a test): the server's CPU and the wall time to summarise a
 * folder of real samples, this checkout's built server (`dist/`) against another checkout's (`--other
 * <dir>`). Each round starts both servers afresh (empty data dirs: nothing cached), uploads every file of
 * the folder to the library four at a time, and waits until every item's summary is ready or failed;
 * the sides alternate which goes first. The input is Debian's sonic-pi-samples (166 FLAC one-shots and
 * loops, 22 MB) by default: this measures speed, not any judgement. About 5 minutes per side and round
 * on the 2-core machine (2026-11-27), so one round by default.
 *
 *   npm run build && npx tsx bench/library-import-ab.ts --other /tmp/old-checkout [--rounds 1] [--dir <folder>]
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { serverNodeFlags } from '../server/config/node-flags.js';
import { median, optionValue, say, startServerProcess } from './bench-support.js';
import { serverCpuMs } from './drop-support.js';

const token = 'bench-import-admin';
const rounds = Number(optionValue('--rounds') ?? 1);
const other = optionValue('--other');
const dir = optionValue('--dir') ?? '/usr/share/sonic-pi/samples';
const auth = { Authorization: `Bearer ${token}` };

/** Upload every file (`concurrency` at a time), then poll until no item is still analysing. */
async function importAll(url: string, files: readonly string[], concurrency = 4): Promise<{ readonly failed: number }> {
  const queue = [...files];
  const lane = async () => {
    for (let file = queue.shift(); file; file = queue.shift()) {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(readFileSync(file))]), path.basename(file));
      const res = await fetch(`${url}/audio/v1/library/items`, { method: 'POST', headers: auth, body: form });
      await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  for (;;) {
    const statuses: string[] = [];
    for (let page = 1; ; page++) {
      const res = await fetch(`${url}/audio/v1/library/items?per_page=200&page=${page}`, { headers: auth });
      const body = (await res.json()) as { items: { status: string }[]; total: number };
      statuses.push(...body.items.map((i) => i.status));
      if (statuses.length >= body.total || body.items.length === 0) break;
    }
    if (!statuses.includes('analysing')) return { failed: statuses.filter((s) => s === 'failed').length };
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function main(): Promise<void> {
  if (!other) throw new Error('--other <checkout with a built dist/> is required');
  const files = readdirSync(dir)
    .filter((f) => /\.(flac|wav|ogg|mp3|aiff?)$/i.test(f))
    .sort()
    .map((f) => path.join(dir, f));
  const checkouts = { this: process.cwd(), other: path.resolve(other) };
  say(
    `# Library import A/B: ${files.length} files from ${dir}, this=${checkouts.this} other=${checkouts.other} (load ${loadavg()[0]!.toFixed(2)})`,
  );
  const got: Record<'this' | 'other', { wall: number[]; cpu: number[] }> = { this: { wall: [], cpu: [] }, other: { wall: [], cpu: [] } };
  for (let round = 1; round <= rounds; round++) {
    for (const side of round % 2 ? (['this', 'other'] as const) : (['other', 'this'] as const)) {
      const work = mkdtempSync(path.join(tmpdir(), 'cratehouse-import-ab-'));
      const server = await startServerProcess([...serverNodeFlags, path.join(checkouts[side], 'dist/server/main.js')], {
        CRATEHOUSE_PORT: '0',
        CRATEHOUSE_HOST: '127.0.0.1',
        CRATEHOUSE_DATA_DIR: path.join(work, 'data'),
        CRATEHOUSE_ADMIN_TOKEN: token,
        CRATEHOUSE_LOG_LEVEL: 'error',
      });
      try {
        // Let the start-up warm-up finish, so it is not counted.
        await new Promise((r) => setTimeout(r, 4000));
        const cpu0 = serverCpuMs(server.pid);
        const start = performance.now();
        const { failed } = await importAll(server.url, files);
        const wall = performance.now() - start;
        const cpu = serverCpuMs(server.pid) - cpu0;
        got[side].wall.push(wall);
        got[side].cpu.push(cpu);
        say(
          `round ${round} ${side.padEnd(5)}: every summary done in ${(wall / 1000).toFixed(2)} s, server CPU ${(cpu / 1000).toFixed(2)} s ` +
            `(${failed} failed; load ${loadavg()[0]!.toFixed(2)})`,
        );
      } finally {
        await server.stop();
        rmSync(work, { recursive: true, force: true });
      }
    }
  }
  const m = (side: 'this' | 'other', k: 'wall' | 'cpu') => median(got[side][k]) / 1000;
  say(
    `median: this ${m('this', 'wall').toFixed(2)} s wall, ${m('this', 'cpu').toFixed(2)} s CPU; other ${m('other', 'wall').toFixed(2)} s wall, ` +
      `${m('other', 'cpu').toFixed(2)} s CPU; this/other CPU ${(m('this', 'cpu') / m('other', 'cpu')).toFixed(2)}×, wall ${(m('this', 'wall') / m('other', 'wall')).toFixed(2)}×`,
  );
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
