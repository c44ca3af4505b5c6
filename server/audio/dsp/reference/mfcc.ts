/**
 * The JavaScript twin of the mel filterbank's WebAssembly kernel (FrameKernels.applySparseFilterbank).
 * Only tests import it (rule `dsp-reference-is-for-tests`).
 */
import type { SparseFilterbank } from '../mfcc.js';

/** out[b] = Σ_k bank[b][k]·power[k]. (Four partial sums, so the adds do not wait on each other.) */
export function applySparseFilterbank(fb: SparseFilterbank, power: Float64Array, out: Float64Array): void {
  const { start, length, offset, weights } = fb;
  for (let b = 0; b < fb.bands; b++) {
    const k0 = start[b]!;
    const k1 = k0 + length[b]!;
    const w0 = offset[b]! - k0;
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let k = k0;
    for (; k + 4 <= k1; k += 4) {
      s0 += weights[w0 + k]! * power[k]!;
      s1 += weights[w0 + k + 1]! * power[k + 1]!;
      s2 += weights[w0 + k + 2]! * power[k + 2]!;
      s3 += weights[w0 + k + 3]! * power[k + 3]!;
    }
    for (; k < k1; k++) s0 += weights[w0 + k]! * power[k]!;
    out[b] = s0 + s1 + (s2 + s3);
  }
}
