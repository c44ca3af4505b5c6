import { describe, expect, it } from 'vitest';
import { isPending, serverHolds, statusText, uploadFraction } from './request-status';
import { idleRequests, type RequestStates } from './use-analysis';

describe('the file’s one upload', () => {
  it('is the largest share any waiting request heard of, and null when none waits', () => {
    expect(uploadFraction(idleRequests)).toBeNull();
    const requests: RequestStates = {
      ...idleRequests,
      waveform: { status: 'uploading', fraction: 0.25 },
      onsets: { status: 'uploading', fraction: 0.5 },
      loudness: { status: 'queued' },
    };
    expect(uploadFraction(requests)).toBe(0.5);
    // Sent: the requests are analysing, and the bar goes.
    expect(uploadFraction({ ...requests, waveform: { status: 'analysing' }, onsets: { status: 'analysing' } })).toBeNull();
    // A listener that heard 0 % before the first byte left still counts as an upload under way.
    expect(uploadFraction({ ...idleRequests, grade: { status: 'uploading', fraction: 0 } })).toBe(0);
  });

  it('is on the server once any request is past it, and not while the requests wait or after they failed', () => {
    expect(serverHolds(idleRequests)).toBe(false);
    const waiting: RequestStates = { ...idleRequests, waveform: { status: 'uploading', fraction: 0.9 }, onsets: { status: 'queued' } };
    expect(serverHolds(waiting)).toBe(false);
    expect(serverHolds({ ...waiting, onsets: { status: 'analysing' } })).toBe(true);
    expect(serverHolds({ ...idleRequests, grade: { status: 'done', result: null as never, cache: 'hit' } })).toBe(true);
    // Refused or unreachable before the bytes were there: the row stays empty (its place kept).
    expect(
      serverHolds({ ...idleRequests, waveform: { status: 'failed', message: 'offline', httpStatus: 0 }, onsets: { status: 'skipped' } }),
    ).toBe(false);
  });

  it("is pending (a panel keeps its view's place) until it is answered, failed or not analysed", () => {
    expect(isPending({ status: 'queued' })).toBe(true);
    expect(isPending({ status: 'uploading', fraction: 0.3 })).toBe(true);
    expect(isPending({ status: 'analysing' })).toBe(true);
    expect(isPending({ status: 'done', result: null, cache: 'miss' })).toBe(false);
    expect(isPending({ status: 'failed', message: 'no', httpStatus: 415 })).toBe(false);
    expect(isPending({ status: 'skipped' })).toBe(false);
  });

  it('leaves the share out of each request’s words (the bar says it once)', () => {
    expect(statusText({ status: 'uploading', fraction: 0.4 })).toBe('uploading');
    expect(statusText({ status: 'done', result: null, cache: 'hit' })).toBe('cached');
  });
});
