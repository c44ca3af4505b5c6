/**
 * CPU time of /analyze's two engine tasks, in-process (no server, no upload): the first 60 s of the
 * benchmark's synthesized track (the 16-bit samples a WAV read gives, in the reader's ~1 MB chunks)
 * through each part, repeated after a warm-up, medians of the process's CPU time (this thread plus V8's
 * compiler and GC helpers; Node 20 has no per-thread clock). Wall clocks are noisy on a shared machine;
 * CPU time much less so.
 *
 *   npx tsx bench/analyze-cpu.ts [--runs 15] [--parts] [--json out.json]
 *
 * `--parts` also times the engines inside each task alone; `--json` writes the combined /analyze answer,
 * to compare the output of two versions of the code.
 */
import { writeFileSync } from 'node:fs';
import { analyzeEngine, analyzeFeaturesPart, analyzeSamplePart } from '../server/audio/engines/analyze.js';
import type { StreamEngine, StreamFormat } from '../server/audio/engines/engine.js';
import { createFeaturesStream } from '../server/audio/engines/features.js';
import { createIntegratedLoudness } from '../server/audio/engines/loudness.js';
import { createOnsetsStream } from '../server/audio/engines/onsets.js';
import { sampleAnalysisEngine } from '../server/audio/engines/sample-analysis.js';
import { musicLoop } from '../server/test-support/drums.js';

const args = process.argv.slice(2);
const flag = (name: string) => args.includes(name);
const option = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const runs = Number(option('--runs') ?? 15);
const sampleRate = 44_100;
const seconds = 60;

/** The benchmark track's first `seconds`, as the WAV reader delivers it (int16 / 32768). */
function synthesize(): Float32Array {
  const loop = musicLoop({ bpm: 124, bars: 8, sampleRate, leadIn: 0, tail: 0 });
  const [left, right] = loop.channels;
  const frames = seconds * sampleRate;
  const out = new Float32Array(frames * 2);
  const q = (v: number) => Math.max(-32768, Math.min(32767, Math.round(v * 32767))) / 32768;
  for (let i = 0; i < frames; i++) {
    const k = i % left.length;
    out[2 * i] = q(left[k]!);
    out[2 * i + 1] = q(right[k]!);
  }
  return out;
}

const audio = synthesize();
const format: StreamFormat = { sampleRate, channels: 2, channelLayout: 'stereo', totalFrames: null };
const chunkSamples = 2 * Math.floor((1 << 20) / 4);

function feed<R>(run: StreamEngine<R>): R {
  for (let o = 0; o < audio.length; o += chunkSamples) run.push(audio.subarray(o, Math.min(audio.length, o + chunkSamples)));
  return run.finish();
}

/** Median process CPU ms of `runs` fresh runs (after three warm-up runs). */
function time(name: string, create: () => StreamEngine<unknown>): unknown {
  let result: unknown;
  for (let i = 0; i < 3; i++) result = feed(create());
  const cpu: number[] = [];
  const wall: number[] = [];
  for (let i = 0; i < runs; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    feed(create());
    const c = process.cpuUsage(c0);
    wall.push(performance.now() - t0);
    cpu.push((c.user + c.system) / 1000);
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  console.log(
    `${name.padEnd(28)} cpu ${med(cpu).toFixed(1).padStart(6)} ms   wall ${med(wall).toFixed(1).padStart(6)} ms   (min cpu ${Math.min(...cpu).toFixed(1)})`,
  );
  return result;
}

const features = time('features + onsets task', () => analyzeFeaturesPart.create(format, {}));
const sample = time('sample + loudness task', () => analyzeSamplePart.create(format, {}));
if (flag('--parts')) {
  const head30 = (run: StreamEngine<unknown>): StreamEngine<unknown> => {
    let frames = 0;
    const limit = 30 * sampleRate;
    return {
      push(chunk) {
        const take = Math.min(chunk.length / 2, limit - frames);
        if (take > 0) run.push(chunk.subarray(0, take * 2));
        frames += Math.max(0, take);
      },
      finish: () => run.finish(),
    };
  };
  time('  features (30 s, no rhythm)', () => head30(createFeaturesStream(format, { rhythm: false })));
  time('  onsets (60 s)', () => createOnsetsStream(format));
  time('  sample (30 s)', () => head30(sampleAnalysisEngine.create(format, { name: '' })));
  time('  integrated loudness (60 s)', () => createIntegratedLoudness(format));
}
const combined = (() => {
  const c0 = process.cpuUsage();
  const result = analyzeEngine.split!.combine([features, sample], seconds);
  const c = process.cpuUsage(c0);
  console.log(`${'combine (main thread)'.padEnd(28)} cpu ${((c.user + c.system) / 1000).toFixed(1).padStart(6)} ms (one run)`);
  return result;
})();
const out = option('--json');
if (out) writeFileSync(out, JSON.stringify(combined, null, 1));
