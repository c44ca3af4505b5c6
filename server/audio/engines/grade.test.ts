import { describe, expect, it } from 'vitest';
import { gradeEngine } from './grade.js';
import {
  compositeScore,
  FLAG_CODES,
  resolveRole,
  ROLE_WEIGHTS,
  SCORE_FLOOR,
  scopeGrade,
  studentT975,
  SUB_SCORES,
  tierOf,
  type GradeFlagCode,
  type GradeResult,
  type SubScoreName,
} from './grade-policy.js';
import type { GradeResponse } from '../api-types.js';
import { gradeSchema } from './grade-schema.js';
import { drumLoop, type DrumPattern } from '../../test-support/drums.js';
import { interleave, sine } from '../../test-support/signals.js';

// Every fixture is synthesized; each defect is put in on purpose and its size is known from the definition
// (e.g. a DC step of exactly 0.05 on a loop that starts and ends on exact zeros), so the expected
// measurements are computed here from the samples, not from the engine.

const FS = 44100;
const BPM = 124;
const BAR = (4 * 60) / BPM;

/** Chunk sizes in frames, cycled: odd sizes, a single frame, sizes around the edge buffers, large reads. */
const UNEVEN = [1, 7, 333, 1023, 1024, 1025, 4093, 16384, 3, 65536, 500];

function grade(channels: readonly Float32Array[], role = '', chunkFrames: readonly number[] = [4096], sampleRate = FS): GradeResult {
  const engine = gradeEngine.create({ sampleRate, channels: channels.length, channelLayout: null, totalFrames: null }, { role });
  const x = interleave(channels);
  const c = channels.length;
  for (let i = 0, k = 0; i < x.length; k++) {
    const frames = chunkFrames[k % chunkFrames.length]!;
    engine.push(x.subarray(i, Math.min(x.length, i + frames * c)));
    i += frames * c;
  }
  return engine.finish();
}

const codes = (r: GradeResult): GradeFlagCode[] => r.flags.map((f) => f.code);

/**
 * A well-cut drum loop: exactly `bars` bars at `bpm`, with a 5 ms pre-roll before the first downbeat (so the
 * loop starts and ends in silence and every hit has died out before the end), peaking at −3 dBFS.
 * `extra` seconds of silence are appended (a loop that is not whole bars).
 */
function cleanLoop(options: { bpm?: number; bars?: number; pattern?: DrumPattern; extra?: number; leadIn?: number } = {}): Float32Array[] {
  const leadIn = options.leadIn ?? 0.005;
  const loop = drumLoop({
    bpm: options.bpm ?? BPM,
    bars: options.bars ?? 4,
    sampleRate: FS,
    pattern: options.pattern ?? 'straight16',
    leadIn,
    tail: -leadIn + (options.extra ?? 0),
    gainDb: -6,
  });
  return loop.channels.map((ch) => Float32Array.from(ch));
}

/** A sine with a period of exactly `period` samples, `cycles` whole cycles plus `extra` samples. */
function periodicSine(period: number, cycles: number, amp: number, extra = 0): Float32Array {
  const n = period * cycles + extra;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = amp * Math.sin((2 * Math.PI * i) / period);
  return out;
}

describe('grade engine: a clean, well-cut loop', () => {
  const clean = cleanLoop();
  const result = grade(clean);

  it('is exactly 4 bars long and starts and ends on silence (fixture check)', () => {
    expect(clean[0]!.length).toBe(Math.round(4 * BAR * FS));
    for (const ch of clean) {
      expect(ch[0]).toBe(0);
      expect(ch[ch.length - 1]).toBe(0);
    }
  });

  it('raises no flag and is tier S or A, every sub-score high', () => {
    expect(result.flags).toEqual([]);
    expect(['S', 'A']).toContain(result.tier);
    expect(result.score).toBeGreaterThanOrEqual(0.8);
    for (const k of SUB_SCORES) expect(result.sub_scores[k].score).toBeGreaterThanOrEqual(0.9);
  });

  it("measures 4 whole bars at the loop-length tempo, which the onsets' fitted grid agrees with, the bars alike", () => {
    const b = result.sub_scores.bar_consistency;
    expect(b.tempo_source).toBe('loop_length');
    expect(b.length_score).toBe(1);
    expect(Math.abs(b.tempo_bpm! / BPM - 1)).toBeLessThan(0.002);
    expect(b.whole_bars).toBe(4);
    expect(Math.abs(b.length_error_ms!)).toBeLessThan(5);
    expect(b.bar_similarity!).toBeGreaterThan(0.95);
  });

  it('reports the measurements behind the scores', () => {
    expect(result.duration_s).toBeCloseTo(clean[0]!.length / FS, 3);
    expect(result.sub_scores.seam_click.jump).toBe(0);
    expect(result.sub_scores.zero_crossing.start.sample).toBe(0);
    expect(result.sub_scores.zero_crossing.end.crossing_distance_ms).toBe(0);
    // Means computed here from the samples.
    const means = clean.map((ch) => ch.reduce((s, v) => s + v, 0) / ch.length);
    means.forEach((m, c) => expect(result.sub_scores.dc_offset.mean[c]).toBeCloseTo(m, 6));
    expect(result.sub_scores.bass_mono.correlation).toBeGreaterThan(0.99);
    expect(result.sub_scores.level.clip_runs).toBe(0);
    expect(result.sub_scores.level.sample_peak_dbfs).toBeCloseTo(
      20 * Math.log10(Math.max(...clean.map((ch) => ch.reduce((m, v) => Math.max(m, Math.abs(v)), 0)))),
      2,
    );
  });
});

describe('seam click', () => {
  it('a loop whose end does not meet its start (a 0.05 DC step on the last 50 ms) is flagged and scores lower', () => {
    const clean = cleanLoop();
    const stepped = cleanLoop();
    const n = stepped[0]!.length;
    for (const ch of stepped) for (let i = n - Math.round(0.05 * FS); i < n; i++) ch[i] = ch[i]! + 0.05;
    const a = grade(clean);
    const b = grade(stepped);
    expect(codes(a)).not.toContain('seam_click');
    expect(codes(b)).toContain('seam_click');
    expect(b.score).toBeLessThan(a.score);
    expect(b.sub_scores.seam_click.score).toBeLessThan(0.5);
    // The clean loop ends on 0, so the wrap jumps by the step itself (float32 of 0 + 0.05).
    expect(b.sub_scores.seam_click.jump).toBeCloseTo(Math.fround(0.05), 6);
    expect(b.sub_scores.seam_click.jump_dbfs).toBeCloseTo(20 * Math.log10(0.05), 1);
  });

  it('a sustained tone cut mid-waveform clicks; the same tone cut after whole cycles does not', () => {
    // Period 400 samples (110.25 Hz at 44.1 kHz): 800 whole cycles, then a quarter period more.
    const whole = periodicSine(400, 800, 0.5);
    const cut = periodicSine(400, 800, 0.5, 100);
    const a = grade([whole, whole]);
    const b = grade([cut, cut]);
    expect(codes(a)).toEqual([]);
    expect(codes(b)).toEqual(expect.arrayContaining(['seam_click', 'end_not_at_zero_crossing']));
    expect(b.score).toBeLessThan(a.score);
    // Whole cycles: the wrap is one ordinary step, |x[0] − x[N−1]| = 0.5·sin(2π/400).
    expect(a.sub_scores.seam_click.jump).toBeCloseTo(Math.abs(whole[0]! - whole[whole.length - 1]!), 6);
    expect(a.sub_scores.seam_click.ratio).toBeLessThan(2);
    expect(b.sub_scores.seam_click.jump).toBeCloseTo(Math.abs(cut[0]! - cut[cut.length - 1]!), 6);
    expect(b.sub_scores.seam_click.ratio).toBeGreaterThan(16);
  });

  it('an end on a negative crest is flagged like a positive one', () => {
    const crest = periodicSine(400, 800, 0.5, 300); // ends three quarters into a cycle: on −0.5
    const r = grade([crest, crest]);
    expect(crest[crest.length - 1]!).toBeLessThan(-0.49);
    expect(codes(r)).toContain('end_not_at_zero_crossing');
    expect(r.sub_scores.zero_crossing.end.relative_level).toBeGreaterThan(0.99);
  });

  it('a wrap straight into a hit at sample 0 is masked by the hit (no seam flag)', () => {
    const hard = cleanLoop({ leadIn: 0 });
    expect(Math.abs(hard[0]![0]!)).toBeGreaterThan(0.01); // the loop starts on the kick's beater click
    const r = grade(hard);
    expect(codes(r)).not.toContain('seam_click');
  });
});

describe('DC offset', () => {
  it('+0.05 on every sample is flagged with its size; the clean loop is not', () => {
    const clean = cleanLoop();
    const offset = cleanLoop().map((ch) => ch.map((v) => v + 0.05));
    const a = grade(clean);
    const b = grade(offset);
    expect(codes(a)).not.toContain('dc_offset');
    expect(codes(b)).toContain('dc_offset');
    const expected = offset.map((ch) => ch.reduce((s, v) => s + v, 0) / ch.length);
    expected.forEach((m, c) => expect(b.sub_scores.dc_offset.mean[c]).toBeCloseTo(m, 6));
    expect(b.sub_scores.dc_offset.max_abs).toBeCloseTo(Math.max(...expected.map(Math.abs)), 6);
    expect(b.sub_scores.dc_offset.max_abs_dbfs).toBeCloseTo(20 * Math.log10(Math.max(...expected.map(Math.abs))), 2);
    expect(b.sub_scores.dc_offset.score).toBeLessThan(0.1);
    expect(b.score).toBeLessThan(a.score);
  });
});

describe('clipping', () => {
  /** Runs of ≥ 3 samples at |x| ≥ 0.999 per channel, counted directly. */
  function clipRuns(channels: readonly Float32Array[]): number {
    let runs = 0;
    for (const ch of channels) {
      let n = 0;
      for (let i = 0; i <= ch.length; i++) {
        if (i < ch.length && Math.abs(ch[i]!) >= 0.999) n++;
        else {
          if (n >= 3) runs++;
          n = 0;
        }
      }
    }
    return runs;
  }

  it('a loud loop hard-clipped at 1.0 is flagged with the exact run count; the clean loop is not', () => {
    const loud = drumLoop({ bpm: BPM, bars: 4, sampleRate: FS, pattern: 'straight16', leadIn: 0.005, tail: -0.005, gainDb: 12 });
    const clipped = loud.channels.map((ch) => ch.map((v) => Math.max(-1, Math.min(1, v))));
    const expected = clipRuns(clipped);
    expect(expected).toBeGreaterThan(10);
    const r = grade(clipped);
    expect(codes(r)).toContain('clipping');
    expect(r.sub_scores.level.clip_runs).toBe(expected);
    expect(r.sub_scores.level.score).toBeLessThan(0.5);
    const clean = grade(cleanLoop());
    expect(codes(clean)).not.toContain('clipping');
    expect(clean.sub_scores.level.clip_runs).toBe(0);
    expect(r.score).toBeLessThan(clean.score);
  });

  it('a single full-scale sample (a normalised peak) is not a clip run', () => {
    const x = periodicSine(400, 200, 0.5);
    x[1000] = 1;
    const r = grade([x, x]);
    expect(r.sub_scores.level.clip_runs).toBe(0);
    expect(codes(r)).not.toContain('clipping');
  });
});

describe('bass mono compatibility', () => {
  // Period 800 samples (55.125 Hz): 400 whole cycles, so the loop itself wraps cleanly.
  const bass = periodicSine(800, 400, 0.4);
  const inverted = bass.map((v) => -v);

  it('a bass sine in L and inverted in R is flagged; in phase it is not', () => {
    const anti = grade([bass, inverted]);
    const same = grade([bass, bass]);
    expect(codes(anti)).toContain('bass_out_of_phase');
    expect(codes(same)).not.toContain('bass_out_of_phase');
    // R = −L exactly: correlation −1 and the mono sum cancels (floored at −100 dB).
    expect(anti.sub_scores.bass_mono.correlation).toBe(-1);
    expect(anti.sub_scores.bass_mono.mono_sum_db).toBe(-100);
    expect(anti.sub_scores.bass_mono.score).toBe(0);
    expect(same.sub_scores.bass_mono.correlation).toBe(1);
    expect(same.sub_scores.bass_mono.mono_sum_db).toBe(0);
    expect(same.sub_scores.bass_mono.score).toBe(1);
    expect(anti.score).toBeLessThan(same.score);
  });

  it('an out-of-phase bass under an in-phase drum loop is still flagged', () => {
    const loop = cleanLoop();
    const n = loop[0]!.length;
    // 426 whole cycles over the loop (≈ 55 Hz).
    const b = sine(FS, n / FS, (426 * FS) / n, 0.3);
    const anti = [loop[0]!.map((v, i) => v + b[i]!), loop[1]!.map((v, i) => v - b[i]!)];
    const r = grade(anti);
    expect(codes(r)).toContain('bass_out_of_phase');
    expect(r.sub_scores.bass_mono.correlation!).toBeLessThan(-0.5);
    expect(codes(grade(cleanLoop()))).not.toContain('bass_out_of_phase');
  });

  it('mono input is not judged (score 1, correlation null)', () => {
    const r = grade([bass]);
    expect(r.sub_scores.bass_mono.correlation).toBeNull();
    expect(r.sub_scores.bass_mono.score).toBe(1);
  });
});

describe('bar consistency', () => {
  it('4 bars + 37 ms is flagged not_whole_bars with the error measured; exactly 4 bars is not', () => {
    const exact = grade(cleanLoop());
    const long = grade(cleanLoop({ extra: 0.037 }));
    expect(codes(exact)).not.toContain('not_whole_bars');
    expect(codes(long)).toContain('not_whole_bars');
    const b = long.sub_scores.bar_consistency;
    expect(b.whole_bars).toBe(4);
    expect(b.length_error_ms!).toBeGreaterThan(32);
    expect(b.length_error_ms!).toBeLessThan(42);
    expect(b.length_error_pct_of_bar!).toBeCloseTo((b.length_error_ms! / 1000 / b.bar_s!) * 100, 2);
    expect(long.score).toBeLessThan(exact.score);
    expect(long.sub_scores.bar_consistency.score!).toBeLessThan(0.5);
  });

  it.each([
    { bpm: 90, pattern: 'straight8' as const },
    { bpm: 140, pattern: 'swing' as const },
    { bpm: 174, pattern: 'syncopated' as const },
    { bpm: 110, pattern: 'ghost' as const },
  ])('$bpm BPM $pattern: whole bars pass, 37 ms over or under is flagged', ({ bpm, pattern }) => {
    const exact = grade(cleanLoop({ bpm, pattern }));
    expect(codes(exact)).not.toContain('not_whole_bars');
    expect(Math.abs(exact.sub_scores.bar_consistency.length_error_ms!)).toBeLessThan(5);
    for (const extra of [0.037, -0.037]) {
      const r = grade(cleanLoop({ bpm, pattern, extra }));
      expect(codes(r)).toContain('not_whole_bars');
      expect(Math.abs(r.sub_scores.bar_consistency.length_error_ms! - extra * 1000)).toBeLessThan(5);
    }
  });

  it('a one-bar loop (1.94 s, too short for the periodicity) gets its tempo from its length and is checked', () => {
    const r = grade(cleanLoop({ bars: 1 }));
    const b = r.sub_scores.bar_consistency;
    expect(b.detected_tempo_source).toBe('loop_length');
    expect(b.detected_tempo_bpm).toBeCloseTo(BPM, 1);
    expect(b.whole_bars).toBe(1);
    expect(b.score).not.toBeNull();
    expect(Math.abs(b.length_error_ms!)).toBeLessThan(5);
    // 37 ms too long: the length is judged on the onsets' own grid, not on the tempo the length gave.
    const long = grade(cleanLoop({ bars: 1, extra: 0.037 }));
    expect(long.sub_scores.bar_consistency.tempo_source).toBe('onset_grid');
    expect(Math.abs(long.sub_scores.bar_consistency.length_error_ms! - 37)).toBeLessThan(5);
    expect(codes(long)).toContain('not_whole_bars');
  });

  it('a sound without a tempo is not scored on bars (null, weights renormalised)', () => {
    const tone = periodicSine(400, 800, 0.5);
    const r = grade([tone, tone]);
    expect(r.sub_scores.bar_consistency.score).toBeNull();
    expect(r.weights.bar_consistency).toBe(0);
    expect(SUB_SCORES.reduce((s, k) => s + r.weights[k], 0)).toBeCloseTo(1, 3);
  });
});

describe('every flag is absent on the clean loop and present on its own defect', () => {
  it('covers each flag code', () => {
    const clean = grade(cleanLoop());
    const seen = new Set<GradeFlagCode>();
    const collect = (r: GradeResult) => r.flags.forEach((f) => seen.add(f.code));
    const n = cleanLoop()[0]!.length;
    collect(grade(cleanLoop().map((ch) => ch.map((v, i) => (i >= n - 2205 ? v + 0.05 : v))))); // seam, end edge
    const crest = periodicSine(400, 800, 0.5).map((_, i) => 0.5 * Math.cos((2 * Math.PI * i) / 400));
    collect(grade([crest, crest])); // start and end edges (a cosine: it wraps smoothly, but both ends sit on a crest)
    collect(grade(cleanLoop().map((ch) => ch.map((v) => v + 0.05)))); // dc
    collect(grade(cleanLoop().map((ch) => ch.map((v) => v * 0.01)))); // too quiet
    collect(grade(cleanLoop().map((ch) => ch.map((v) => Math.max(-1, Math.min(1, v * 4)))))); // clipping, true peak
    const b = periodicSine(800, 400, 0.4);
    collect(grade([b, b.map((v) => -v)])); // bass
    collect(grade(cleanLoop({ extra: 0.037 }))); // bars
    expect([...seen].sort()).toEqual([...FLAG_CODES].sort());
    expect(clean.flags).toEqual([]);
  });

  it('every flag carries a sentence', () => {
    const r = grade(cleanLoop({ extra: 0.037 }).map((ch) => ch.map((v) => v + 0.05)));
    expect(r.flags.length).toBeGreaterThan(0);
    for (const f of r.flags) {
      expect(f.message.length).toBeGreaterThan(20);
      expect(f.message).toMatch(/^[A-Z].*\.$/);
    }
  });
});

describe('role hint', () => {
  it('resolves synonyms (drums → percs …) and falls back to default', () => {
    expect(resolveRole('drums')).toBe('percs');
    expect(resolveRole(' Drum Loop ')).toBe('percs');
    expect(resolveRole('hi-hats')).toBe('tops');
    expect(resolveRole('808')).toBe('bass');
    expect(resolveRole('Pads')).toBe('atmos');
    expect(resolveRole('keys')).toBe('melodic');
    expect(resolveRole('')).toBe('default');
    expect(resolveRole('kazoo')).toBe('default');
  });

  it('every weight row sums to 1', () => {
    for (const row of Object.values(ROLE_WEIGHTS)) expect(SUB_SCORES.reduce((s, k) => s + row[k], 0)).toBeCloseTo(1, 10);
  });

  it('changes the composite where the weights differ, and the composite follows the documented formula', () => {
    // Not whole bars and an out-of-phase bass: two imperfect sub-scores with different weights per role.
    const loop = cleanLoop({ extra: 0.037 });
    const n = loop[0]!.length;
    const b = sine(FS, n / FS, (426 * FS) / n, 0.1);
    const input = [loop[0]!.map((v, i) => v + b[i]!), loop[1]!.map((v, i) => v - b[i]!)];
    const byRole = Object.fromEntries(['', 'drums', 'percs', 'bass', 'pad'].map((role) => [role, grade(input, role)]));
    // Same measurements whatever the role.
    for (const r of Object.values(byRole)) expect(r.sub_scores).toEqual(byRole['']!.sub_scores);
    expect(byRole['drums']!.role_used).toBe('percs');
    expect(byRole['drums']!.score).toBe(byRole['percs']!.score);
    const scores = new Set(['', 'percs', 'bass', 'pad'].map((role) => byRole[role]!.score));
    expect(scores.size).toBe(4);
    // Bars weigh more for drums than for pads; bass mono more for bass than for drums.
    const s = byRole['']!.sub_scores;
    expect(s.bar_consistency.score!).toBeLessThan(s.bass_mono.score);
    expect(byRole['percs']!.score).toBeLessThan(byRole['pad']!.score);
    // Independent recomputation: Π max(s, 0.05)^w.
    for (const [role, r] of Object.entries(byRole)) {
      const row = ROLE_WEIGHTS[resolveRole(role)];
      let log = 0;
      for (const k of SUB_SCORES) log += row[k] * Math.log(Math.max(0.05, r.sub_scores[k].score!));
      expect(r.score).toBeCloseTo(Math.exp(log), 3);
      expect(r.tier).toBe(tierOf(r.score));
      for (const k of SUB_SCORES) expect(r.weights[k]).toBeCloseTo(row[k], 4);
    }
  });

  it('compositeScore renormalises over the scored sub-scores and floors at 0.05', () => {
    const scores: Record<SubScoreName, number | null> = {
      seam_click: 0,
      zero_crossing: 1,
      dc_offset: 1,
      bar_consistency: null,
      level: 1,
      bass_mono: 1,
    };
    const { score, weights } = compositeScore(scores, 'default');
    const w = ROLE_WEIGHTS.default.seam_click / (1 - ROLE_WEIGHTS.default.bar_consistency);
    expect(weights.seam_click).toBeCloseTo(w, 12);
    expect(weights.bar_consistency).toBe(0);
    expect(score).toBeCloseTo(0.05 ** w, 12);
  });

  it('tiers: S ≥ 0.9, A ≥ 0.8, B ≥ 0.65, C ≥ 0.5, else D', () => {
    expect([0.95, 0.9, 0.89, 0.8, 0.7, 0.65, 0.6, 0.5, 0.49, 0].map(tierOf)).toEqual(['S', 'S', 'A', 'A', 'B', 'B', 'C', 'C', 'D', 'D']);
  });
});

describe('streaming', () => {
  it('gives identical results whatever the chunk sizes', () => {
    // A loop with several defects, so that every measurement is non-trivial.
    const loop = cleanLoop({ extra: 0.037 });
    const n = loop[0]!.length;
    const b = sine(FS, n / FS, 55, 0.2);
    const input = [loop[0]!.map((v, i) => v + b[i]! + 0.004), loop[1]!.map((v, i) => Math.min(1, 3 * v) - b[i]!)];
    const whole = grade(input, 'bass', [n]);
    expect(grade(input, 'bass', UNEVEN)).toEqual(whole);
    expect(grade(input, 'bass', [1])).toEqual(whole);
    expect(grade(input, 'bass', [511, 513, 2])).toEqual(whole);
    expect(whole.flags.length).toBeGreaterThanOrEqual(3);
  });

  it('handles empty input, digital silence, a single frame, mono and 5 channels', () => {
    const empty = grade([new Float32Array(0), new Float32Array(0)]);
    expect(empty.score).toBe(0);
    expect(empty.tier).toBe('D');
    const silence = grade([new Float32Array(FS), new Float32Array(FS)]);
    expect(silence.score).toBe(0);
    expect(codes(silence)).toEqual(['too_quiet']);
    const one = grade([Float32Array.of(0.3)]);
    expect(codes(one)).toEqual(['start_not_at_zero_crossing', 'end_not_at_zero_crossing', 'dc_offset']);
    const loop = cleanLoop();
    expect(grade([loop[0]!]).flags).toEqual([]);
    const five = grade([loop[0]!, loop[1]!, loop[0]!, loop[1]!, loop[0]!]);
    expect(five.flags).toEqual([]);
    expect(five.sub_scores.dc_offset.mean).toHaveLength(5);
  });

  it('rejects a push after finish and a chunk that is not whole frames', () => {
    const e = gradeEngine.create({ sampleRate: FS, channels: 2, channelLayout: null, totalFrames: null }, { role: '' });
    expect(() => e.push(new Float32Array(3))).toThrow(RangeError);
    e.finish();
    expect(() => e.push(new Float32Array(2))).toThrow();
    expect(() => e.finish()).toThrow();
  });
});

describe('scopeGrade: the head of a longer file', () => {
  // A steady 124 BPM loop of exactly 31 bars = 60 s; the route grades its first 30 s = 15.5 bars, the
  // issue's "15.5 bars, over by 967 ms": a length that says where the head was cut, not how the loop is cut.
  const HEAD_S = 30;
  const FILE_S = (31 * 4 * 60) / BPM;
  const file = cleanLoop({ bars: 31, pattern: 'straight8', leadIn: 0 });
  const head = file.map((ch) => ch.subarray(0, HEAD_S * FS));
  const raw = grade(head, 'drums');
  const scoped = scopeGrade(raw, FILE_S);

  it('fixture: the file is 60 s, and the head alone is judged 15.5 bars long and flagged', () => {
    expect(file[0]!.length).toBe(60 * FS);
    expect(raw.sub_scores.bar_consistency.bars).toBeCloseTo(15.5, 1);
    expect(codes(raw)).toContain('not_whole_bars');
  });

  it('says how much was graded of how much', () => {
    expect(scoped.graded_s).toBe(30);
    expect(scoped.duration_s).toBe(60);
  });

  it('marks the seam and the bar length not applicable, with the reason, and drops their flags', () => {
    for (const k of ['seam_click', 'bar_consistency'] as const) {
      expect(scoped.sub_scores[k].applicable).toBe(false);
      expect(scoped.sub_scores[k].score).toBeNull();
      expect(scoped.sub_scores[k].reason).toBe('only the first 30 s of 1:00 were graded');
      expect(scoped.weights[k]).toBe(0);
    }
    expect(codes(scoped)).not.toContain('not_whole_bars');
    expect(codes(scoped)).not.toContain('seam_click');
  });

  it('scores the other four alone (clean edges on the start alone), with the role weights renormalised over them', () => {
    const rest = ['zero_crossing', 'dc_offset', 'level', 'bass_mono'] as const;
    const row = ROLE_WEIGHTS.percs;
    const total = rest.reduce((t, k) => t + row[k], 0);
    const judged = (k: (typeof rest)[number]): number =>
      k === 'zero_crossing' ? raw.sub_scores.zero_crossing.start.score! : raw.sub_scores[k].score;
    const expected = Math.exp(rest.reduce((l, k) => l + (row[k] / total) * Math.log(Math.max(SCORE_FLOOR, judged(k))), 0));
    expect(scoped.score).toBeCloseTo(expected, 3);
    for (const k of rest) expect(scoped.weights[k]).toBeCloseTo(row[k] / total, 4);
    expect(scoped.tier).toBe(tierOf(scoped.score));
    // The measurements stay for the curious; only the judgement changes.
    expect(scoped.sub_scores.bar_consistency.bars).toBe(raw.sub_scores.bar_consistency.bars);
    expect(scoped.score).toBeGreaterThan(raw.score);
  });

  it('leaves a wholly graded exact 2-bar loop as it was: seam and bars applicable and scored', () => {
    const loop = cleanLoop({ bars: 2 });
    const whole = grade(loop, 'drums');
    const same = scopeGrade(whole, loop[0]!.length / FS);
    expect(same).toEqual(whole);
    expect(same.sub_scores.seam_click.applicable).toBe(true);
    expect(same.sub_scores.bar_consistency.applicable).toBe(true);
    expect(same.sub_scores.bar_consistency.whole_bars).toBe(2);
    expect(same.sub_scores.bar_consistency.score).toBeGreaterThan(0.9);
    expect(same.sub_scores.seam_click.score).toBeGreaterThan(0.9);
    expect(same.weights.bar_consistency).toBeGreaterThan(0);
  });

  it('does not judge the end of a head cut mid-waveform: the edges score is the start alone', () => {
    // A 60 s sine at 100.125 Hz from phase 0: the file starts on a zero crossing, and 30 s in it has run
    // 3003.75 cycles, so the last sample of the 30 s head sits on a (negative) crest: a hard edge that is
    // the cut's, not the file's.
    const tone = sine(FS, 60, 100.125, 0.5);
    const cut = grade([tone.subarray(0, HEAD_S * FS)], 'bass');
    expect(Math.abs(tone[HEAD_S * FS - 1]!)).toBeGreaterThan(0.49);
    expect(cut.sub_scores.zero_crossing.end.score).toBeLessThan(0.5);
    expect(codes(cut)).toContain('end_not_at_zero_crossing');
    const tScoped = scopeGrade(cut, 60);
    const edges = tScoped.sub_scores.zero_crossing;
    expect(edges.start.applicable).toBe(true);
    expect(edges.start.score).toBeGreaterThan(0.99);
    expect(edges.end.applicable).toBe(false);
    expect(edges.end.score).toBeNull();
    expect(edges.end.reason).toBe('only the first 30 s of 1:00 were graded');
    // The measurement stays; the judgement goes.
    expect(edges.end.relative_level).toBe(cut.sub_scores.zero_crossing.end.relative_level);
    expect(edges.score).toBe(edges.start.score);
    expect(codes(tScoped)).not.toContain('end_not_at_zero_crossing');
    expect(tScoped.score).toBeGreaterThan(cut.score);
    // Wholly graded, the same end is the file's end and is judged.
    const whole = scopeGrade(cut, HEAD_S);
    expect(whole.sub_scores.zero_crossing.end.applicable).toBe(true);
    expect(codes(whole)).toContain('end_not_at_zero_crossing');
  });

  it('keeps the score of digital silence at 0', () => {
    const silent = grade([new Float32Array(FS), new Float32Array(FS)]);
    expect(scopeGrade(silent, 10).score).toBe(0);
  });
});

describe('gradeSchema', () => {
  it('describes the engine output exactly (nothing stripped, everything valid)', () => {
    const source = { duration_s: 7.742, sample_rate: FS, channels: 2, format: 'wav' };
    const n = cleanLoop()[0]!.length;
    const inputs: Float32Array[][] = [
      cleanLoop(),
      cleanLoop({ extra: 0.037 }).map((ch) => ch.map((v, i) => (i >= n - 2205 ? v + 0.05 : v))),
      [new Float32Array(FS), new Float32Array(FS)],
      [periodicSine(400, 100, 0.5)],
    ];
    for (const x of inputs) {
      for (const r of [grade(x, 'drums'), scopeGrade(grade(x, 'drums'), 60)]) {
        const body = { source, ...r };
        const parsed: GradeResponse = gradeSchema.parse(body);
        expect(parsed).toEqual(body);
      }
    }
  });

  it('types agree with the engine result', () => {
    const check = (r: GradeResult): GradeResponse => ({ source: { duration_s: 1, sample_rate: FS, channels: 1, format: 'wav' }, ...r });
    expect(typeof check).toBe('function');
  });
});

describe('studentT975', () => {
  it("matches the tabled two-sided 95 % quantiles of Student's t", () => {
    expect(studentT975(2)).toBeCloseTo(4.303, 3);
    expect(studentT975(6)).toBeCloseTo(2.447, 3);
    expect(Math.abs(studentT975(20) - 2.086)).toBeLessThan(0.01);
    expect(Math.abs(studentT975(1e6) - 1.96)).toBeLessThan(0.001);
    expect(studentT975(0)).toBe(Infinity);
  });
});
