/**
 * Rhythm descriptors from an onset-strength envelope (one value per STFT frame, `frameRate` per second).
 *
 * - Onset strength (`melFluxEnvelope`): librosa's `onset.onset_strength` with its defaults: the mean over
 *   the 128 mel bands of max(0, S_dB[b, t] − S_dB[b, t − 1]), with S_dB the (top_db-clipped) dB mel
 *   spectrogram; frame 0 is 0. (librosa also shifts the envelope by 3 frames to line it up with the window
 *   centres; a constant shift changes nothing below.)
 * - Pulse clarity (`pulseClarity`): after Lartillot, Eerola, Toiviainen & Fornari, "Multi-feature modeling
 *   of pulse clarity: design, validation, and optimization", ISMIR 2008 (MIRtoolbox `mirpulseclarity`,
 *   'MaxAutocor'): the highest peak of the normalised autocorrelation of the onset envelope over the lags
 *   of 40–200 BPM. Here the envelope is smoothed by a 5-tap Hann kernel (so a beat period that falls
 *   between two lags is not split over them) and its mean removed, and r(k) = (Σ x_i·x_{i+k} / (N − k)) /
 *   (Σ x_i² / N), clamped to 0..1. A strictly periodic pulse gives values near 1; noise gives about 0.
 * - Beat strength (`beatStrength`): the mean of the smoothed envelope on a beat grid at the given tempo,
 *   divided by its mean over all frames. The grid's phase is the one (in whole frames) with the largest
 *   sum; one phase serves the whole clip. 1 means the beats are no stronger than anything else; a drum
 *   loop gives several times that.
 */

/** Tempo range of the pulse-clarity autocorrelation, BPM (MIRtoolbox's default tempo range). */
export const PULSE_MIN_BPM = 40;
export const PULSE_MAX_BPM = 200;

/** librosa onset strength from dB mel frames stored row after row (frame t at melDb[t·nMels ..]). */
export function melFluxEnvelope(melDb: Float64Array, frames: number, nMels: number, floor: number, out: Float64Array): void {
  if (frames > 0) out[0] = 0;
  for (let t = 1; t < frames; t++) {
    const cur = t * nMels;
    const prev = cur - nMels;
    let s = 0;
    for (let b = 0; b < nMels; b++) {
      const a = melDb[cur + b]! > floor ? melDb[cur + b]! : floor;
      const p = melDb[prev + b]! > floor ? melDb[prev + b]! : floor;
      s += a > p ? a - p : 0;
    }
    out[t] = s / nMels;
  }
}

const HANN5 = [0.25, 0.75, 1, 0.75, 0.25].map((v) => v / 3);

/** The envelope smoothed by a 5-tap Hann kernel (sum 1; zero beyond the ends). */
export function smoothEnvelope(env: Float64Array, length = env.length): Float64Array {
  const out = new Float64Array(length);
  for (let i = 0; i < length; i++) {
    let s = 0;
    for (let j = 0; j < 5; j++) {
      const k = i + j - 2;
      if (k >= 0 && k < length) s += HANN5[j]! * env[k]!;
    }
    out[i] = s;
  }
  return out;
}

export interface PulseClarity {
  /** 0..1. */
  readonly clarity: number;
  /** The lag of the peak, frames; 0 when no lag in the range is a local maximum above 0. */
  readonly lag: number;
}

/**
 * Pulse clarity of a (smoothed) envelope; null when it is too short to hold two periods of the slowest
 * allowed tempo's fastest lag (fewer than 2·(60·frameRate/maxBpm) frames) or is constant.
 */
export function pulseClarity(
  smoothed: Float64Array,
  frameRate: number,
  minBpm = PULSE_MIN_BPM,
  maxBpm = PULSE_MAX_BPM,
): PulseClarity | null {
  const n = smoothed.length;
  const minLag = Math.max(1, Math.floor((60 * frameRate) / maxBpm));
  const maxLag = Math.min(Math.ceil((60 * frameRate) / minBpm), Math.floor(n / 2));
  if (maxLag < minLag) return null;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += smoothed[i]!;
  mean /= n;
  const x = new Float64Array(n);
  let r0 = 0;
  for (let i = 0; i < n; i++) {
    x[i] = smoothed[i]! - mean;
    r0 += x[i]! * x[i]!;
  }
  r0 /= n;
  if (!(r0 > 0)) return null;
  // r over minLag − 1 .. maxLag + 1, so that local maxima can be told at both ends of the range.
  const lo = minLag - 1;
  const hi = Math.min(maxLag + 1, n - 1);
  const r = new Float64Array(hi - lo + 1);
  for (let k = lo; k <= hi; k++) {
    let s0 = 0;
    let s1 = 0;
    let i = 0;
    for (; i + k + 1 < n; i += 2) {
      s0 += x[i]! * x[i + k]!;
      s1 += x[i + 1]! * x[i + k + 1]!;
    }
    for (; i + k < n; i++) s0 += x[i]! * x[i + k]!;
    r[k - lo] = (s0 + s1) / (n - k) / r0;
  }
  // Only local maxima count (a slope falling from lag 0 into the range is not a pulse).
  let best = 0;
  let bestLag = 0;
  for (let k = minLag; k <= maxLag; k++) {
    const v = r[k - lo]!;
    if (v > best && v >= r[k - lo - 1]! && (k + 1 > hi || v >= r[k - lo + 1]!)) {
      best = v;
      bestLag = k;
    }
  }
  return { clarity: Math.min(1, Math.max(0, best)), lag: bestLag };
}

/** Beat strength of a (smoothed) envelope at `bpm` (see the module doc); null when the envelope is empty or zero. */
export function beatStrength(smoothed: Float64Array, frameRate: number, bpm: number): number | null {
  const n = smoothed.length;
  const period = (60 * frameRate) / bpm;
  if (n === 0 || !(period >= 1) || period > n) return null;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += smoothed[i]!;
  mean /= n;
  if (!(mean > 0)) return null;
  let best = -Infinity;
  const phases = Math.max(1, Math.floor(period));
  for (let phase = 0; phase < phases; phase++) {
    let s = 0;
    let count = 0;
    for (let t = phase; Math.round(t) < n; t += period) {
      s += smoothed[Math.round(t)]!;
      count++;
    }
    if (count > 0 && s / count > best) best = s / count;
  }
  return best / mean;
}
