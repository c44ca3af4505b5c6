/** A minimal Standard MIDI File (format 0) writer for the sound-font renders. */

/** Ticks per second: 480 per quarter at 120 BPM. */
export const TICKS_PER_SECOND = 960;

export interface MidiEvent {
  /** Seconds from the start. */
  readonly at: number;
  /** Raw status and data bytes (a channel message). */
  readonly bytes: readonly number[];
}

export const noteOn = (at: number, channel: number, note: number, velocity: number): MidiEvent => ({
  at,
  bytes: [0x90 | channel, note, velocity],
});
export const noteOff = (at: number, channel: number, note: number): MidiEvent => ({ at, bytes: [0x80 | channel, note, 0] });
export const programChange = (at: number, channel: number, program: number): MidiEvent => ({ at, bytes: [0xc0 | channel, program] });
/** A controller change (e.g. 91 reverb send, 93 chorus send). */
export const controlChange = (at: number, channel: number, controller: number, value: number): MidiEvent => ({
  at,
  bytes: [0xb0 | channel, controller, value],
});
/** Controller 120 (all sound off) and 121 (reset controllers) on a channel. */
export const allSoundOff = (at: number, channel: number): MidiEvent[] => [
  { at, bytes: [0xb0 | channel, 120, 0] },
  { at, bytes: [0xb0 | channel, 121, 0] },
];

function varLen(n: number): number[] {
  const out = [n & 0x7f];
  for (let v = n >> 7; v > 0; v >>= 7) out.unshift((v & 0x7f) | 0x80);
  return out;
}

/** Encode events (any order; stable by time) as a format-0 MIDI file ending at `end` seconds. */
export function encodeMidi(events: readonly MidiEvent[], end: number): Buffer {
  const sorted = events.map((e, i) => ({ e, i, tick: Math.round(e.at * TICKS_PER_SECOND) })).sort((a, b) => a.tick - b.tick || a.i - b.i);
  const track: number[] = [0, 0xff, 0x51, 3, 0x07, 0xa1, 0x20]; // tempo 500 000 µs per quarter
  let last = 0;
  for (const { e, tick } of sorted) {
    track.push(...varLen(tick - last), ...e.bytes);
    last = tick;
  }
  track.push(...varLen(Math.max(0, Math.round(end * TICKS_PER_SECOND) - last)), 0xff, 0x2f, 0);
  const header = Buffer.from([0x4d, 0x54, 0x68, 0x64, 0, 0, 0, 6, 0, 0, 0, 1, 480 >> 8, 480 & 0xff]);
  const len = Buffer.alloc(4);
  len.writeUInt32BE(track.length);
  return Buffer.concat([header, Buffer.from('MTrk', 'ascii'), len, Buffer.from(track)]);
}
