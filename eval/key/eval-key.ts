/**
 * npm run eval:key [-- --write] [--reuse]: the key judgement on real recordings and rendered progressions.
 * Every file goes through the real server (POST /audio/v1/features as `sample.wav`). Prints the share of
 * `key: null` on unpitched one-shots per category (kicks, snares, claps, hats, cymbals; target ≥ 95 %),
 * exact-key accuracy on the I–IV–V–I / i–iv–V–i progressions per sound font and mode (target ≥ 90 %) with
 * the kinds of confusion, and the share of null on pitched material (single notes apart: one note is not
 * a key). The thresholds of dsp/key.ts judgeKey were calibrated on the hydrogen drums and the gm-fluid and
 * gm-timgm6mb progressions; sonic-pi, the GM drum renders and the gm-musescore progressions are held out.
 * --write appends the report to bench/RESULTS.md; --reuse takes the last run's answers from the cache.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { machineHeader, say, writeResults } from '../../bench/bench-support.js';
import type { ChromaFeatures } from '../../server/audio/engines/features.js';
import { PITCH_CLASSES } from '../../server/audio/dsp/chroma.js';
import { repoRoot } from '../real-audio/packages.js';
import { LIBRARIES, loadLibrary } from '../real-audio/sets.js';
import { analyseAll, postSample } from '../eval-support.js';
import { KEY_PROGRAMS, progressionsDir, renderProgressions } from './progressions.js';

/** The unpitched one-shot categories of the target, the other percussion, pitched material, progressions. */
type Category = 'kick' | 'snare' | 'clap' | 'hat' | 'cymbal' | 'other percussion' | 'single note' | 'chords and phrases' | 'progression';
const TARGET: readonly Category[] = ['kick', 'snare', 'clap', 'hat', 'cymbal'];

interface Item {
  readonly source: string;
  readonly name: string;
  readonly category: Category;
  readonly wav: string;
  /** Progressions: the key rendered, e.g. `C# minor`. */
  readonly truth?: string;
  readonly calibration: boolean;
}
interface Answered extends Item {
  readonly chroma: ChromaFeatures;
}

/** The category of a labelled one-shot from its label rule (hydrogen's instrument name, the GM drum name) or file name. */
export function categorise(library: string, file: string, role: string, rule: string): Category | null {
  if (role === 'melodic' || role === 'bass') {
    if (library === 'sonic-pi')
      return /_(c|f|g)$|hit|drop/.test(file.replace(/\.flac$/, '')) && role === 'bass' ? 'single note' : 'chords and phrases';
    return /_note_/.test(file) ? 'single note' : 'chords and phrases';
  }
  if (role !== 'percs' && role !== 'tops') return null;
  let text = file.toLowerCase();
  if (library === 'hydrogen') text = (/"([^"]*)/.exec(rule)?.[1] ?? rule).toLowerCase();
  if (library.startsWith('gm-')) {
    if (!file.startsWith('drum_')) return null;
    text = (/\(([^)]*)\)/.exec(rule)?.[1] ?? rule).toLowerCase();
  }
  if (/loop|roll/.test(text)) return null;
  if (/clap/.test(text)) return 'clap';
  if (/kick|bass ?drum|bassdrum|^bd_|drum_bass/.test(text)) return 'kick';
  if (/snare|^sn_/.test(text)) return 'snare';
  if (/hi-?hat|hi hat|hihat|\bhh\b|\bhat\b|cymbal_(closed|open|pedal)/.test(text)) return 'hat';
  if (/crash|ride|splash|china|cymbal/.test(text)) return 'cymbal';
  return 'other percussion';
}

function collectItems(): Item[] {
  const items: Item[] = [];
  for (const lib of LIBRARIES) {
    let files;
    try {
      files = loadLibrary(lib.id);
    } catch (e) {
      process.stderr.write(`eval:key: ${lib.id} skipped (${e instanceof Error ? e.message : String(e)})\n`);
      continue;
    }
    for (const f of files) {
      const category = categorise(lib.id, f.key, f.role, f.rule);
      if (category)
        items.push({ source: lib.id, name: f.key, category, wav: f.wav, calibration: lib.id === 'hydrogen' && TARGET.includes(category) });
    }
  }
  for (const p of renderProgressions()) {
    items.push({
      source: p.font,
      name: path.basename(p.wav),
      category: 'progression',
      wav: p.wav,
      truth: `${p.key} ${p.mode}`,
      calibration: p.font !== 'gm-musescore',
    });
  }
  return items;
}

function measure(items: readonly Item[]): Promise<Answered[]> {
  return analyseAll(items, async (url, item) => ({
    ...item,
    chroma: (await postSample<{ chroma: ChromaFeatures }>(url, '/audio/v1/features', item.wav)).chroma,
  }));
}

const pct = (k: number, n: number) => (n ? `${((100 * k) / n).toFixed(1)} %` : '–');

/** How an answered key relates to the true one: exact, relative, parallel, a fifth away, other, or withheld. */
export function relation(truth: string, answer: ChromaFeatures): 'exact' | 'relative' | 'parallel' | 'fifth' | 'other' | 'null' {
  if (answer.key === null || answer.mode === null) return 'null';
  const [tk, tm] = truth.split(' ') as [string, string];
  const t = PITCH_CLASSES.indexOf(tk as (typeof PITCH_CLASSES)[number]);
  const a = PITCH_CLASSES.indexOf(answer.key);
  if (t === a && tm === answer.mode) return 'exact';
  if (t === a) return 'parallel';
  if (tm !== answer.mode && (tm === 'major' ? (t + 9) % 12 === a : (t + 3) % 12 === a)) return 'relative';
  if (tm === answer.mode && ((a - t + 12) % 12 === 7 || (a - t + 12) % 12 === 5)) return 'fifth';
  return 'other';
}

async function main(): Promise<void> {
  const cache = path.join(progressionsDir, 'answers.json');
  let answered: Answered[];
  if (process.argv.includes('--reuse') && existsSync(cache)) answered = JSON.parse(readFileSync(cache, 'utf8')) as Answered[];
  else {
    const items = collectItems();
    process.stderr.write(`eval:key: ${items.length} files through the server…\n`);
    answered = await measure(items);
    writeFileSync(cache, JSON.stringify(answered));
  }
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot }).toString().trim();
  say(machineHeader(`Key evaluation: key only when there is one (commit ${commit})`));
  say('');
  const sources = [...new Set(answered.map((a) => a.source))];
  say(
    `Data: one-shots of ${sources.filter((s) => !answered.some((a) => a.source === s && a.category === 'progression')).join(', ')} (labels in eval/labels/, sets built by npm run eval:sets) and the GM renders; progressions rendered by eval/key/progressions.ts into <cache>/key-progressions/ (${Object.values(KEY_PROGRAMS).join(', ')}; 24 keys each). Thresholds (dsp/key.ts) fitted by npm run fit:key on the hydrogen drums and the gm-fluid and gm-timgm6mb progressions; everything else is held out. lmms-common not used.`,
  );
  say('');
  say('### Unpitched one-shots: share answered `key: null` (target ≥ 95 %)');
  say('');
  say('| source | kick | snare | clap | hat | cymbal | all five | other percussion |');
  say('|---|---|---|---|---|---|---|---|');
  const oneShotSources = sources.filter((s) => answered.some((a) => a.source === s && TARGET.includes(a.category)));
  const cell = (xs: readonly Answered[]) =>
    xs.length ? `${pct(xs.filter((x) => x.chroma.key === null).length, xs.length)} (${xs.length})` : '–';
  const rows = [
    ...oneShotSources.map((s) => [s, answered.filter((a) => a.source === s)] as const),
    ['held out (all but hydrogen)', answered.filter((a) => a.source !== 'hydrogen')] as const,
    ['all', answered] as const,
  ];
  for (const [name, xs] of rows) {
    say(
      `| ${name} | ${TARGET.map((c) => cell(xs.filter((x) => x.category === c))).join(' | ')} | ${cell(xs.filter((x) => TARGET.includes(x.category)))} | ${cell(xs.filter((x) => x.category === 'other percussion'))} |`,
    );
  }
  const nulls = answered.filter((a) => TARGET.includes(a.category) && a.chroma.key === null);
  const reasons = (xs: readonly Answered[]) =>
    `no_pitched_content ${xs.filter((x) => x.chroma.key_reason === 'no_pitched_content').length}, low_confidence ${xs.filter((x) => x.chroma.key_reason === 'low_confidence').length}`;
  say('');
  say(
    `Reasons on the five categories: ${reasons(nulls)}. Other percussion (toms, cowbells, sticks, hand drums: often pitched) is shown for information, not a target.`,
  );
  say('');
  say('### Progressions: exact key (target ≥ 90 %)');
  say('');
  say('| font | role | major | minor | all | relative | parallel | fifth | other | null |');
  say('|---|---|---|---|---|---|---|---|---|---|');
  const progs = answered.filter((a) => a.category === 'progression');
  const fonts = [...new Set(progs.map((p) => p.source))];
  const progRow = (name: string, role: string, xs: readonly Answered[]) => {
    const rel = xs.map((x) => relation(x.truth!, x.chroma));
    const count = (r: string) => rel.filter((x) => x === r).length;
    const exact = (mode: string) => {
      const m = xs.filter((x) => x.truth!.endsWith(mode));
      return pct(m.filter((x) => relation(x.truth!, x.chroma) === 'exact').length, m.length);
    };
    say(
      `| ${name} | ${role} | ${exact('major')} | ${exact('minor')} | **${pct(count('exact'), xs.length)}** (${xs.length}) | ${count('relative')} | ${count('parallel')} | ${count('fifth')} | ${count('other')} | ${count('null')} |`,
    );
  };
  for (const f of fonts)
    progRow(
      f,
      f === 'gm-musescore' ? 'held out' : 'calibration',
      progs.filter((p) => p.source === f),
    );
  progRow('all fonts', '', progs);
  say('');
  say('### Pitched material: share answered `key: null` (should stay low for chords and phrases)');
  say('');
  say('| source | chords and phrases | single notes |');
  say('|---|---|---|');
  for (const s of sources.filter((x) =>
    answered.some((a) => a.source === x && (a.category === 'single note' || a.category === 'chords and phrases')),
  )) {
    const xs = answered.filter((a) => a.source === s);
    say(
      `| ${s} | ${cell(xs.filter((x) => x.category === 'chords and phrases'))} | ${cell(xs.filter((x) => x.category === 'single note'))} |`,
    );
  }
  say('');
  say(
    'A single note (one pitch class) fits its major and minor key and several others alike: it is answered `low_confidence` by design; `best_guess` still carries the nearest key.',
  );
  say('');
  await writeResults();
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
