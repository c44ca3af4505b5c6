// AssemblyScript source of the per-frame loops that run next to the FFT in its WebAssembly kernel
// (dsp/frame-kernels.ts wraps them; `npm run build:wasm` compiles them with dsp/real-fft-kernel.as.ts into
// one module). Each is the JavaScript function named in its comment, operation for operation except
// where a comment says otherwise, over arrays in the kernel's memory passed as byte offsets. Where the
// JavaScript keeps two or four partial sums, the f64x2 lanes are those partial sums, so the results are
// bit for bit the same; where it keeps one, the lanes split it and the result differs in the last bits.
// Logarithms are the host's Math.log (imported), so they too are JavaScript's.

@external('env', 'log')
declare function hostLog(x: f64): f64;

/** 8-byte offset of element i. */
@inline
function f8(i: i32): usize {
  return <usize>i << 3;
}

/**
 * features' windowing: out[i] = buf[i]·win[i] for i < n (n even); returns Σ out[i]² as the even-index
 * sum plus the odd-index sum (lanes 0 and 1), like the JavaScript loop.
 */
export function windowEnergy(buf: usize, win: usize, out: usize, n: i32): f64 {
  let e = f64x2.splat(0);
  for (let i = 0; i < n; i += 2) {
    const o = f8(i);
    const v = f64x2.mul(v128.load(buf + o), v128.load(win + o));
    v128.store(out + o, v);
    e = f64x2.add(e, f64x2.mul(v, v));
  }
  return f64x2.extract_lane(e, 0) + f64x2.extract_lane(e, 1);
}

/**
 * reference/spectral-features `spectrumPass` without its final divisions: power and magnitude of bins 0..n−1 from
 * re/im, and out[0] = Σ mag, out[1] = Σ mag·f, out[2] = Σ mag·f², out[3] = Σ max(power, amin),
 * out[4] = Σ ln max(power, amin) (the logarithm of products of 8, as in JavaScript). The three moment sums
 * run in two lanes (bins k, k+1 and k+2, k+3) instead of one sum: equal to the last bits.
 */
export function spectrumMoments(re: usize, im: usize, freqs: usize, power: usize, mag: usize, n: i32, amin: f64, out: usize): void {
  const floor = f64x2.splat(amin);
  let sum = f64x2.splat(0);
  let m1 = sum;
  let m2 = sum;
  let psum = sum;
  let logSum: f64 = 0;
  let k = 0;
  while (k + 32 <= n) {
    let p01 = f64x2.splat(1);
    let p23 = p01;
    for (const end = k + 32; k < end; k += 4) {
      const o = f8(k);
      const r01 = v128.load(re + o);
      const i01 = v128.load(im + o);
      const r23 = v128.load(re + o, 16);
      const i23 = v128.load(im + o, 16);
      const a01 = f64x2.add(f64x2.mul(r01, r01), f64x2.mul(i01, i01));
      const a23 = f64x2.add(f64x2.mul(r23, r23), f64x2.mul(i23, i23));
      v128.store(power + o, a01);
      v128.store(power + o, a23, 16);
      const g01 = f64x2.sqrt(a01);
      const g23 = f64x2.sqrt(a23);
      v128.store(mag + o, g01);
      v128.store(mag + o, g23, 16);
      sum = f64x2.add(sum, f64x2.add(g01, g23));
      const f01 = v128.load(freqs + o);
      const f23 = v128.load(freqs + o, 16);
      const x01 = f64x2.mul(g01, f01);
      const x23 = f64x2.mul(g23, f23);
      m1 = f64x2.add(m1, f64x2.add(x01, x23));
      m2 = f64x2.add(m2, f64x2.add(f64x2.mul(x01, f01), f64x2.mul(x23, f23)));
      // a > amin ? a : amin (NaN-free: powers are sums of squares).
      const t01 = f64x2.pmax(floor, a01);
      const t23 = f64x2.pmax(floor, a23);
      psum = f64x2.add(psum, f64x2.add(t01, t23));
      p01 = f64x2.mul(p01, t01);
      p23 = f64x2.mul(p23, t23);
    }
    logSum += hostLog(f64x2.extract_lane(p01, 0) * f64x2.extract_lane(p01, 1)) + hostLog(f64x2.extract_lane(p23, 0) * f64x2.extract_lane(p23, 1));
  }
  let s = f64x2.extract_lane(sum, 0) + f64x2.extract_lane(sum, 1);
  let s1 = f64x2.extract_lane(m1, 0) + f64x2.extract_lane(m1, 1);
  let s2 = f64x2.extract_lane(m2, 0) + f64x2.extract_lane(m2, 1);
  let ps = f64x2.extract_lane(psum, 0) + f64x2.extract_lane(psum, 1);
  for (; k < n; k++) {
    const o = f8(k);
    const r = load<f64>(re + o);
    const i = load<f64>(im + o);
    const a = r * r + i * i;
    const m = sqrt<f64>(a);
    store<f64>(power + o, a);
    store<f64>(mag + o, m);
    const f = load<f64>(freqs + o);
    s += m;
    s1 += m * f;
    s2 += m * f * f;
    const t = a > amin ? a : amin;
    ps += t;
    logSum += hostLog(t);
  }
  store<f64>(out, s);
  store<f64>(out, s1, 8);
  store<f64>(out, s2, 16);
  store<f64>(out, ps, 24);
  store<f64>(out, logSum, 32);
}

/**
 * reference/spectral-features `rolloffFluxPass` for a frame and its predecessor with positive sums: out[0] = the
 * roll-off bin's frequency, out[1] = the flux (the four partial sums in two lane pairs, as in JavaScript).
 */
export function rolloffFlux(mag: usize, freqs: usize, sum: f64, prev: usize, prevSum: f64, n: i32, rollPercent: f64, out: usize): void {
  const threshold = rollPercent * sum;
  let cum: f64 = 0;
  let k = 0;
  for (; k < n - 1; k++) {
    cum += load<f64>(mag + f8(k));
    if (cum >= threshold) break;
  }
  store<f64>(out, load<f64>(freqs + f8(k)));
  const a: f64 = 1 / sum;
  const b: f64 = 1 / prevSum;
  const av = f64x2.splat(a);
  const bv = f64x2.splat(b);
  const zero = f64x2.splat(0);
  let f01 = zero;
  let f23 = zero;
  let i = 0;
  for (; i + 4 <= n; i += 4) {
    const o = f8(i);
    const d01 = f64x2.sub(f64x2.mul(v128.load(mag + o), av), f64x2.mul(v128.load(prev + o), bv));
    const d23 = f64x2.sub(f64x2.mul(v128.load(mag + o, 16), av), f64x2.mul(v128.load(prev + o, 16), bv));
    // d > 0 ? d : 0
    f01 = f64x2.add(f01, f64x2.pmax(zero, d01));
    f23 = f64x2.add(f23, f64x2.pmax(zero, d23));
  }
  let f0 = f64x2.extract_lane(f01, 0);
  for (; i < n; i++) {
    const d = load<f64>(mag + f8(i)) * a - load<f64>(prev + f8(i)) * b;
    f0 += d > 0 ? d : 0;
  }
  const flux = f0 + f64x2.extract_lane(f01, 1) + (f64x2.extract_lane(f23, 0) + f64x2.extract_lane(f23, 1));
  store<f64>(out, flux > 1 ? 1 : flux, 8);
}

/**
 * reference/spectral-features `contrastPeakValley`: for each of `bands` bands (bins start[b]..end[b]−1, i32 arrays)
 * the mean of the count[b] largest and smallest magnitudes into peak[b] and valley[b]; `scratch` holds
 * max(count) values.
 */
export function contrastPeakValley(mag: usize, bands: i32, start: usize, end: usize, count: usize, peak: usize, valley: usize, scratch: usize): void {
  for (let b = 0; b < bands; b++) {
    const k0 = load<i32>(start + (<usize>b << 2));
    const k1 = load<i32>(end + (<usize>b << 2));
    let q = load<i32>(count + (<usize>b << 2));
    if (k1 - k0 < q) q = k1 - k0;
    // The q largest, ascending: scratch[0] is the smallest of them.
    let n = 0;
    for (let k = k0; k < k1; k++) {
      const v = load<f64>(mag + f8(k));
      if (n < q) {
        let i = n++;
        while (i > 0 && load<f64>(scratch + f8(i - 1)) > v) {
          store<f64>(scratch + f8(i), load<f64>(scratch + f8(i - 1)));
          i--;
        }
        store<f64>(scratch + f8(i), v);
      } else if (v > load<f64>(scratch)) {
        let i = 0;
        while (i < q - 1 && load<f64>(scratch + f8(i + 1)) < v) {
          store<f64>(scratch + f8(i), load<f64>(scratch + f8(i + 1)));
          i++;
        }
        store<f64>(scratch + f8(i), v);
      }
    }
    let hi: f64 = 0;
    for (let i = 0; i < q; i++) hi += load<f64>(scratch + f8(i));
    // The q smallest, descending: scratch[0] is the largest of them.
    n = 0;
    for (let k = k1 - 1; k >= k0; k--) {
      const v = load<f64>(mag + f8(k));
      if (n < q) {
        let i = n++;
        while (i > 0 && load<f64>(scratch + f8(i - 1)) < v) {
          store<f64>(scratch + f8(i), load<f64>(scratch + f8(i - 1)));
          i--;
        }
        store<f64>(scratch + f8(i), v);
      } else if (v < load<f64>(scratch)) {
        let i = 0;
        while (i < q - 1 && load<f64>(scratch + f8(i + 1)) > v) {
          store<f64>(scratch + f8(i), load<f64>(scratch + f8(i + 1)));
          i++;
        }
        store<f64>(scratch + f8(i), v);
      }
    }
    let lo: f64 = 0;
    for (let i = 0; i < q; i++) lo += load<f64>(scratch + f8(i));
    store<f64>(peak + f8(b), hi / <f64>q);
    store<f64>(valley + f8(b), lo / <f64>q);
  }
}

/**
 * reference/mfcc `applySparseFilterbank`: out[b] = Σ_k weights[offset[b] + k − start[b]]·power[k] over
 * k = start[b]..start[b] + length[b] − 1 (i32 arrays), with the JavaScript's four partial sums as two lane pairs.
 */
export function sparseFilterbank(bands: i32, start: usize, length: usize, offset: usize, weights: usize, power: usize, out: usize): void {
  for (let b = 0; b < bands; b++) {
    const k0 = load<i32>(start + (<usize>b << 2));
    const k1 = k0 + load<i32>(length + (<usize>b << 2));
    const w = weights + f8(load<i32>(offset + (<usize>b << 2)) - k0);
    let s01 = f64x2.splat(0);
    let s23 = s01;
    let k = k0;
    for (; k + 4 <= k1; k += 4) {
      const o = f8(k);
      s01 = f64x2.add(s01, f64x2.mul(v128.load(w + o), v128.load(power + o)));
      s23 = f64x2.add(s23, f64x2.mul(v128.load(w + o, 16), v128.load(power + o, 16)));
    }
    let s0 = f64x2.extract_lane(s01, 0);
    for (; k < k1; k++) s0 += load<f64>(w + f8(k)) * load<f64>(power + f8(k));
    store<f64>(out + f8(b), s0 + f64x2.extract_lane(s01, 1) + (f64x2.extract_lane(s23, 0) + f64x2.extract_lane(s23, 1)));
  }
}

/** role-features `median5` over two lanes (min and max are exact, so this is the scalar median per lane). */
@inline
function median5x2(a: v128, b: v128, c: v128, d: v128, e: v128): v128 {
  const f = f64x2.max(f64x2.min(a, b), f64x2.min(c, d));
  const g = f64x2.min(f64x2.max(a, b), f64x2.max(c, d));
  return f64x2.max(f64x2.min(e, f), f64x2.min(f64x2.max(e, f), g));
}

/** role-features `median5`. */
@inline
function median5(a: f64, b: f64, c: f64, d: f64, e: f64): f64 {
  const f = max(min(a, b), min(c, d));
  const g = min(max(a, b), max(c, d));
  return max(min(e, f), min(max(e, f), g));
}

/**
 * role-features `StreamingHpss` row update: dst[k] = src[k] and mags[k] = √src[k] for k < bins.
 */
export function hpssRow(src: usize, powers: usize, mags: usize, bins: i32): void {
  let k = 0;
  for (; k + 2 <= bins; k += 2) {
    const p = v128.load(src + f8(k));
    v128.store(powers + f8(k), p);
    v128.store(mags + f8(k), f64x2.sqrt(p));
  }
  for (; k < bins; k++) {
    const p = load<f64>(src + f8(k));
    store<f64>(powers + f8(k), p);
    store<f64>(mags + f8(k), sqrt<f64>(p));
  }
}

/**
 * role-features `StreamingHpss.split` of the frame whose magnitude row is at `c` (rows t−4, t−2, t+2, t+4
 * at s0, s1, s3, s4; its power row at `power`): out[0] = percussive power, out[1] = harmonic power. The
 * sums run in two lanes (even and odd bins) instead of one: equal to the last bits.
 */
export function hpssSplit(s0: usize, s1: usize, c: usize, s3: usize, s4: usize, power: usize, bins: i32, out: usize): void {
  const zero = f64x2.splat(0);
  const half = f64x2.splat(0.5);
  let perc = zero;
  let harm = zero;
  const last = bins - 1;
  // Interior bins in pairs (the frequency taps stay in range).
  let k = 4;
  for (; k + 1 <= last - 4; k += 2) {
    const o = f8(k);
    const x = v128.load(c + o);
    const h = median5x2(v128.load(s0 + o), v128.load(s1 + o), x, v128.load(s3 + o), v128.load(s4 + o));
    const p = median5x2(v128.load(c + o - 32), v128.load(c + o - 16), x, v128.load(c + o + 16), v128.load(c + o + 32));
    const h2 = f64x2.mul(h, h);
    const p2 = f64x2.mul(p, p);
    const den = f64x2.add(h2, p2);
    const wp = v128.bitselect(f64x2.div(p2, den), half, f64x2.gt(den, zero));
    const pw = v128.load(power + o);
    const pp = f64x2.mul(pw, wp);
    perc = f64x2.add(perc, pp);
    harm = f64x2.add(harm, f64x2.sub(pw, pp));
  }
  let ps = f64x2.extract_lane(perc, 0) + f64x2.extract_lane(perc, 1);
  let hs = f64x2.extract_lane(harm, 0) + f64x2.extract_lane(harm, 1);
  // The rest one at a time: an odd interior bin left over, then the four at each edge (taps clamped).
  for (let j = 0; j < bins; j++) {
    if (j === 4) j = k;
    const x = load<f64>(c + f8(j));
    const h = median5(load<f64>(s0 + f8(j)), load<f64>(s1 + f8(j)), x, load<f64>(s3 + f8(j)), load<f64>(s4 + f8(j)));
    const p = median5(load<f64>(c + f8(max(0, j - 4))), load<f64>(c + f8(max(0, j - 2))), x, load<f64>(c + f8(min(last, j + 2))), load<f64>(c + f8(min(last, j + 4))));
    const den = h * h + p * p;
    const pw = load<f64>(power + f8(j));
    const wp = den > 0 ? (p * p) / den : 0.5;
    ps += pw * wp;
    hs += pw - pw * wp;
  }
  store<f64>(out, ps);
  store<f64>(out, hs, 8);
}

/**
 * sample-analysis' windowing of a full window from its ring: out[k] = ring[(first + k) mod n]·win[k].
 */
export function windowRing(ring: usize, first: i32, win: usize, out: usize, n: i32): void {
  const run = n - first;
  let k = 0;
  for (; k + 2 <= run; k += 2) v128.store(out + f8(k), f64x2.mul(v128.load(ring + f8(first + k)), v128.load(win + f8(k))));
  for (; k < run; k++) store<f64>(out + f8(k), load<f64>(ring + f8(first + k)) * load<f64>(win + f8(k)));
  const back = ring - f8(run);
  for (; k + 2 <= n; k += 2) v128.store(out + f8(k), f64x2.mul(v128.load(back + f8(k)), v128.load(win + f8(k))));
  for (; k < n; k++) store<f64>(out + f8(k), load<f64>(back + f8(k)) * load<f64>(win + f8(k)));
}

/**
 * sample-analysis' power pass: power[k] = re[k]² + im[k]² for k = 1..; slot s sums the bins
 * slotStart[s]..slotStart[s+1]−1 into acc[s] (slotStart i32, slots + 1 values, from bin 1); out[0] = Σ power,
 * out[1] = Σ k·power. Sums in two lanes: equal to the last bits.
 */
export function powerSlots(re: usize, im: usize, power: usize, slotStart: usize, slots: i32, acc: usize, out: usize): void {
  const zero = f64x2.splat(0);
  let total: f64 = 0;
  let centroid: f64 = 0;
  let idx = f64x2.replace_lane(f64x2.splat(0), 1, 1);
  for (let s = 0; s < slots; s++) {
    let k = load<i32>(slotStart + (<usize>s << 2));
    const end = load<i32>(slotStart + (<usize>(s + 1) << 2));
    let sum: f64 = 0;
    let sumv = zero;
    let cv = zero;
    for (; k + 2 <= end; k += 2) {
      const o = f8(k);
      const r = v128.load(re + o);
      const i = v128.load(im + o);
      const p = f64x2.add(f64x2.mul(r, r), f64x2.mul(i, i));
      v128.store(power + o, p);
      sumv = f64x2.add(sumv, p);
      cv = f64x2.add(cv, f64x2.mul(f64x2.add(f64x2.splat(<f64>k), idx), p));
    }
    sum = f64x2.extract_lane(sumv, 0) + f64x2.extract_lane(sumv, 1);
    let c = f64x2.extract_lane(cv, 0) + f64x2.extract_lane(cv, 1);
    for (; k < end; k++) {
      const o = f8(k);
      const r = load<f64>(re + o);
      const i = load<f64>(im + o);
      const p = r * r + i * i;
      store<f64>(power + o, p);
      sum += p;
      c += <f64>k * p;
    }
    store<f64>(acc + f8(s), sum);
    total += sum;
    centroid += c;
  }
  store<f64>(out, total);
  store<f64>(out, centroid, 8);
}

/** reference/onset-detection `hannMagnitudes` for one bin (k = 0 and k = half use the mirrored neighbour). */
@inline
function hannMagnitude(re: usize, im: usize, k: i32, half: i32): f64 {
  let r: f64;
  let m: f64;
  if (k > 0 && k < half) {
    r = 0.5 * load<f64>(re + f8(k)) - 0.25 * (load<f64>(re + f8(k - 1)) + load<f64>(re + f8(k + 1)));
    m = 0.5 * load<f64>(im + f8(k)) - 0.25 * (load<f64>(im + f8(k - 1)) + load<f64>(im + f8(k + 1)));
  } else {
    const j = k === 0 ? 1 : half - 1;
    r = 0.5 * load<f64>(re + f8(k)) - 0.5 * load<f64>(re + f8(j));
    m = 0.5 * load<f64>(im + f8(k));
  }
  return sqrt<f64>(r * r + m * m);
}

/**
 * onset-detection `SuperFlux.computeFrame`'s first half: `hannMagnitudes` of bins [from, to) of the
 * unwindowed frame's spectrum (re/im, bins 0..half) into mag (lane for lane the JavaScript's arithmetic),
 * then lin[b] = 1 + λ·Σ_k weights[offset[b] + k − start[b]]·mag[k] over band b's bins (i32 arrays; one
 * running sum in bin order, as in JavaScript).
 */
export function superFluxBands(re: usize, im: usize, half: i32, from: i32, to: i32, mag: usize, bands: i32, start: usize, length: usize, offset: usize, weights: usize, lambda: f64, lin: usize): void {
  let k = from;
  if (k === 0 && k < to) {
    store<f64>(mag, hannMagnitude(re, im, 0, half));
    k = 1;
  }
  const innerEnd = to < half ? to : half;
  const quarter = f64x2.splat(0.25);
  const halfV = f64x2.splat(0.5);
  for (; k + 2 <= innerEnd; k += 2) {
    const o = f8(k);
    const r = f64x2.sub(f64x2.mul(halfV, v128.load(re + o)), f64x2.mul(quarter, f64x2.add(v128.load(re + o - 8), v128.load(re + o + 8))));
    const m = f64x2.sub(f64x2.mul(halfV, v128.load(im + o)), f64x2.mul(quarter, f64x2.add(v128.load(im + o - 8), v128.load(im + o + 8))));
    v128.store(mag + o, f64x2.sqrt(f64x2.add(f64x2.mul(r, r), f64x2.mul(m, m))));
  }
  for (; k < to; k++) store<f64>(mag + f8(k), hannMagnitude(re, im, k, half));
  for (let b = 0; b < bands; b++) {
    const b0 = load<i32>(start + (<usize>b << 2));
    const b1 = b0 + load<i32>(length + (<usize>b << 2));
    const w = weights + f8(load<i32>(offset + (<usize>b << 2)) - b0);
    let s: f64 = 0;
    for (let j = b0; j < b1; j++) s += load<f64>(w + f8(j)) * load<f64>(mag + f8(j));
    store<f64>(lin + f8(b), 1 + lambda * s);
  }
}
