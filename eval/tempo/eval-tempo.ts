/**
 * npm run eval:tempo: the tempo of real loops through the real server. Every loop is posted as
 * `sample.wav` to POST /audio/v1/onsets, /analyze/samples and /grade; the table shows the /onsets answer per
 * loop, the totals all three (/onsets tempo_bpm, the sample answer's loop.tempo_bpm, /grade's
 * bar_consistency.tempo_bpm).
 *
 * The loops (development sets; lmms-common is held out and never read):
 * - sonic-pi-samples: every `loop_*` FLAC. Its bar count comes from its length by this rule: B ∈ {1, 2, 4, 8}
 *   with 240·B/length in 70–180 BPM and within 0.1 % of a whole BPM (loops are made at whole tempi; a name
 *   that gives the tempo, `_97`, is used as the whole BPM instead). Two such B (an octave apart): the
 *   fewer bars. A loop no B fits is not an exact number of bars and is listed as such, not scored.
 * - tempo-loops (rendered here, eval/real-audio/tempo-loops.ts): GM drum patterns and bass lines at a
 *   known tempo and bar count, cut to the exact length.
 *
 * False positives (files that are not loops of their length, must not get a loop-length tempo): the
 * uncut renders of tempo-loops (`*_take.wav`: the loop played twice with 0.2 s of silence before and 1 s
 * after), every 15th hydrogen hit and every 8th GM one-shot (`drum_*`, `prog*_note_*`) of the gm-fluid set
 * in <cache>/sets, in name order. Counted per answer: tempo_source 'loop_length' (for /grade, its
 * detected_tempo_source or tempo_source).
 *
 * Pass (the target): the tempo makes the loop a whole number of bars within 1 %:
 * bars = length·bpm/240, error = |bars / round(bars) − 1|, round(bars) ≥ 1. "level" says whether the
 * bar count is also the labelled one (the metrical level; an octave off still passes the target).
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { postSample, startSourceServer } from '../eval-support.js';
import { cacheDir, convertToWav, ensurePackage, readWav16 } from '../real-audio/packages.js';
import { renderTempoLoops } from '../real-audio/tempo-loops.js';

interface EvalLoop {
  readonly set: string;
  readonly key: string;
  readonly wav: string;
  readonly duration: number;
  /** Labelled bars and tempo; null when the length is not an exact number of bars (not scored). */
  readonly bars: number | null;
  readonly bpm: number | null;
  readonly rule: string;
}

/** The bar count of a loop from its length (see the rule above). */
export function barsFromLength(duration: number, nameBpm: number | null): { bars: number; bpm: number } | null {
  for (const bars of [1, 2, 4, 8]) {
    const bpm = (240 * bars) / duration;
    if (bpm < 70 || bpm > 180) continue;
    const whole = nameBpm ?? Math.round(bpm);
    if (Math.abs(bpm / whole - 1) <= 0.001) return { bars, bpm };
  }
  return null;
}

function sonicPiLoops(): EvalLoop[] {
  const pkg = ensurePackage('sonic-pi-samples');
  const dir = path.join(pkg.dir, 'usr', 'share', 'sonic-pi', 'samples');
  const out: EvalLoop[] = [];
  for (const f of readdirSync(dir)
    .filter((n) => /^loop_.*\.flac$/.test(n))
    .sort()) {
    const wav = path.join(cacheDir, 'tempo-loops', 'sonic-pi', f.replace(/\.flac$/, '.wav'));
    convertToWav(path.join(dir, f), wav);
    const w = readWav16(wav);
    const duration = w.samples.length / w.channels / w.sampleRate;
    const nameBpm = /_(\d{2,3})$/.exec(f.replace(/\.flac$/, ''))?.[1];
    const label = barsFromLength(duration, nameBpm ? Number(nameBpm) : null);
    out.push({
      set: 'sonic-pi',
      key: f,
      wav,
      duration,
      bars: label?.bars ?? null,
      bpm: label?.bpm ?? null,
      rule: label
        ? `length ${duration.toFixed(4)} s = ${label.bars} bar(s) at ${label.bpm.toFixed(2)} BPM`
        : `length ${duration.toFixed(4)} s: no whole-BPM bar count`,
    });
  }
  return out;
}

function renderedLoops(): EvalLoop[] {
  return renderTempoLoops().map((l) => {
    const w = readWav16(l.wav);
    return {
      set: 'tempo-loops',
      key: l.key,
      wav: l.wav,
      duration: w.samples.length / w.channels / w.sampleRate,
      bars: l.bars,
      bpm: l.bpm,
      rule: `rendered: ${l.bars} bar(s) at ${l.bpm} BPM`,
    };
  });
}

/** The files that must not get a loop-length tempo (see above). */
function nonLoops(): { set: string; key: string; wav: string }[] {
  const takes = readdirSync(path.join(cacheDir, 'tempo-loops'))
    .filter((n) => n.endsWith('_take.wav'))
    .sort()
    .map((n) => ({ set: 'uncut renders', key: n, wav: path.join(cacheDir, 'tempo-loops', n) }));
  const every = (dir: string, step: number, keep: (n: string) => boolean) =>
    readdirSync(path.join(cacheDir, 'sets', dir))
      .filter((n) => n.endsWith('.wav') && keep(n))
      .sort()
      .filter((_, i) => i % step === 0)
      .map((n) => ({ set: dir, key: n, wav: path.join(cacheDir, 'sets', dir, n) }));
  return [...takes, ...every('hydrogen', 15, () => true), ...every('gm-fluid', 8, (n) => /^(drum_|prog\d+_note_)/.test(n))];
}

function post(url: string, route: string, wav: string): Promise<Record<string, unknown>> {
  return postSample<Record<string, unknown>>(url, `/audio/v1${route}`, wav);
}

interface Answer {
  readonly bpm: number | null;
  readonly source: string | null;
}

interface Scored {
  readonly loop: EvalLoop;
  readonly onsets: Answer;
  readonly sample: Answer;
  readonly grade: Answer;
}

/** Whole bars at `bpm` and the relative error from them; pass when ≤ 1 % and at least one bar. */
export function judge(duration: number, bpm: number | null): { bars: number | null; error: number | null; pass: boolean } {
  if (bpm === null || !(bpm > 0)) return { bars: null, error: null, pass: false };
  const bars = (duration * bpm) / 240;
  const whole = Math.round(bars);
  if (whole < 1) return { bars, error: null, pass: false };
  const error = Math.abs(bars / whole - 1);
  return { bars, error, pass: error <= 0.01 };
}

async function main(): Promise<void> {
  const loops = [...sonicPiLoops(), ...renderedLoops()];
  const negatives = nonLoops();
  const server = await startSourceServer();
  const scored: Scored[] = [];
  const falsePositives: { set: string; key: string; answer: string; bpm: number | null }[] = [];
  try {
    let nextNegative = 0;
    const negativeLane = async () => {
      while (nextNegative < negatives.length) {
        const n = negatives[nextNegative++]!;
        const o = await post(server.url, '/onsets', n.wav);
        const s = (await post(server.url, '/analyze/samples', n.wav)) as {
          loop: { tempo_bpm: number | null; tempo_source: string | null };
        };
        const g = (await post(server.url, '/grade', n.wav)) as {
          sub_scores: { bar_consistency: { tempo_bpm: number | null; tempo_source: string | null; detected_tempo_source: string | null } };
        };
        const b = g.sub_scores.bar_consistency;
        if (o['tempo_source'] === 'loop_length') falsePositives.push({ ...n, answer: '/onsets', bpm: o['tempo_bpm'] as number | null });
        if (s.loop.tempo_source === 'loop_length') falsePositives.push({ ...n, answer: '/analyze/samples loop', bpm: s.loop.tempo_bpm });
        if (b.tempo_source === 'loop_length' || b.detected_tempo_source === 'loop_length')
          falsePositives.push({ ...n, answer: '/grade', bpm: b.tempo_bpm });
      }
    };
    await Promise.all([negativeLane(), negativeLane()]);
    let next = 0;
    const lane = async () => {
      while (next < loops.length) {
        const loop = loops[next++]!;
        const o = await post(server.url, '/onsets', loop.wav);
        const s = (await post(server.url, '/analyze/samples', loop.wav)) as {
          loop: { tempo_bpm: number | null; tempo_source: string | null };
        };
        const g = (await post(server.url, '/grade', loop.wav)) as {
          sub_scores: { bar_consistency: { tempo_bpm: number | null; tempo_source: string | null } };
        };
        scored.push({
          loop,
          onsets: { bpm: o['tempo_bpm'] as number | null, source: o['tempo_source'] as string | null },
          sample: { bpm: s.loop.tempo_bpm, source: s.loop.tempo_source },
          grade: { bpm: g.sub_scores.bar_consistency.tempo_bpm, source: g.sub_scores.bar_consistency.tempo_source },
        });
      }
    };
    await Promise.all([lane(), lane()]);
  } finally {
    await server.stop();
  }
  scored.sort((a, b) => (a.loop.set + a.loop.key < b.loop.set + b.loop.key ? -1 : 1));
  const fmt = (x: number | null, d: number) => (x === null ? '—' : x.toFixed(d));
  console.log(`Tempo of real loops (${new Date().toISOString().slice(0, 10)}), /onsets per loop:`);
  console.log('| set | loop | expected bars | expected BPM | got BPM | source | bars | error % | pass | level |');
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const s of scored) {
    const j = judge(s.loop.duration, s.onsets.bpm);
    const level = s.loop.bars !== null && j.bars !== null ? (Math.round(j.bars) === s.loop.bars ? 'yes' : 'no') : '—';
    const pass = s.loop.bars === null ? 'not scored' : j.pass ? 'pass' : 'FAIL';
    console.log(
      `| ${s.loop.set} | ${s.loop.key} | ${s.loop.bars ?? 'not whole'} | ${fmt(s.loop.bpm, 2)} | ${fmt(s.onsets.bpm, 2)} | ${s.onsets.source ?? '—'} | ${fmt(j.bars, 3)} | ${j.error === null ? '—' : (100 * j.error).toFixed(2)} | ${pass} | ${level} |`,
    );
  }
  const exact = scored.filter((s) => s.loop.bars !== null);
  console.log('');
  console.log('| answer | set | loops | whole bars ±1 % | labelled bar count | loop_length source |');
  console.log('|---|---|---|---|---|---|');
  for (const answer of ['onsets', 'sample', 'grade'] as const) {
    for (const set of ['sonic-pi', 'tempo-loops', 'all']) {
      const rows = exact.filter((s) => set === 'all' || s.loop.set === set);
      const pass = rows.filter((s) => judge(s.loop.duration, s[answer].bpm).pass).length;
      const level = rows.filter((s) => {
        const j = judge(s.loop.duration, s[answer].bpm);
        return j.bars !== null && Math.round(j.bars) === s.loop.bars;
      }).length;
      const fromLength = rows.filter((s) => s[answer].source === 'loop_length').length;
      console.log(
        `| ${answer === 'onsets' ? '/onsets' : answer === 'sample' ? '/analyze/samples loop' : '/grade bar_consistency'} | ${set} | ${rows.length} | ${pass} (${((100 * pass) / Math.max(1, rows.length)).toFixed(1)} %) | ${level} | ${fromLength} |`,
      );
    }
  }
  const sub = scored.filter((s) => s.loop.bars !== null && s.loop.duration <= 2.05);
  const subPass = sub.filter((s) => judge(s.loop.duration, s.onsets.bpm).pass).length;
  console.log(`\nLoops of 2 s or less: ${subPass}/${sub.length} whole bars (/onsets).`);
  const sets = [...new Set(negatives.map((n) => n.set))];
  console.log(`\nFalse positives (a loop-length tempo for a file that is not a loop of its length), ${negatives.length} files:`);
  console.log('| set | files | /onsets | /analyze/samples loop | /grade |');
  console.log('|---|---|---|---|---|');
  for (const set of [...sets, 'all']) {
    const files = negatives.filter((n) => set === 'all' || n.set === set).length;
    const count = (answer: string) => falsePositives.filter((f) => f.answer === answer && (set === 'all' || f.set === set)).length;
    console.log(`| ${set} | ${files} | ${count('/onsets')} | ${count('/analyze/samples loop')} | ${count('/grade')} |`);
  }
  for (const f of falsePositives) console.log(`  false positive: ${f.set} ${f.key} ${f.answer} ${f.bpm ?? '—'} BPM`);
  // Where the three answers differ on a scored loop (the same loop-tempo rule, but /analyze/samples has its
  // own onsets and pulse, and /grade refines the tempo on the onsets' grid).
  for (const s of exact) {
    const verdicts = (['onsets', 'sample', 'grade'] as const).map((a) => judge(s.loop.duration, s[a].bpm).pass);
    if (new Set(verdicts).size > 1)
      console.log(
        `  answers differ: ${s.loop.set} ${s.loop.key} /onsets ${fmt(s.onsets.bpm, 2)} (${s.onsets.source ?? '—'}), sample ${fmt(s.sample.bpm, 2)} (${s.sample.source ?? '—'}), grade ${fmt(s.grade.bpm, 2)} (${s.grade.source ?? '—'})`,
      );
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
