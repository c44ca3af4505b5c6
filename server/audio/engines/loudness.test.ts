import { describe, expect, it } from 'vitest';
import { loudnessEngine, type LoudnessResult } from './loudness.js';
import {
  createKWeightingState,
  kWeightingCoefficients,
  kWeightSumOfSquares,
  kWeightSumOfSquaresPair,
  type Biquad,
} from '../dsp/k-weighting.js';
import { channelWeights } from '../dsp/loudness-math.js';
import { createTruePeakMeter, ITU_TRUE_PEAK_PHASES, truePeakOversampling, truePeakPhases } from '../dsp/true-peak.js';
import { dbToAmp, interleave, seededNoise, sine, toneSequence } from '../../test-support/signals.js';

// Expected values come from ITU-R BS.1770-5 (Annex 1 tables, Annex 2 interpolator), EBU Tech 3341 (2023)
// Table 1 and Tech 3342 (2023) Table 1; the 44.1/96 kHz K-weighting values are the De Man method's (as in
// libebur128). Tolerances are the standards': I, M, S ±0.1 LU; LRA ±1 LU; true peak +0.2/−0.4 dB. Every
// fixture is synthesized (test-support/signals); "dBFS" in the EBU tables is a 1 kHz sine's peak level.

/** Uneven chunk sizes (frames), cycled, so that every chunk boundary case is exercised. */
const CHUNKS = [1000, 4096, 1];

/** Feed per-channel signals through the loudness engine in CHUNKS-sized pieces. */
function measure(
  channels: readonly Float32Array[],
  sampleRate: number,
  layout: string | null = null,
  chunkFrames: readonly number[] = CHUNKS,
): LoudnessResult {
  const engine = loudnessEngine.create({ sampleRate, channels: channels.length, channelLayout: layout, totalFrames: null }, {});
  const x = interleave(channels);
  const n = channels.length;
  const frames = x.length / n;
  for (let i = 0, k = 0; i < frames; k++) {
    const take = Math.min(chunkFrames[k % chunkFrames.length]!, frames - i);
    engine.push(x.subarray(i * n, (i + take) * n));
    i += take;
  }
  return engine.finish();
}

/** The same signal in both channels: Tech 3341/3342 "stereo" test signals are in phase. */
const stereo = (x: Float32Array): Float32Array[] => [x, x];

/** Linear fade in and out over `seconds` (Tech 3341 cases 15–19 use 10 ms). */
function faded(x: Float32Array, sampleRate: number, seconds: number): Float32Array {
  const n = Math.round(seconds * sampleRate);
  const y = Float32Array.from(x);
  for (let i = 0; i < n; i++) {
    y[i] = y[i]! * (i / n);
    y[y.length - 1 - i] = y[y.length - 1 - i]! * (i / n);
  }
  return y;
}

/** |H(e^{jω})|² of a biquad at f Hz: evaluated from the transfer function, independent of the filter loop. */
function biquadPowerGain(q: Biquad, f: number, sampleRate: number): number {
  const w = (2 * Math.PI * f) / sampleRate;
  const re = (b0: number, b1: number, b2: number) => b0 + b1 * Math.cos(w) + b2 * Math.cos(2 * w);
  const im = (b1: number, b2: number) => -(b1 * Math.sin(w) + b2 * Math.sin(2 * w));
  const num = re(q.b0, q.b1, q.b2) ** 2 + im(q.b1, q.b2) ** 2;
  const den = re(1, q.a1, q.a2) ** 2 + im(q.a1, q.a2) ** 2;
  return num / den;
}

/** A music-like test signal: a few tones, a 124 BPM decaying "kick" and noise (deterministic). */
function musicLike(sampleRate: number, seconds: number, seed: number, scale = 1): Float32Array[] {
  const n = Math.round(seconds * sampleRate);
  const rnd = seededNoise(seed);
  const l = new Float32Array(n);
  const r = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const t = i / sampleRate;
    const beat = Math.exp(-((t * 124) / 60 - Math.floor((t * 124) / 60)) * 8);
    const tones =
      0.25 * Math.sin(2 * Math.PI * 55 * t) +
      0.08 * Math.sin(2 * Math.PI * 220 * t) +
      0.03 * Math.sin(2 * Math.PI * 1760 * t) +
      0.02 * Math.sin(2 * Math.PI * 7040 * t);
    const kick = 0.4 * beat * Math.sin(2 * Math.PI * 50 * t);
    l[i] = scale * (tones + kick + 0.1 * rnd() * (0.3 + beat));
    r[i] = scale * (0.9 * tones + kick + 0.1 * rnd() * (0.3 + beat));
  }
  return [l, r];
}

/** Plain BS.1770 Annex 2 loop: y_p[n] = Σ_k h_p[k]·x[n−k] for every phase in use, then max(|y|, |x|). */
function referenceTruePeak(channels: readonly Float32Array[], sampleRate: number): number {
  const phases = truePeakPhases(truePeakOversampling(sampleRate));
  let peak = 0;
  for (const x of channels) {
    for (let n = 0; n < x.length; n++) {
      peak = Math.max(peak, Math.abs(x[n]!));
      for (const h of phases) {
        let y = 0;
        for (let k = 0; k < 12; k++) if (n - k >= 0) y += h[k]! * x[n - k]!;
        peak = Math.max(peak, Math.abs(y));
      }
    }
  }
  return peak;
}

/** Meter an interleaving of `channels` in CHUNKS-sized pieces. */
function meterTruePeak(
  channels: readonly Float32Array[],
  sampleRate: number,
  skip: boolean,
  chunkFrames: readonly number[] = CHUNKS,
): number {
  const meter = createTruePeakMeter(sampleRate, channels.length, { skip });
  const x = interleave(channels);
  const n = channels.length;
  for (let i = 0, k = 0; i < x.length / n; k++) {
    const take = Math.min(chunkFrames[k % chunkFrames.length]!, x.length / n - i);
    meter.push(x.subarray(i * n, (i + take) * n));
    i += take;
  }
  return meter.truePeak();
}

const RATES = [48000, 44100] as const;
const within = (value: number | null, expected: number, tolerance: number) => {
  expect(value).not.toBeNull();
  expect(Math.abs(value! - expected)).toBeLessThanOrEqual(tolerance + 1e-9);
};

describe('K-weighting coefficients (De Man method)', () => {
  it('reproduce the ITU-R BS.1770 48 kHz table', () => {
    const k = kWeightingCoefficients(48000);
    const itu = {
      shelf: [1.53512485958697, -2.69169618940638, 1.19839281085285, -1.69065929318241, 0.73248077421585],
      highPass: [1.0, -2.0, 1.0, -1.99004745483398, 0.99007225036621],
    };
    const got = (q: Biquad) => [q.b0, q.b1, q.b2, q.a1, q.a2];
    got(k.shelf).forEach((v, i) => expect(Math.abs(v - itu.shelf[i]!)).toBeLessThan(1e-12));
    got(k.highPass).forEach((v, i) => expect(Math.abs(v - itu.highPass[i]!)).toBeLessThan(1e-12));
  });

  it.each([
    [
      44100,
      [1.53084123005035, -2.65097999515473, 1.16907907992159, -1.66365511325602, 0.71259542807323],
      [-1.9891696736298, 0.98919903578704],
    ],
    [
      96000,
      [1.5597142289758, -2.92674157825108, 1.37826120231582, -1.84460946989011, 0.85584332293064],
      [-1.99501754472472, 0.99502375904092],
    ],
  ])('match the reference table at %i Hz', (rate, shelf, highPass) => {
    const k = kWeightingCoefficients(rate);
    [k.shelf.b0, k.shelf.b1, k.shelf.b2, k.shelf.a1, k.shelf.a2].forEach((v, i) => expect(Math.abs(v - shelf[i]!)).toBeLessThan(1e-12));
    expect([k.highPass.b0, k.highPass.b1, k.highPass.b2]).toEqual([1, -2, 1]);
    [k.highPass.a1, k.highPass.a2].forEach((v, i) => expect(Math.abs(v - highPass[i]!)).toBeLessThan(1e-12));
  });

  it('filters in spans exactly as in one pass, and the two-channel loop equals two one-channel loops', () => {
    const kw = kWeightingCoefficients(44100);
    const [l, r] = musicLike(44100, 1, 5);
    const x = interleave([l!, r!]);
    const frames = l!.length;
    const whole = [createKWeightingState(), createKWeightingState()];
    const wholeL = kWeightSumOfSquares(kw, whole[0]!, x, 0, 2, 0, frames);
    const wholeR = kWeightSumOfSquares(kw, whole[1]!, x, 1, 2, 0, frames);
    const parts = [createKWeightingState(), createKWeightingState()];
    let pairSum = 0;
    for (let i = 0, k = 0; i < frames; k++) {
      const n = Math.min([1, 441, 4096, 7][k % 4]!, frames - i);
      pairSum += kWeightSumOfSquaresPair(kw, parts[0]!, parts[1]!, 1, 1.41, x, 0, 1, 2, i, i + n);
      i += n;
    }
    expect(Math.abs(pairSum - (wholeL + 1.41 * wholeR)) / pairSum).toBeLessThan(1e-12);
    expect(Array.from(parts[0]!)).toEqual(Array.from(whole[0]!));
    expect(Array.from(parts[1]!)).toEqual(Array.from(whole[1]!));
  });

  it('has the 997 Hz gain that the −0.691 offset cancels', () => {
    const gainDb = (rate: number) => {
      const k = kWeightingCoefficients(rate);
      return 10 * Math.log10(biquadPowerGain(k.shelf, 997, rate) * biquadPowerGain(k.highPass, 997, rate));
    };
    expect(Math.abs(gainDb(48000) - 0.691)).toBeLessThan(0.0005);
    // The high pass keeps b = [1, −2, 1] un-normalised at every rate (libebur128, FFmpeg, pyloudnorm "DeMan"),
    // so its small pass-band gain shrinks as the rate rises: +0.003 dB at 44.1 kHz, −0.017 dB at 96 kHz.
    expect(Math.abs(gainDb(44100) - 0.691)).toBeLessThan(0.005);
    expect(Math.abs(gainDb(96000) - 0.691)).toBeLessThan(0.02);
  });
});

describe('channel weights', () => {
  it('follow the channel count without a layout (libebur128 / FFmpeg defaults)', () => {
    expect(channelWeights(1, null)).toEqual([1]);
    expect(channelWeights(2, null)).toEqual([1, 1]);
    expect(channelWeights(5, null)).toEqual([1, 1, 1, 1.41, 1.41]);
    expect(channelWeights(6, null)).toEqual([1, 1, 1, 0, 1.41, 1.41]);
    expect(channelWeights(8, null)).toEqual([1, 1, 1, 0, 1.41, 1.41, 1.41, 1.41]);
    expect(channelWeights(12, null)).toEqual(new Array(12).fill(1));
  });

  it('follow the FFmpeg layout name or decomposition, and fall back to the count when it does not fit', () => {
    expect(channelWeights(1, 'mono')).toEqual([1]);
    expect(channelWeights(2, 'stereo')).toEqual([1, 1]);
    expect(channelWeights(3, '2.1')).toEqual([1, 1, 0]);
    expect(channelWeights(5, '5.0(side)')).toEqual([1, 1, 1, 1.41, 1.41]);
    expect(channelWeights(6, '5.1')).toEqual([1, 1, 1, 0, 1.41, 1.41]);
    expect(channelWeights(6, '5.1(side)')).toEqual([1, 1, 1, 0, 1.41, 1.41]);
    expect(channelWeights(8, '7.1(wide)')).toEqual([1, 1, 1, 0, 1.41, 1.41, 1, 1]);
    expect(channelWeights(3, 'FL+FR+LFE')).toEqual([1, 1, 0]);
    expect(channelWeights(4, '4 channels (FL+FR+FC+LFE)')).toEqual([1, 1, 1, 0]);
    expect(channelWeights(2, '5.1')).toEqual([1, 1]);
    expect(channelWeights(2, 'something odd')).toEqual([1, 1]);
  });
});

describe('loudness engine: BS.1770 calibration', () => {
  it.each(RATES)('a 997 Hz 0 dBFS sine in one channel of a stereo pair reads −3.01 LKFS (%i Hz)', (rate) => {
    const x = sine(rate, 10, 997, 1);
    const r = measure([x, new Float32Array(x.length)], rate, 'stereo');
    within(r.integrated_lufs, -3.01, 0.01);
    expect(r.sample_peak_dbfs).toBe(0);
  });

  it.each(RATES)('a mono 1 kHz sine at −23 dBFS reads −0.691 + 10·log10(A²/2 · |K(1 kHz)|²) ≈ −26.01 LUFS (%i Hz)', (rate) => {
    // One channel, G = 1: z = mean square of the K-weighted sine = (A²/2)·|K(1 kHz)|², A = 10^(−23/20).
    // L = −0.691 + 10·log10(z) = −23 − 3.0103 + (|K(1 kHz)|² in dB ≈ +0.69) ≈ −26.01. (In stereo the two
    // channels add 3.01 dB, which is why Tech 3341 case 1 reads −23.0.)
    const k = kWeightingCoefficients(rate);
    const a = dbToAmp(-23);
    const expected =
      -0.691 + 10 * Math.log10(((a * a) / 2) * biquadPowerGain(k.shelf, 1000, rate) * biquadPowerGain(k.highPass, 1000, rate));
    expect(Math.abs(expected - -26.01)).toBeLessThan(0.01);
    const r = measure([toneSequence(rate, [{ seconds: 20, db: -23 }])], rate, 'mono');
    within(r.integrated_lufs, expected, 0.01);
    within(r.max_momentary_lufs, expected, 0.01);
    within(r.max_short_term_lufs, expected, 0.01);
    expect(r.channel_weights).toEqual([1]);
  });

  it('reports peak, RMS, crest factor and gain to the targets of a −23 dBFS stereo sine', () => {
    const r = measure(stereo(toneSequence(48000, [{ seconds: 10, db: -23 }])), 48000, 'stereo');
    within(r.sample_peak_dbfs, -23, 0.01);
    within(r.rms_dbfs, -26.01, 0.01); // an unweighted sine's RMS is its peak − 3.01 dB
    within(r.crest_factor_db, 3.01, 0.01);
    expect(r.gain_to_target_db).toEqual({
      streaming: Math.round((-14 - r.integrated_lufs!) * 100) / 100,
      club: Math.round((-9 - r.integrated_lufs!) * 100) / 100,
    });
    within(r.gain_to_target_db.streaming, 9, 0.1);
    expect(r.targets).toEqual({ streaming: -14, club: -9 });
    expect(r.approximate).toBe(false);
    expect(r.channel_weights).toEqual([1, 1]);
  });

  it('returns nulls for silence and for an empty stream, without crashing', () => {
    const nulls = {
      integrated_lufs: null,
      clip_lufs: null,
      loudness_range_lu: null,
      max_momentary_lufs: null,
      max_short_term_lufs: null,
      sample_peak_dbfs: null,
      true_peak_dbtp: null,
      rms_dbfs: null,
      crest_factor_db: null,
      gain_to_target_db: { streaming: null, club: null },
    };
    expect(measure(stereo(new Float32Array(48000 * 5)), 48000, 'stereo')).toMatchObject(nulls);
    const empty = loudnessEngine.create({ sampleRate: 44100, channels: 2, channelLayout: null, totalFrames: null }, {});
    empty.push(new Float32Array(0));
    expect(empty.finish()).toMatchObject(nulls);
  });

  it('gives I but no S or LRA for a file shorter than 3 s, and nothing gated for under 400 ms', () => {
    const short = measure(stereo(toneSequence(48000, [{ seconds: 1, db: -23 }])), 48000);
    within(short.integrated_lufs, -23, 0.1);
    within(short.max_momentary_lufs, -23, 0.1);
    expect(short.max_short_term_lufs).toBeNull();
    expect(short.loudness_range_lu).toBeNull();
    const tiny = measure(stereo(toneSequence(48000, [{ seconds: 0.3, db: -23 }])), 48000);
    expect(tiny.integrated_lufs).toBeNull();
    expect(tiny.max_momentary_lufs).toBeNull();
    within(tiny.sample_peak_dbfs, -23, 0.01);
  });

  it('excludes the LFE channel', () => {
    const rate = 48000;
    const tone = (db: number) => toneSequence(rate, [{ seconds: 10, db }]);
    const loudLfe = toneSequence(rate, [{ seconds: 10, db: 0 }], 60);
    const r = measure([tone(-28), tone(-28), tone(-24), loudLfe, tone(-30), tone(-30)], rate, '5.1');
    expect(r.channel_weights).toEqual([1, 1, 1, 0, 1.41, 1.41]);
    within(r.integrated_lufs, -23, 0.1);
  });

  it('gives the same result whatever the chunking', () => {
    const signal = musicLike(44100, 8, 11, 0.8);
    const a = measure(signal, 44100, 'stereo', [1000, 4096, 1]);
    expect(measure(signal, 44100, 'stereo', [signal[0]!.length])).toEqual(a);
    expect(measure(signal, 44100, 'stereo', [7, 4410, 333])).toEqual(a);
  });

  it('refuses chunks that are not whole frames and pushes after finish', () => {
    const engine = loudnessEngine.create({ sampleRate: 48000, channels: 2, channelLayout: null, totalFrames: null }, {});
    expect(() => engine.push(new Float32Array(3))).toThrow(RangeError);
    engine.finish();
    expect(() => engine.push(new Float32Array(2))).toThrow();
  });
});

describe('loudness engine: clip loudness (K-weighted, ungated, whole clip)', () => {
  // ITU-R BS.1770-4 Table 1 and Table 2 (48 kHz), typed in from the standard rather than taken from
  // kWeightingCoefficients, so the expected value does not depend on the code under test.
  const ITU_SHELF: Biquad = {
    b0: 1.53512485958697,
    b1: -2.69169618940638,
    b2: 1.19839281085285,
    a1: -1.69065929318241,
    a2: 0.73248077421585,
  };
  const ITU_HIGH_PASS: Biquad = { b0: 1, b1: -2, b2: 1, a1: -1.99004745483398, a2: 0.99007225036621 };
  /** BS.1770 loudness of one G = 1 channel holding a 1 kHz sine of peak `db` dBFS: −0.691 + 10·log10(A²/2·|K(1 kHz)|²). */
  const expectedSineLufs = (db: number): number =>
    -0.691 +
    10 * Math.log10((dbToAmp(db) ** 2 / 2) * biquadPowerGain(ITU_SHELF, 1000, 48000) * biquadPowerGain(ITU_HIGH_PASS, 1000, 48000));

  it('reads the known loudness of a 200 ms mono 1 kHz sine at −20 dBFS, where I is null', () => {
    const expected = expectedSineLufs(-20);
    // Cross-check with the standard's calibration statement: 0 dBFS (997 Hz) in one channel reads −3.01 LKFS,
    // and 1 kHz is within 0.01 dB of 997 Hz on the K curve.
    expect(Math.abs(expected - (-3.01 - 20))).toBeLessThan(0.02);
    const r = measure([sine(48000, 0.2, 1000, dbToAmp(-20))], 48000, 'mono');
    expect(r.integrated_lufs).toBeNull();
    within(r.clip_lufs, expected, 0.02);
  });

  it('a 300 ms clip has a clip loudness but no integrated loudness (shorter than one 400 ms block)', () => {
    const r = measure(stereo(toneSequence(48000, [{ seconds: 0.3, db: -23 }])), 48000, 'stereo');
    expect(r.integrated_lufs).toBeNull();
    within(r.clip_lufs, expectedSineLufs(-23) + 10 * Math.log10(2), 0.02);
  });

  it('applies the BS.1770 channel weights: stereo sums two G = 1 channels, a surround channel weighs 1.41, LFE 0', () => {
    const rate = 48000;
    const tone = sine(rate, 0.25, 1000, dbToAmp(-18));
    const quiet = new Float32Array(tone.length);
    const mono = measure([tone], rate, 'mono').clip_lufs!;
    within(mono, expectedSineLufs(-18), 0.02);
    within(measure([tone, tone], rate, 'stereo').clip_lufs, mono + 10 * Math.log10(2), 0.01);
    within(measure([tone, quiet], rate, 'stereo').clip_lufs, mono, 0.01);
    // 5.1: FL FR FC LFE BL BR; the tone only in BL (G = 1.41).
    within(measure([quiet, quiet, quiet, quiet, tone, quiet], rate, '5.1').clip_lufs, mono + 10 * Math.log10(1.41), 0.01);
    expect(measure([quiet, quiet, quiet, tone, quiet, quiet], rate, '5.1').clip_lufs).toBeNull();
  });

  it('is ungated and averages over the whole clip: 0.2 s of tone then 1.8 s of silence reads 10 dB under the tone alone', () => {
    const rate = 48000;
    const burst = measure([toneSequence(rate, [{ seconds: 0.2, db: -20 }])], rate, 'mono').clip_lufs!;
    const padded = measure(
      [
        toneSequence(rate, [
          { seconds: 0.2, db: -20 },
          { seconds: 1.8, db: -Infinity },
        ]),
      ],
      rate,
      'mono',
    );
    within(padded.clip_lufs, burst - 10, 0.02);
    // I gates the silence out (its blocks are under −70 LUFS), so I stays near the tone's level.
    expect(padded.integrated_lufs! - padded.clip_lufs!).toBeGreaterThan(3);
  });

  it('is null for silence and for an empty stream', () => {
    expect(measure([new Float32Array(4800)], 48000, 'mono').clip_lufs).toBeNull();
    const empty = loudnessEngine.create({ sampleRate: 48000, channels: 1, channelLayout: null, totalFrames: null }, {});
    expect(empty.finish().clip_lufs).toBeNull();
  });

  it.each(RATES)('equals integrated loudness within 0.1 LU on a 10 s steady stereo sine (%i Hz)', (rate) => {
    const r = measure(stereo(toneSequence(rate, [{ seconds: 10, db: -23 }])), rate, 'stereo');
    within(r.clip_lufs, r.integrated_lufs!, 0.1);
    within(r.clip_lufs, -23, 0.1);
  });
});

describe('loudness engine: EBU Tech 3341 cases', () => {
  const seq = (rate: number, parts: [seconds: number, db: number][]) =>
    toneSequence(
      rate,
      parts.map(([seconds, db]) => ({ seconds, db })),
    );

  describe.each(RATES)('at %i Hz', (rate) => {
    it('case 1: stereo −23 dBFS, 20 s → M, S, I = −23.0 ±0.1', () => {
      const r = measure(stereo(seq(rate, [[20, -23]])), rate, 'stereo');
      within(r.integrated_lufs, -23, 0.1);
      within(r.max_momentary_lufs, -23, 0.1);
      within(r.max_short_term_lufs, -23, 0.1);
    });

    it('case 2: stereo −33 dBFS, 20 s → M, S, I = −33.0 ±0.1', () => {
      const r = measure(stereo(seq(rate, [[20, -33]])), rate, 'stereo');
      within(r.integrated_lufs, -33, 0.1);
      within(r.max_momentary_lufs, -33, 0.1);
      within(r.max_short_term_lufs, -33, 0.1);
    });

    it('case 3: −36 / −23 / −36 dBFS (10 s, 60 s, 10 s) → I = −23.0 ±0.1 (relative gate)', () => {
      within(
        measure(
          stereo(
            seq(rate, [
              [10, -36],
              [60, -23],
              [10, -36],
            ]),
          ),
          rate,
        ).integrated_lufs,
        -23,
        0.1,
      );
    });

    it('case 4: −72 / −36 / −23 / −36 / −72 dBFS → I = −23.0 ±0.1 (absolute and relative gates)', () => {
      within(
        measure(
          stereo(
            seq(rate, [
              [10, -72],
              [10, -36],
              [60, -23],
              [10, -36],
              [10, -72],
            ]),
          ),
          rate,
        ).integrated_lufs,
        -23,
        0.1,
      );
    });

    it('case 5: −26 / −20 / −26 dBFS (20 s, 20.1 s, 20 s) → I = −23.0 ±0.1', () => {
      within(
        measure(
          stereo(
            seq(rate, [
              [20, -26],
              [20.1, -20],
              [20, -26],
            ]),
          ),
          rate,
        ).integrated_lufs,
        -23,
        0.1,
      );
    });

    it.each(['5.0', '5.0(side)', null])('case 6: 5.0 (L, R −28; C −24; Ls, Rs −30 dBFS) → I = −23.0 ±0.1 (layout %s)', (layout) => {
      const t = (db: number) => seq(rate, [[20, db]]);
      const r = measure([t(-28), t(-28), t(-24), t(-30), t(-30)], rate, layout);
      expect(r.channel_weights).toEqual([1, 1, 1, 1.41, 1.41]);
      within(r.integrated_lufs, -23, 0.1);
    });

    it('case 9: (1.34 s @ −20, 1.66 s @ −30) × 5 → S = −23.0 ±0.1 after 3 s (max S)', () => {
      const parts: [number, number][] = [];
      for (let i = 0; i < 5; i++) parts.push([1.34, -20], [1.66, -30]);
      within(measure(stereo(seq(rate, parts)), rate).max_short_term_lufs, -23, 0.1);
    });

    it('case 10: (i·0.15 s silence, 3 s @ −23, 1 s silence), i = 0..19, one file each → max S = −23.0 ±0.1', () => {
      for (let i = 0; i < 20; i++)
        within(
          measure(
            stereo(
              seq(rate, [
                [i * 0.15, -Infinity],
                [3, -23],
                [1, -Infinity],
              ]),
            ),
            rate,
          ).max_short_term_lufs,
          -23,
          0.1,
        );
    });

    it('case 12: (0.18 s @ −20, 0.22 s @ −30) × 25 → M = −23.0 ±0.1 after 1 s (max M)', () => {
      const parts: [number, number][] = [];
      for (let i = 0; i < 25; i++) parts.push([0.18, -20], [0.22, -30]);
      within(measure(stereo(seq(rate, parts)), rate).max_momentary_lufs, -23, 0.1);
    });

    it('case 13: (i·20 ms silence, 400 ms @ −23, 1 s silence), i = 0..19, one file each → max M = −23.0 ±0.1', () => {
      for (let i = 0; i < 20; i++)
        within(
          measure(
            stereo(
              seq(rate, [
                [i * 0.02, -Infinity],
                [0.4, -23],
                [1, -Infinity],
              ]),
            ),
            rate,
          ).max_momentary_lufs,
          -23,
          0.1,
        );
    });

    // Cases 15–19: a stereo sine at a fraction of fs, 10 ms linear fades; true peak +0.2/−0.4 dB.
    it.each([
      [15, 4, 0.5, 0, -6],
      [16, 4, 0.5, 45, -6],
      [17, 6, 0.5, 60, -6],
      [18, 8, 0.5, 67.5, -6],
      [19, 4, 1.41, 45, 3],
    ])('case %i: fs/%i sine, %f FFS, phase %f° → true peak %f dBTP +0.2/−0.4', (_case, divisor, amp, phaseDeg, expected) => {
      const x = faded(sine(rate, 1, rate / divisor, amp, (phaseDeg * Math.PI) / 180), rate, 0.01);
      const r = measure(stereo(x), rate, 'stereo');
      expect(r.true_peak_dbtp).not.toBeNull();
      expect(r.true_peak_dbtp!).toBeGreaterThanOrEqual(expected - 0.4);
      expect(r.true_peak_dbtp!).toBeLessThanOrEqual(expected + 0.2);
      expect(r.true_peak_dbtp!).toBeGreaterThanOrEqual(r.sample_peak_dbfs!);
    });

    it('case 16 reads a sample peak of −9.03 dBFS (the inter-sample peak is what true peak adds)', () => {
      const r = measure(stereo(faded(sine(rate, 1, rate / 4, 0.5, Math.PI / 4), rate, 0.01)), rate);
      within(r.sample_peak_dbfs, -9.03, 0.01);
    });
  });

  it.each([
    [4, 0.5, 0, -6],
    [4, 0.5, 45, -6],
    [6, 0.5, 60, -6],
    [8, 0.5, 67.5, -6],
    [4, 1.41, 45, 3],
  ])('cases 15–19 at 96 kHz (2× oversampling): fs/%i, %f FFS, %f° → %f dBTP +0.2/−0.4', (divisor, amp, phaseDeg, expected) => {
    const rate = 96000;
    const r = measure(stereo(faded(sine(rate, 1, rate / divisor, amp, (phaseDeg * Math.PI) / 180), rate, 0.01)), rate);
    expect(r.true_peak_dbtp!).toBeGreaterThanOrEqual(expected - 0.4);
    expect(r.true_peak_dbtp!).toBeLessThanOrEqual(expected + 0.2);
  });

  it('case 1 reads −23.0 at 96 kHz too (K-weighting derived for the rate)', () => {
    const r = measure(stereo(seq(96000, [[20, -23]])), 96000);
    within(r.integrated_lufs, -23, 0.1);
  });
});

describe('loudness engine: EBU Tech 3342 LRA cases', () => {
  describe.each(RATES)('at %i Hz', (rate) => {
    it.each([
      [1, [-20, -30], 10],
      [2, [-20, -15], 5],
      [3, [-40, -20], 20],
      [4, [-50, -35, -20, -35, -50], 15],
    ])('case %i: 20 s tones at %j dBFS → LRA %i ±1 LU', (_case, levels, expected) => {
      const x = toneSequence(
        rate,
        levels.map((db) => ({ seconds: 20, db })),
      );
      within(measure(stereo(x), rate, 'stereo').loudness_range_lu, expected, 1);
    });
  });
});

describe('true-peak meter', () => {
  it('uses the ITU-R BS.1770-5 Annex 2 table (phase 2 = phase 1 reversed, phase 3 = phase 0 reversed)', () => {
    const phase0 = [
      0.001708984375, 0.010986328125, -0.0196533203125, 0.033203125, -0.0594482421875, 0.1373291015625, 0.97216796875, -0.102294921875,
      0.047607421875, -0.026611328125, 0.014892578125, -0.00830078125,
    ];
    const phase1 = [
      -0.0291748046875, 0.029296875, -0.0517578125, 0.089111328125, -0.16650390625, 0.465087890625, 0.77978515625, -0.2003173828125,
      0.1015625, -0.0582275390625, 0.0330810546875, -0.0189208984375,
    ];
    expect(ITU_TRUE_PEAK_PHASES).toEqual([phase0, phase1, [...phase1].reverse(), [...phase0].reverse()]);
    expect([44100, 48000, 88200, 96000, 176400, 192000].map(truePeakOversampling)).toEqual([4, 4, 4, 2, 2, 1]);
  });

  it.each([44100, 48000, 96000, 192000])(
    'skipping gives exactly the unskipped answer, and both match the plain Annex 2 loop, on random signals (%i Hz)',
    (rate) => {
      for (let seed = 1; seed <= 6; seed++) {
        const rnd = seededNoise(seed);
        const n = 20000;
        // Noise whose level changes every 1500 samples (full scale 0.9 down to 0.05), so that blocks are
        // skipped, filtered for the inner phases only, and filtered fully.
        const levels = [0.9, 0.55, 0.3, 0.7, 0.05, 0.45, 0.6];
        const chans = [0, 1, 2].map((c) => {
          const x = new Float32Array(n);
          for (let i = 0; i < n; i++) x[i] = rnd() * levels[(Math.floor(i / 1500) + seed + c) % levels.length]!;
          return x;
        });
        const skipped = meterTruePeak(chans, rate, true, [997, 1, 4096, 31]);
        const full = meterTruePeak(chans, rate, false, [4096]);
        expect(skipped).toBe(full);
        const reference = referenceTruePeak(chans, rate);
        expect(Math.abs(full - reference)).toBeLessThanOrEqual(1e-12 * reference);
      }
    },
  );

  it('skipping gives exactly the unskipped answer on the EBU true-peak signals and on music-like audio', () => {
    const signals: [Float32Array[], number][] = [];
    for (const rate of [44100, 48000, 96000]) {
      for (const [div, amp, deg] of [
        [4, 0.5, 0],
        [4, 0.5, 45],
        [6, 0.5, 60],
        [8, 0.5, 67.5],
        [4, 1.41, 45],
      ] as const) {
        signals.push([stereo(faded(sine(rate, 0.5, rate / div, amp, (deg * Math.PI) / 180), rate, 0.01)), rate]);
      }
      signals.push([musicLike(rate, 2, 3, 0.9), rate]);
    }
    for (const [chans, rate] of signals) {
      const skipped = meterTruePeak(chans, rate, true);
      expect(skipped).toBe(meterTruePeak(chans, rate, false, [8192]));
      const reference = referenceTruePeak(chans, rate);
      expect(Math.abs(skipped - reference)).toBeLessThanOrEqual(1e-12 * reference);
    }
  });

  it('reports max(true peak, sample peak), and the sample peak alone at 192 kHz', () => {
    const impulse = new Float32Array(100);
    impulse[50] = 0.5;
    // A lone impulse's interpolated values are at most 0.972·0.5 (phase 0's largest tap): the sample wins.
    expect(meterTruePeak([impulse], 48000, true)).toBe(0.5);
    const x = faded(sine(192000, 0.2, 48000, 0.5, Math.PI / 4), 192000, 0.01);
    const m = createTruePeakMeter(192000, 1);
    m.push(x);
    expect(m.truePeak()).toBe(m.samplePeak());
  });
});
