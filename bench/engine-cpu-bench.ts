/**
 * CPU time of the three analyses the Analyse screen waits for on a dropped file (issue 22 item 6):
 * `/waveform` (4000 bins), `/onsets` and `/spectrum` (128 mel bands × 1000 frames), the parameters
 * renderer/src/audio/analyse/use-analysis.ts asks for. Each file is decoded once into memory (as the
 * worker reads it: a 16-bit WAV's integers for engines with `pushPcm16`, float chunks otherwise), then
 * every engine is fed the same chunks, repeated after a warm-up, medians of the process's CPU time
 * (Node 20 has no per-thread clock; wall clocks are noisy on a shared machine). Beside them, in the
 * same run: the CPU of reading the WAV itself, and of aubio's `aubioonset` on the same file (if installed).
 *
 *   npx tsx bench/engine-cpu-bench.ts [--runs 5] [--json answers.json] [--compare answers.json] [files…]
 *
 * Without files: the 3-minute synthesized track (bench/synth-track.ts) and two real recordings
 * (docs: ../shared/reference/real-audio.md). `--json` writes every engine's answer per file;
 * `--compare` checks them against an earlier `--json` (another version of the code) and exits 1 on
 * any difference: a speed-up must not change an answer.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { openPcmSource, type PcmSource } from '../server/audio/decode/pcm-source.js';
import type { EngineSpec, StreamFormat } from '../server/audio/engines/engine.js';
import { engines, getEngineId, type EngineId } from '../server/audio/engines/registry.js';
import { librarySummaryPlan } from '../server/audio/http/summary-plan.js';
import { analyzeDerivations } from '../server/audio/http/derived-analyses.js';
import { median } from './bench-support.js';
import { writeSynthTrack } from './synth-track.js';

const args = process.argv.slice(2);
const option = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const runs = Number(option('--runs') ?? 5);
const files = args.filter((a, i) => !a.startsWith('--') && !(i > 0 && args[i - 1]!.startsWith('--')));

/** The screen's three cold analyses with its parameters (use-analysis.ts). */
const cold: readonly { readonly name: EngineId; readonly params: unknown }[] = [
  { name: 'waveform', params: { bins: 4000 } },
  { name: 'onsets', params: {} },
  { name: 'spectrum', params: { bands: 128, frames: 1000, mel: true } },
];

/** A decoded file held in memory, in the chunks the worker would push. */
interface Decoded {
  readonly format: StreamFormat;
  readonly floats: readonly Float32Array[];
  readonly pcm16: readonly Int16Array[] | null;
}

async function collect<T extends Float32Array | Int16Array>(chunks: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const chunk of chunks) out.push(chunk.slice() as T); // readers reuse their arrays
  return out;
}

async function decode(source: PcmSource): Promise<Decoded> {
  const floats = await collect(source.chunks());
  const frames = floats.reduce((n, c) => n + c.length, 0) / source.format.channels;
  return {
    format: { ...source.format, totalFrames: source.format.totalFrames ?? frames },
    floats,
    pcm16: source.pcm16 ? await collect(source.pcm16()) : null,
  };
}

const cpuMs = (from: NodeJS.CpuUsage) => {
  const c = process.cpuUsage(from);
  return (c.user + c.system) / 1000;
};
/** One whole-file run of a cold analysis (none has a maxSeconds): runEngine without a head. */
const runOnce = (spec: (typeof cold)[number], audio: Decoded): unknown => runEngine(spec.name, spec.params, audio, undefined);

/**
 * Run engine `id` over at most `headSeconds` as the worker does (analysis-worker.ts runOn: create,
 * pushPcm16 or push, finish; a split engine: its parts, then combine).
 */
function runEngine(id: EngineId, params: unknown, audio: Decoded, headSeconds: number | undefined): unknown {
  const engine = engines[id] as EngineSpec<never, unknown>;
  if (engine.split) {
    const parts = engine.split.parts.map((part) => runEngine(getEngineId(part), params, audio, headSeconds));
    return engine.split.combine(parts, Math.min(headSeconds ?? Infinity, audio.format.totalFrames! / audio.format.sampleRate));
  }
  const seconds = Math.min(headSeconds ?? Infinity, engine.maxSeconds ?? Infinity);
  const limit = Number.isFinite(seconds) ? Math.round(seconds * audio.format.sampleRate) : Infinity;
  const run = engine.create(audio.format, params as never);
  const ch = audio.format.channels;
  let frames = 0;
  const feed = <T extends Float32Array | Int16Array>(chunks: readonly T[], push: (c: T) => void) => {
    for (const c of chunks) {
      const take = Math.min(c.length / ch, limit - frames);
      if (take <= 0) break;
      push(take * ch === c.length ? c : (c.subarray(0, take * ch) as T));
      frames += take;
    }
  };
  if (run.pushPcm16 && audio.pcm16) feed(audio.pcm16, (c) => run.pushPcm16!(c));
  else feed(audio.floats, (c) => run.push(c));
  return run.finish();
}

/** CPU seconds of a child process (user + system), via bash's `time`. */
function childCpuMs(command: string, argv: readonly string[]): number | null {
  const quoted = [command, ...argv].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const out = spawnSync('bash', ['-c', `TIMEFORMAT='%U %S'; time ${quoted} >/dev/null 2>&1`], { encoding: 'utf8' });
  const m = /([\d.]+) ([\d.]+)\s*$/.exec(out.stderr ?? '');
  return out.status === 0 && m ? (Number(m[1]) + Number(m[2])) * 1000 : null;
}

async function main(): Promise<void> {
  const work = mkdtempSync(path.join(tmpdir(), 'cratehouse-engine-cpu-'));
  const inputs = [...files];
  if (inputs.length === 0) {
    const synth = path.join(work, 'synth-3min.wav');
    await writeSynthTrack(synth, 180);
    inputs.push(synth, '/usr/share/sonic-pi/samples/loop_amen_full.flac');
    const kit = '/work/real-audio-cache/i-roles2/pkg/hydrogen-drumkits/usr/share/hydrogen/data/drumkits/ElectricEmpireKit/EE_Snare_1.flac';
    if (existsSync(kit)) inputs.push(kit);
  }
  const aubio = spawnSync('aubioonset', ['--help']).error ? null : 'aubioonset';
  const answers: Record<string, Record<string, unknown>> = {};
  console.log(
    `# Engine CPU (medians of ${runs} runs after 2 warm-ups; load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')})`,
  );
  console.log('| file | seconds | read (WAV, in process) | waveform | onsets | spectrum | aubioonset (child) | onsets / aubio |');
  console.log('|---|---|---|---|---|---|---|---|');
  try {
    for (const file of inputs) {
      const source = await openPcmSource(file, { kind: 'ffmpeg', path: 'ffmpeg' });
      const audio = await decode(source);
      const seconds = audio.format.totalFrames! / audio.format.sampleRate;
      // Reading cost as reference: only a WAV is read in this process (other formats: an ffmpeg child).
      let read: number | null = null;
      if (source.direct) {
        const times: number[] = [];
        for (let i = 0; i < runs; i++) {
          const c0 = process.cpuUsage();
          for await (const chunk of source.pcm16 ? source.pcm16() : source.chunks()) void chunk;
          times.push(cpuMs(c0));
        }
        read = median(times);
      }
      const cells: string[] = [];
      const perFile: Record<string, unknown> = {};
      let onsetsMs = 0;
      for (const spec of cold) {
        for (let i = 0; i < 2; i++) perFile[spec.name] = runOnce(spec, audio);
        const times: number[] = [];
        for (let i = 0; i < runs; i++) {
          const c0 = process.cpuUsage();
          runOnce(spec, audio);
          times.push(cpuMs(c0));
        }
        if (spec.name === 'onsets') onsetsMs = median(times);
        cells.push(`${median(times).toFixed(0)} ms`);
      }
      answers[path.basename(file)] = perFile;
      // aubio reads the file itself (libsndfile/ffmpeg), so its figure includes decoding.
      const aubioMs = aubio ? median(Array.from({ length: Math.min(runs, 3) }, () => childCpuMs(aubio, ['-i', file]) ?? NaN)) : null;
      console.log(
        `| ${path.basename(file)} | ${seconds.toFixed(1)} | ${read === null ? '–' : `${read.toFixed(0)} ms`} | ${cells.join(' | ')} | ` +
          `${aubioMs === null ? 'not installed' : `${aubioMs.toFixed(0)} ms`} | ${aubioMs ? (onsetsMs / aubioMs).toFixed(2) : '–'} |`,
      );
    }
    // What else the two cores do meanwhile: the library's summary of the new item (library-summary.ts).
    const first = inputs[0]!;
    const audio = await decode(await openPcmSource(first, { kind: 'ffmpeg', path: 'ffmpeg' }));
    console.log(`\nThe library summary's analyses of ${path.basename(first)} (started with the upload, same threads):`);
    let total = 0;
    const derived = analyzeDerivations();
    for (const [name, r] of Object.entries(librarySummaryPlan())) {
      if (derived.has(r.route)) {
        console.log(`  ${name.padEnd(9)} ${r.route.padEnd(10)}   none: derived from /analyze's answer (derived-analyses.ts)`);
        continue;
      }
      for (let i = 0; i < 2; i++) runEngine(r.engine, r.params, audio, r.headSeconds);
      const times: number[] = [];
      for (let i = 0; i < runs; i++) {
        const c0 = process.cpuUsage();
        runEngine(r.engine, r.params, audio, r.headSeconds);
        times.push(cpuMs(c0));
      }
      total += median(times);
      console.log(`  ${name.padEnd(9)} ${r.route.padEnd(10)} ${median(times).toFixed(0).padStart(6)} ms`);
    }
    console.log(`  total ${total.toFixed(0)} ms`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const out = option('--json');
  if (out) writeFileSync(out, JSON.stringify(answers));
  const against = option('--compare');
  if (against) {
    const before = JSON.parse(readFileSync(against, 'utf8')) as Record<string, Record<string, unknown>>;
    let differ = 0;
    for (const [file, perFile] of Object.entries(answers))
      for (const [name, answer] of Object.entries(perFile)) {
        const same = JSON.stringify(answer) === JSON.stringify(before[file]?.[name]);
        if (!same) differ++;
        console.log(`${same ? 'same' : 'DIFFERENT'}: ${file} ${name}`);
      }
    if (differ > 0) process.exitCode = 1;
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
