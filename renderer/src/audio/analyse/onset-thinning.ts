// Onset ticks on a long file: 4 766 marks over 21 minutes at 1 000 px paint the waveform solid. At
// every zoom only the strongest onset within `minGapPx` of its neighbours is drawn.

/**
 * Each onset's strength from the waveform's RMS bins: how much the level rises across the onset
 * (the bin after it, or the one after that, minus the bin before it). The /onsets answer has times
 * only; a louder attack is the one a producer wants to keep seeing when marks must be dropped.
 */
export function onsetStrengths(onsets: readonly number[], rms: readonly number[], duration: number): Float32Array {
  const out = new Float32Array(onsets.length);
  const bins = rms.length;
  if (bins === 0 || !(duration > 0)) return out;
  for (let i = 0; i < onsets.length; i++) {
    const bin = Math.min(bins - 1, Math.max(0, Math.floor(((onsets[i] ?? 0) / duration) * bins)));
    const before = rms[Math.max(0, bin - 1)] ?? 0;
    const after = Math.max(rms[bin] ?? 0, rms[Math.min(bins - 1, bin + 1)] ?? 0);
    out[i] = Math.max(0, after - before);
  }
  return out;
}

/** Where the onsets are drawn: pixel x of time t is t / duration × totalPx − scrollPx. */
export interface OnsetView {
  readonly duration: number;
  /** Width of the whole (zoomed) waveform, px. */
  readonly totalPx: number;
  /** Left edge of the visible part, px. */
  readonly scrollPx: number;
  /** Width of the visible part, px. */
  readonly viewPx: number;
  /** Two drawn marks are at least this far apart, px. */
  readonly minGapPx: number;
}

/**
 * The visible onsets to draw, at most one per `minGapPx`: strongest first, an onset is kept unless a
 * kept one lies closer than `minGapPx` (ties: the earlier onset). Returns the kept times in time order.
 */
export function thinOnsets(onsets: readonly number[], strengths: ArrayLike<number>, view: OnsetView): number[] {
  const { duration, totalPx, scrollPx, viewPx } = view;
  const gap = Math.max(1, Math.round(view.minGapPx));
  if (!(duration > 0) || !(totalPx > 0) || !(viewPx > 0)) return [];
  const visible: { t: number; x: number; s: number; i: number }[] = [];
  for (let i = 0; i < onsets.length; i++) {
    const t = onsets[i] ?? 0;
    const x = Math.round((t / duration) * totalPx - scrollPx);
    if (x < 0 || x >= viewPx) continue;
    visible.push({ t, x, s: strengths[i] ?? 0, i });
  }
  visible.sort((a, b) => b.s - a.s || a.i - b.i);
  // Columns holding a kept mark; a candidate needs every column within gap − 1 of it free.
  const taken = new Uint8Array(Math.ceil(viewPx));
  const kept: number[] = [];
  for (const onset of visible) {
    let free = true;
    for (let x = Math.max(0, onset.x - gap + 1); x <= Math.min(taken.length - 1, onset.x + gap - 1); x++) {
      if (taken[x]) {
        free = false;
        break;
      }
    }
    if (!free) continue;
    taken[onset.x] = 1;
    kept.push(onset.t);
  }
  return kept.sort((a, b) => a - b);
}
