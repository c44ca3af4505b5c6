/**
 * BS.1770 K-weighting (ITU-R BS.1770-5 Annex 1, Tables 1 and 2) at any sample rate.
 *
 * BS.1770 prints biquad coefficients for 48 kHz only and asks for "the same frequency response" at other
 * rates. As libebur128 (`ebur128_init_filter`), sdroege/ebur128 (`filter_coefficients`), FFmpeg's
 * `f_ebur128` and pyloudnorm's `filter_class="DeMan"` do, the coefficients are derived from Brecht De Man's
 * analog prototypes (fitted to the 48 kHz table) by the bilinear transform with prewarping,
 * K = tan(π·f0/fs). At 48 kHz this rebuilds the ITU table to all printed digits.
 *
 * Stage 1 is the high shelf (head model); stage 2 the RLB high pass, whose numerator stays [1, −2, 1]
 * un-normalised: its ≈ +0.043 dB high-frequency gain at 48 kHz is part of the standard's −0.691
 * calibration. Like libebur128 and FFmpeg we keep [1, −2, 1] at every rate, so that small gain varies with
 * the rate: a 997 Hz tone reads 0.003 dB higher at 44.1 kHz and 0.017 dB lower at 96 kHz than at 48 kHz.
 */

/** One biquad section, a0 normalised to 1: y = b0·x + b1·x₋₁ + b2·x₋₂ − a1·y₋₁ − a2·y₋₂. */
export interface Biquad {
  readonly b0: number;
  readonly b1: number;
  readonly b2: number;
  readonly a1: number;
  readonly a2: number;
}

/** The two K-weighting stages at one sample rate. */
export interface KWeighting {
  readonly sampleRate: number;
  /** Stage 1: high shelf (+4 dB above ≈ 1.7 kHz). */
  readonly shelf: Biquad;
  /** Stage 2: RLB high pass (≈ 38 Hz). */
  readonly highPass: Biquad;
  /** The same numbers for the filter loops: shelf b0, b1, b2, a1, a2, then the high pass's a1, a2. */
  readonly packed: Float64Array;
}

// De Man's analog prototype parameters (as in libebur128 1.2.6 and sdroege/ebur128).
const SHELF_F0 = 1681.974450955533;
const SHELF_GAIN_DB = 3.999843853973347;
const SHELF_Q = 0.7071752369554196;
const SHELF_VB_EXPONENT = 0.4996667741545416;
const HIGHPASS_F0 = 38.13547087602444;
const HIGHPASS_Q = 0.5003270373238773;

/** K-weighting biquads for `sampleRate` Hz by the De Man method. */
export function kWeightingCoefficients(sampleRate: number): KWeighting {
  if (!(sampleRate > 2 * SHELF_F0))
    throw new RangeError(`K-weighting needs a sample rate above ${Math.ceil(2 * SHELF_F0)} Hz, got ${sampleRate}`);
  let k = Math.tan((Math.PI * SHELF_F0) / sampleRate);
  const vh = 10 ** (SHELF_GAIN_DB / 20);
  const vb = vh ** SHELF_VB_EXPONENT;
  let a0 = 1 + k / SHELF_Q + k * k;
  const shelf: Biquad = {
    b0: (vh + (vb * k) / SHELF_Q + k * k) / a0,
    b1: (2 * (k * k - vh)) / a0,
    b2: (vh - (vb * k) / SHELF_Q + k * k) / a0,
    a1: (2 * (k * k - 1)) / a0,
    a2: (1 - k / SHELF_Q + k * k) / a0,
  };
  k = Math.tan((Math.PI * HIGHPASS_F0) / sampleRate);
  a0 = 1 + k / HIGHPASS_Q + k * k;
  const highPass: Biquad = {
    b0: 1,
    b1: -2,
    b2: 1,
    a1: (2 * (k * k - 1)) / a0,
    a2: (1 - k / HIGHPASS_Q + k * k) / a0,
  };
  return {
    sampleRate,
    shelf,
    highPass,
    packed: Float64Array.of(shelf.b0, shelf.b1, shelf.b2, shelf.a1, shelf.a2, highPass.a1, highPass.a2),
  };
}

/**
 * Filter memory of one channel, direct form I: [x₋₁, x₋₂, s₋₁, s₋₂, y₋₁, y₋₂] with x the input, s the
 * shelf output (= the high pass's input) and y the K-weighted output.
 */
export function createKWeightingState(): Float64Array {
  return new Float64Array(6);
}

// Direct form I, with each recursion's y₋₁ term added last: the loop-carried dependency is then one
// multiply and one subtract per stage, which is what bounds the speed of a recursive filter. In Float64
// the form makes no measurable difference (libebur128 uses direct form II, FFmpeg cascaded biquads).
// The high pass's numerator is [1, −2, 1] at every rate, so it is written out (bit-identical, fewer multiplies).

/**
 * K-weight frames [from, to) of one channel of an interleaved chunk (`channels` samples per frame) and
 * return Σ y² over them. Runs in Float64; `state` carries the filter memory from chunk to chunk, so
 * calling this on consecutive spans gives exactly the same output as one call over the concatenation.
 */
export function kWeightSumOfSquares(
  kw: KWeighting,
  state: Float64Array,
  chunk: Float32Array,
  channel: number,
  channels: number,
  from: number,
  to: number,
): number {
  return sumOfSquares(kw.packed, state, chunk, channel, channels, from, to);
}

// The loops take the coefficients as a typed array, not the KWeighting object: optimised code that reads
// an object's fields depends on their recorded types, which V8 (Node 20) generalises when the next meter
// builds its coefficients; the loop's code is then thrown away and, in a stream of 1 MB chunks, left
// running as on-stack-replacement code that boxes its doubles (3× slower, ~100 bytes of garbage a frame).
function sumOfSquares(
  c: Float64Array,
  state: Float64Array,
  chunk: Float32Array,
  channel: number,
  channels: number,
  from: number,
  to: number,
): number {
  const p0 = c[0]!,
    p1 = c[1]!,
    p2 = c[2]!,
    pa1 = c[3]!,
    pa2 = c[4]!,
    ha1 = c[5]!,
    ha2 = c[6]!;
  let x1 = state[0]!,
    x2 = state[1]!,
    s1 = state[2]!,
    s2 = state[3]!,
    y1 = state[4]!,
    y2 = state[5]!;
  let sum = 0;
  const end = to * channels + channel;
  for (let i = from * channels + channel; i < end; i += channels) {
    const x = chunk[i]!;
    const s = p0 * x + p1 * x1 + p2 * x2 - pa2 * s2 - pa1 * s1;
    const y = s - 2 * s1 + s2 - ha2 * y2 - ha1 * y1;
    x2 = x1;
    x1 = x;
    s2 = s1;
    s1 = s;
    y2 = y1;
    y1 = y;
    sum += y * y;
  }
  state[0] = x1;
  state[1] = x2;
  state[2] = s1;
  state[3] = s2;
  state[4] = y1;
  state[5] = y2;
  return sum;
}

/**
 * Two channels at once (`channelA` < `channelB`), returning weightA·Σ y_A² + weightB·Σ y_B². The same
 * arithmetic as two kWeightSumOfSquares calls; interleaving two independent recursions in one loop lets
 * the CPU overlap them, about twice as fast as two passes.
 */
export function kWeightSumOfSquaresPair(
  kw: KWeighting,
  stateA: Float64Array,
  stateB: Float64Array,
  weightA: number,
  weightB: number,
  chunk: Float32Array,
  channelA: number,
  channelB: number,
  channels: number,
  from: number,
  to: number,
): number {
  return sumOfSquaresPair(kw.packed, stateA, stateB, weightA, weightB, chunk, channelA, channelB, channels, from, to);
}

function sumOfSquaresPair(
  c: Float64Array,
  stateA: Float64Array,
  stateB: Float64Array,
  weightA: number,
  weightB: number,
  chunk: Float32Array,
  channelA: number,
  channelB: number,
  channels: number,
  from: number,
  to: number,
): number {
  const p0 = c[0]!,
    p1 = c[1]!,
    p2 = c[2]!,
    pa1 = c[3]!,
    pa2 = c[4]!,
    ha1 = c[5]!,
    ha2 = c[6]!;
  let ax1 = stateA[0]!,
    ax2 = stateA[1]!,
    as1 = stateA[2]!,
    as2 = stateA[3]!,
    ay1 = stateA[4]!,
    ay2 = stateA[5]!;
  let bx1 = stateB[0]!,
    bx2 = stateB[1]!,
    bs1 = stateB[2]!,
    bs2 = stateB[3]!,
    by1 = stateB[4]!,
    by2 = stateB[5]!;
  let sumA = 0;
  let sumB = 0;
  const offset = channelB - channelA;
  const end = to * channels + channelA;
  for (let i = from * channels + channelA; i < end; i += channels) {
    const xa = chunk[i]!;
    const xb = chunk[i + offset]!;
    const sa = p0 * xa + p1 * ax1 + p2 * ax2 - pa2 * as2 - pa1 * as1;
    const sb = p0 * xb + p1 * bx1 + p2 * bx2 - pa2 * bs2 - pa1 * bs1;
    const ya = sa - 2 * as1 + as2 - ha2 * ay2 - ha1 * ay1;
    const yb = sb - 2 * bs1 + bs2 - ha2 * by2 - ha1 * by1;
    ax2 = ax1;
    ax1 = xa;
    as2 = as1;
    as1 = sa;
    ay2 = ay1;
    ay1 = ya;
    sumA += ya * ya;
    bx2 = bx1;
    bx1 = xb;
    bs2 = bs1;
    bs1 = sb;
    by2 = by1;
    by1 = yb;
    sumB += yb * yb;
  }
  stateA[0] = ax1;
  stateA[1] = ax2;
  stateA[2] = as1;
  stateA[3] = as2;
  stateA[4] = ay1;
  stateA[5] = ay2;
  stateB[0] = bx1;
  stateB[1] = bx2;
  stateB[2] = bs1;
  stateB[3] = bs2;
  stateB[4] = by1;
  stateB[5] = by2;
  return weightA * sumA + weightB * sumB;
}
