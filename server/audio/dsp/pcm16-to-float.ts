import { instantiateKernel, type KernelExports } from './fft.js';

/**
 * 16-bit PCM to floats (x / 2^15, exactly as `x / 32768` in JavaScript) in the WebAssembly kernel
 * (dsp/sample-kernels.as.ts), eight samples per SIMD step: about a fifth of the JavaScript loop's time, which
 * was 9 % of the analysis threads' busy time on a dropped WAV (bench/RESULTS.md, session 17). Each converter
 * owns a fixed memory for up to `capacity` samples (it never grows, so the views it hands out stay valid).
 */
export class Pcm16ToFloat {
  private readonly kernel: KernelExports;
  private readonly memory: WebAssembly.Memory;
  /** Where the integers go (from 0) and where the floats come out. */
  private readonly floatsAt: number;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
    this.floatsAt = Math.ceil((2 * capacity) / 16) * 16;
    const pages = Math.ceil((this.floatsAt + 4 * capacity) / 65536);
    this.memory = new WebAssembly.Memory({ initial: pages, maximum: pages });
    this.kernel = instantiateKernel(this.memory);
  }

  /**
   * The floats of the little-endian 16-bit samples in `bytes` (its length even, at most 2 · capacity). The array
   * is this converter's own memory: valid until the next call.
   */
  convert(bytes: Uint8Array): Float32Array {
    const samples = bytes.length >> 1;
    if (bytes.length % 2 !== 0 || samples > this.capacity)
      throw new RangeError(`expected an even number of bytes, at most ${2 * this.capacity}, got ${bytes.length}`);
    new Uint8Array(this.memory.buffer, 0, bytes.length).set(bytes);
    this.kernel.pcm16ToFloat(0, this.floatsAt, samples);
    return new Float32Array(this.memory.buffer, this.floatsAt, samples);
  }
}
