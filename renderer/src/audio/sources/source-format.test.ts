import { describe, expect, it } from 'vitest';
import type { JobStatus } from '../../api/audio';
import { ApiError } from '../../api/http';
import { descriptorOf, formatDuration, jobErrorSentence, submitProblem } from './source-format';

const job = (overrides: Partial<JobStatus>): JobStatus => ({
  job_id: 'j',
  type: 'source',
  status: 'pending',
  progress: 0,
  created: 1,
  ...overrides,
});

describe('source formatting', () => {
  it('writes durations', () => {
    expect(formatDuration(2)).toBe('2 s');
    expect(formatDuration(4.25)).toBe('4.3 s');
    expect(formatDuration(187)).toBe('3:07');
    expect(formatDuration(3725)).toBe('1:02:05');
  });
});

describe('job outcomes', () => {
  it('reads a descriptor only from a finished job', () => {
    const result = { content_id: 'c', name: 'a.wav', duration_s: 2, channels: 1 };
    expect(descriptorOf(job({ status: 'done', result }))).toEqual(result);
    expect(descriptorOf(job({ status: 'running', result }))).toBeNull();
    expect(descriptorOf(job({ status: 'done', result: { something: 'else' } }))).toBeNull();
    expect(descriptorOf(job({ status: 'done', result: null }))).toBeNull();
  });

  it('says cancelled for a cancelled job and ends the server sentence with a full stop', () => {
    expect(jobErrorSentence(job({ status: 'error', error: 'cancelled' }))).toBe('Cancelled.');
    expect(jobErrorSentence(job({ status: 'error', error: 'http://x/ answered HTTP 404 Not Found' }))).toBe(
      'http://x/ answered HTTP 404 Not Found.',
    );
    expect(jobErrorSentence(job({ status: 'error', error: 'Gave up.' }))).toBe('Gave up.');
    expect(jobErrorSentence(job({ status: 'error', error: null }))).toBe('The job failed without saying why.');
  });

  it('words a refused URL without the field path', () => {
    const body = { detail: [{ loc: ['body', 'url'], msg: 'URL should be an absolute http or https URL', type: 'custom' }] };
    expect(submitProblem(new ApiError(422, 'Url: URL should be an absolute http or https URL.', body))).toBe(
      'URL should be an absolute http or https URL.',
    );
    expect(submitProblem(new ApiError(503, 'ffmpeg is not available.', { detail: 'ffmpeg is not available' }))).toBe(
      'ffmpeg is not available.',
    );
    expect(submitProblem(new ApiError(422, 'Priority: too big.', { detail: [{ loc: ['body', 'priority'], msg: 'too big' }] }))).toBe(
      'Priority: too big.',
    );
  });
});
