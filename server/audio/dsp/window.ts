/** Periodic Hann window of length n (the STFT convention; scipy `get_window('hann', n, fftbins=True)`). */
export function hannWindow(n: number): Float64Array {
  const w = new Float64Array(n);
  for (let i = 0; i < n; i++) w[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / n);
  return w;
}

/** Sum of a window's values: a sine of amplitude A reads A·sum/2 in its FFT bin, used to scale spectra to dBFS. */
export function windowSum(w: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < w.length; i++) s += w[i]!;
  return s;
}
