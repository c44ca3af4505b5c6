import { open } from 'node:fs/promises';

/** A synthesized test track: 124 BPM, A minor, kick/snare/hats/bass/pad, with the exact onset times. */
export interface SynthTrack {
  readonly file: string;
  readonly seconds: number;
  readonly sampleRate: number;
  /** Every drum hit (kick, snare, hat) in seconds. */
  readonly onsets: readonly number[];
}

const sampleRate = 44_100;
const bpm = 124;
const beat = 60 / bpm;
const bars = 8;
const loopSeconds = bars * 4 * beat;

/** Render one 8-bar loop (stereo) and its hit times; deterministic. */
function renderLoop(): { left: Float32Array; right: Float32Array; hits: number[] } {
  const n = Math.round(loopSeconds * sampleRate);
  const left = new Float32Array(n);
  const right = new Float32Array(n);
  const hits: number[] = [];
  let seed = 1;
  const noise = () => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return seed / 2 ** 31 - 1;
  };
  const add = (t0: number, seconds: number, fn: (t: number) => number, pan = 0) => {
    const start = Math.round(t0 * sampleRate);
    const len = Math.round(seconds * sampleRate);
    for (let i = 0; i < len && start + i < n; i++) {
      const v = fn(i / sampleRate);
      left[start + i] = left[start + i]! + v * (1 - pan) * 0.5;
      right[start + i] = right[start + i]! + v * (1 + pan) * 0.5;
    }
  };
  for (let b = 0; b < bars * 4; b++) {
    const t = b * beat;
    if (b % 2 === 0) {
      hits.push(t);
      add(t, 0.35, (x) => 0.9 * Math.sin(2 * Math.PI * (50 + 100 * Math.exp(-x * 30)) * x) * Math.exp(-x * 8));
    } else {
      hits.push(t);
      add(t, 0.2, (x) => (0.5 * noise() + 0.3 * Math.sin(2 * Math.PI * 190 * x)) * Math.exp(-x * 18), 0.1);
    }
    for (const off of [0.5]) {
      hits.push(t + off * beat);
      add(t + off * beat, 0.05, (x) => 0.25 * noise() * Math.exp(-x * 80), -0.3);
    }
  }
  // Bass (A minor roots, eighth notes) and a pad (Am chord), not counted as drum onsets.
  const roots = [55, 55, 43.65, 49];
  for (let b = 0; b < bars; b++) {
    const f = roots[b % 4]!;
    add(b * 4 * beat, 4 * beat, (x) => 0.18 * Math.sin(2 * Math.PI * f * x) * (0.6 + 0.4 * Math.cos(2 * Math.PI * x / beat)));
    add(b * 4 * beat, 4 * beat, (x) => 0.05 * (Math.sin(2 * Math.PI * 220 * x) + Math.sin(2 * Math.PI * 261.63 * x) + Math.sin(2 * Math.PI * 329.63 * x)), 0.4);
  }
  return { left, right, hits: hits.sort((a, b) => a - b) };
}

/** Write `seconds` of the looped track as a 16-bit stereo WAV, streaming (a 60-minute file is 635 MB). */
export async function writeSynthTrack(file: string, seconds: number): Promise<SynthTrack> {
  const loop = renderLoop();
  const frames = Math.round(seconds * sampleRate);
  const fh = await open(file, 'w');
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + frames * 4, 4);
  header.write('WAVEfmt ', 8, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(2, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * 4, 28);
  header.writeUInt16LE(4, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(frames * 4, 40);
  await fh.write(header);
  const loopFrames = loop.left.length;
  const block = Buffer.alloc(sampleRate * 4);
  for (let f = 0; f < frames; ) {
    const take = Math.min(sampleRate, frames - f);
    for (let i = 0; i < take; i++) {
      const k = (f + i) % loopFrames;
      block.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(loop.left[k]! * 32767))), i * 4);
      block.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(loop.right[k]! * 32767))), i * 4 + 2);
    }
    await fh.write(block, 0, take * 4);
    f += take;
  }
  await fh.close();
  const onsets: number[] = [];
  for (let start = 0; start < seconds; start += loopSeconds) for (const h of loop.hits) if (start + h < seconds - 0.05) onsets.push(start + h);
  return { file, seconds, sampleRate, onsets };
}
