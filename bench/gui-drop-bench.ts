/**
 * Drop to filled (issue 22 item 6; not a test): a 3-minute stereo WAV is given to the Analyse screen
 * in Chromium against the built server (`npm run build` first), and the time from handing the page
 * the file to every panel filled (the seven requests done, the waveform ready, the spectrogram drawn)
 * is measured. Each round uses fresh bytes (one sample changed), so the server analyses cold. Printed
 * beside it, the reference: the same requests sent from node without a browser, upload once then by
 * hash as the page sends them (what the upload answer lists as under way at once, the rest two at a time),
 * on fresh bytes too; and the CPU time of the server and of Chromium's processes (in all, and by kind: renderer, GPU,
 * network, browser) from drop to filled. Then the browser's resource
 * timings per route of the last round (start and duration from the drop).
 *
 * With `--other <checkout>` (another checkout, built), its server and page run beside this one's, both
 * visited every round in turns, each on its own fresh data dir, and both medians are printed with their
 * ratio: a change is measured against what it changes on the same machine in the same minutes.
 *
 *   npm run build && npx tsx bench/gui-drop-bench.ts [--rounds 3] [--other <checkout>]
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from '@playwright/test';
import { median, optionValue, say, type ServerProcess } from './bench-support.js';
import { cpuSince, processesCpuMsByKind, sendAsPage, serverCpuMs, startBuiltServer, withOneSampleChanged } from './drop-support.js';
import { writeSynthTrack } from './synth-track.js';

const token = 'bench-gui-admin';
const rounds = Number(optionValue('--rounds') ?? 3);
/** Another checkout (built) whose page and server run beside this one's, round by round. */
const other = optionValue('--other');
let variant = 0;
// bench/ is type-checked without the DOM's types; this runs in the page.
declare const sessionStorage: { setItem(key: string, value: string): void };

/** Every panel filled: the seven requests done, the waveform ready, the spectrogram drawn (a page expression). */
const filled =
  `document.querySelectorAll('[aria-label="Requests"] [data-status="done"]').length === 7 && ` +
  `document.querySelector('[role="slider"][data-ready="true"]') !== null && ` +
  `document.querySelector('canvas[data-drawn="mel"]') !== null`;

/**
 * Resolves in the page to performance.now() at the first animation frame after `filled` holds. The page
 * is watched by a MutationObserver (every condition is an attribute or element the page sets), not polled
 * every frame: a per-frame probe asks Chromium for a main frame each vsync, CPU the page itself would not
 * spend (the first version polled with requestAnimationFrame).
 */
const whenFilled = `new Promise((resolve) => {
  const settle = () => requestAnimationFrame(() => resolve(performance.now()));
  if (${filled}) return settle();
  const observer = new MutationObserver(() => {
    if (!(${filled})) return;
    observer.disconnect();
    settle();
  });
  observer.observe(document.body, { subtree: true, childList: true, attributes: true });
})`;

interface ResourceTiming {
  readonly name: string;
  readonly startTime: number;
  readonly duration: number;
}

/** One server the page is loaded from: this checkout's build, or with `--other` another checkout's. */
interface Side {
  readonly label: string;
  readonly server: ServerProcess;
  readonly gui: number[];
  readonly refs: number[];
  readonly cpus: number[];
  readonly browserCpus: number[];
  /** Chromium's CPU per drop by kind of process (renderer, gpu, network, browser…). */
  readonly browserByKind: Map<string, number[]>;
}

async function main(): Promise<void> {
  const work = mkdtempSync(path.join(tmpdir(), 'cratehouse-gui-bench-'));
  const wav = path.join(work, 'track.wav');
  await writeSynthTrack(wav, 180);
  const track = readFileSync(wav);
  const sides: Side[] = [];
  const side = async (label: string, checkout: string) =>
    sides.push({
      label,
      server: await startBuiltServer(checkout, path.join(work, `data-${sides.length}`), token),
      gui: [],
      refs: [],
      cpus: [],
      browserCpus: [],
      browserByKind: new Map(),
    });
  await side('this checkout', '.');
  if (other) await side(`other (${other})`, other);
  const chromiumPath = process.env.CRATEHOUSE_CHROMIUM || '/usr/bin/chromium';
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.addInitScript((value) => sessionStorage.setItem('cratehouse.token', value), token);
    // Which Chromium and Node: runs with other versions of either are not comparable.
    say(
      `# Drop to filled: a ${(track.length / 1e6).toFixed(1)} MB 3-minute WAV on Analyse, Chromium ${browser.version()}, Node ${process.version} (load ${loadavg()[0]!.toFixed(2)})`,
    );
    let timings: ResourceTiming[] = [];
    for (let round = 0; round <= rounds; round++) {
      // With two servers, each round visits both, in turns that swap, so neither always goes first.
      for (const { label, server, gui, refs, cpus, browserCpus, browserByKind } of round % 2 === 0 ? sides : [...sides].reverse()) {
        await page.goto(`${server.url}/analyse`);
        await page.getByTestId('file-input').waitFor({ state: 'attached' });
        await page.evaluate(() => performance.clearResourceTimings());
        // A path, not a buffer: Playwright hands Chromium the file, not 32 MB over the protocol.
        const file = path.join(work, `round-${++variant}`, 'track.wav');
        mkdirSync(path.dirname(file));
        writeFileSync(file, withOneSampleChanged(track, variant));
        const cpu0 = serverCpuMs(server.pid);
        const browserCpu0 = processesCpuMsByKind('chrom');
        const filledAt = page.evaluate(whenFilled) as Promise<number>;
        const start = await page.evaluate(() => performance.now());
        await page.getByTestId('file-input').setInputFiles(file);
        const end = await Promise.race([
          filledAt,
          new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the page was not filled within 120 s')), 120_000).unref()),
        ]);
        const cpu = serverCpuMs(server.pid) - cpu0;
        const byKind = cpuSince(browserCpu0, processesCpuMsByKind('chrom'));
        const browserCpu = Object.values(byKind).reduce((sum, ms) => sum + ms, 0);
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
        for (const [kind, ms] of Object.entries(byKind)) browserByKind.set(kind, [...(browserByKind.get(kind) ?? []), ms]);
        say(
          `round ${round}${sides.length > 1 ? `, ${label}` : ''}: GUI drop to filled ${(end - start).toFixed(0)} ms ` +
            `(CPU meanwhile: server ${cpu.toFixed(0)} ms, Chromium ${browserCpu.toFixed(0)} ms); reference (node, same requests) ${ref.toFixed(0)} ms`,
        );
      }
    }
    for (const { label, gui, refs, cpus, browserCpus, browserByKind } of sides) {
      const who = sides.length > 1 ? `${label}: ` : '';
      say(`${who}median of ${rounds}: GUI ${median(gui).toFixed(0)} ms, reference ${median(refs).toFixed(0)} ms (target: GUI ≤ 1000 ms)`);
      // The machine is shared: CPU time is the less load-dependent part of the figure.
      say(
        `${who}CPU from drop to filled, median: server ${median(cpus).toFixed(0)} ms, Chromium ${median(browserCpus).toFixed(0)} ms ` +
          `(2 cores: the wall time cannot be under half their sum)`,
      );
      const kinds = [...browserByKind].filter(([, ms]) => median(ms) > 0).sort((a, b) => median(b[1]) - median(a[1]));
      say(`${who}Chromium by process, median per drop: ${kinds.map(([kind, ms]) => `${kind} ${median(ms).toFixed(0)} ms`).join(', ')}`);
    }
    if (sides.length > 1)
      say(
        `this / other, medians: GUI ${(median(sides[0]!.gui) / median(sides[1]!.gui)).toFixed(2)}, Chromium CPU ${(median(sides[0]!.browserCpus) / median(sides[1]!.browserCpus)).toFixed(2)}`,
      );
    say(`load now ${loadavg()[0]!.toFixed(2)}; last round, per request (ms from the drop):`);
    for (const t of timings.sort((a, b) => a.startTime - b.startTime)) {
      const u = new URL(t.name);
      say(`  ${u.pathname.padEnd(34)} start ${t.startTime.toFixed(0).padStart(5)}  took ${t.duration.toFixed(0).padStart(5)}`);
    }
  } finally {
    await browser.close();
    for (const { server } of sides) await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
