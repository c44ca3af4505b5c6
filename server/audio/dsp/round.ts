/**
 * The one rounding rule of every reported number: round half up (`Math.round`) at `digits` decimals.
 * A result of −0 becomes 0 (JSON writes both as 0, and tests comparing with `toEqual` would tell them
 * apart); NaN stays NaN and ±Infinity stays as it is (callers map non-finite values to null first).
 */
export function roundTo(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f + 0;
}
