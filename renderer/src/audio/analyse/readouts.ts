// Number formatting and scale math for the result panels.

/** Where `value` sits on a meter from `min` to `max`, clamped to 0..1 (0 for a missing value). */
export function meterFraction(value: number | null, min: number, max: number): number {
  if (value === null || !Number.isFinite(value) || max <= min) return 0;
  return Math.min(1, Math.max(0, (value - min) / (max - min)));
}

/** A point on the valence/arousal plane (both −1..1) in a square `size` wide: valence right, arousal up. */
export function planePoint(valence: number, arousal: number, size: number): { readonly x: number; readonly y: number } {
  const clamp = (v: number) => Math.min(1, Math.max(-1, v));
  return { x: ((clamp(valence) + 1) / 2) * size, y: ((1 - clamp(arousal)) / 2) * size };
}

const minus = '\u2212';

/** A number with a real minus sign and `digits` decimals; "—" for null (a value the server could not measure). */
export function formatFixed(value: number | null | undefined, digits: number): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  const text = Math.abs(value).toFixed(digits);
  return value < 0 && Number(text) !== 0 ? `${minus}${text}` : text;
}

/** A signed gain, "+8.5 dB" or "−3.0 dB". */
export function formatGain(db: number | null): string {
  if (db === null) return '—';
  return `${db > 0 ? '+' : ''}${formatFixed(db, 1)} dB`;
}

/** A feature value with as many decimals as its size needs: 2602, 437.7, 37.41, 0.120. */
export function formatMeasure(value: number): string {
  const magnitude = Math.abs(value);
  if (magnitude >= 1000) return formatFixed(value, 0);
  if (magnitude >= 100) return formatFixed(value, 1);
  if (magnitude >= 1) return formatFixed(value, 2);
  return formatFixed(value, 3);
}

/** A 0..1 share as a whole percentage, "99 %"; below one percent as "< 1 %". */
export function formatPercent(share: number): string {
  if (share > 0 && share < 0.005) return '< 1 %';
  return `${Math.round(share * 100)} %`;
}

/** "percs" → "Percs", "low_mid" → "Low mid". */
export function humanize(key: string): string {
  const words = key.replace(/_/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}
