// Audio synthesized for the e2e specs, so every figure the GUI shows is known in advance. The WAV
// encoder and the sine are the server tests' own (server/test-support/signals.ts).

/**
 * A mono drum loop of `bars` 4/4 bars at `bpm`: a decaying 55 Hz kick on every beat and a short noise hat
 * on every off-beat, exactly bars × 4 beats long (so it loops seamlessly). Deterministic noise.
 * Not server/test-support/drums.ts `drumLoop`: that one is a stereo kit with lead-in and tail, whose
 * audio the specs' expected tempos and roles were not written for.
 */
export function monoDrumLoop(sampleRate: number, bpm: number, bars: number): Float32Array {
  const beat = (60 / bpm) * sampleRate;
  const total = Math.round(beat * 4 * bars);
  const out = new Float32Array(total);
  let seed = 12345;
  const noise = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x3fffffff - 1;
  };
  for (let b = 0; b < bars * 4; b++) {
    const start = Math.round(b * beat);
    for (let i = 0; i < Math.round(beat * 0.45) && start + i < total; i++) {
      const t = i / sampleRate;
      // Fade in over 1 ms and out at the end so the loop has no clicks at its seam.
      const edge = Math.min(1, i / (0.001 * sampleRate));
      out[start + i] = (out[start + i] ?? 0) + 0.7 * edge * Math.exp(-t * 18) * Math.sin(2 * Math.PI * 55 * t);
    }
    const hat = Math.round(start + beat / 2);
    for (let i = 0; i < Math.round(0.03 * sampleRate) && hat + i < total; i++) {
      out[hat + i] = (out[hat + i] ?? 0) + 0.25 * Math.exp((-i / sampleRate) * 120) * noise();
    }
  }
  const fade = Math.round(0.002 * sampleRate);
  for (let i = 0; i < fade; i++) out[total - 1 - i] = (out[total - 1 - i] ?? 0) * (i / fade);
  return out;
}
