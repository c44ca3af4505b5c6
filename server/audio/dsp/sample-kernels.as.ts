// AssemblyScript source of the per-sample loops of the decoders in the DSP's WebAssembly kernel
// (dsp/pcm16-to-float.ts wraps them; `npm run build:wasm` compiles them into the one module with the FFT).
// Arrays are in the kernel's memory, passed as byte offsets.

/**
 * 16-bit PCM to floats: dst[i] = src[i] / 2^15 for i < n, little-endian int16 in, float32 out. Exact, as the
 * JavaScript `x / 32768` stored to a Float32Array: every int16 is a float32, and 2^-15 only moves the exponent.
 * Eight samples per SIMD step (sign-extended to i32 lanes, converted, scaled).
 */
export function pcm16ToFloat(src: usize, dst: usize, n: i32): void {
  const scale = f32x4.splat(1.0 / 32768.0);
  let i = 0;
  for (; i + 8 <= n; i += 8) {
    const v = v128.load(src + (<usize>i << 1));
    const at = dst + (<usize>i << 2);
    v128.store(at, f32x4.mul(f32x4.convert_i32x4_s(i32x4.extend_low_i16x8_s(v)), scale));
    v128.store(at + 16, f32x4.mul(f32x4.convert_i32x4_s(i32x4.extend_high_i16x8_s(v)), scale));
  }
  for (; i < n; i++) store<f32>(dst + (<usize>i << 2), <f32>load<i16>(src + (<usize>i << 1)) * (1.0 / 32768.0));
}
