import { describe, expect, it, vi } from 'vitest';
import type { HeldAudio } from '../../api/held-audio';
import { describeGradedLength, requestGrade } from './grade-request';

describe('requestGrade', () => {
  it('asks /grade without a role hint, so both screens send the same query', async () => {
    const analyse = vi.fn(async () => ({ result: {}, cache: 'miss' }));
    const audio = { analyse, item: () => null } as unknown as HeldAudio;
    const options = { signal: new AbortController().signal };
    await requestGrade(audio, options);
    expect(analyse).toHaveBeenCalledWith('grade', {}, options);
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
