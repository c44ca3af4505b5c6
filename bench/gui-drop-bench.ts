/**
 * Drop to filled (issue 22 item 6; not a test): a 3-minute stereo WAV is given to the Analyse screen
 * in Chromium against the built server (`npm run build` first), and the time from handing the page
 * the file to every panel filled (the seven requests done, the waveform ready, the spectrogram drawn)
 * is measured. Each round uses fresh bytes (one sample changed), so the server analyses cold. Printed
 * beside it, the reference: the same requests sent from node without a browser, upload once then by
 * hash as the page sends them (what the upload answer lists as under way at once, the rest two at a time),
 * on fresh bytes too; and the CPU time of the server and of Chromium's processes from drop to filled. Then the browser's resource
 * timings per route of the last round (start and duration from the drop).
 *
 *   npm run build && npx tsx bench/gui-drop-bench.ts [--rounds 3]
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from '@playwright/test';
import { serverNodeFlags } from '../server/config/node-flags.js';
import { median, say, startServerProcess } from './bench-support.js';
import { processesCpuMs, sendAsPage, serverCpuMs, withOneSampleChanged } from './drop-support.js';
import { writeSynthTrack } from './synth-track.js';

const token = 'bench-gui-admin';
const roundsArg = process.argv.indexOf('--rounds');
const rounds = roundsArg > 0 ? Number(process.argv[roundsArg + 1]) : 3;
let variant = 0;
// bench/ is type-checked without the DOM's types; these run in the page.
declare const document: { querySelector(s: string): unknown; querySelectorAll(s: string): { readonly length: number } };
declare const sessionStorage: { setItem(key: string, value: string): void };

/** Every panel filled: the seven requests done, the waveform ready, the spectrogram drawn (runs in the page). */
const filled = () =>
  document.querySelectorAll('[aria-label="Requests"] [data-status="done"]').length === 7 &&
  document.querySelector('[role="slider"][data-ready="true"]') !== null &&
  document.querySelector('canvas[data-drawn="mel"]') !== null;

interface ResourceTiming {
  readonly name: string;
  readonly startTime: number;
  readonly duration: number;
}

async function main(): Promise<void> {
  const work = mkdtempSync(path.join(tmpdir(), 'cratehouse-gui-bench-'));
  const wav = path.join(work, 'track.wav');
  await writeSynthTrack(wav, 180);
  const track = readFileSync(wav);
  const server = await startServerProcess([...serverNodeFlags, 'dist/server/main.js'], {
    CRATEHOUSE_PORT: '0',
    CRATEHOUSE_HOST: '127.0.0.1',
    CRATEHOUSE_DATA_DIR: path.join(work, 'data'),
    CRATEHOUSE_ADMIN_TOKEN: token,
    CRATEHOUSE_LOG_LEVEL: 'error',
  });
  const chromiumPath = process.env.CRATEHOUSE_CHROMIUM || '/usr/bin/chromium';
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.addInitScript((value) => sessionStorage.setItem('cratehouse.token', value), token);
    say(`# Drop to filled: a ${(track.length / 1e6).toFixed(1)} MB 3-minute WAV on Analyse (load ${loadavg()[0]!.toFixed(2)})`);
    const gui: number[] = [];
    const refs: number[] = [];
    const cpus: number[] = [];
    const browserCpus: number[] = [];
    let timings: ResourceTiming[] = [];
    for (let round = 0; round <= rounds; round++) {
      await page.goto(`${server.url}/analyse`);
      await page.getByTestId('file-input').waitFor({ state: 'attached' });
      await page.evaluate(() => performance.clearResourceTimings());
      // A path, not a buffer: Playwright hands Chromium the file, not 32 MB over the protocol.
      const file = path.join(work, `round-${round}`, 'track.wav');
      mkdirSync(path.dirname(file));
      writeFileSync(file, withOneSampleChanged(track, ++variant));
      const cpu0 = serverCpuMs(server.pid);
      const browserCpu0 = processesCpuMs('chrom');
      const start = await page.evaluate(() => performance.now());
      await page.getByTestId('file-input').setInputFiles(file);
      await page.waitForFunction(filled, undefined, { polling: 'raf', timeout: 120_000 });
      const end = await page.evaluate(() => performance.now());
      const cpu = serverCpuMs(server.pid) - cpu0;
      const browserCpu = processesCpuMs('chrom') - browserCpu0;
      timings = (await page.evaluate(() =>
        performance
          .getEntriesByType('resource')
          .filter((e) => e.name.includes('/audio/v1/'))
          .map((e) => ({ name: e.name, startTime: e.startTime, duration: e.duration })),
      )) as ResourceTiming[];
      timings = timings.map((t) => ({ ...t, startTime: t.startTime - start }));
      const byHash = timings.filter((t) => t.name.includes('sha256=')).map((t) => new URL(t.name).pathname + new URL(t.name).search);
      const { wall: ref } = await sendAsPage(
        server.url,
        token,
        withOneSampleChanged(track, ++variant),
        byHash.map((r) => r.replace(/([?&])sha256=[0-9a-f]+&?/, '$1').replace(/[?&]$/, '')),
      );
      // Round 0 warms the page, the server's workers and the WebAssembly kernels; not counted.
      if (round === 0) continue;
      gui.push(end - start);
      refs.push(ref);
      cpus.push(cpu);
      browserCpus.push(browserCpu);
      say(
        `round ${round}: GUI drop to filled ${(end - start).toFixed(0)} ms (CPU meanwhile: server ${cpu.toFixed(0)} ms, Chromium ${browserCpu.toFixed(0)} ms); ` +
          `reference (node, same requests) ${ref.toFixed(0)} ms`,
      );
    }
    say(`median of ${rounds}: GUI ${median(gui).toFixed(0)} ms, reference ${median(refs).toFixed(0)} ms (target: GUI ≤ 1000 ms)`);
    // The machine is shared: the server's CPU time (all threads) is the load-independent part of the figure.
    say(
      `CPU from drop to filled, median: server ${median(cpus).toFixed(0)} ms, Chromium ${median(browserCpus).toFixed(0)} ms ` +
        `(2 cores: the wall time cannot be under half their sum; load now ${loadavg()[0]!.toFixed(2)})`,
    );
    say('last round, per request (ms from the drop):');
    for (const t of timings.sort((a, b) => a.startTime - b.startTime)) {
      const u = new URL(t.name);
      say(`  ${u.pathname.padEnd(34)} start ${t.startTime.toFixed(0).padStart(5)}  took ${t.duration.toFixed(0).padStart(5)}`);
    }
  } finally {
    await browser.close();
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
