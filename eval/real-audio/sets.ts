/**
 * The labelled real-recording development libraries: their names, packages, label files
 * (eval/labels/<library>.tsv: file, role, rule; role `-` marks a file left out) and WAV locations.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SAMPLE_ROLES, type SampleRole } from '../../server/audio/engines/sample-role.js';
import { cacheDir, repoRoot, safeName } from './packages.js';

export interface Library {
  readonly id: string;
  /** The Debian packages it comes from. */
  readonly packages: readonly string[];
}

/** The development libraries (lmms-common is held out and never listed). */
export const LIBRARIES: readonly Library[] = [
  { id: 'sonic-pi', packages: ['sonic-pi-samples'] },
  { id: 'hydrogen', packages: ['hydrogen-drumkits'] },
  { id: 'gm-fluid', packages: ['fluid-soundfont-gm', 'fluidsynth'] },
  { id: 'gm-timgm6mb', packages: ['timgm6mb-soundfont', 'fluidsynth'] },
  { id: 'gm-musescore', packages: ['musescore-general-soundfont-small', 'fluidsynth'] },
  { id: 'freepats', packages: ['freepats', 'timidity'] },
  { id: 'avldrums', packages: ['avldrums.lv2-soundfont', 'fluidsynth'] },
];

/** Libraries that only ever take part in fitting: never a held-out fold, never in a reported accuracy (synth-sub.ts). */
export const TRAINING_ONLY_LIBRARIES: readonly string[] = ['synth-sub'];

export interface LabelRow {
  readonly file: string;
  readonly role: SampleRole | null;
  readonly rule: string;
}

export interface LabelledFile {
  readonly library: string;
  readonly key: string;
  readonly role: SampleRole;
  /** How the label was decided (the label file's rule); the key and similarity evaluations read the instrument family from it. */
  readonly rule: string;
  readonly wav: string;
}

export const labelFile = (library: string): string => path.join(repoRoot, 'eval', 'labels', `${library}.tsv`);
export const wavDir = (library: string): string => path.join(cacheDir, 'sets', library);

/** Write a label file (sorted by file). */
export function writeLabels(library: string, rows: readonly LabelRow[]): void {
  const sorted = [...rows].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  const body = sorted.map((r) => `${r.file}\t${r.role ?? '-'}\t${r.rule}`).join('\n');
  writeFileSync(labelFile(library), `file\trole\trule\n${body}\n`);
}

/** Read a label file. */
export function readLabels(library: string): LabelRow[] {
  const lines = readFileSync(labelFile(library), 'utf8').trim().split('\n').slice(1);
  return lines.map((l) => {
    const [file, role, rule] = l.split('\t') as [string, string, string];
    if (role !== '-' && !(SAMPLE_ROLES as readonly string[]).includes(role)) throw new Error(`${library}: bad role ${role}`);
    return { file, role: role === '-' ? null : (role as SampleRole), rule };
  });
}

/** The labelled files of a library whose WAV has been built (npm run eval:sets). */
export function loadLibrary(library: string): LabelledFile[] {
  const out: LabelledFile[] = [];
  for (const r of readLabels(library)) {
    if (r.role === null) continue;
    const wav = path.join(wavDir(library), safeName(r.file));
    if (!existsSync(wav)) throw new Error(`${wav} missing: run npm run eval:sets`);
    out.push({ library, key: r.file, role: r.role, rule: r.rule, wav });
  }
  return out;
}
