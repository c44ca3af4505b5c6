import { describe, expect, it } from 'vitest';
import { interleave, seededNoise } from '../test-support/signals.js';
import { waveformEngine } from './waveform.js';

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
    for (const ch of channels) for (let t = a; t < b; t++) {
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
  const engine = waveformEngine.create({ sampleRate: 44100, channels: channels.length, channelLayout: null, totalFrames: channels[0]!.length }, { bins });
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

  it('leaves bins empty when there are fewer frames than bins', () => {
    const short = Float32Array.from([0.5, -0.25, 1]);
    const result = run([short], 6, [2]);
    expect(result.min_max).toEqual([[0, 0], [0.5, 0.5], [0, 0], [-0.25, -0.25], [0, 0], [1, 1]]);
  });

  it('reports a full-scale square wave as RMS 1', () => {
    const square = Float32Array.from({ length: 1000 }, (_, i) => (i % 2 ? 1 : -1));
    expect(run([square], 10, [100]).rms).toEqual(Array(10).fill(1));
  });
});
