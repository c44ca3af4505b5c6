import { describe, expect, it } from 'vitest';
import { estimateMixShares, explainRole, isMixture, MODEL_ROLES, roleLogits, scoreRoleModel } from './role-model.js';
import { extractRoleFeatures, ROLE_FEATURES, type RoleMeasurements } from './role-model-features.js';
import { ROLE_MODEL_WEIGHTS } from './role-model-weights.js';
import { capConfidence } from './sample-role.js';

/** Measurements of a typical kind of sample (values as the engine reports them). */
function measurements(
  over: Partial<{ [K in keyof RoleMeasurements]: Partial<RoleMeasurements[K]> }> & { duration_s?: number } = {},
): RoleMeasurements {
  const base: RoleMeasurements = {
    duration_s: 0.4,
    bands: { sub: 0.3, low: 0.5, low_mid: 0.15, high_mid: 0.04, high: 0.01 },
    spectrum: { centroid_hz: 120, above_4k: 0.02, flatness: 0.01, tonal_peak_share: 0.2, centroid_motion_oct: 0.3 },
    percussion: { hpss_percussive: 0.7, onset_count: 1, onset_density: 2.5 },
    pitch: { f0_hz: 55, salience: 0.3, voiced_fraction: 0.3, spread_semitones: 2 },
    envelope: { attack_s: 0.005, decay_s: 0.15, sustain: 0.1, mean_drop_db: 14 },
    stereo: { width: 0 },
    loop: { halves_similarity: 0.1, end_level_db: -30, tempo_bpm: null },
  };
  const out = { ...base } as Record<string, unknown>;
  for (const [k, v] of Object.entries(over))
    out[k] = typeof v === 'object' && v !== null ? { ...(base as unknown as Record<string, object>)[k], ...v } : v;
  return out as unknown as RoleMeasurements;
}

describe('role model', () => {
  it('has a weights file that matches the features and is well formed', () => {
    const w = ROLE_MODEL_WEIGHTS;
    expect(w.features).toEqual(ROLE_FEATURES.map((f) => f.name));
    expect(w.mean).toHaveLength(ROLE_FEATURES.length);
    expect(w.roles).toEqual([...MODEL_ROLES]);
    expect(w.temperature).toBeGreaterThan(0);
    for (const round of w.trees) {
      expect(round).toHaveLength(MODEL_ROLES.length);
      for (const t of round) {
        for (let n = 0; n < t.feature.length; n++) {
          if (t.feature[n]! < 0) continue;
          expect(t.feature[n]!).toBeLessThan(ROLE_FEATURES.length);
          expect(t.left[n]!).toBeGreaterThan(n);
          expect(t.right[n]!).toBeGreaterThan(n);
        }
      }
    }
    expect(w.fitted).toHaveProperty('packages');
  });

  it('gives probabilities that sum to 1 and logits equal to the trees', () => {
    const m = measurements();
    const out = scoreRoleModel(m);
    expect(MODEL_ROLES.reduce((s, r) => s + out.probabilities[r], 0)).toBeCloseTo(1, 12);
    expect(out.logits).toEqual(roleLogits(extractRoleFeatures(m)));
    for (const v of Object.values(out.features)) expect(Number.isFinite(v)).toBe(true);
  });

  it('explains a role with 1–3 distinct phrases', () => {
    for (const m of [
      measurements(),
      measurements({ spectrum: { above_4k: 0.8, flatness: 0.3 }, bands: { sub: 0, low: 0.02, low_mid: 0.08, high_mid: 0.3, high: 0.6 } }),
    ]) {
      const out = scoreRoleModel(m);
      const role = MODEL_ROLES.reduce((a, b) => (out.probabilities[b] > out.probabilities[a] ? b : a));
      const reasons = explainRole(role, m);
      expect(reasons.length).toBeGreaterThanOrEqual(1);
      expect(reasons.length).toBeLessThanOrEqual(3);
      expect(new Set(reasons).size).toBe(reasons.length);
    }
  });

  it('calls a long, busy, broadband, percussive and harmonic clip a mixture, and a drum hit not', () => {
    const mix = measurements({
      duration_s: 30,
      percussion: { hpss_percussive: 0.45, onset_count: 70, onset_density: 2.4 },
      pitch: { salience: 0.5 },
      spectrum: { above_4k: 0.12 },
      envelope: { sustain: 0.9, mean_drop_db: 4 },
    });
    expect(isMixture(mix)).toBe(true);
    expect(isMixture(measurements())).toBe(false);
    const shares = estimateMixShares(mix);
    expect(MODEL_ROLES.reduce((s, r) => s + shares[r], 0)).toBeCloseTo(1, 12);
    for (const r of MODEL_ROLES) expect(shares[r]).toBeGreaterThanOrEqual(0);
  });

  it('caps a confidence and keeps the order and the sum', () => {
    const p = { percs: 0.9, bass: 0.05, melodic: 0.03, tops: 0.015, atmos: 0.005 };
    const c = capConfidence(p, 0.4);
    expect(Math.max(...Object.values(c))).toBeCloseTo(0.4, 12);
    expect(Object.values(c).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    const order = (x: typeof p) =>
      Object.entries(x)
        .sort((a, b) => b[1] - a[1])
        .map(([k]) => k);
    expect(order(c)).toEqual(order(p));
  });
});
