import { describe, expect, it } from 'vitest';
import { transparentEmotionModel, type EmotionMeasures } from './emotion-model.js';

const base: EmotionMeasures = {
  tempoBpm: 120,
  loudnessLufs: -14,
  onsetRate: 4,
  centroidHz: 1500,
  mode: 'major',
  keyClarity: 0.8,
  harmonicity: 0.8,
};

describe('transparent emotion model', () => {
  it('reads a fast, loud, bright major track as positive and energetic (happy or excited)', () => {
    const p = transparentEmotionModel.predict({ ...base, tempoBpm: 128, loudnessLufs: -9, onsetRate: 6, centroidHz: 3000 });
    expect(p.valence).toBeGreaterThan(0.3);
    expect(p.arousal).toBeGreaterThan(0.4);
    expect(['happy', 'excited']).toContain(p.top[0]!.emotion);
  });

  it('reads a slow, quiet, dark minor track as negative and calm (sad or melancholic)', () => {
    const p = transparentEmotionModel.predict({ ...base, tempoBpm: 66, loudnessLufs: -28, onsetRate: 0.8, centroidHz: 500, mode: 'minor' });
    expect(p.valence).toBeLessThan(-0.2);
    expect(p.arousal).toBeLessThan(-0.4);
    expect(['sad', 'melancholic']).toContain(p.top[0]!.emotion);
  });

  it('moves each axis in the documented direction for each cue, all else equal', () => {
    const f = (m: Partial<EmotionMeasures>) => transparentEmotionModel.predict({ ...base, ...m });
    expect(f({ tempoBpm: 150 }).arousal).toBeGreaterThan(f({ tempoBpm: 80 }).arousal);
    expect(f({ loudnessLufs: -8 }).arousal).toBeGreaterThan(f({ loudnessLufs: -30 }).arousal);
    expect(f({ onsetRate: 8 }).arousal).toBeGreaterThan(f({ onsetRate: 1 }).arousal);
    expect(f({ mode: 'major' }).valence).toBeGreaterThan(f({ mode: 'minor' }).valence);
    expect(f({ harmonicity: 0.9 }).valence).toBeGreaterThan(f({ harmonicity: 0.1 }).valence);
  });

  it('keeps valence and arousal in −1..1 and top scores summing to at most 1, for extreme inputs', () => {
    for (const m of [
      { tempoBpm: 300, loudnessLufs: 5, onsetRate: 50, centroidHz: 20000 },
      { tempoBpm: null, loudnessLufs: null, onsetRate: 0, centroidHz: 0, mode: null, keyClarity: 0, harmonicity: 0 },
    ]) {
      const p = transparentEmotionModel.predict({ ...base, ...m });
      expect(Math.abs(p.valence)).toBeLessThanOrEqual(1);
      expect(Math.abs(p.arousal)).toBeLessThanOrEqual(1);
      expect(p.top).toHaveLength(3);
      expect(p.top.reduce((s, x) => s + x.score, 0)).toBeLessThanOrEqual(1.001);
    }
  });
});
