// Audio synthesized for the e2e specs, so every figure the GUI shows is known in advance.

/** Encode channels of samples in -1..1 as a 16-bit PCM WAV. */
export function encodeWav(channels: readonly Float32Array[], sampleRate: number): Buffer {
  const frames = channels[0]?.length ?? 0;
  const count = channels.length;
  const data = Buffer.alloc(frames * count * 2);
  for (let i = 0; i < frames; i++) {
    for (let c = 0; c < count; c++) {
      const value = Math.max(-1, Math.min(1, channels[c]?.[i] ?? 0));
      data.writeInt16LE(Math.round(value * 32767), (i * count + c) * 2);
    }
  }
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(count, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * count * 2, 28);
  header.writeUInt16LE(count * 2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

/** A sine of `seconds` at `hz` with peak `amplitude`. */
export function sine(sampleRate: number, seconds: number, hz: number, amplitude: number): Float32Array {
  const out = new Float32Array(Math.round(sampleRate * seconds));
  for (let i = 0; i < out.length; i++) out[i] = amplitude * Math.sin((2 * Math.PI * hz * i) / sampleRate);
  return out;
}

/**
 * A drum loop of `bars` 4/4 bars at `bpm`: a decaying 55 Hz kick on every beat and a short noise hat
 * on every off-beat, exactly bars × 4 beats long (so it loops seamlessly). Deterministic noise.
 */
export function drumLoop(sampleRate: number, bpm: number, bars: number): Float32Array {
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
