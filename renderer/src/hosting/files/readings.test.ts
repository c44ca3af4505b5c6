import { describe, expect, it } from 'vitest';
import type { AnalyzeResponse } from '../../api/audio';
import { readingsOf } from './readings';

/** The parts of an /analyze body the readings read; the rest does not matter here. */
function analysis(parts: {
  rhythm?: number | null;
  emotionTempo?: number | null;
  loopTempo?: number | null;
  key?: string | null;
  mode?: string | null;
}): AnalyzeResponse {
  return {
    source: { duration_s: 4 },
    emotion: { measures: { loudness_lufs: -14.2, tempo_bpm: parts.emotionTempo ?? null } },
    features: {
      chroma: { key: parts.key ?? null, mode: parts.mode ?? null, key_confidence: 0.4 },
      rhythm: parts.rhythm === undefined ? undefined : { tempo_bpm: parts.rhythm },
    },
    sample: { role: 'percs', confidence: 0.9, level: { peak_dbfs: -1 }, loop: { tempo_bpm: parts.loopTempo ?? null } },
  } as unknown as AnalyzeResponse;
}

describe('readingsOf', () => {
  it('takes the onsets tempo first, then the emotion measure, then the loop length', () => {
    expect(readingsOf(analysis({ rhythm: 120, emotionTempo: 119, loopTempo: 121 })).tempoBpm).toBe(120);
    expect(readingsOf(analysis({ rhythm: null, emotionTempo: 119, loopTempo: 121 })).tempoBpm).toBe(119);
    expect(readingsOf(analysis({ loopTempo: 121 })).tempoBpm).toBe(121);
    expect(readingsOf(analysis({})).tempoBpm).toBeNull();
  });

  it('names the key with its mode, or none', () => {
    expect(readingsOf(analysis({ key: 'A', mode: 'minor' }))).toMatchObject({ key: 'A minor', keyConfidence: 0.4 });
    expect(readingsOf(analysis({}))).toMatchObject({ key: null, keyConfidence: null });
  });

  it('reads loudness, peak, duration and role', () => {
    expect(readingsOf(analysis({}))).toMatchObject({ durationS: 4, loudnessLufs: -14.2, peakDbfs: -1, role: 'percs', roleConfidence: 0.9 });
  });
});
