/**
 * Pure loudness arithmetic over channel-weighted energies: ITU-R BS.1770-5 Annex 1 (channel weights,
 * eq. 2; gating, eqs. 3–7), EBU Tech 3341 (M, S) and EBU Tech 3342 §3.1 (loudness range, LRA).
 *
 * "Energy" here is always Σ_i G_i·Σ y_i² (K-weighted samples y, channel weights G) over some span of
 * frames; dividing by the span's frame count gives BS.1770's Σ_i G_i·z_i.
 */

/** BS.1770's −0.691 dB: makes a 997 Hz sine read the same in LKFS as in dB of its mean square. */
export const LOUDNESS_OFFSET_DB = -0.691;

/** Loudness (LUFS) of a channel-weighted mean square; −Infinity for 0. */
export function loudnessOfMeanSquare(meanSquare: number): number {
  return LOUDNESS_OFFSET_DB + 10 * Math.log10(meanSquare);
}

/** The mean square that reads `lufs`: inverse of loudnessOfMeanSquare. */
export function meanSquareOfLoudness(lufs: number): number {
  return 10 ** ((lufs - LOUDNESS_OFFSET_DB) / 10);
}

/** Weight of one channel label (FFmpeg names): LFE excluded, surround (side/back/top-back/direct) 1.41. */
function weightOfLabel(label: string): number {
  if (label === 'LFE' || label === 'LFE2') return 0;
  if (SURROUND_LABELS.has(label)) return 1.41;
  return 1;
}

// As FFmpeg's f_ebur128 (`BACK_MASK`): back, side, top-back and surround-direct channels get 1.41.
// (BS.1770-5 Annex 3 would give a back-centre channel 1.0; FFmpeg gives it 1.41 and so do we.)
const SURROUND_LABELS = new Set(['BL', 'BR', 'BC', 'SL', 'SR', 'TBL', 'TBC', 'TBR', 'SDL', 'SDR']);

// FFmpeg's named layouts (`ffmpeg -layouts`, 5.1; plus the 3D layouts added in 6.x/7.x), channel order as decoded.
const NAMED_LAYOUTS: Readonly<Record<string, string>> = {
  mono: 'FC',
  stereo: 'FL+FR',
  '2.1': 'FL+FR+LFE',
  '3.0': 'FL+FR+FC',
  '3.0(back)': 'FL+FR+BC',
  '4.0': 'FL+FR+FC+BC',
  quad: 'FL+FR+BL+BR',
  'quad(side)': 'FL+FR+SL+SR',
  '3.1': 'FL+FR+FC+LFE',
  '5.0': 'FL+FR+FC+BL+BR',
  '5.0(side)': 'FL+FR+FC+SL+SR',
  '4.1': 'FL+FR+FC+LFE+BC',
  '5.1': 'FL+FR+FC+LFE+BL+BR',
  '5.1(side)': 'FL+FR+FC+LFE+SL+SR',
  '6.0': 'FL+FR+FC+BC+SL+SR',
  '6.0(front)': 'FL+FR+FLC+FRC+SL+SR',
  '3.1.2': 'FL+FR+FC+LFE+TFL+TFR',
  hexagonal: 'FL+FR+FC+BL+BR+BC',
  '6.1': 'FL+FR+FC+LFE+BC+SL+SR',
  '6.1(back)': 'FL+FR+FC+LFE+BL+BR+BC',
  '6.1(front)': 'FL+FR+LFE+FLC+FRC+SL+SR',
  '7.0': 'FL+FR+FC+BL+BR+SL+SR',
  '7.0(front)': 'FL+FR+FC+FLC+FRC+SL+SR',
  '7.1': 'FL+FR+FC+LFE+BL+BR+SL+SR',
  '7.1(wide)': 'FL+FR+FC+LFE+BL+BR+FLC+FRC',
  '7.1(wide-side)': 'FL+FR+FC+LFE+FLC+FRC+SL+SR',
  '5.1.2': 'FL+FR+FC+LFE+BL+BR+TFL+TFR',
  octagonal: 'FL+FR+FC+BL+BR+BC+SL+SR',
  cube: 'FL+FR+BL+BR+TFL+TFR+TBL+TBR',
  '5.1.4': 'FL+FR+FC+LFE+BL+BR+TFL+TFR+TBL+TBR',
  '7.1.2': 'FL+FR+FC+LFE+BL+BR+SL+SR+TFL+TFR',
  '7.1.4': 'FL+FR+FC+LFE+BL+BR+SL+SR+TFL+TFR+TBL+TBR',
  hexadecagonal: 'FL+FR+FC+BL+BR+BC+SL+SR+TFL+TFC+TFR+TBL+TBC+TBR+WL+WR',
  downmix: 'DL+DR',
  '22.2': 'FL+FR+FC+LFE+BL+BR+FLC+FRC+BC+SL+SR+TC+TFL+TFC+TFR+TBL+TBC+TBR+LFE2+TSL+TSR+BFC+BFL+BFR',
};

// Without a layout: libebur128's default map for 1–6 channels (4 = L R Ls Rs, 5 = L R C Ls Rs,
// 6 = L R C LFE Ls Rs) and FFmpeg's default layouts for 7 (6.1) and 8 (7.1) channels.
const DEFAULT_WEIGHTS: readonly (readonly number[])[] = [
  [],
  [1],
  [1, 1],
  [1, 1, 1],
  [1, 1, 1.41, 1.41],
  [1, 1, 1, 1.41, 1.41],
  [1, 1, 1, 0, 1.41, 1.41],
  [1, 1, 1, 0, 1.41, 1.41, 1.41],
  [1, 1, 1, 0, 1.41, 1.41, 1.41, 1.41],
];

/**
 * BS.1770 channel weights G_i (Table 3): 1.0 for L, R, C; 1.41 for surround channels; 0 for LFE.
 * `layout` is FFmpeg's layout name (`stereo`, `5.1(side)`, …) or a decomposition such as `FL+FR+LFE`
 * (optionally wrapped as `3 channels (FL+FR+LFE)`). Without a usable layout the channel count decides;
 * channels beyond the known defaults (more than 8) weigh 1.0.
 */
export function channelWeights(channels: number, layout: string | null): number[] {
  if (!Number.isInteger(channels) || channels < 1) throw new RangeError(`channel count must be a positive integer, got ${channels}`);
  const labels = layout === null ? null : layoutLabels(layout);
  if (labels !== null && labels.length === channels) return labels.map(weightOfLabel);
  const defaults = DEFAULT_WEIGHTS[channels];
  return defaults ? [...defaults] : new Array<number>(channels).fill(1);
}

/** Channel labels of an FFmpeg layout description, or null when it is not one. */
function layoutLabels(layout: string): string[] | null {
  const name = layout.trim();
  const named = NAMED_LAYOUTS[name];
  if (named !== undefined) return named.split('+');
  const inner = /\(([A-Z0-9+]+)\)\s*$/.exec(name)?.[1] ?? name;
  if (!/^[A-Z0-9]+(\+[A-Z0-9]+)*$/.test(inner)) return null;
  return inner.split('+');
}

/** Sum and count of the first `count` values that are ≥ threshold: BS.1770 gating in the energy domain, with libebur128's "≥". */
function meanAtOrAbove(energies: Float64Array, count: number, threshold: number): { sum: number; n: number } {
  let sum = 0;
  let n = 0;
  for (let j = 0; j < count; j++) {
    const e = energies[j]!;
    if (e >= threshold) {
      sum += e;
      n++;
    }
  }
  return { sum, n };
}

/**
 * Sums of `width` consecutive entries of `hops` (first `count` used), one per start position:
 * the gating blocks (width 4 = 400 ms) or short-term windows (width 30 = 3 s) at a 100 ms hop.
 */
export function slidingSums(hops: Float64Array, count: number, width: number): Float64Array {
  const n = Math.max(0, count - width + 1);
  const out = new Float64Array(n);
  for (let j = 0; j < n; j++) {
    let s = 0;
    for (let k = 0; k < width; k++) s += hops[j + k]!;
    out[j] = s;
  }
  return out;
}

/**
 * Gated integrated loudness (BS.1770-5 eqs. 4–7) from per-100 ms channel-weighted energies.
 * Blocks are 400 ms (4 hops) with 75 % overlap, each energy divided by `hopFrames`·4 frames; absolute gate
 * −70 LUFS, relative gate −10 LU below the loudness of the absolute-gated mean; "≥" at both gates
 * (libebur128, Tech 3342's MATLAB). Powers are averaged, never dB values. −Infinity when no block passes.
 */
export function integratedLoudness(hopEnergies: Float64Array, hopCount: number, hopFrames: number): number {
  const blocks = slidingSums(hopEnergies, hopCount, 4);
  const frames = 4 * hopFrames;
  for (let j = 0; j < blocks.length; j++) blocks[j] = blocks[j]! / frames;
  return gatedMeanLoudness(blocks, -10);
}

/** Loudness of the mean of the mean squares that pass −70 LUFS and then `relativeGateLu` below their own mean. */
function gatedMeanLoudness(meanSquares: Float64Array, relativeGateLu: number): number {
  const abs = meanAtOrAbove(meanSquares, meanSquares.length, meanSquareOfLoudness(-70));
  if (abs.n === 0) return -Infinity;
  const rel = meanAtOrAbove(meanSquares, meanSquares.length, (abs.sum / abs.n) * 10 ** (relativeGateLu / 10));
  return rel.n === 0 ? -Infinity : loudnessOfMeanSquare(rel.sum / rel.n);
}

/**
 * Loudness range (EBU Tech 3342 §3.1 and its MATLAB reference) from per-100 ms channel-weighted energies:
 * short-term (3 s = 30 hops) loudness every 100 ms; absolute gate −70 LUFS; relative gate −20 LU below the
 * loudness of the absolute-gated mean power; LRA = P95 − P10 of what remains, percentile p taken as
 * sorted[round((n − 1)·p/100)] (0-based; MATLAB's round((n−1)·p/100 + 1), 1-based). null when no
 * short-term value passes the gates (silence, or less than 3 s of audio).
 */
export function loudnessRange(hopEnergies: Float64Array, hopCount: number, hopFrames: number): number | null {
  const windows = slidingSums(hopEnergies, hopCount, 30);
  const frames = 30 * hopFrames;
  for (let j = 0; j < windows.length; j++) windows[j] = windows[j]! / frames;
  const abs = meanAtOrAbove(windows, windows.length, meanSquareOfLoudness(-70));
  if (abs.n === 0) return null;
  const relThreshold = (abs.sum / abs.n) * 10 ** (-20 / 10);
  const kept: number[] = [];
  for (let j = 0; j < windows.length; j++) if (windows[j]! >= relThreshold) kept.push(loudnessOfMeanSquare(windows[j]!));
  kept.sort((a, b) => a - b);
  const n = kept.length;
  const at = (p: number) => kept[Math.round(((n - 1) * p) / 100)]!;
  return at(95) - at(10);
}
