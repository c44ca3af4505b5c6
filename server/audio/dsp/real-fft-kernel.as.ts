// AssemblyScript source of the real FFT's WebAssembly kernel (dsp/fft.ts loads it). Build with
// `npm run build:wasm`, which writes dsp/dsp-kernel-wasm.ts (with frame-kernels.as.ts); a test checks the two are in step.
//
// The arithmetic is that of the scalar algorithm documented in dsp/fft.ts, operation for operation, so
// the output is bit for bit what the same code gives in JavaScript (wasm has no fused multiply-add
// without relaxed SIMD, which is not used). What changes is the speed: the fused radix-2² passes and the
// split step run two butterflies per f64x2 instruction, about 2.2× the JavaScript version's speed.
//
// Memory is the host's: `init` receives the byte offsets of the buffers and tables (all f64, the bit
// reversal table u32) that dsp/fft.ts lays out and fills; `forward` transforms `input` into `re`/`im`.

let halfSize: i32 = 0;
let oddFirstAt: i32 = 0;
let inputAt: usize = 0;
let reAt: usize = 0;
let imAt: usize = 0;
let zrAt: usize = 0;
let ziAt: usize = 0;
let w2rAt: usize = 0;
let w2iAt: usize = 0;
let w4rAt: usize = 0;
let w4iAt: usize = 0;
let cosNAt: usize = 0;
let sinNAt: usize = 0;
let revAt: usize = 0;

/** Set the half size n/2, whether log2(n/2) is odd, and the offsets of the buffers and tables. */
export function init(half: i32, odd: i32, input: usize, re: usize, im: usize, zr: usize, zi: usize, w2r: usize, w2i: usize, w4r: usize, w4i: usize, cosN: usize, sinN: usize, rev: usize): void {
  halfSize = half;
  oddFirstAt = odd;
  inputAt = input;
  reAt = re;
  imAt = im;
  zrAt = zr;
  ziAt = zi;
  w2rAt = w2r;
  w2iAt = w2i;
  w4rAt = w4r;
  w4iAt = w4i;
  cosNAt = cosN;
  sinNAt = sinN;
  revAt = rev;
}

/** Bins 0..n/2 of `input` into `re` and `im`. */
export function forward(): void {
  // Module globals into locals once: the loops then keep them in registers.
  const m = halfSize;
  const zr = zrAt;
  const zi = ziAt;
  firstPass(m, oddFirstAt, inputAt, revAt, zr, zi);
  let q: i32 = oddFirstAt ? 2 : 4;
  for (; 4 * q <= m; q *= 4) fusedPass(m, q, zr, zi, w2rAt, w2iAt, w4rAt, w4iAt);
  split(m, zr, zi, reAt, imAt, cosNAt, sinNAt);
}

/** The packed input in bit-reversed order, through the first stage (oddFirst) or the first two. */
function firstPass(m: i32, oddFirst: i32, input: usize, rev: usize, zr: usize, zi: usize): void {
  if (oddFirst) {
    // One radix-2 stage of length 2 (twiddle 1).
    for (let a = 0; a < m; a += 2) {
      const ra = rev + (<usize>a << 2);
      const p0 = (<usize>load<u32>(ra)) << 4;
      const p1 = (<usize>load<u32>(ra, 4)) << 4;
      const x0r = load<f64>(input + p0);
      const x0i = load<f64>(input + p0, 8);
      const x1r = load<f64>(input + p1);
      const x1i = load<f64>(input + p1, 8);
      const o = <usize>a << 3;
      store<f64>(zr + o, x0r + x1r);
      store<f64>(zi + o, x0i + x1i);
      store<f64>(zr + o, x0r - x1r, 8);
      store<f64>(zi + o, x0i - x1i, 8);
    }
    return;
  }
  // Stages of length 2 and 4 together (twiddles 1 and −i).
  for (let a = 0; a < m; a += 4) {
    const ra = rev + (<usize>a << 2);
    const p0 = (<usize>load<u32>(ra)) << 4;
    const p1 = (<usize>load<u32>(ra, 4)) << 4;
    const p2 = (<usize>load<u32>(ra, 8)) << 4;
    const p3 = (<usize>load<u32>(ra, 12)) << 4;
    const x0r = load<f64>(input + p0);
    const x0i = load<f64>(input + p0, 8);
    const x1r = load<f64>(input + p1);
    const x1i = load<f64>(input + p1, 8);
    const x2r = load<f64>(input + p2);
    const x2i = load<f64>(input + p2, 8);
    const x3r = load<f64>(input + p3);
    const x3i = load<f64>(input + p3, 8);
    const b0r = x0r + x1r;
    const b0i = x0i + x1i;
    const b1r = x0r - x1r;
    const b1i = x0i - x1i;
    const b2r = x2r + x3r;
    const b2i = x2i + x3i;
    const b3r = x2r - x3r;
    const b3i = x2i - x3i;
    const o = <usize>a << 3;
    store<f64>(zr + o, b0r + b2r);
    store<f64>(zi + o, b0i + b2i);
    store<f64>(zr + o, b0r - b2r, 16);
    store<f64>(zi + o, b0i - b2i, 16);
    // (−i)·b3 = (b3i, −b3r)
    store<f64>(zr + o, b1r + b3i, 8);
    store<f64>(zi + o, b1i - b3r, 8);
    store<f64>(zr + o, b1r - b3i, 24);
    store<f64>(zi + o, b1i + b3r, 24);
  }
}

/** Complex product's real and imaginary parts, lane by lane, in the scalar code's order. */
function mulRe(xr: v128, xi: v128, wr: v128, wi: v128): v128 {
  return f64x2.sub(f64x2.mul(xr, wr), f64x2.mul(xi, wi));
}
function mulIm(xr: v128, xi: v128, wr: v128, wi: v128): v128 {
  return f64x2.add(f64x2.mul(xr, wi), f64x2.mul(xi, wr));
}

/** Stages of length 2q then 4q, for twiddle indices j and j + 1 at once (q is even). */
function fusedPass(m: i32, q: i32, zr: usize, zi: usize, w2r: usize, w2i: usize, w4r: usize, w4i: usize): void {
  const span = 4 * q;
  const qb = <usize>q << 3;
  for (let j = 0; j < q; j += 2) {
    const wo = (<usize>(q - 1 + j)) << 3;
    const ar = v128.load(w2r + wo);
    const ai = v128.load(w2i + wo);
    const br = v128.load(w4r + wo);
    const bi = v128.load(w4i + wo);
    for (let a0 = j; a0 < m; a0 += span) {
      const o0 = <usize>a0 << 3;
      const o1 = o0 + qb;
      const o2 = o1 + qb;
      const o3 = o2 + qb;
      // Stage 2q: (a0, a1) and (a2, a3), twiddle W_{2q}^j.
      const y1r = v128.load(zr + o1);
      const y1i = v128.load(zi + o1);
      const y3r = v128.load(zr + o3);
      const y3i = v128.load(zi + o3);
      const t1r = mulRe(y1r, y1i, ar, ai);
      const t1i = mulIm(y1r, y1i, ar, ai);
      const t3r = mulRe(y3r, y3i, ar, ai);
      const t3i = mulIm(y3r, y3i, ar, ai);
      const x0r = v128.load(zr + o0);
      const x0i = v128.load(zi + o0);
      const x2r = v128.load(zr + o2);
      const x2i = v128.load(zi + o2);
      const b0r = f64x2.add(x0r, t1r);
      const b0i = f64x2.add(x0i, t1i);
      const b1r = f64x2.sub(x0r, t1r);
      const b1i = f64x2.sub(x0i, t1i);
      const b2r = f64x2.add(x2r, t3r);
      const b2i = f64x2.add(x2i, t3i);
      const b3r = f64x2.sub(x2r, t3r);
      const b3i = f64x2.sub(x2i, t3i);
      // Stage 4q: (a0, a2) with W_{4q}^j, (a1, a3) with −i·W_{4q}^j.
      const ur = mulRe(b2r, b2i, br, bi);
      const ui = mulIm(b2r, b2i, br, bi);
      const vr = mulRe(b3r, b3i, br, bi);
      const vi = mulIm(b3r, b3i, br, bi);
      v128.store(zr + o0, f64x2.add(b0r, ur));
      v128.store(zi + o0, f64x2.add(b0i, ui));
      v128.store(zr + o2, f64x2.sub(b0r, ur));
      v128.store(zi + o2, f64x2.sub(b0i, ui));
      // −i·v = (vi, −vr)
      v128.store(zr + o1, f64x2.add(b1r, vi));
      v128.store(zi + o1, f64x2.sub(b1i, vr));
      v128.store(zr + o3, f64x2.sub(b1r, vi));
      v128.store(zi + o3, f64x2.add(b1i, vr));
    }
  }
}

/** Swap the two lanes. */
function swap(v: v128): v128 {
  return i64x2.shuffle(v, v, 1, 0);
}

/**
 * The split step, X[k] = Fe[k] + e^{−2πik/n}·Fo[k] with Fe[k] = (Z[k] + conj Z[m−k]) / 2 and
 * Fo[k] = (Z[k] − conj Z[m−k]) / 2i, producing bins k and m − k together: lanes (k, k + 1) with,
 * reversed, (m − k, m − k − 1); the middle bins one at a time.
 */
function split(m: i32, zr: usize, zi: usize, re: usize, im: usize, cosN: usize, sinN: usize): void {
  const mb = <usize>m << 3;
  store<f64>(re, load<f64>(zr) + load<f64>(zi));
  store<f64>(im, 0);
  store<f64>(re + mb, load<f64>(zr) - load<f64>(zi));
  store<f64>(im + mb, 0);
  const half = f64x2.splat(0.5);
  let k = 1;
  let l = m - 1;
  for (; k + 1 < l - 1; k += 2, l -= 2) {
    const ko = <usize>k << 3;
    const lo = (<usize>(l - 1)) << 3;
    const ar = v128.load(zr + ko);
    const ai = v128.load(zi + ko);
    const br = swap(v128.load(zr + lo));
    const bi = swap(v128.load(zi + lo));
    const feR = f64x2.mul(half, f64x2.add(ar, br));
    const feI = f64x2.mul(half, f64x2.sub(ai, bi));
    const foR = f64x2.mul(half, f64x2.add(ai, bi));
    const foI = f64x2.mul(half, f64x2.sub(br, ar));
    const c = v128.load(cosN + ko);
    const s = v128.load(sinN + ko);
    v128.store(re + ko, f64x2.add(f64x2.add(feR, f64x2.mul(c, foR)), f64x2.mul(s, foI)));
    v128.store(im + ko, f64x2.sub(f64x2.add(feI, f64x2.mul(c, foI)), f64x2.mul(s, foR)));
    v128.store(re + lo, swap(f64x2.sub(f64x2.sub(feR, f64x2.mul(c, foR)), f64x2.mul(s, foI))));
    v128.store(im + lo, swap(f64x2.sub(f64x2.add(f64x2.neg(feI), f64x2.mul(c, foI)), f64x2.mul(s, foR))));
  }
  for (; k <= l; k++, l--) {
    const ko = <usize>k << 3;
    const lo = <usize>l << 3;
    const ar = load<f64>(zr + ko);
    const ai = load<f64>(zi + ko);
    const br = load<f64>(zr + lo);
    const bi = load<f64>(zi + lo);
    const feR = 0.5 * (ar + br);
    const feI = 0.5 * (ai - bi);
    const foR = 0.5 * (ai + bi);
    const foI = 0.5 * (br - ar);
    const c = load<f64>(cosN + ko);
    const s = load<f64>(sinN + ko);
    store<f64>(re + ko, feR + c * foR + s * foI);
    store<f64>(im + ko, feI + c * foI - s * foR);
    // k = m − k at k = n/4 writes the same value twice.
    store<f64>(re + lo, feR - c * foR - s * foI);
    store<f64>(im + lo, -feI + c * foI - s * foR);
  }
}
