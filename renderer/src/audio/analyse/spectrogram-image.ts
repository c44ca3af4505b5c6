// Turning the /spectrum answer into pixels: values are (dB + 100) / 100, frames × bands.
import { magmaLut } from './colour-map';

/** The part of 0..1 that the colour map spans: `low` maps to the darkest colour, `high` to the brightest. */
export interface ValueRange {
  readonly low: number;
  readonly high: number;
}

/** The rows of the answer in one Float32Array, frame after frame (native copies, one per frame). */
export function flattenFrames(data: readonly (readonly number[])[], bands: number): Float32Array<ArrayBuffer> {
  const flat = new Float32Array(data.length * bands);
  for (let f = 0; f < data.length; f++) {
    const row = data[f];
    if (row) flat.set(row.length > bands ? row.slice(0, bands) : row, f * bands);
  }
  return flat;
}

/**
 * The range the colours span over flattened frames: `spanDb` below the loudest cell, so a quiet file
 * still uses the whole map (the server's floor is −100 dB, far below what matters to the ear next to
 * the loudest part).
 */
export function displayRangeFlat(values: Float32Array, spanDb = 80): ValueRange {
  let high = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i] as number;
    if (v > high) high = v;
  }
  high = Math.max(high, 0.1);
  return { low: Math.max(0, high - spanDb / 100), high };
}

/** dB (0 dB = a full-scale sine) of a spectrum value in 0..1 with the server's floor. */
export function valueToDb(value: number, dbFloor = -100): number {
  return dbFloor + value * -dbFloor;
}

/** The LUT's RGBA entries packed into 32-bit words in this machine's byte order, one store per pixel. */
export function packLut(lut: Uint8ClampedArray): Uint32Array {
  const packed = new Uint32Array(lut.length / 4);
  new Uint8ClampedArray(packed.buffer).set(lut);
  return packed;
}

/**
 * RGBA pixels of a frames × bands image from flattened frames (frame-major, `bands` values per frame):
 * x = frame, y = band with the highest band on row 0, each value mapped through the packed LUT over
 * `range`. `out` is reused when it has the right size.
 */
export function spectrogramPixelsFlat(
  values: Float32Array,
  frames: number,
  bands: number,
  packed: Uint32Array,
  range: ValueRange,
  out?: Uint8ClampedArray<ArrayBuffer>,
): Uint8ClampedArray<ArrayBuffer> {
  const pixels = out && out.length === frames * bands * 4 ? out : new Uint8ClampedArray(frames * bands * 4);
  const words = new Uint32Array(pixels.buffer, pixels.byteOffset, frames * bands);
  const top = packed.length - 1;
  const scale = range.high > range.low ? top / (range.high - range.low) : 0;
  const low = range.low;
  for (let f = 0; f < frames; f++) {
    // Row r of the image holds band (bands - 1 - r): the highest band is drawn at the top.
    let at = (bands - 1) * frames + f;
    const base = f * bands;
    for (let b = 0; b < bands; b++, at -= frames) {
      const level = ((values[base + b] as number) - low) * scale;
      words[at] = packed[level <= 0 ? 0 : level >= top ? top : (level + 0.5) | 0] as number;
    }
  }
  return pixels;
}

const packedMagma = packLut(magmaLut);

/** A spectrum's magma-coloured pixels and the value range the colours span (the worker's job, or the page's without one). */
export function spectrogramImage(
  values: Float32Array,
  frames: number,
  bands: number,
): { readonly pixels: Uint8ClampedArray<ArrayBuffer>; readonly range: ValueRange } {
  const range = displayRangeFlat(values);
  return { pixels: spectrogramPixelsFlat(values, frames, bands, packedMagma, range), range };
}

/** A labelled frequency on the spectrogram's axis; `fromTop` is 0 at the top edge, 1 at the bottom. */
export interface FrequencyTick {
  readonly hz: number;
  readonly label: string;
  readonly fromTop: number;
}

const defaultTickHz = [50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000];

/** "50", "500", "1k", "2.5k", "20k". */
export function formatHz(hz: number): string {
  if (hz < 1000) return String(Math.round(hz));
  const k = hz / 1000;
  return `${Number.isInteger(k) ? k : k.toFixed(1)}k`;
}

/**
 * Where round frequencies fall on a band axis (labels closer than `minGap` of the height to the
 * previous, lower one are dropped), whatever its scale: band i fills the rows
 * [i, i + 1) from the bottom with its centre at i + 0.5, and between two centres the position is
 * interpolated in log frequency (mel and log bands are both close to logarithmic there).
 */
export function frequencyTicks(bandHz: readonly number[], candidates: readonly number[] = defaultTickHz, minGap = 0): FrequencyTick[] {
  const bands = bandHz.length;
  if (bands < 2) return [];
  const ticks: FrequencyTick[] = [];
  for (const hz of candidates) {
    const first = bandHz[0] ?? 0;
    const last = bandHz[bands - 1] ?? 0;
    if (hz < first || hz > last) continue;
    let i = 0;
    while (i < bands - 2 && (bandHz[i + 1] ?? 0) < hz) i++;
    const lo = bandHz[i] ?? first;
    const hi = bandHz[i + 1] ?? last;
    const f = hi > lo && lo > 0 ? Math.log(hz / lo) / Math.log(hi / lo) : 0;
    const fromBottom = (i + f + 0.5) / bands;
    // Mel bands crowd the low frequencies together: a label too close to the one below it is left out.
    const below = ticks.at(-1);
    if (below && below.fromTop - (1 - fromBottom) < minGap) continue;
    ticks.push({ hz, label: formatHz(hz), fromTop: 1 - fromBottom });
  }
  return ticks;
}
