// The file's tempo: one rule for the strip's readout and the waveform's beat-sized arrow-key seeking.
import type { RequestState, RequestStates } from './use-analysis';

type TempoRequests = Pick<RequestStates, 'onsets' | 'analyze'>;

/** The onsets tempo, or /analyze's rhythm tempo when onsets has none (yet); null when neither has one. */
export function tempoOf(requests: TempoRequests): number | null {
  const onsets = requests.onsets.status === 'done' ? requests.onsets.result.tempo_bpm : null;
  const rhythm = requests.analyze.status === 'done' ? (requests.analyze.result.features.rhythm?.tempo_bpm ?? null) : null;
  return onsets ?? rhythm;
}

/** How a tempo was found, in words: "from loop length (1 bar)", "from the onsets", "from the onset grid". */
export function describeTempoSource(source: 'loop_length' | 'onsets' | 'onset_grid' | null, bars: number | null): string | null {
  if (source === 'loop_length') return bars === null ? 'from loop length' : `from loop length (${bars} bar${bars === 1 ? '' : 's'})`;
  if (source === 'onsets') return 'from the onsets';
  if (source === 'onset_grid') return 'from the onset grid';
  return null;
}

/** How the strip's tempo (`tempoOf`) was found; null when it is not the onsets answer's or there is none. */
export function tempoSourceOf(requests: TempoRequests): string | null {
  if (requests.onsets.status !== 'done' || requests.onsets.result.tempo_bpm === null) return null;
  return describeTempoSource(requests.onsets.result.tempo_source, requests.onsets.result.loop_bars);
}

const settled = (state: RequestState<unknown>) => state.status === 'done' || state.status === 'failed' || state.status === 'skipped';

/** True once the file has no tempo for sure: neither answer has one, at least one came, and none is still coming. */
export function tempoIsNone(requests: TempoRequests): boolean {
  const answered = requests.onsets.status === 'done' || requests.analyze.status === 'done';
  return tempoOf(requests) === null && answered && settled(requests.onsets) && settled(requests.analyze);
}
