// Layout math for the waveform: bins to pixel columns, zoom steps, keyboard seeking, clock text.

/**
 * For each of `columns` pixel columns, the bins [start, end) it covers when the bins
 * [firstBin, lastBin) (fractional at a scrolled edge) span the columns. A column always gets at
 * least one bin, so a waveform zoomed past one bin per pixel is drawn in blocks, never with gaps.
 */
export function columnBins(
  firstBin: number,
  lastBin: number,
  columns: number,
  bins: number,
): { readonly start: Int32Array; readonly end: Int32Array } {
  const start = new Int32Array(columns);
  const end = new Int32Array(columns);
  const per = columns > 0 ? (lastBin - firstBin) / columns : 0;
  for (let x = 0; x < columns; x++) {
    const a = Math.min(bins - 1, Math.max(0, Math.floor(firstBin + x * per)));
    const b = Math.min(bins, Math.max(a + 1, Math.floor(firstBin + (x + 1) * per)));
    start[x] = a;
    end[x] = b;
  }
  return { start, end };
}

/** The highest of `values` over each column's bins (use with negated values for the lowest). */
export function columnMax(values: ArrayLike<number>, start: Int32Array, end: Int32Array): Float32Array {
  const out = new Float32Array(start.length);
  for (let x = 0; x < start.length; x++) {
    let best = -Infinity;
    for (let i = start[x] ?? 0; i < (end[x] ?? 0); i++) {
      const v = values[i] ?? 0;
      if (v > best) best = v;
    }
    out[x] = best === -Infinity ? 0 : best;
  }
  return out;
}

/** The lowest of `values` over each column's bins. */
export function columnMin(values: ArrayLike<number>, start: Int32Array, end: Int32Array): Float32Array {
  const out = new Float32Array(start.length);
  for (let x = 0; x < start.length; x++) {
    let best = Infinity;
    for (let i = start[x] ?? 0; i < (end[x] ?? 0); i++) {
      const v = values[i] ?? 0;
      if (v < best) best = v;
    }
    out[x] = best === Infinity ? 0 : best;
  }
  return out;
}

/** Canvas y of an amplitude in -1..1 on a canvas `height` high (1 at the top). */
export function amplitudeY(value: number, height: number): number {
  const v = value > 1 ? 1 : value < -1 ? -1 : value;
  return ((1 - v) / 2) * height;
}

/**
 * The zoom factors offered, as multiples of "fit to width": doublings until a bin is four pixels
 * wide (closer shows no more detail than the server's bins hold), at most 64.
 */
export function zoomFactors(fitPxPerSec: number, bins: number, duration: number): number[] {
  const factors = [1];
  if (!(fitPxPerSec > 0) || !(duration > 0)) return factors;
  const limit = (4 * bins) / duration / fitPxPerSec;
  while (factors.length < 7 && (factors.at(-1) ?? 1) * 2 <= limit) factors.push((factors.at(-1) ?? 1) * 2);
  return factors;
}

/** Where a key moves the playhead: arrows by a beat (or a second without a tempo), Shift+arrows by a bar, Home and End. */
export function seekTarget(key: string, shift: boolean, current: number, duration: number, tempoBpm: number | null): number | null {
  const beat = tempoBpm && tempoBpm > 0 ? 60 / tempoBpm : 1;
  const step = shift ? beat * 4 : beat;
  const clamp = (t: number) => Math.min(duration, Math.max(0, t));
  switch (key) {
    case 'ArrowRight':
    case 'ArrowUp':
      return clamp(current + step);
    case 'ArrowLeft':
    case 'ArrowDown':
      return clamp(current - step);
    case 'PageUp':
      return clamp(current + beat * 4);
    case 'PageDown':
      return clamp(current - beat * 4);
    case 'Home':
      return 0;
    case 'End':
      return duration;
    default:
      return null;
  }
}

/** "0:03.87", "12:04.50", "1:02:03.00": minutes and seconds to the hundredth. */
export function formatClock(seconds: number): string {
  const total = Math.max(0, Number.isFinite(seconds) ? seconds : 0);
  const centis = Math.round(total * 100);
  const h = Math.floor(centis / 360000);
  const m = Math.floor((centis % 360000) / 6000);
  const s = Math.floor((centis % 6000) / 100);
  const c = centis % 100;
  const tail = `${String(s).padStart(2, '0')}.${String(c).padStart(2, '0')}`;
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${tail}` : `${m}:${tail}`;
}

/** Round times for the axis under the spectrogram: about `count` labels at 1-2-5 steps. */
export function timeTicks(duration: number, count = 6): number[] {
  if (!(duration > 0)) return [0];
  const raw = duration / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? raw;
  const ticks: number[] = [];
  for (let t = 0; t <= duration + 1e-9; t += step) ticks.push(Math.round(t * 1000) / 1000);
  return ticks;
}

/**
 * A moving RMS over `window` bins (centred), from per-bin RMS values: sqrt of the mean of the squares.
 * Bins of a millisecond follow each cycle of a bass note; an envelope needs ~10 ms to be one.
 */
export function movingRms(rms: ArrayLike<number>, window: number): Float32Array {
  const n = rms.length;
  const out = new Float32Array(n);
  const w = Math.max(1, Math.floor(window));
  const sums = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) sums[i + 1] = (sums[i] ?? 0) + (rms[i] ?? 0) ** 2;
  const half = Math.floor(w / 2);
  for (let i = 0; i < n; i++) {
    const a = Math.max(0, i - half);
    const b = Math.min(n, a + w);
    out[i] = Math.sqrt(((sums[b] ?? 0) - (sums[a] ?? 0)) / (b - a));
  }
  return out;
}
