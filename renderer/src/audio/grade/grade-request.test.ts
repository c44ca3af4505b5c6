import { describe, expect, it, vi } from 'vitest';

const analyse = vi.fn(async () => ({ result: {}, cache: 'miss' }));
vi.mock('../../api/audio', () => ({ analyse }));

const { describeGradedLength, requestGrade } = await import('./grade-request');

describe('requestGrade', () => {
  it('asks /grade without a role hint, so both screens send the same query', async () => {
    const file = new File([new Uint8Array(4)], 'loop.wav');
    const options = { token: 't' };
    await requestGrade(file, options);
    expect(analyse).toHaveBeenCalledWith('grade', file, 'loop.wav', {}, options);
  });
});

describe('describeGradedLength', () => {
  it('names the graded head and the whole length of a longer file', () => {
    expect(describeGradedLength(30, 180)).toBe('first 30 s of 3:00');
    expect(describeGradedLength(30, 60)).toBe('first 30 s of 1:00');
  });

  it('says the whole file was graded when the head is all of it (container rounding included)', () => {
    expect(describeGradedLength(7.742, 7.742)).toBe('whole file (7.7 s)');
    expect(describeGradedLength(30, 30.02)).toBe('whole file (30 s)');
  });
});
