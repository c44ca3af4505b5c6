import { describe, expect, it } from 'vitest';
import { setPendingAnalysis, takePendingAnalysis } from './handoff';

describe('analysis handoff', () => {
  it('gives the file once', () => {
    expect(takePendingAnalysis()).toBeNull();
    const file = new File(['RIFF'], 'fetched.wav', { type: 'audio/wav' });
    setPendingAnalysis(file);
    expect(takePendingAnalysis()).toBe(file);
    expect(takePendingAnalysis()).toBeNull();
  });

  it('keeps only the latest file', () => {
    setPendingAnalysis(new File(['a'], 'a.wav'));
    const b = new File(['b'], 'b.wav');
    setPendingAnalysis(b);
    expect(takePendingAnalysis()).toBe(b);
  });
});
