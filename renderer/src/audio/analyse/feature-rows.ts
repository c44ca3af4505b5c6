// The /analyze features part as grouped rows for a compact table, each value with its unit from the
// answer's own `units` map (so a unit the server changes shows up here without a code change).
import type { AnalyzeResponse } from '../../api/audio';
import { formatMeasure, humanize } from './readouts';

type Features = AnalyzeResponse['features'];

/** One row: a label, the value as text and its unit (null when the answer gives none). */
export interface FeatureRow {
  readonly key: string;
  readonly label: string;
  readonly value: string;
  readonly unit: string | null;
  /** Each entry of an array value (MFCC coefficients, contrast bands) with its own label. */
  readonly values?: readonly { readonly label: string; readonly value: string }[];
  /** The 12 pitch-class means, for the chroma row that draws them as bars. */
  readonly chroma?: readonly { readonly pitchClass: string; readonly value: number }[];
}

/** A titled group of rows (Spectral, MFCC, Chroma, Envelope, Rhythm). */
export interface FeatureGroup {
  readonly key: string;
  readonly title: string;
  readonly rows: readonly FeatureRow[];
}

const labels: Readonly<Record<string, string>> = {
  centroid_hz: 'Centroid',
  centroid_std_hz: 'Centroid spread',
  bandwidth_hz: 'Bandwidth',
  rolloff_hz: 'Roll-off (85 %)',
  rolloff_std_hz: 'Roll-off spread',
  flatness: 'Flatness',
  flux: 'Flux',
  flux_std: 'Flux spread',
  contrast_db: 'Contrast (7 bands)',
  zero_crossing_rate: 'Zero-crossing rate',
  mean: 'Mean',
  std: 'Spread',
  tuning_cents: 'Tuning',
  key: 'Key',
  mode: 'Mode',
  key_confidence: 'Key confidence',
  key_correlation: 'Key correlation',
  runner_up: 'Runner-up key',
  key_reason: 'Why no key',
  best_guess: 'Nearest key',
  tonal_stability: 'Tonal stability',
  attack_s: 'Attack',
  decay_s: 'Decay',
  sustain_level: 'Sustain level',
  temporal_centroid_s: 'Temporal centroid',
  crest_db: 'Crest factor',
  dynamic_range_db: 'Dynamic range',
  tempo_bpm: 'Tempo',
  onset_rate_per_s: 'Onset rate',
  beat_strength: 'Beat strength',
  pulse_clarity: 'Pulse clarity',
};

/** Labels of the entries of array-valued features. */
const entryLabels: Readonly<Record<string, (index: number) => string>> = {
  contrast_db: (i) => ['0–200', '200–400', '400–800', '0.8–1.6k', '1.6–3.2k', '3.2–6.4k', '6.4k+'][i] ?? `band ${i + 1}`,
  mean: (i) => `c${i}`,
  std: (i) => `c${i}`,
};

const titles: Readonly<Record<string, string>> = {
  spectral: 'Spectral',
  mfcc: 'MFCC (c0–c12)',
  chroma: 'Chroma and key',
  envelope: 'Envelope',
  rhythm: 'Rhythm',
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The unit the answer gives for group.field, if any. */
function unitOf(units: unknown, group: string, field: string): string | null {
  if (!isRecord(units)) return null;
  const inGroup = units[group];
  const unit = isRecord(inGroup) ? inGroup[field] : undefined;
  return typeof unit === 'string' ? unit : null;
}

function valueText(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'number') return formatMeasure(value);
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(valueText).join(' · ');
  if (isRecord(value) && typeof value.key === 'string' && typeof value.mode === 'string') {
    // chroma.runner_up: {key, mode, correlation}
    return `${value.key} ${value.mode}${typeof value.correlation === 'number' ? ` (r ${formatMeasure(value.correlation)})` : ''}`;
  }
  return JSON.stringify(value);
}

/** The feature groups of an /analyze answer, in the order of the answer. */
export function featureGroups(features: Features): FeatureGroup[] {
  const groups: FeatureGroup[] = [];
  for (const group of ['spectral', 'mfcc', 'chroma', 'envelope', 'rhythm'] as const) {
    const fields: unknown = features[group];
    if (!isRecord(fields)) continue;
    const rows: FeatureRow[] = [];
    for (const [field, value] of Object.entries(fields)) {
      const unit = unitOf(features.units, group, field);
      if (group === 'chroma' && field === 'mean' && isRecord(value)) {
        const chroma = Object.entries(value).map(([pitchClass, v]) => ({ pitchClass, value: typeof v === 'number' ? v : 0 }));
        rows.push({
          key: `${group}.${field}`,
          label: 'Pitch classes',
          value: chroma.map((c) => `${c.pitchClass} ${formatMeasure(c.value)}`).join(', '),
          unit,
          chroma,
        });
        continue;
      }
      const values = Array.isArray(value)
        ? value.map((entry, i) => ({ label: (entryLabels[field] ?? ((n: number) => String(n + 1)))(i), value: valueText(entry) }))
        : undefined;
      // key_reason's "unit" lists its values: show the one given, in words, and no unit.
      if (field === 'key_reason') {
        rows.push({
          key: `${group}.${field}`,
          label: labels[field]!,
          value: typeof value === 'string' ? value.replaceAll('_', ' ') : '—',
          unit: null,
        });
        continue;
      }
      rows.push({
        key: `${group}.${field}`,
        label: labels[field] ?? humanize(field),
        value: valueText(value),
        unit,
        ...(values ? { values } : {}),
      });
    }
    groups.push({ key: group, title: titles[group] ?? humanize(group), rows });
  }
  return groups;
}
