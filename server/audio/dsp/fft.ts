/**
 * Real-input FFT of size n (a power of two ≥ 4): an n/2-point complex FFT of the even/odd-packed input,
 * then the standard split step (Cooley & Tukey 1965; packing as in Oppenheim & Schafer, "Discrete-Time
 * Signal Processing", §9.6). Tables are built once per size.
 *
 * The complex FFT is decimation in time on bit-reversed input, with its radix-2 stages fused in pairs
 * (a radix-2² pass: stages of length 2q and 4q in one sweep over the data, so half as many passes over
 * memory; the first pass, whose twiddles are 1 and −i, has no multiplications). Each pass reads its
 * twiddle factors from its own contiguous table. The split step produces bins k and n/2 − k together.
 *
 * Performance note: `RealFft` is a class whose fields are all typed arrays or numbers set in the
 * constructor, and `forward` takes only Float64Arrays, so every call site stays monomorphic however many
 * sizes exist in the process. The previous version returned a closure over its tables, and its 1024-point
 * `forward` went from 8.6 to 12.5 µs once a 4096-point instance existed too (most likely because V8
 * specialises optimised code on a closure's context only while that function has a single closure); this
 * one takes 3.6 µs with one size or several (Node 20, the development machine). Callers with other sample
 * types convert into a preallocated Float64Array.
 */
export class RealFft {
  readonly size: number;
  /** n/2, the size of the complex FFT. */
  private readonly half: number;
  private readonly reverse: Uint32Array;
  /** log2(n/2) is odd: the first pass is a single radix-2 stage. */
  private readonly oddFirst: boolean;
  /** Per fused pass of quarter length q (ascending): W_{2q}^j and W_{4q}^j for j < q, at offset q − 1 (q ≥ 2). */
  private readonly w2r: Float64Array;
  private readonly w2i: Float64Array;
  private readonly w4r: Float64Array;
  private readonly w4i: Float64Array;
  /** Split twiddles e^{−2πik/n}, k = 0..n/2. */
  private readonly cosN: Float64Array;
  private readonly sinN: Float64Array;
  private readonly zr: Float64Array;
  private readonly zi: Float64Array;

  constructor(n: number) {
    if (!Number.isInteger(n) || n < 4 || (n & (n - 1)) !== 0) throw new RangeError(`FFT size must be a power of two ≥ 4, got ${n}`);
    const m = n >> 1;
    const bits = Math.round(Math.log2(m));
    this.size = n;
    this.half = m;
    this.oddFirst = bits % 2 === 1;
    this.reverse = new Uint32Array(m);
    for (let i = 0; i < m; i++) {
      let r = 0;
      for (let b = 0; b < bits; b++) r |= ((i >> b) & 1) << (bits - 1 - b);
      this.reverse[i] = r;
    }
    // Twiddles of the fused passes: q runs over the quarter lengths of the passes after the first.
    this.w2r = new Float64Array(Math.max(1, m));
    this.w2i = new Float64Array(Math.max(1, m));
    this.w4r = new Float64Array(Math.max(1, m));
    this.w4i = new Float64Array(Math.max(1, m));
    for (let q = this.oddFirst ? 2 : 4; 4 * q <= m; q *= 4) {
      for (let j = 0; j < q; j++) {
        this.w2r[q - 1 + j] = Math.cos((2 * Math.PI * j) / (2 * q));
        this.w2i[q - 1 + j] = -Math.sin((2 * Math.PI * j) / (2 * q));
        this.w4r[q - 1 + j] = Math.cos((2 * Math.PI * j) / (4 * q));
        this.w4i[q - 1 + j] = -Math.sin((2 * Math.PI * j) / (4 * q));
      }
    }
    this.cosN = new Float64Array(m + 1);
    this.sinN = new Float64Array(m + 1);
    for (let k = 0; k <= m; k++) {
      this.cosN[k] = Math.cos((2 * Math.PI * k) / n);
      this.sinN[k] = Math.sin((2 * Math.PI * k) / n);
    }
    this.zr = new Float64Array(m);
    this.zi = new Float64Array(m);
  }

  /** Spectrum bins 0..n/2 of `input` (length n) into re/im (length n/2 + 1). */
  forward(input: Float64Array, re: Float64Array, im: Float64Array): void {
    const m = this.half;
    const zr = this.zr;
    const zi = this.zi;
    const reverse = this.reverse;
    // Z[j] = x[2r] + i·x[2r + 1] with r = reverse[j] (bit reversal is its own inverse): the packed input in
    // bit-reversed order, read straight into the first pass.
    let q: number;
    if (this.oddFirst) {
      // One radix-2 stage of length 2 (twiddle 1).
      for (let a = 0; a < m; a += 2) {
        const p0 = 2 * reverse[a]!;
        const p1 = 2 * reverse[a + 1]!;
        const x0r = input[p0]!;
        const x0i = input[p0 + 1]!;
        const x1r = input[p1]!;
        const x1i = input[p1 + 1]!;
        zr[a] = x0r + x1r;
        zi[a] = x0i + x1i;
        zr[a + 1] = x0r - x1r;
        zi[a + 1] = x0i - x1i;
      }
      q = 2;
    } else {
      // Stages of length 2 and 4 together (twiddles 1 and −i): m ≥ 4 here.
      for (let a = 0; a < m; a += 4) {
        const p0 = 2 * reverse[a]!;
        const p1 = 2 * reverse[a + 1]!;
        const p2 = 2 * reverse[a + 2]!;
        const p3 = 2 * reverse[a + 3]!;
        const x0r = input[p0]!;
        const x0i = input[p0 + 1]!;
        const x1r = input[p1]!;
        const x1i = input[p1 + 1]!;
        const x2r = input[p2]!;
        const x2i = input[p2 + 1]!;
        const x3r = input[p3]!;
        const x3i = input[p3 + 1]!;
        const b0r = x0r + x1r;
        const b0i = x0i + x1i;
        const b1r = x0r - x1r;
        const b1i = x0i - x1i;
        const b2r = x2r + x3r;
        const b2i = x2i + x3i;
        const b3r = x2r - x3r;
        const b3i = x2i - x3i;
        zr[a] = b0r + b2r;
        zi[a] = b0i + b2i;
        zr[a + 2] = b0r - b2r;
        zi[a + 2] = b0i - b2i;
        // (−i)·b3 = (b3i, −b3r)
        zr[a + 1] = b1r + b3i;
        zi[a + 1] = b1i - b3r;
        zr[a + 3] = b1r - b3i;
        zi[a + 3] = b1i + b3r;
      }
      q = 4;
    }
    // Fused passes: stages of length 2q then 4q.
    const w2r = this.w2r;
    const w2i = this.w2i;
    const w4r = this.w4r;
    const w4i = this.w4i;
    for (; 4 * q <= m; q *= 4) {
      const span = 4 * q;
      for (let j = 0; j < q; j++) {
        const ar = w2r[q - 1 + j]!;
        const ai = w2i[q - 1 + j]!;
        const br = w4r[q - 1 + j]!;
        const bi = w4i[q - 1 + j]!;
        for (let a0 = j; a0 < m; a0 += span) {
          const a1 = a0 + q;
          const a2 = a1 + q;
          const a3 = a2 + q;
          // Stage 2q: (a0, a1) and (a2, a3), twiddle W_{2q}^j.
          const y1r = zr[a1]!;
          const y1i = zi[a1]!;
          const y3r = zr[a3]!;
          const y3i = zi[a3]!;
          const t1r = y1r * ar - y1i * ai;
          const t1i = y1r * ai + y1i * ar;
          const t3r = y3r * ar - y3i * ai;
          const t3i = y3r * ai + y3i * ar;
          const x0r = zr[a0]!;
          const x0i = zi[a0]!;
          const x2r = zr[a2]!;
          const x2i = zi[a2]!;
          const b0r = x0r + t1r;
          const b0i = x0i + t1i;
          const b1r = x0r - t1r;
          const b1i = x0i - t1i;
          const b2r = x2r + t3r;
          const b2i = x2i + t3i;
          const b3r = x2r - t3r;
          const b3i = x2i - t3i;
          // Stage 4q: (a0, a2) with W_{4q}^j, (a1, a3) with W_{4q}^{j+q} = −i·W_{4q}^j.
          const ur = b2r * br - b2i * bi;
          const ui = b2r * bi + b2i * br;
          const vr = b3r * br - b3i * bi;
          const vi = b3r * bi + b3i * br;
          zr[a0] = b0r + ur;
          zi[a0] = b0i + ui;
          zr[a2] = b0r - ur;
          zi[a2] = b0i - ui;
          // −i·v = (vi, −vr)
          zr[a1] = b1r + vi;
          zi[a1] = b1i - vr;
          zr[a3] = b1r - vi;
          zi[a3] = b1i + vr;
        }
      }
    }
    // Split: X[k] = Fe[k] + e^{−2πik/n}·Fo[k], Fe[k] = (Z[k] + conj Z[m−k]) / 2, Fo[k] = (Z[k] − conj Z[m−k]) / 2i.
    const cosN = this.cosN;
    const sinN = this.sinN;
    re[0] = zr[0]! + zi[0]!;
    im[0] = 0;
    re[m] = zr[0]! - zi[0]!;
    im[m] = 0;
    for (let k = 1, l = m - 1; k <= l; k++, l--) {
      const ar = zr[k]!;
      const ai = zi[k]!;
      const br = zr[l]!;
      const bi = zi[l]!;
      const feR = 0.5 * (ar + br);
      const feI = 0.5 * (ai - bi);
      const foR = 0.5 * (ai + bi);
      const foI = 0.5 * (br - ar);
      const c = cosN[k]!;
      const s = sinN[k]!;
      re[k] = feR + c * foR + s * foI;
      im[k] = feI + c * foI - s * foR;
      // Bin m − k: Fe[m−k] = conj Fe[k], Fo[m−k] = conj Fo[k], e^{−2πi(m−k)/n} = −cos − i·sin (k = m − k
      // at k = n/4 gives the same value twice).
      re[l] = feR - c * foR - s * foI;
      im[l] = -feI + c * foI - s * foR;
    }
  }
}

/** Build a real FFT of size n. */
export function createRealFft(n: number): RealFft {
  return new RealFft(n);
}
