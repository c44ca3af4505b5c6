import { describe, expect, it } from 'vitest';
import { interleave, seededNoise } from '../../test-support/signals.js';
import { pcm16Stats } from '../dsp/pcm16-stats.js';
import { createEstimatedWaveform, reduceFloat, waveformEngine, WINDOW_BUDGET_SAMPLES } from './waveform.js';

/** Direct computation over the whole signal at once: the definition the engine must match exactly. */
function directWaveform(channels: readonly Float32Array[], bins: number) {
  const n = channels[0]!.length;
  const minMax: [number, number][] = [];
  const rms: number[] = [];
  for (let i = 0; i < bins; i++) {
    const a = Math.floor((i * n) / bins);
    const b = Math.floor(((i + 1) * n) / bins);
    let lo = Infinity;
    let hi = -Infinity;
    let s = 0;
    for (const ch of channels)
      for (let t = a; t < b; t++) {
        lo = Math.min(lo, ch[t]!);
        hi = Math.max(hi, ch[t]!);
        s += ch[t]! * ch[t]!;
      }
    minMax.push(b > a ? [lo, hi] : [0, 0]);
    rms.push(b > a ? Math.sqrt(s / ((b - a) * channels.length)) : 0);
  }
  return { minMax, rms };
}

function run(channels: readonly Float32Array[], bins: number, chunkFrames: number[]) {
  const engine = waveformEngine.create(
    { sampleRate: 44100, channels: channels.length, channelLayout: null, totalFrames: channels[0]!.length },
    { bins },
  );
  const all = interleave(channels);
  let frame = 0;
  let k = 0;
  while (frame < channels[0]!.length) {
    const take = Math.min(chunkFrames[k++ % chunkFrames.length]!, channels[0]!.length - frame);
    engine.push(all.subarray(frame * channels.length, (frame + take) * channels.length));
    frame += take;
  }
  return engine.finish();
}

describe('waveform engine', () => {
  const noise = seededNoise(7);
  const left = Float32Array.from({ length: 44_100 }, () => noise() * 0.8);
  const right = Float32Array.from({ length: 44_100 }, (_, i) => Math.sin(i / 30) * 0.5);

  it.each([
    ['bins dividing the length evenly', 100],
    ['bins not dividing the length', 777],
    ['one bin', 1],
    ['the maximum of 4000 bins', 4000],
  ])('matches the direct computation exactly for %s', (_label, bins) => {
    const result = run([left, right], bins, [1000, 4096, 1, 333]);
    const expected = directWaveform([left, right], bins);
    expect(result.bins).toBe(bins);
    expect(result.frames).toBe(44_100);
    expect(result.min_max).toEqual(expected.minMax);
    result.rms.forEach((r, i) => expect(r).toBeCloseTo(expected.rms[i]!, 5));
  });

  it.each([
    ['two ranges', 777, [22_050]],
    ['three ranges, wishes not on bin starts', 333, [10_001, 30_002]],
    ['more bins than frames per range', 4000, [20_000]],
    ['one bin: no split is possible', 1, [22_050]],
  ])('gives create’s result from ranges fed concurrently: %s', (_label, bins, near) => {
    const format = { sampleRate: 44100, channels: 2, channelLayout: null, totalFrames: left.length };
    const split = waveformEngine.createRanges!(format, { bins }, near);
    expect(split.starts[0]).toBe(0);
    // Every range starts where a bin starts.
    const binStarts = Array.from({ length: bins }, (_, i) => Math.floor((i * left.length) / bins));
    for (const s of split.starts) expect(binStarts).toContain(s);
    if (bins === 1) expect(split.starts).toEqual([0]);
    else expect(split.starts.length).toBe(near.length + 1);
    const all = interleave([left, right]);
    // Interleave the ranges' pushes, as parallel decodes would.
    const cursors = split.starts.map((s) => s);
    const ends = split.starts.map((_, i) => split.starts[i + 1] ?? left.length);
    while (cursors.some((c, i) => c < ends[i]!)) {
      split.parts.forEach((part, i) => {
        const take = Math.min(1234, ends[i]! - cursors[i]!);
        if (take > 0) part.push(all.subarray(cursors[i]! * 2, (cursors[i]! + take) * 2));
        cursors[i] = cursors[i]! + take;
      });
    }
    const result = split.finish();
    const expected = directWaveform([left, right], bins);
    expect(result.min_max).toEqual(expected.minMax);
    result.rms.forEach((r, i) => expect(r).toBeCloseTo(expected.rms[i]!, 5));
    expect(result).toEqual(run([left, right], bins, [1234]));
  });

  it('leaves bins empty when there are fewer frames than bins', () => {
    const short = Float32Array.from([0.5, -0.25, 1]);
    const result = run([short], 6, [2]);
    expect(result.min_max).toEqual([
      [0, 0],
      [0.5, 0.5],
      [0, 0],
      [-0.25, -0.25],
      [0, 0],
      [1, 1],
    ]);
  });

  it('reports a full-scale square wave as RMS 1', () => {
    const square = Float32Array.from({ length: 1000 }, (_, i) => (i % 2 ? 1 : -1));
    expect(run([square], 10, [100]).rms).toEqual(Array(10).fill(1));
  });

  it('gives bit-identical results from 16-bit integers (pushPcm16) and from their float conversion (push)', () => {
    const n = 100_003;
    const ints = Int16Array.from(
      { length: n * 2 },
      (_, i) => Math.round(Math.sin(i / 7) * 32767 * (i % 3 === 0 ? 1 : 0.3)) | (i === 5 ? -32768 : 0),
    );
    const floats = Float32Array.from(ints, (x) => x / 32768);
    for (const bins of [1, 7, 800]) {
      const a = waveformEngine.create({ sampleRate: 44100, channels: 2, channelLayout: null, totalFrames: n }, { bins });
      const b = waveformEngine.create({ sampleRate: 44100, channels: 2, channelLayout: null, totalFrames: n }, { bins });
      for (let f = 0; f < n; f += 4097) {
        const end = Math.min(n, f + 4097) * 2;
        a.push(floats.subarray(f * 2, end));
        b.pushPcm16!(ints.subarray(f * 2, end));
      }
      expect(b.finish()).toEqual(a.finish());
    }
    // The reductions themselves, on odd ranges: Σx² exactly the same double.
    const outF = new Float64Array(3);
    const outI = new Float64Array(3);
    for (const [from, to] of [
      [0, 1],
      [3, 10],
      [1, 200_001],
      [17, 17],
    ] as const) {
      reduceFloat(floats, from, to, outF);
      pcm16Stats(ints, from, to, outI);
      expect(Array.from(outI)).toEqual(Array.from(outF));
    }
  });
});

describe('waveform with an estimated length', () => {
  const noise = seededNoise(11);
  const n = 50_000;
  const channels = [
    Float32Array.from({ length: n }, () => noise() * 0.9),
    Float32Array.from({ length: n }, (_, i) => Math.sin(i / 13) * 0.4),
  ];
  const all = interleave(channels);

  function estimated(bins: number, guess: number, tolerance: number, chunk = 1234) {
    const engine = createEstimatedWaveform(
      { sampleRate: 44100, channels: 2, channelLayout: null, totalFrames: null },
      { bins },
      { frames: guess, tolerance },
    );
    for (let f = 0; f < n; f += chunk) engine.push(all.subarray(f * 2, Math.min(n, f + chunk) * 2));
    return engine.finish();
  }

  it.each([
    [800, n, 0],
    [800, n + 37, 40],
    [800, n - 500, 500],
    [333, n + 2000, 2500],
    [1, n - 3, 3],
    [4000, n + 1, 1],
    [60_000, n - 10, 10],
  ])('equals the exact reduction (%i bins, guess %i ± %i)', (bins, guess, tolerance) => {
    const exact = run(channels, bins, [1234]);
    const result = estimated(bins, guess, tolerance);
    expect(result).not.toBeNull();
    expect(result!.frames).toBe(n);
    expect(result!.min_max).toEqual(exact.min_max);
    result!.rms.forEach((r, i) => expect(r).toBeCloseTo(exact.rms[i]!, 6));
    const direct = directWaveform(channels, bins);
    expect(result!.min_max).toEqual(direct.minMax);
  });

  it('gives up (null) when the length falls outside the estimate', () => {
    expect(estimated(100, n + 101, 100)).toBeNull();
    expect(estimated(100, n - 101, 100)).toBeNull();
  });

  it('narrows the tolerance to its memory budget', () => {
    const bins = 4000;
    const wide = WINDOW_BUDGET_SAMPLES; // far more than the budget allows at 4000 bins
    // A guess off by more than the budget's tolerance (budget / channels / bins frames) fails cleanly.
    expect(estimated(bins, n + Math.floor(WINDOW_BUDGET_SAMPLES / 2 / bins) + 5, wide)).toBeNull();
    expect(estimated(bins, n + Math.floor(WINDOW_BUDGET_SAMPLES / 2 / bins) - 5, wide)).not.toBeNull();
  });
});
