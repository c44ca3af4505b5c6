// Perceptual colour map for the spectrogram. Magma (van der Walt and Smith, matplotlib, CC0) rises
// monotonically in lightness, so louder always reads as brighter, in colour and in greyscale, and it
// stays legible for the common colour-vision deficiencies.

/** Magma at every 16th of its 256 entries (the last entry closes the range), linear RGB 0..1. */
const magmaStops: readonly (readonly [number, number, number])[] = [
  [0.001462, 0.000466, 0.013866],
  [0.039608, 0.03109, 0.133515],
  [0.113094, 0.065492, 0.276784],
  [0.211718, 0.061992, 0.418647],
  [0.316654, 0.07169, 0.48538],
  [0.414709, 0.110431, 0.504662],
  [0.512831, 0.148179, 0.507648],
  [0.613617, 0.181811, 0.498536],
  [0.716387, 0.214982, 0.47529],
  [0.816914, 0.255895, 0.436461],
  [0.904281, 0.31961, 0.388137],
  [0.960949, 0.418323, 0.35963],
  [0.9867, 0.535582, 0.38221],
  [0.996096, 0.653659, 0.446213],
  [0.996898, 0.769591, 0.534892],
  [0.99244, 0.88433, 0.640099],
  [0.987053, 0.991438, 0.749504],
];

/** Where each stop sits on 0..1: stops 0..15 are entries 0, 16, …, 240 of 255; the last is entry 255. */
function stopPositions(count: number): number[] {
  return Array.from({ length: count }, (_, i) => (i === count - 1 ? 1 : (i * 16) / 255));
}

/** A lookup table of `size` RGBA entries (4 bytes each) interpolated linearly between the stops. */
export function buildLut(stops: readonly (readonly [number, number, number])[], size = 256): Uint8ClampedArray {
  const lut = new Uint8ClampedArray(size * 4);
  const positions = stopPositions(stops.length);
  let segment = 0;
  for (let i = 0; i < size; i++) {
    const t = size === 1 ? 0 : i / (size - 1);
    while (segment < stops.length - 2 && t > (positions[segment + 1] ?? 1)) segment++;
    const a = stops[segment] ?? stops[0]!;
    const b = stops[segment + 1] ?? a;
    const start = positions[segment] ?? 0;
    const end = positions[segment + 1] ?? 1;
    const f = end > start ? Math.min(1, Math.max(0, (t - start) / (end - start))) : 0;
    lut[i * 4] = Math.round((a[0] + (b[0] - a[0]) * f) * 255);
    lut[i * 4 + 1] = Math.round((a[1] + (b[1] - a[1]) * f) * 255);
    lut[i * 4 + 2] = Math.round((a[2] + (b[2] - a[2]) * f) * 255);
    lut[i * 4 + 3] = 255;
  }
  return lut;
}

/** The magma LUT: 256 RGBA entries, from near black (quiet) to pale yellow (loud). */
export const magmaLut: Uint8ClampedArray = buildLut(magmaStops);

/** WCAG relative luminance of an sRGB colour given as 0..255 channels. */
export function relativeLuminance(r: number, g: number, b: number): number {
  const lin = (c: number) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/** A CSS linear-gradient through the LUT (for the legend), left = quiet. */
export function lutGradient(lut: Uint8ClampedArray, steps = 9): string {
  const size = lut.length / 4;
  const colours = Array.from({ length: steps }, (_, i) => {
    const index = Math.round((i / (steps - 1)) * (size - 1)) * 4;
    return `rgb(${lut[index]} ${lut[index + 1]} ${lut[index + 2]})`;
  });
  return `linear-gradient(to right, ${colours.join(', ')})`;
}
