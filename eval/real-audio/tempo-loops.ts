/**
 * Loops of a known tempo and bar count, rendered from the GM sound fonts with fluidsynth for the tempo
 * evaluation (eval/tempo/eval-tempo.ts). Each loop is a drum pattern on the GM drum channel or a bass line
 * (GM programs 34, 35, 39: fingered, picked and synth bass) at a tempo from 70 to 180 BPM, 1, 2 or 4 bars
 * of 4/4, played twice; the second pass is cut out to the exact length (bars · 240 / bpm, rounded to the
 * sample), so it starts with the ring-over of the first pass, as a loop cut from a longer take does.
 * Written to `<cache>/tempo-loops/` (the label is the file's plan, kept beside it in `loops.json`).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { encodeMidi, noteOff, noteOn, programChange, type MidiEvent } from './midi.js';
import { cacheDir, ensurePackage, readWav16, requireCommand, writeWav16 } from './packages.js';

export interface TempoLoop {
  readonly key: string;
  readonly wav: string;
  readonly bpm: number;
  readonly bars: number;
  readonly kind: string;
  readonly font: string;
}

/** The sound fonts: short name, Debian package, file inside the unpacked package. */
const FONTS: readonly (readonly [string, string, string])[] = [
  ['fluid', 'fluid-soundfont-gm', 'usr/share/sounds/sf2/FluidR3_GM.sf2'],
  ['timgm6mb', 'timgm6mb-soundfont', 'usr/share/sounds/sf2/TimGM6mb.sf2'],
  ['musescore', 'musescore-general-soundfont-small', 'usr/share/sounds/sf3/MuseScore_General_Lite.sf3'],
];

const TEMPI = [70, 84, 96, 110, 124, 136, 150, 170, 180];
const BAR_COUNTS = [1, 2, 4];
const SR = 44100;
const START = 0.2;

/** One 16-step bar: [step, note, velocity]. GM drums: 36 kick, 38 snare, 39 clap, 42 closed hat, 46 open hat. */
type Step = readonly [number, number, number];
const PATTERNS: Record<string, { readonly steps: readonly Step[]; readonly program: number | null; readonly length: number }> = {
  // Four on the floor: kick on every beat, clap on 2 and 4, open hat on the off-beats.
  house: {
    program: null,
    length: 0.25,
    steps: [0, 4, 8, 12]
      .map((s) => [s, 36, 110] as Step)
      .concat(
        [4, 12].map((s) => [s, 39, 100] as Step),
        [2, 6, 10, 14].map((s) => [s, 46, 80] as Step),
      ),
  },
  // A break: kick on 1 and the "and" of 3, snare on 2 and 4 with ghost notes, closed hats on 16ths.
  break: {
    program: null,
    length: 0.2,
    steps: [
      [0, 36, 115],
      [10, 36, 105],
      [4, 38, 112],
      [12, 38, 112],
      [7, 38, 45],
      [9, 38, 40],
      [15, 38, 45],
      ...Array.from({ length: 16 }, (_, s) => [s, 42, s % 2 === 0 ? 85 : 55] as Step),
    ],
  },
};
/** Bass lines: the steps of one bar and the notes bar by bar (a root movement A–A–F–G). */
const BASS_STEPS = [0, 3, 6, 8, 11, 14];
const BASS_ROOTS = [33, 33, 29, 31];
const BASS_PROGRAMS = [33, 34, 38]; // 0-based: 34 fingered, 35 picked, 39 synth bass 1

function loopEvents(kind: string, bpm: number, bars: number, index: number): { events: MidiEvent[]; channel: number } {
  const step = 60 / bpm / 4;
  const events: MidiEvent[] = [];
  if (kind === 'bass') {
    const program = BASS_PROGRAMS[index % BASS_PROGRAMS.length]!;
    events.push(programChange(0, 0, program));
    for (let pass = 0; pass < 2; pass++) {
      for (let b = 0; b < bars; b++) {
        const note = BASS_ROOTS[b % BASS_ROOTS.length]!;
        for (const [i, s] of BASS_STEPS.entries()) {
          const at = START + (pass * bars * 16 + b * 16 + s) * step;
          const next = BASS_STEPS[i + 1] ?? 16;
          events.push(
            noteOn(at, 0, s === 14 ? note + 12 : note, s === 0 ? 115 : 95),
            noteOff(at + 0.9 * (next - s) * step, 0, s === 14 ? note + 12 : note),
          );
        }
      }
    }
    return { events, channel: 0 };
  }
  const pattern = PATTERNS[kind]!;
  for (let pass = 0; pass < 2; pass++) {
    for (let b = 0; b < bars; b++) {
      for (const [s, note, vel] of pattern.steps) {
        const at = START + (pass * bars * 16 + b * 16 + s) * step;
        events.push(noteOn(at, 9, note, vel), noteOff(at + pattern.length, 9, note));
      }
    }
  }
  return { events, channel: 9 };
}

/** Render (once) every planned loop into `<cache>/tempo-loops/`; returns the loops. */
export function renderTempoLoops(): TempoLoop[] {
  const dir = path.join(cacheDir, 'tempo-loops');
  const index = path.join(dir, 'loops.json');
  if (existsSync(index)) return JSON.parse(readFileSync(index, 'utf8')) as TempoLoop[];
  requireCommand('fluidsynth', 'fluidsynth');
  mkdirSync(dir, { recursive: true });
  const loops: TempoLoop[] = [];
  let n = 0;
  for (const kind of ['house', 'break', 'bass']) {
    for (const bpm of TEMPI) {
      for (const bars of BAR_COUNTS) {
        const [fontName, fontPackage, fontFile] = FONTS[n % FONTS.length]!;
        const key = `${kind}_${bpm}bpm_${bars}bar_${fontName}`;
        const { events } = loopEvents(kind, bpm, bars, n);
        n++;
        const length = (bars * 240) / bpm;
        const mid = path.join(dir, `${key}.mid`);
        const take = path.join(dir, `${key}_take.wav`);
        writeFileSync(mid, encodeMidi(events, START + 2 * length + 1));
        execFileSync(
          'fluidsynth',
          [
            '-ni',
            '-q',
            '-R',
            '0',
            '-C',
            '0',
            '-g',
            '0.5',
            '-r',
            String(SR),
            '-T',
            'wav',
            '-O',
            's16',
            '-F',
            take,
            path.join(ensurePackage(fontPackage).dir, fontFile),
            mid,
          ],
          {
            stdio: ['ignore', 'ignore', 'inherit'],
          },
        );
        const all = readWav16(take);
        const ch = all.channels;
        const a = Math.round((START + length) * all.sampleRate);
        const b = Math.round((START + 2 * length) * all.sampleRate);
        const wav = path.join(dir, `${key}.wav`);
        writeWav16(wav, { sampleRate: all.sampleRate, channels: ch, samples: all.samples.slice(a * ch, b * ch) });
        loops.push({ key, wav, bpm, bars, kind, font: fontName });
      }
    }
  }
  writeFileSync(index, JSON.stringify(loops, null, 1));
  return loops;
}
