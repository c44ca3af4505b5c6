/**
 * Instrument families of the labelled sets, from each label's `rule` (eval/labels/*.tsv: the GM program,
 * the GM drum-map note, the drum kit's instrument name or the sample's name). A similarity answer is right
 * for a query when a neighbour has the query's role and family. The families follow producers' folders
 * (kick, snare/clap, tom, hat/cymbal, shaker, hand percussion, loops by kind) and, for pitched
 * instruments, the General MIDI families (GM 1–8 piano and 17–24 organ are both "keys", reed and pipe
 * are both "woodwind"). Documented in docs/audio-api.md ("Similarity", "How it is measured").
 */

/** A family name, or null when the label does not say which instrument it is (such a file is never a query). */
export type Family = string | null;

/** GM drum-map notes (GM 1 percussion key map, channel 10) by family. */
const DRUM_NOTES: Readonly<Record<string, readonly number[]>> = {
  kick: [35, 36],
  'snare/clap': [25, 26, 31, 37, 38, 39, 40],
  tom: [41, 43, 45, 47, 48, 50],
  'hat/cymbal': [42, 44, 46, 49, 51, 52, 53, 55, 57, 59],
  shaker: [54, 69, 70, 82],
  'hand percussion': [56, 60, 61, 62, 63, 64, 65, 66, 67, 68, 75, 76, 77],
};

/** GM programs (1-based) by family. */
function programFamily(program: number): Family {
  const gm = [
    'keys', // 1–8 piano
    'mallets', // 9–16 chromatic percussion
    'keys', // 17–24 organ
    'guitar',
    'bass',
    'strings',
    'ensemble',
    'brass',
    'woodwind', // 65–72 reed
    'woodwind', // 73–80 pipe
    'synth lead',
    'synth pad',
    'synth fx',
    'ethnic',
    'percussive',
    'sound fx',
  ] as const;
  return program >= 1 && program <= 128 ? gm[Math.floor((program - 1) / 8)]! : null;
}

function drumNoteFamily(note: number): Family {
  for (const [family, notes] of Object.entries(DRUM_NOTES)) if (notes.includes(note)) return family;
  return null;
}

/** Keywords of kit instrument and sample names, tried in this order (the first match wins). */
const NAME_RULES: readonly (readonly [RegExp, string])[] = [
  [/hi-?hat|\bhh\b|\bohh\b|\bhat\b|cymbal|crash|ride|splash|china|swash/i, 'hat/cymbal'],
  [/tambourine|shaker|maraca|cabasa/i, 'shaker'],
  [/kick|bass ?drum|bassdrum|\bbd_/i, 'kick'],
  [/snare|rim|stick|clap|snap|\broll\b|\bsn_/i, 'snare/clap'],
  [/tom\b|tom_|\btom /i, 'tom'],
  [/conga|bongo|timbale|cowbell|agogo|wood ?block|\bwood\b|clave|tabla|djembe|cajon|dununba|kenkeni|sangban/i, 'hand percussion'],
];

function nameFamily(name: string): Family {
  for (const [re, family] of NAME_RULES) if (re.test(name)) return family;
  return null;
}

/** The instrument family of one labelled file, from its library, file name and label rule. */
export function findFamily(library: string, file: string, rule: string): Family {
  if (/drum loop|break \(drum loop\)|breakbeat|industrial \(drum loop\)/.test(rule)) return 'drum loop';
  if (/top loop/.test(rule)) return 'top loop';
  if (/hand-percussion loop|perc loop|percussion loop/.test(rule)) return 'percussion loop';
  const drumNote = /drum (?:map|set) note (\d+)/.exec(rule);
  if (drumNote) return drumNoteFamily(Number(drumNote[1]));
  const program = /GM program (\d+)/.exec(rule);
  if (program) return programFamily(Number(program[1]));
  if (/a bass instrument/.test(rule)) return 'bass';
  const instrument = /instrument "([^"]*)"/.exec(rule);
  if (instrument) return nameFamily(instrument[1]!);
  if (library === 'sonic-pi') return sonicPiFamily(file, rule);
  return null;
}

function sonicPiFamily(file: string, rule: string): Family {
  if (rule.startsWith('prefix ambi_') || /drone|field recording|noise bed/.test(rule)) return 'ambience';
  if (/\(FX\)/.test(rule)) return 'fx';
  if (rule.startsWith('prefix bass_')) return 'bass';
  if (rule.startsWith('prefix guit_')) return 'guitar';
  if (rule.startsWith('prefix tabla_')) return 'hand percussion';
  if (/bell|chime/.test(rule)) return 'mallets';
  return nameFamily(
    file
      .replace(/\.flac$/, '')
      .replace(/_/g, ' ')
      .replace(/^(bd|sn) /, '$1_'),
  );
}
