/**
 * Chord progressions in all 24 keys, rendered from the General MIDI sound fonts with fluidsynth: the key
 * evaluation's pitched material whose key is known by construction. Major keys play I–IV–V–I, minor keys
 * i–iv–V–i (harmonic minor: a major V, as in common practice), one chord a second, root-position triads
 * around middle C over the chord root two octaves down, on four GM programs (piano, strings, guitar,
 * organ). Written to <cache>/key-progressions/<font>/ (once; existing files are kept).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PITCH_CLASSES, type PitchClass } from '../../server/audio/dsp/chroma.js';
import type { Mode } from '../../server/audio/dsp/key.js';
import { encodeMidi, noteOff, noteOn, programChange, type MidiEvent } from '../real-audio/midi.js';
import { cacheDir, requireCommand } from '../real-audio/packages.js';

/** The sound fonts (Debian package, file inside it). */
export const KEY_FONTS: Record<string, readonly [string, string]> = {
  'gm-fluid': ['fluid-soundfont-gm', 'usr/share/sounds/sf2/FluidR3_GM.sf2'],
  'gm-timgm6mb': ['timgm6mb-soundfont', 'usr/share/sounds/sf2/TimGM6mb.sf2'],
  'gm-musescore': ['musescore-general-soundfont-small', 'usr/share/sounds/sf3/MuseScore_General_Lite.sf3'],
};

/** GM programs (0-based): acoustic grand piano, string ensemble 1, acoustic guitar (nylon), drawbar organ. */
export const KEY_PROGRAMS: Record<number, string> = { 0: 'piano', 48: 'strings', 24: 'guitar', 16: 'organ' };

export interface Progression {
  readonly font: string;
  readonly program: number;
  readonly key: PitchClass;
  readonly mode: Mode;
  readonly wav: string;
}

export const progressionsDir = path.join(cacheDir, 'key-progressions');
const CHORD_S = 1;

/** Note events of the progression in `tonic` (0 = C) and `mode`, on channel 0. */
export function progressionEvents(tonic: number, mode: Mode, program: number): MidiEvent[] {
  // Tonic between G3 and F#4, so every key sits in the same register.
  const r = 55 + ((tonic - 7 + 12) % 12);
  const third = mode === 'major' ? 4 : 3;
  const chords = [
    [r, r + third, r + 7],
    [r + 5, r + 5 + third, r + 12],
    [r + 7, r + 11, r + 14],
    [r, r + third, r + 7],
  ];
  const events: MidiEvent[] = [programChange(0, 0, program)];
  chords.forEach((notes, i) => {
    const at = 0.05 + i * CHORD_S;
    for (const n of [notes[0]! - 24, ...notes]) events.push(noteOn(at, 0, n, 96), noteOff(at + CHORD_S * 0.95, 0, n));
  });
  return events;
}

/** Where a font's file is: installed on the system, or unpacked into the cache by npm run eval:sets. */
export function findFont(font: string): string | null {
  const [pkg, rel] = KEY_FONTS[font]!;
  for (const f of [path.join('/', rel), path.join(cacheDir, 'pkg', pkg, rel)]) if (existsSync(f)) return f;
  return null;
}

/** Render (once) every progression of every font found; fonts not found are skipped with a note. */
export function renderProgressions(): Progression[] {
  requireCommand('fluidsynth', 'fluidsynth');
  const out: Progression[] = [];
  for (const font of Object.keys(KEY_FONTS)) {
    const file = findFont(font);
    if (!file) {
      process.stderr.write(`key-progressions: ${font} not installed (apt-get install -y ${KEY_FONTS[font]![0]}), skipped\n`);
      continue;
    }
    const dir = path.join(progressionsDir, font);
    mkdirSync(dir, { recursive: true });
    for (const program of Object.keys(KEY_PROGRAMS).map(Number)) {
      for (const mode of ['major', 'minor'] as const) {
        for (let tonic = 0; tonic < 12; tonic++) {
          const key = PITCH_CLASSES[tonic]!;
          const wav = path.join(dir, `${KEY_PROGRAMS[program]}_${key.replace('#', 's')}_${mode}.wav`);
          if (!existsSync(wav)) {
            const mid = `${wav}.mid`;
            writeFileSync(mid, encodeMidi(progressionEvents(tonic, mode, program), 4 * CHORD_S + 1));
            execFileSync(
              'fluidsynth',
              ['-ni', '-q', '-R', '0', '-C', '0', '-g', '0.5', '-r', '44100', '-T', 'wav', '-O', 's16', '-F', wav, file, mid],
              { stdio: ['ignore', 'ignore', 'inherit'] },
            );
            rmSync(mid);
          }
          out.push({ font, program, key, mode, wav });
        }
      }
    }
  }
  return out;
}

if (process.argv[1]?.endsWith('progressions.ts')) {
  const all = renderProgressions();
  process.stdout.write(`${all.length} progressions in ${progressionsDir}\n`);
}
