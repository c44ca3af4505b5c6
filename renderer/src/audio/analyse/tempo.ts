// The file's tempo: one rule for the strip's readout and the waveform's beat-sized arrow-key seeking.
import type { RequestState, RequestStates } from './use-analysis';

type TempoRequests = Pick<RequestStates, 'onsets' | 'analyze'>;

/** The onsets tempo, or /analyze's rhythm tempo when onsets has none (yet); null when neither has one. */
export function tempoOf(requests: TempoRequests): number | null {
  const onsets = requests.onsets.status === 'done' ? requests.onsets.result.tempo_bpm : null;
  const rhythm = requests.analyze.status === 'done' ? (requests.analyze.result.features.rhythm?.tempo_bpm ?? null) : null;
  return onsets ?? rhythm;
}

const settled = (state: RequestState<unknown>) => state.status === 'done' || state.status === 'failed' || state.status === 'skipped';

/** True once the file has no tempo for sure: neither answer has one, at least one came, and none is still coming. */
export function tempoIsNone(requests: TempoRequests): boolean {
  const answered = requests.onsets.status === 'done' || requests.analyze.status === 'done';
  return tempoOf(requests) === null && answered && settled(requests.onsets) && settled(requests.analyze);
}
