import { describe, expect, it } from 'vitest';
import { summaryEngine } from './summary.js';
import { gradeEngine } from './grade.js';
import { scopeGrade } from './grade-policy.js';
import { drumLoop } from '../../test-support/drums.js';
import { interleave } from '../../test-support/signals.js';

const FS = 44_100;

/** Feed interleaved stereo in 8192-sample chunks and finish. */
function run<R>(engine: { push(x: Float32Array): void; finish(): R }, x: Float32Array): R {
  for (let i = 0; i < x.length; i += 8192) engine.push(x.subarray(i, i + 8192));
  return engine.finish();
}

describe('summary: the tier of a file longer than the graded head', () => {
  it('is the grade without the loop-only checks (the 30 s head of a 60 s loop is 15.5 bars, not a bad loop)', () => {
    // 31 bars at 124 BPM = exactly 60 s; the head is the first 30 s.
    const channels = drumLoop({ bpm: 124, bars: 31, sampleRate: FS, pattern: 'straight8', leadIn: 0, tail: 0, gainDb: -6 }).channels.map(
      (c) => Float32Array.from(c.subarray(0, 60 * FS)),
    );
    const x = interleave(channels);
    const format = { sampleRate: FS, channels: 2, channelLayout: null, totalFrames: null };
    const head = run(gradeEngine.create(format, { role: '' }), x.subarray(0, 30 * FS * 2));
    const scoped = scopeGrade(head, 60);
    // Fixture: judged as a loop, the head's length pulls the tier down; scoped, it does not.
    expect(head.flags.map((f) => f.code)).toContain('not_whole_bars');
    expect(scoped.tier).not.toBe(head.tier);
    expect(run(summaryEngine.create(format, { index: 1 }), x).tier).toBe(scoped.tier);
  });
});
