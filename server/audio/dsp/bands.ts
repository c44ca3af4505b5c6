/**
 * Band filterbanks over FFT power spectra.
 * - Mel: Slaney's mel scale (linear below 1 kHz, logarithmic above; Slaney 1998, Auditory Toolbox;
 *   as librosa's default), triangles linear in Hz with peak 1 (no area normalisation, so a tone at a
 *   band's centre reads its own power).
 * - Log: edges spaced evenly in log-frequency, rectangular (each FFT bin's power counted once).
 * A band narrower than the FFT's bin spacing takes the bin nearest its centre, so no band is empty.
 */
export interface Filterbank {
  readonly centers: Float64Array;
  readonly edges: Float64Array;
  /** Sparse weights per band: bin indices and weights. */
  readonly bins: readonly Uint32Array[];
  readonly weights: readonly Float64Array[];
}

/** Hz → Slaney mel. */
export function hzToMel(f: number): number {
  return f < 1000 ? f / (200 / 3) : 15 + Math.log(f / 1000) / (Math.log(6.4) / 27);
}

/** Slaney mel → Hz. */
export function melToHz(m: number): number {
  return m < 15 ? m * (200 / 3) : 1000 * Math.exp((m - 15) * (Math.log(6.4) / 27));
}

/** Build `bands` bands between fmin and fmax for an FFT of size nFft at sampleRate. */
export function createFilterbank(
  kind: 'mel' | 'log',
  bands: number,
  nFft: number,
  sampleRate: number,
  fmin: number,
  fmax: number,
): Filterbank {
  const binHz = sampleRate / nFft;
  const nBins = nFft / 2 + 1;
  const edges = new Float64Array(bands + 2);
  if (kind === 'mel') {
    const lo = hzToMel(fmin);
    const hi = hzToMel(fmax);
    for (let i = 0; i < bands + 2; i++) edges[i] = melToHz(lo + ((hi - lo) * i) / (bands + 1));
  } else {
    for (let i = 0; i < bands + 2; i++) edges[i] = fmin * (fmax / fmin) ** (i / (bands + 1));
  }
  const centers = new Float64Array(bands);
  const binLists: Uint32Array[] = [];
  const weightLists: Float64Array[] = [];
  for (let b = 0; b < bands; b++) {
    // Mel: triangle over edges[b]..edges[b+2] peaking at edges[b+1]. Log: rectangle around edges[b+1].
    const [left, center, right] =
      kind === 'mel'
        ? [edges[b]!, edges[b + 1]!, edges[b + 2]!]
        : [Math.sqrt(edges[b]! * edges[b + 1]!), edges[b + 1]!, Math.sqrt(edges[b + 1]! * edges[b + 2]!)];
    centers[b] = center;
    const idx: number[] = [];
    const w: number[] = [];
    for (let k = Math.max(0, Math.floor(left / binHz)); k <= Math.min(nBins - 1, Math.ceil(right / binHz)); k++) {
      const f = k * binHz;
      if (f < left || f >= right) continue;
      const weight = kind === 'mel' ? (f <= center ? (f - left) / (center - left) : (right - f) / (right - center)) : 1;
      if (weight > 0) {
        idx.push(k);
        w.push(weight);
      }
    }
    if (idx.length === 0) {
      idx.push(Math.min(nBins - 1, Math.round(center / binHz)));
      w.push(1);
    }
    binLists.push(Uint32Array.from(idx));
    weightLists.push(Float64Array.from(w));
  }
  return { centers, edges, bins: binLists, weights: weightLists };
}

/** Apply a filterbank to one power spectrum. */
export function applyFilterbank(fb: Filterbank, power: Float64Array, out: Float64Array): void {
  for (let b = 0; b < fb.bins.length; b++) {
    const idx = fb.bins[b]!;
    const w = fb.weights[b]!;
    let s = 0;
    for (let j = 0; j < idx.length; j++) s += power[idx[j]!]! * w[j]!;
    out[b] = s;
  }
}
