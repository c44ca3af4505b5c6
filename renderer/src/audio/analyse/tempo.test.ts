import { describe, expect, it } from 'vitest';
import type { AnalyzeResponse, OnsetsResponse } from '../../api/audio';
import { describeTempoSource, tempoIsNone, tempoOf, tempoSourceOf } from './tempo';
import type { RequestStates } from './use-analysis';

type Requests = Pick<RequestStates, 'onsets' | 'analyze'>;

const onsetsDone = (tempo: number | null): Requests['onsets'] => ({
  status: 'done',
  result: { tempo_bpm: tempo } as OnsetsResponse,
  cache: 'miss',
});
const analyzeDone = (tempo: number | null): Requests['analyze'] => ({
  status: 'done',
  result: { features: { rhythm: tempo === null ? undefined : { tempo_bpm: tempo } } } as unknown as AnalyzeResponse,
  cache: 'miss',
});
const running = { status: 'analysing' } as const;
const failed = { status: 'failed', message: 'No.', httpStatus: 500 } as const;

describe('tempoOf', () => {
  it('takes the onsets tempo first', () => {
    expect(tempoOf({ onsets: onsetsDone(124), analyze: analyzeDone(62) })).toBe(124);
    expect(tempoOf({ onsets: onsetsDone(124), analyze: running })).toBe(124);
  });

  it('falls back to the rhythm tempo when onsets has none, has failed or has not answered yet', () => {
    expect(tempoOf({ onsets: onsetsDone(null), analyze: analyzeDone(62) })).toBe(62);
    expect(tempoOf({ onsets: failed, analyze: analyzeDone(62) })).toBe(62);
    expect(tempoOf({ onsets: running, analyze: analyzeDone(62) })).toBe(62);
  });

  it('is null when neither answer has a tempo', () => {
    expect(tempoOf({ onsets: onsetsDone(null), analyze: analyzeDone(null) })).toBeNull();
    expect(tempoOf({ onsets: running, analyze: running })).toBeNull();
  });
});

describe('tempoIsNone', () => {
  it('says none only when no answer still to come could bring a tempo', () => {
    expect(tempoIsNone({ onsets: onsetsDone(null), analyze: analyzeDone(null) })).toBe(true);
    expect(tempoIsNone({ onsets: onsetsDone(null), analyze: failed })).toBe(true);
    expect(tempoIsNone({ onsets: onsetsDone(null), analyze: running })).toBe(false);
    expect(tempoIsNone({ onsets: onsetsDone(null), analyze: analyzeDone(62) })).toBe(false);
    expect(tempoIsNone({ onsets: failed, analyze: failed })).toBe(false);
  });
});

describe('how the tempo was found', () => {
  const onsetsWith = (tempo: number | null, source: OnsetsResponse['tempo_source'], bars: number | null): Requests['onsets'] => ({
    status: 'done',
    result: { tempo_bpm: tempo, tempo_source: source, loop_bars: bars } as OnsetsResponse,
    cache: 'miss',
  });

  it('names the loop length with its bars, or the onsets', () => {
    expect(tempoSourceOf({ onsets: onsetsWith(124, 'loop_length', 1), analyze: running })).toBe('from loop length (1 bar)');
    expect(tempoSourceOf({ onsets: onsetsWith(170, 'loop_length', 2), analyze: running })).toBe('from loop length (2 bars)');
    expect(tempoSourceOf({ onsets: onsetsWith(123.9, 'onsets', null), analyze: running })).toBe('from the onsets');
    expect(describeTempoSource('onset_grid', null)).toBe('from the onset grid');
  });

  it('says nothing when the strip shows no onsets tempo', () => {
    expect(tempoSourceOf({ onsets: onsetsWith(null, null, null), analyze: analyzeDone(62) })).toBeNull();
    expect(tempoSourceOf({ onsets: running, analyze: analyzeDone(62) })).toBeNull();
  });
});
