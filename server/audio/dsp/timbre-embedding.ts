/**
 * The timbre embedding: a small convolutional network over the level-free log-mel patch of a clip's first 1.5 s
 * (dsp/mel-patch.ts) that maps it to a unit vector, so that sounds of one instrument family lie close together.
 * The architecture is the VGG-style stack of audio taggers (Choi et al. 2016, "Automatic tagging using deep
 * convolutional neural networks"; Hershey et al. 2017, "CNN architectures for large-scale audio classification"),
 * made small: the patch's frames averaged in pairs (64 bands × 64 frames of 23 ms), four 3×3 convolutions
 * (12, 24, 48, 48 channels; batch normalisation folded into them; ReLU), 2×2 max pooling after the first three,
 * then per channel and band the mean and the maximum over time (the frequency axis is kept: where energy sits
 * matters, when it happens less), and one linear layer to the embedding, scaled to unit length.
 *
 * The weights (timbre-embedding-weights.ts) are trained by eval/similarity/train-timbre-embedding.py on the
 * training libraries only (never the held-out sets), as an instrument-family classifier whose last hidden layer
 * is the embedding. ~60 k weights; about 7 M multiply-adds per clip.
 */
import { MEL_PATCH_BANDS, MEL_PATCH_FRAMES } from './mel-patch.js';

/** One 3×3 convolution with its bias (batch normalisation folded in): weight[o][i][ky][kx], flat. */
export interface ConvLayer {
  readonly out: number;
  readonly in: number;
  readonly weight: Float32Array;
  readonly bias: Float32Array;
}

/** The network's weights. */
export interface TimbreEmbeddingWeights {
  readonly version: number;
  readonly convs: readonly ConvLayer[];
  /** The embedding layer: weight[d][k], flat, over the pooled features k. */
  readonly embedding: { readonly out: number; readonly in: number; readonly weight: Float32Array; readonly bias: Float32Array };
}

/** 3×3 convolution, zero padding 1, then bias and ReLU: `x` is in × h × w, the result out × h × w. */
function convRelu(x: Float32Array, h: number, w: number, layer: ConvLayer): Float32Array {
  const { out: nOut, in: nIn, weight, bias } = layer;
  const plane = h * w;
  const y = new Float32Array(nOut * plane);
  // One output row at a time in a Float64 accumulator: the three taps of a kernel row are applied together, so
  // each input row is read once per kernel row and the accumulator stays in the cache.
  const acc = new Float64Array(w);
  for (let o = 0; o < nOut; o++) {
    const yo = o * plane;
    for (let r = 0; r < h; r++) {
      acc.fill(bias[o]!);
      for (let i = 0; i < nIn; i++) {
        const wi = (o * nIn + i) * 9;
        for (let ky = 0; ky < 3; ky++) {
          const row = r + ky - 1;
          if (row < 0 || row >= h) continue;
          const k0 = weight[wi + ky * 3]!;
          const k1 = weight[wi + ky * 3 + 1]!;
          const k2 = weight[wi + ky * 3 + 2]!;
          const src = i * plane + row * w;
          // Column c reads x[c − 1], x[c], x[c + 1]; the edges read zeros outside the row.
          acc[0]! += k1 * x[src]! + (w > 1 ? k2 * x[src + 1]! : 0);
          for (let c = 1; c < w - 1; c++) acc[c]! += k0 * x[src + c - 1]! + k1 * x[src + c]! + k2 * x[src + c + 1]!;
          if (w > 1) acc[w - 1]! += k0 * x[src + w - 2]! + k1 * x[src + w - 1]!;
        }
      }
      const dst = yo + r * w;
      for (let c = 0; c < w; c++) y[dst + c] = acc[c]! > 0 ? acc[c]! : 0;
    }
  }
  return y;
}

/** 2×2 max pooling (odd edges dropped): channels × h × w to channels × h/2 × w/2. */
function maxPool(x: Float32Array, channels: number, h: number, w: number): Float32Array {
  const h2 = h >> 1;
  const w2 = w >> 1;
  const y = new Float32Array(channels * h2 * w2);
  for (let c = 0; c < channels; c++)
    for (let r = 0; r < h2; r++)
      for (let q = 0; q < w2; q++) {
        const a = c * h * w + 2 * r * w + 2 * q;
        y[(c * h2 + r) * w2 + q] = Math.max(x[a]!, x[a + 1]!, x[a + w]!, x[a + w + 1]!);
      }
  return y;
}

/** The embedding of a mel patch (dsp/mel-patch.ts), before scaling to unit length. */
export function embedMelPatchRaw(patch: Float32Array, weights: TimbreEmbeddingWeights): Float32Array {
  if (patch.length !== MEL_PATCH_BANDS * MEL_PATCH_FRAMES)
    throw new RangeError(`a mel patch has ${MEL_PATCH_BANDS * MEL_PATCH_FRAMES} values, got ${patch.length}`);
  let h = MEL_PATCH_BANDS;
  let w = MEL_PATCH_FRAMES / 2;
  // Frames averaged in pairs, and the dB range mapped to 0..1.
  let x: Float32Array = new Float32Array(h * w);
  for (let r = 0; r < h; r++)
    for (let q = 0; q < w; q++)
      x[r * w + q] = (patch[r * MEL_PATCH_FRAMES + 2 * q]! + patch[r * MEL_PATCH_FRAMES + 2 * q + 1]!) / 2 / 80 + 1;
  let channels = 1;
  weights.convs.forEach((layer, l) => {
    if (layer.in !== channels) throw new Error(`timbre embedding: layer ${l} expects ${layer.in} channels, has ${channels}`);
    x = convRelu(x, h, w, layer);
    channels = layer.out;
    if (l < weights.convs.length - 1) {
      x = maxPool(x, channels, h, w);
      h >>= 1;
      w >>= 1;
    }
  });
  // Per channel and band: the mean over time, then (after all the means) the maximum over time.
  const features = new Float32Array(2 * channels * h);
  for (let c = 0; c < channels; c++)
    for (let r = 0; r < h; r++) {
      let sum = 0;
      let max = -Infinity;
      for (let q = 0; q < w; q++) {
        const v = x[(c * h + r) * w + q]!;
        sum += v;
        if (v > max) max = v;
      }
      features[c * h + r] = sum / w;
      features[(channels + c) * h + r] = max;
    }
  const e = weights.embedding;
  if (e.in !== features.length) throw new Error(`timbre embedding: the last layer expects ${e.in} features, has ${features.length}`);
  const out = new Float32Array(e.out);
  for (let d = 0; d < e.out; d++) {
    let s = e.bias[d]!;
    const row = d * e.in;
    for (let k = 0; k < e.in; k++) s += e.weight[row + k]! * features[k]!;
    out[d] = s;
  }
  return out;
}

/** The unit-length timbre embedding of a mel patch; null when the network's output is all zero. */
export function embedMelPatch(patch: Float32Array, weights: TimbreEmbeddingWeights): Float32Array | null {
  const v = embedMelPatchRaw(patch, weights);
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm);
  if (!(norm > 0)) return null;
  return v.map((x) => x / norm);
}
