/**
 * The JavaScript twin of the SuperFlux magnitudes in the WebAssembly kernel (FrameKernels.superFluxBands).
 * Only tests import it (rule `dsp-reference-is-for-tests`).
 */

/**
 * |DFT(x·w)[k]| for k in [from, to), w the periodic Hann window of length N, from the spectrum X of the
 * unwindowed frame (re/im, bins 0..N/2): DFT(x·w)[k] = ½X[k] − ¼X[k−1] − ¼X[k+1] (Harris 1978, §V), with
 * X[−1] = conj X[1] and X[N/2 + 1] = conj X[N/2 − 1] for real input.
 */
export function hannMagnitudes(re: Float64Array, im: Float64Array, from: number, to: number, mag: Float64Array): void {
  const half = re.length - 1;
  for (let k = from; k < to; k++) {
    let r: number;
    let m: number;
    if (k > 0 && k < half) {
      r = 0.5 * re[k]! - 0.25 * (re[k - 1]! + re[k + 1]!);
      m = 0.5 * im[k]! - 0.25 * (im[k - 1]! + im[k + 1]!);
    } else {
      const j = k === 0 ? 1 : half - 1;
      r = 0.5 * re[k]! - 0.5 * re[j]!;
      m = 0.5 * im[k]!; // the neighbours' imaginary parts cancel
    }
    mag[k] = Math.sqrt(r * r + m * m);
  }
}
