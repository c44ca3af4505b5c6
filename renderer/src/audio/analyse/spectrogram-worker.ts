// Maps a spectrum to pixels off the main thread: the 128 000 cells of a 128 × 1000 spectrum take
// several milliseconds of cold JavaScript, which on a busy two-core machine would cost the page a frame.
import { spectrogramImage, type ValueRange } from './spectrogram-image';

/** What the page sends: the flattened spectrum (transferred). */
export interface SpectrogramJob {
  readonly id: number;
  readonly frames: number;
  readonly bands: number;
  readonly values: Float32Array<ArrayBuffer>;
}

/** What the worker answers: RGBA pixels (transferred) and the value range the colours span. */
export interface SpectrogramImage {
  readonly id: number;
  readonly pixels: Uint8ClampedArray<ArrayBuffer>;
  readonly range: ValueRange;
}

self.onmessage = (event: MessageEvent<SpectrogramJob>) => {
  const { id, frames, bands, values } = event.data;
  const { pixels, range } = spectrogramImage(values, frames, bands);
  const answer: SpectrogramImage = { id, pixels, range };
  self.postMessage(answer, { transfer: [pixels.buffer] });
};
