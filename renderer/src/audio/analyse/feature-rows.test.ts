import { describe, expect, it } from 'vitest';
import type { AnalyzeResponse } from '../../api/audio';
import { featureGroups } from './feature-rows';

// The features part of a real /analyze answer (the e2e drum loop), trimmed to what the rows use.
const features = {
  duration_analysed_s: 3.871,
  stft: { n_fft: 2048, hop: 512, frames: 334, active_frames: 215 },
  spectral: { centroid_hz: 2602.1, flatness: 0.12031, contrast_db: [19.65, 8.15] },
  mfcc: { mean: [-437.73, 37.412], std: [117.841, 43.651] },
  chroma: {
    mean: { C: 0.019, 'C#': 0.019, A: 1 },
    tuning_cents: -6.2,
    key: 'A',
    mode: 'major',
    key_confidence: 0.018,
    key_correlation: 0.684,
    runner_up: { key: 'A', mode: 'minor', correlation: 0.678 },
  },
  envelope: { attack_s: 0, decay_s: null },
  rhythm: { tempo_bpm: 123.98, beat_strength: 9.465 },
  units: {
    spectral: { centroid_hz: 'Hz', flatness: '0..1', contrast_db: 'dB' },
    mfcc: { mean: 'dB (cepstral)', std: 'dB (cepstral)' },
    chroma: { mean: '0..1', tuning_cents: 'cents', runner_up: 'key, mode, correlation -1..1' },
    envelope: { attack_s: 's', decay_s: 's' },
    rhythm: { tempo_bpm: 'BPM', beat_strength: 'ratio (1 = no beat emphasis)' },
  },
} as unknown as AnalyzeResponse['features'];

describe('featureGroups', () => {
  const groups = featureGroups(features);
  const row = (key: string) => groups.flatMap((g) => g.rows).find((r) => r.key === key);

  it('lists the five groups in order, without the STFT bookkeeping', () => {
    expect(groups.map((g) => g.key)).toEqual(['spectral', 'mfcc', 'chroma', 'envelope', 'rhythm']);
    expect(row('stft.frames')).toBeUndefined();
  });

  it('labels each value and takes its unit from the answer', () => {
    expect(row('spectral.centroid_hz')).toMatchObject({ label: 'Centroid', value: '2602', unit: 'Hz' });
    expect(row('spectral.flatness')).toMatchObject({ value: '0.120', unit: '0..1' });
    expect(row('rhythm.tempo_bpm')).toMatchObject({ label: 'Tempo', value: '124.0', unit: 'BPM' });
    expect(row('chroma.key')).toMatchObject({ value: 'A', unit: null });
  });

  it('joins arrays, writes the runner-up key and marks missing values', () => {
    expect(row('spectral.contrast_db')?.value).toBe('19.65 · 8.15');
    expect(row('spectral.contrast_db')?.values).toEqual([
      { label: '0–200', value: '19.65' },
      { label: '200–400', value: '8.15' },
    ]);
    expect(row('mfcc.mean')?.values?.[1]).toEqual({ label: 'c1', value: '37.41' });
    expect(row('mfcc.mean')?.value).toBe('\u2212437.7 · 37.41');
    expect(row('chroma.runner_up')?.value).toBe('A minor (r 0.678)');
    expect(row('envelope.decay_s')?.value).toBe('—');
  });

  it('keeps the pitch-class means for the chroma bars', () => {
    expect(row('chroma.mean')?.chroma).toEqual([
      { pitchClass: 'C', value: 0.019 },
      { pitchClass: 'C#', value: 0.019 },
      { pitchClass: 'A', value: 1 },
    ]);
  });

  it('writes why a key is withheld in words, without the list of reasons as its unit', () => {
    const withheld = {
      ...features,
      chroma: {
        ...(features.chroma as object),
        key: null,
        mode: null,
        key_reason: 'no_pitched_content',
        best_guess: { key: 'E', mode: 'minor', correlation: 0.41 },
      },
      units: { ...(features.units as object), chroma: { key_reason: 'no_pitched_content | low_confidence' } },
    } as unknown as AnalyzeResponse['features'];
    const rows = featureGroups(withheld).flatMap((g) => g.rows);
    expect(rows.find((r) => r.key === 'chroma.key_reason')).toMatchObject({ label: 'Why no key', value: 'no pitched content', unit: null });
    expect(rows.find((r) => r.key === 'chroma.best_guess')).toMatchObject({ label: 'Nearest key', value: 'E minor (r 0.410)' });
  });
});
