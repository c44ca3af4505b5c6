import { describe, expect, it } from 'vitest';
import { amplitudeY, columnBins, columnMax, columnMin, formatClock, movingRms, seekTarget, timeTicks, zoomFactors } from './waveform-math';

describe('columnBins', () => {
  it('splits 4000 bins over 1000 columns four at a time', () => {
    const { start, end } = columnBins(0, 4000, 1000, 4000);
    expect([start[0], end[0]]).toEqual([0, 4]);
    expect([start[999], end[999]]).toEqual([3996, 4000]);
  });

  it('gives every column at least one bin when zoomed past one bin per pixel', () => {
    const { start, end } = columnBins(10, 12.5, 5, 4000);
    expect(Array.from(start)).toEqual([10, 10, 11, 11, 12]);
    expect(Array.from(end)).toEqual([11, 11, 12, 12, 13]);
  });

  it('never reads past the last bin', () => {
    const { start, end } = columnBins(3998, 4000.5, 3, 4000);
    expect(Math.max(...end)).toBe(4000);
    expect(Math.max(...start)).toBe(3999);
  });
});

describe('column extremes', () => {
  it('takes the highest maximum and the lowest minimum of each column', () => {
    const { start, end } = columnBins(0, 4, 2, 4);
    expect(Array.from(columnMax([0.1, 0.5, -0.2, 0.3], start, end))).toEqual([Math.fround(0.5), Math.fround(0.3)]);
    expect(Array.from(columnMin([-0.1, -0.5, 0.2, -0.3], start, end))).toEqual([Math.fround(-0.5), Math.fround(-0.3)]);
  });

  it('maps amplitude to canvas y with full scale at the edges', () => {
    expect(amplitudeY(1, 100)).toBe(0);
    expect(amplitudeY(0, 100)).toBe(50);
    expect(amplitudeY(-1, 100)).toBe(100);
    expect(amplitudeY(-3, 100)).toBe(100);
  });
});

describe('zoomFactors', () => {
  it('doubles until a bin is four pixels wide', () => {
    // A 3.87 s loop fitted into 1200 px: 310 px/s; 4000 bins × 4 px / 3.87 s = 4134 px/s.
    expect(zoomFactors(1200 / 3.87, 4000, 3.87)).toEqual([1, 2, 4, 8]);
  });

  it('stops early when the bins are few for the width', () => {
    // 1000 bins over 1200 px: a bin is 1.2 px at fit, so ×2 (2.4 px) but not ×4 (4.8 px).
    expect(zoomFactors(1200 / 1200, 1000, 1200)).toEqual([1, 2]);
    expect(zoomFactors(0, 4000, 3)).toEqual([1]);
  });
});

describe('seekTarget', () => {
  it('moves by a beat, or by a bar with Shift, within the file', () => {
    expect(seekTarget('ArrowRight', false, 1, 4, 120)).toBeCloseTo(1.5, 10);
    expect(seekTarget('ArrowLeft', true, 3, 4, 120)).toBeCloseTo(1, 10);
    expect(seekTarget('ArrowLeft', false, 0.2, 4, 120)).toBe(0);
    expect(seekTarget('End', false, 1, 4, null)).toBe(4);
    expect(seekTarget('Home', false, 1, 4, null)).toBe(0);
  });

  it('moves by a second without a tempo and ignores other keys', () => {
    expect(seekTarget('ArrowRight', false, 1, 4, null)).toBe(2);
    expect(seekTarget('a', false, 1, 4, null)).toBeNull();
  });
});

describe('formatClock and timeTicks', () => {
  it('shows minutes, seconds and hundredths', () => {
    expect(formatClock(3.871)).toBe('0:03.87');
    expect(formatClock(724.5)).toBe('12:04.50');
    expect(formatClock(3723)).toBe('1:02:03.00');
    expect(formatClock(-1)).toBe('0:00.00');
  });

  it('labels the time axis at 1-2-5 steps', () => {
    expect(timeTicks(3.871)).toEqual([0, 1, 2, 3]);
    expect(timeTicks(180)).toEqual([0, 50, 100, 150]);
  });
});

describe('movingRms', () => {
  it('is the RMS of the bins around each bin', () => {
    const out = movingRms([0, 1, 0, 1], 2);
    // Windows [0,1], [0,1], [1,2], [2,3]: sqrt((0+1)/2) = 0.707 each.
    expect(Array.from(out).map((v) => Number(v.toFixed(3)))).toEqual([0.707, 0.707, 0.707, 0.707]);
    expect(Array.from(movingRms([0.5, 0.5], 1))).toEqual([0.5, 0.5]);
  });

  it('centres the window on the bin (a step shows where it sits)', () => {
    // Window 2, half = 1: bins i − 1 and i, clamped at the start: [0,1], [0,1], [1,2], [2,3].
    //   i=0: 0,0 → 0   i=1: 0,0 → 0   i=2: 0,1 → sqrt(1/2) = 0.707   i=3: 1,1 → 1
    // A window starting at the bin (bins i and i + 1) would give 0.707 at i=1 and 1 at i=2.
    const even = movingRms([0, 0, 1, 1], 2);
    expect(Array.from(even).map((v) => Number(v.toFixed(3)))).toEqual([0, 0, 0.707, 1]);

    // Window 3, half = 1, bins i − 1 … i + 1, cut short at the end (divided by the bins it has):
    //   i=0: bins 0–2 = 0,0,0 → 0          i=1: bins 0–2 = 0,0,0 → 0
    //   i=2: bins 1–3 = 0,0,1 → sqrt(1/3) = 0.577
    //   i=3: bins 2–4 = 0,1,1 → sqrt(2/3) = 0.816
    //   i=4: bins 3–5 = 1,1,1 → 1          i=5: bins 4–5 = 1,1 → sqrt(2/2) = 1 (not sqrt(2/3))
    // A window ending at the bin would give 0 at i=2, one starting there 0.816.
    const odd = movingRms([0, 0, 0, 1, 1, 1], 3);
    expect(Array.from(odd).map((v) => Number(v.toFixed(3)))).toEqual([0, 0, 0.577, 0.816, 1, 1]);
  });
});
