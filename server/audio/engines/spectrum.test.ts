import { describe, expect, it } from 'vitest';
import { seededNoise, sine } from '../../test-support/signals.js';
import { hzToMel, melToHz } from '../dsp/bands.js';
import { spectrumEngine } from './spectrum.js';

function spectrumOf(signal: Float32Array, sampleRate: number, bands: number, frames: number, mel: boolean) {
  const engine = spectrumEngine.create(
    { sampleRate, channels: 1, channelLayout: null, totalFrames: signal.length },
    { bands, frames, mel },
  );
  for (let i = 0; i < signal.length; i += 3000) engine.push(signal.subarray(i, i + 3000));
  return engine.finish();
}

/** Band centres from the documented definition: edges evenly spaced on the mel or log axis from 20 Hz to Nyquist. */
function documentedCenters(bands: number, sampleRate: number, mel: boolean): number[] {
  const lo = mel ? hzToMel(20) : Math.log(20);
  const hi = mel ? hzToMel(sampleRate / 2) : Math.log(sampleRate / 2);
  return Array.from({ length: bands }, (_, i) => {
    const x = lo + ((hi - lo) * (i + 1)) / (bands + 1);
    return mel ? melToHz(x) : Math.exp(x);
  });
}

/** Index of the band whose centre is nearest f on the band's own axis (bands meet halfway between centres). */
function expectedBand(centers: readonly number[], f: number, mel: boolean): number {
  let best = 0;
  for (let b = 0; b < centers.length; b++) {
    const d = mel ? Math.abs(hzToMel(centers[b]!) - hzToMel(f)) : Math.abs(Math.log(centers[b]!) - Math.log(f));
    const dBest = mel ? Math.abs(hzToMel(centers[best]!) - hzToMel(f)) : Math.abs(Math.log(centers[best]!) - Math.log(f));
    if (d < dBest) best = b;
  }
  return best;
}

describe('spectrum engine', () => {
  it('uses Slaney’s mel scale (1 kHz = 15 mel) and inverts it', () => {
    expect(hzToMel(1000)).toBe(15);
    expect(hzToMel(500)).toBeCloseTo(7.5, 12);
    expect(melToHz(hzToMel(4321))).toBeCloseTo(4321, 9);
  });

  it.each([
    ['mel', true, 440],
    ['mel', true, 3000],
    ['log', false, 440],
    ['log', false, 3300],
    ['log', false, 12_000],
  ])('puts a pure tone in the right %s band (%s, %i Hz)', (_label, mel, freq) => {
    const sr = 44_100;
    const result = spectrumOf(sine(sr, 2, freq, 0.5), sr, 64, 20, mel);
    expect(result.data).toHaveLength(20);
    const centers = documentedCenters(64, sr, mel);
    result.band_hz.forEach((c, i) => expect(c).toBeCloseTo(centers[i]!, 0));
    const want = expectedBand(centers, freq, mel);
    for (const row of result.data.slice(1, -1)) {
      const loudest = row.indexOf(Math.max(...row));
      expect(Math.abs(loudest - want)).toBeLessThanOrEqual(0);
      // A -6 dBFS tone reads about -6 dB: (−6 + 100)/100 ≈ 0.94, within a dB for window spread.
      expect(row[loudest]).toBeGreaterThan(0.93);
      expect(row[loudest]).toBeLessThan(0.97);
    }
  });

  it('averages the whole track when frames = 1 and spreads frames evenly otherwise', () => {
    const sr = 48_000;
    const signal = new Float32Array(sr * 4);
    signal.set(sine(sr, 2, 200, 0.5), 0);
    signal.set(sine(sr, 2, 5000, 0.5), sr * 2);
    const avg = spectrumOf(signal, sr, 32, 1, false);
    expect(avg.data).toHaveLength(1);
    const low = expectedBand(avg.band_hz, 200, false);
    const high = expectedBand(avg.band_hz, 5000, false);
    // Each tone fills half the track: both bands hold about half the power (−3 dB from −6 dB).
    expect(Math.abs(avg.data[0]![low]! - avg.data[0]![high]!)).toBeLessThan(0.02);
    const spread = spectrumOf(signal, sr, 32, 4, false);
    expect(spread.frame_times_s).toEqual([0.5, 1.5, 2.5, 3.5]);
    expect(spread.data[0]![low]).toBeGreaterThan(spread.data[0]![high]! + 0.3);
    expect(spread.data[3]![high]).toBeGreaterThan(spread.data[3]![low]! + 0.3);
  });

  it('reads silence as the floor (0)', () => {
    const result = spectrumOf(new Float32Array(10_000), 44_100, 16, 3, true);
    expect(result.data.flat().every((v) => v === 0)).toBe(true);
  });

  describe('feeding', () => {
    const sampleRate = 44_100;
    // 20 s of stereo noise over a 440 Hz tone as 16-bit integers, and the floats a WAV reader makes of them (x / 32768).
    const noise = seededNoise(11);
    const tone = sine(sampleRate, 20, 440, 0.4);
    const ints = new Int16Array(tone.length * 2);
    for (let i = 0; i < tone.length; i++) {
      ints[2 * i] = Math.round((tone[i]! + 0.2 * (noise() - 0.5)) * 32767);
      ints[2 * i + 1] = Math.round((tone[i]! * 0.5 + 0.2 * (noise() - 0.5)) * 32767);
    }
    const floats = Float32Array.from(ints, (x) => x / 32768);
    const format = { sampleRate, channels: 2, channelLayout: 'stereo', totalFrames: tone.length };

    function run(params: { bands: number; frames: number; mel: boolean }, chunkFrames: number, pcm16: boolean) {
      const engine = spectrumEngine.create(format, params);
      for (let i = 0; i < floats.length; i += 2 * chunkFrames)
        if (pcm16) engine.pushPcm16!(ints.subarray(i, i + 2 * chunkFrames));
        else engine.push(floats.subarray(i, i + 2 * chunkFrames));
      return engine.finish();
    }

    // Sparse windows (100 over 20 s: most samples are read by none), dense ones (4000: they overlap) and the average.
    for (const params of [
      { bands: 64, frames: 100, mel: true },
      { bands: 32, frames: 4000, mel: false },
      { bands: 64, frames: 1, mel: true },
    ])
      it(`gives the same answer for any chunking and for 16-bit input (frames = ${params.frames})`, () => {
        const whole = run(params, tone.length, false);
        expect(run(params, 1, false)).toEqual(whole);
        expect(run(params, 4099, false)).toEqual(whole);
        // The engine contract (engine.ts): pushPcm16 gives exactly what push gives for the converted samples.
        expect(run(params, 4099, true)).toEqual(whole);
        expect(run(params, 65_536, true)).toEqual(whole);
      });

    it('reads each frame from its own part of the track when frames are far apart', () => {
      // Three 4 s tones one after another; with 3 frames each frame's centre is in the middle of one tone.
      const freqs = [300, 1200, 5000];
      const signal = new Float32Array(12 * sampleRate);
      freqs.forEach((f, i) => signal.set(sine(sampleRate, 4, f, 0.5), i * 4 * sampleRate));
      const result = spectrumOf(signal, sampleRate, 64, 3, true);
      const centers = documentedCenters(64, sampleRate, true);
      result.data.forEach((row, i) => {
        const loudest = row.indexOf(Math.max(...row));
        expect(loudest).toBe(expectedBand(centers, freqs[i]!, true));
      });
    });
  });
});
