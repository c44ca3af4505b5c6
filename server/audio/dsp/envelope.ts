/**
 * Amplitude-envelope descriptors of a clip, from its RMS envelope: the RMS of consecutive, non-overlapping
 * blocks of `blockSize` samples (10 ms), block i standing at its centre time (i + ½)·blockSize / sr (the
 * last, partial block at the centre of what it holds). The attack and temporal-centroid descriptors follow
 * Peeters, "A large set of audio features for sound description", CUIDADO report, IRCAM 2004, §4 (log-attack
 * time with fixed 10 % / 90 % thresholds, temporal centroid); the others are defined here.
 *
 * With P the largest block RMS and i_P its first block:
 * - attack_s: time of the first block at or above 0.9·P minus that of the first block at or above 0.1·P,
 *   each crossing placed by linear interpolation between the block before it and the block itself (so a
 *   linear 50 ms fade-in reads 40 ms). 0 when the first block is already above 0.9·P.
 * - sustain_level: median of the envelope from i_P to the last block at or above 0.1·P (the sounding part
 *   after the peak), divided by P: 0..1.
 * - decay_s: from the time of i_P to the first later time the envelope has come down 90 % of the way from P
 *   to the sustain level (≤ S + 0.1·(P − S), S the sustain level in absolute terms), interpolated like the
 *   attack. A linear decay of 100 ms to the sustain level reads 90 ms; 0 when there is no drop.
 * - temporal_centroid_s: Σ t_i·e_i / Σ e_i over the block RMS e_i (seconds from the start of the clip).
 * - dynamic_range_db: the 95th minus the 10th percentile (linear interpolation between order statistics,
 *   as numpy's default) of the block levels 20·log10(e_i), over the blocks above −100 dBFS (digital
 *   silence has no level).
 * All are null for a clip whose envelope is zero everywhere.
 */

/** Block length of the envelope, seconds. */
export const ENVELOPE_BLOCK_S = 0.01;
/** Blocks below this RMS (dBFS) are left out of the dynamic range. */
export const LEVEL_FLOOR_DB = -100;

/** Streaming block RMS of a mono signal; blocks are stored (one float per 10 ms). */
export class RmsEnvelope {
  readonly blockSize: number;
  readonly sampleRate: number;
  private values: Float64Array;
  private count = 0;
  private acc = 0;
  private fill = 0;

  constructor(sampleRate: number, expectedSamples = 0) {
    this.sampleRate = sampleRate;
    this.blockSize = Math.max(1, Math.round(ENVELOPE_BLOCK_S * sampleRate));
    this.values = new Float64Array(Math.max(16, Math.ceil(expectedSamples / this.blockSize) + 1));
  }

  /** Append x[from..to). */
  push(x: Float64Array, from: number, to: number): void {
    const size = this.blockSize;
    let acc = this.acc;
    let fill = this.fill;
    for (let i = from; i < to; i++) {
      const v = x[i]!;
      acc += v * v;
      if (++fill === size) {
        this.store(Math.sqrt(acc / size));
        acc = 0;
        fill = 0;
      }
    }
    this.acc = acc;
    this.fill = fill;
  }

  /** The envelope, including a final partial block; `lastBlockSamples` says how many samples it holds. */
  finish(): { readonly env: Float64Array; readonly lastBlockSamples: number } {
    if (this.fill > 0) {
      this.store(Math.sqrt(this.acc / this.fill));
      const last = this.fill;
      this.fill = 0;
      this.acc = 0;
      return { env: this.values.slice(0, this.count), lastBlockSamples: last };
    }
    return { env: this.values.slice(0, this.count), lastBlockSamples: this.blockSize };
  }

  private store(v: number): void {
    if (this.count === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.count++] = v;
  }
}

export interface EnvelopeFeatures {
  readonly attackS: number;
  readonly decayS: number;
  readonly sustainLevel: number;
  readonly temporalCentroidS: number;
  readonly dynamicRangeDb: number;
  /** The largest block RMS (linear, full scale 1) and its time (s). */
  readonly peak: number;
  readonly peakTimeS: number;
}

/** Percentile q (0..100) of ascending `sorted` values, numpy's linear method. */
export function percentile(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  const pos = ((n - 1) * q) / 100;
  const i = Math.floor(pos);
  const f = pos - i;
  return i + 1 < n ? sorted[i]! + f * (sorted[i + 1]! - sorted[i]!) : sorted[n - 1]!;
}

/** Median of values[from..to]. */
function median(values: Float64Array, from: number, to: number): number {
  const s = values.slice(from, to + 1).sort();
  return percentile(s, 50);
}

/**
 * Descriptors of an envelope of block RMS values (see the module doc). `blockS` = block length in seconds;
 * `lastBlockS` = the length of the last block (shorter when the clip ends inside it). Null when all zero.
 */
export function envelopeFeatures(env: Float64Array, blockS: number, lastBlockS = blockS): EnvelopeFeatures | null {
  const n = env.length;
  const time = (i: number) => (i === n - 1 ? i * blockS + lastBlockS / 2 : (i + 0.5) * blockS);
  let peak = 0;
  let iPeak = -1;
  for (let i = 0; i < n; i++) {
    if (env[i]! > peak) {
      peak = env[i]!;
      iPeak = i;
    }
  }
  if (!(peak > 0)) return null;

  // Time at which the envelope first rises to `level` (interpolated from the block before).
  const firstRise = (level: number) => {
    let i = 0;
    while (env[i]! < level) i++;
    if (i === 0) return time(0);
    const a = env[i - 1]!;
    const b = env[i]!;
    return time(i - 1) + ((level - a) / (b - a)) * (time(i) - time(i - 1));
  };
  const attackS = Math.max(0, firstRise(0.9 * peak) - firstRise(0.1 * peak));

  let iEnd = n - 1;
  while (env[iEnd]! < 0.1 * peak) iEnd--;
  const sustain = median(env, iPeak, iEnd);
  const target = sustain + 0.1 * (peak - sustain);
  let decayS = 0;
  let i = iPeak;
  while (i < n && env[i]! > target) i++;
  if (i > iPeak && i < n) {
    const a = env[i - 1]!;
    const b = env[i]!;
    decayS = time(i - 1) + ((a - target) / (a - b)) * (time(i) - time(i - 1)) - time(iPeak);
  } else if (i === n) {
    decayS = time(n - 1) - time(iPeak);
  }

  let num = 0;
  let den = 0;
  const levels: number[] = [];
  const floor = 10 ** (LEVEL_FLOOR_DB / 20);
  for (let j = 0; j < n; j++) {
    const e = env[j]!;
    num += time(j) * e;
    den += e;
    if (e > floor) levels.push(20 * Math.log10(e));
  }
  const sorted = Float64Array.from(levels).sort();
  return {
    attackS,
    decayS,
    sustainLevel: sustain / peak,
    temporalCentroidS: num / den,
    dynamicRangeDb: sorted.length > 0 ? percentile(sorted, 95) - percentile(sorted, 10) : 0,
    peak,
    peakTimeS: time(iPeak),
  };
}
