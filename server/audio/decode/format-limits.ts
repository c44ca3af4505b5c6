import { AppError } from '../../http/errors.js';

/**
 * What the engines analyse. Outside these the per-second cost (frame sizes, filter banks, WebAssembly
 * memory all scale with the rate and the channels) is unbounded: a 40 KB WAV claiming 4.29 GHz held a
 * worker for 29 s and 2.9 GB. 8 kHz is telephone audio; 384 kHz the highest rate of studio converters.
 */
export const formatLimits = { minSampleRate: 8_000, maxSampleRate: 384_000, maxChannels: 32 } as const;

/**
 * Refuse a format outside formatLimits with a 415 that says why. Called wherever a decoder states the
 * format (WAV header, MP3 frame, ffmpeg's probe, the JS decoders' first chunk), before anything is
 * allocated for it.
 */
export function requireAnalysableFormat(format: { readonly sampleRate: number; readonly channels: number }): void {
  const { minSampleRate, maxSampleRate, maxChannels } = formatLimits;
  if (!Number.isInteger(format.sampleRate) || format.sampleRate < minSampleRate || format.sampleRate > maxSampleRate) {
    throw new AppError(
      'unsupported-media',
      `The sample rate ${format.sampleRate} Hz is outside what is analysed (${minSampleRate}–${maxSampleRate} Hz)`,
      { code: 'format_limits' },
    );
  }
  if (!Number.isInteger(format.channels) || format.channels < 1 || format.channels > maxChannels) {
    throw new AppError('unsupported-media', `${format.channels} channels are outside what is analysed (1–${maxChannels})`, {
      code: 'format_limits',
    });
  }
}

/**
 * The largest sample magnitude analysed (full scale is ±1): +96 dB over full scale leaves float
 * masters their headroom, while squares and sums of squares of hours of audio stay finite.
 */
export const maxSampleMagnitude = 65_536;

/**
 * Pass decoded chunks on, refusing (415) the first sample that is NaN, infinite or beyond
 * maxSampleMagnitude: float WAVs and decoders can carry them, and every engine's sums would turn them
 * into NaN or infinity in the answer. Integer PCM cannot hold them, so its readers skip this.
 */
export async function* requireFiniteSamples(chunks: AsyncIterable<Float32Array>): AsyncGenerator<Float32Array> {
  for await (const chunk of chunks) {
    for (let i = 0; i < chunk.length; i++) {
      const x = chunk[i]!;
      // Written so that NaN fails the test too.
      if (!(x <= maxSampleMagnitude && x >= -maxSampleMagnitude)) {
        throw new AppError(
          'unsupported-media',
          `The audio holds samples that are not finite or beyond ±${maxSampleMagnitude} (full scale is ±1): ${x}`,
          { code: 'non_finite_samples' },
        );
      }
    }
    yield chunk;
  }
}
