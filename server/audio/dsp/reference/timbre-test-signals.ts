/**
 * Synthesized clips for the timbre embedding's tests (dsp/timbre-embedding.test.ts). The expected embeddings in
 * timbre-embedding-fixture.ts were computed by PyTorch (eval/similarity/train-timbre-embedding.py)
 * from these clips' mel patches. Only tests import it (rule `dsp-reference-is-for-tests`).
 */

/** A mono clip and its rate. */
export interface TestClip {
  readonly name: string;
  readonly sampleRate: number;
  readonly mono: Float32Array;
}

/** A plucked 220 Hz tone (12 harmonics at 1/k, decaying), deterministic noise bursts, and a steady odd-harmonic tone at 48 kHz. */
export function timbreTestClips(): TestClip[] {
  const pluck = new Float32Array(Math.round(1.2 * 44100));
  for (let i = 0; i < pluck.length; i++) {
    const t = i / 44100;
    let s = 0;
    for (let k = 1; k <= 12; k++) s += Math.sin(2 * Math.PI * 220 * k * t) / k;
    pluck[i] = 0.3 * s * Math.exp(-3 * t);
  }
  const noise = new Float32Array(Math.round(0.5 * 44100));
  let seed = 12345;
  for (let i = 0; i < noise.length; i++) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    noise[i] = ((seed / 4294967296) * 2 - 1) * 0.5 * Math.exp((-10 * (i % 11025)) / 44100);
  }
  const organ = new Float32Array(2 * 48000);
  for (let i = 0; i < organ.length; i++) {
    const t = i / 48000;
    let s = 0;
    for (let k = 1; k <= 9; k += 2) s += Math.sin(2 * Math.PI * 330 * k * t) / k;
    organ[i] = 0.2 * s;
  }
  return [
    { name: 'pluck', sampleRate: 44100, mono: pluck },
    { name: 'noise', sampleRate: 44100, mono: noise },
    { name: 'organ', sampleRate: 48000, mono: organ },
  ];
}
