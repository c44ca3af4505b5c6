/**
 * Real-input FFT of size n (a power of two ≥ 4): an n/2-point iterative radix-2 complex FFT on the
 * even/odd-packed input, then the standard split step (Cooley & Tukey 1965; packing as in
 * Oppenheim & Schafer, "Discrete-Time Signal Processing", §9.6). Tables are built once per size.
 */
export interface RealFft {
  readonly size: number;
  /** Spectrum bins 0..n/2 of `input` (length n) into re/im (length n/2 + 1). */
  forward(input: ArrayLike<number>, re: Float64Array, im: Float64Array): void;
}

/** Build a real FFT of size n. */
export function createRealFft(n: number): RealFft {
  if (n < 4 || (n & (n - 1)) !== 0) throw new RangeError(`FFT size must be a power of two ≥ 4, got ${n}`);
  const m = n >> 1;
  const bits = Math.log2(m);
  const reverse = new Uint32Array(m);
  for (let i = 0; i < m; i++) {
    let r = 0;
    for (let b = 0; b < bits; b++) r |= ((i >> b) & 1) << (bits - 1 - b);
    reverse[i] = r;
  }
  // Complex twiddles for the m-point transform, and split twiddles e^{-2πik/n} for k = 0..m.
  const cosM = new Float64Array(m >> 1 || 1);
  const sinM = new Float64Array(m >> 1 || 1);
  for (let j = 0; j < m >> 1; j++) {
    cosM[j] = Math.cos((2 * Math.PI * j) / m);
    sinM[j] = Math.sin((2 * Math.PI * j) / m);
  }
  const cosN = new Float64Array(m + 1);
  const sinN = new Float64Array(m + 1);
  for (let k = 0; k <= m; k++) {
    cosN[k] = Math.cos((2 * Math.PI * k) / n);
    sinN[k] = Math.sin((2 * Math.PI * k) / n);
  }
  const zr = new Float64Array(m);
  const zi = new Float64Array(m);

  return {
    size: n,
    forward(input, re, im) {
      for (let i = 0; i < m; i++) {
        const r = reverse[i]!;
        zr[r] = input[2 * i]!;
        zi[r] = input[2 * i + 1]!;
      }
      for (let len = 2; len <= m; len <<= 1) {
        const half = len >> 1;
        const step = m / len;
        for (let start = 0; start < m; start += len) {
          for (let j = 0, t = 0; j < half; j++, t += step) {
            const wr = cosM[t]!;
            const wi = -sinM[t]!;
            const a = start + j;
            const b = a + half;
            const xr = zr[b]! * wr - zi[b]! * wi;
            const xi = zr[b]! * wi + zi[b]! * wr;
            zr[b] = zr[a]! - xr;
            zi[b] = zi[a]! - xi;
            zr[a] = zr[a]! + xr;
            zi[a] = zi[a]! + xi;
          }
        }
      }
      for (let k = 0; k <= m; k++) {
        const ka = k === m ? 0 : k;
        const kb = k === 0 ? 0 : m - k;
        const ar = zr[ka]!;
        const ai = zi[ka]!;
        const br = zr[kb]!;
        const bi = zi[kb]!;
        const feR = (ar + br) / 2;
        const feI = (ai - bi) / 2;
        const foR = (ai + bi) / 2;
        const foI = -(ar - br) / 2;
        const c = cosN[k]!;
        const s = sinN[k]!;
        re[k] = feR + c * foR + s * foI;
        im[k] = feI + c * foI - s * foR;
      }
    },
  };
}
