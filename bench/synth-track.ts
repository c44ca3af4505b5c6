import { open } from 'node:fs/promises';
import { wavHeader } from '../server/audio/decode/wav-reader.js';
import { musicLoop } from '../server/test-support/drums.js';

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
const loopSeconds = bars * 4 * beat; // the loop's length: musicLoop with no lead-in or tail

/** One 8-bar loop of the groove (test-support's musicLoop, the same voices the tests use) and its hits. */
function renderLoop(): { left: Float32Array; right: Float32Array; hits: readonly number[] } {
  const loop = musicLoop({ bpm, bars, sampleRate, leadIn: 0, tail: 0 });
  return { left: loop.channels[0], right: loop.channels[1], hits: loop.onsets };
}

/** Write `seconds` of the looped track as a 16-bit stereo WAV, streaming (a 60-minute file is 635 MB). */
export async function writeSynthTrack(file: string, seconds: number): Promise<SynthTrack> {
  const loop = renderLoop();
  const frames = Math.round(seconds * sampleRate);
  const fh = await open(file, 'w');
  await fh.write(wavHeader(sampleRate, 2, frames));
  const loopFrames = loop.left.length;
  const block = Buffer.alloc(sampleRate * 4);
  for (let f = 0; f < frames;) {
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
  for (let start = 0; start < seconds; start += loopSeconds)
    for (const h of loop.hits) if (start + h < seconds - 0.05) onsets.push(start + h);
  return { file, seconds, sampleRate, onsets };
}
