import { describe, expect, it } from 'vitest';
import { onPendingAnalysis, setPendingAnalysis, takePendingAnalysis } from './handoff';

describe('analysis handoff', () => {
  it('gives the file once', () => {
    expect(takePendingAnalysis()).toBeNull();
    const file = new File(['RIFF'], 'fetched.wav', { type: 'audio/wav' });
    setPendingAnalysis(file);
    expect(takePendingAnalysis()?.file).toBe(file);
    expect(takePendingAnalysis()).toBeNull();
  });

  it('keeps only the latest file', () => {
    setPendingAnalysis(new File(['a'], 'a.wav'));
    const b = new File(['b'], 'b.wav');
    setPendingAnalysis(b);
    expect(takePendingAnalysis()?.file).toBe(b);
  });

  it('carries the hash of audio the server already holds', () => {
    setPendingAnalysis(new File(['e'], 'kept.wav'), 'ab'.repeat(32));
    expect(takePendingAnalysis()?.sha256).toBe('ab'.repeat(32));
  });

  it('tells an open Analyse screen as soon as a file is left, until it unsubscribes', () => {
    const taken: string[] = [];
    const stop = onPendingAnalysis(() => taken.push(takePendingAnalysis()?.file.name ?? 'none'));
    setPendingAnalysis(new File(['c'], 'dropped.wav'));
    stop();
    setPendingAnalysis(new File(['d'], 'later.wav'));
    expect(taken).toEqual(['dropped.wav']);
    expect(takePendingAnalysis()?.file.name).toBe('later.wav');
  });
});
