/**
 * The `onsets` engine: onset times and a global tempo, streamed.
 *
 * Interleaved chunks of any size are mixed to mono (the mean of all channels) straight into the SuperFlux
 * onset-strength function (dsp/onset-detection.ts: 23 ms Hann frames, a hop of 11.6 ms at 44.1 kHz). Memory is
 * bounded by the envelope and its two accent channels, three floats per frame (4 MB for an hour); samples
 * are never kept. At the end the envelope is peak-picked into onsets, and its periodicity with the accent
 * channels gives the tempo (dsp/tempo.ts).
 *
 * Version 2: the tempo estimator folds the periodicity over octaves and picks the metrical level from
 * linear-flux and bass accents (version 1 could answer 2/3 of the tempo, or an octave off, when hats were as
 * strong as the snare in the envelope). Version 3: a loop of whole 4/4 bars whose onsets fit their grid
 * takes its tempo from its length (dsp/loop-tempo.ts, `tempo_source`), which also gives 1–2 s loops a tempo.
 */
import type { EngineSpec, StreamEngine, StreamFormat } from './engine.js';
import { createOnsetStrength, ONSET_LATENCY, pickOnsets, type AccentEnvelopes, type OnsetStrengthStream } from '../dsp/onset-detection.js';
import { estimateTempo } from '../dsp/tempo.js';
import { inferLoopTempo, type TempoSource } from '../dsp/loop-tempo.js';
import { roundTo } from '../dsp/round.js';

export interface OnsetsResult {
  /** Onset times in seconds, ascending, rounded to 1 ms. */
  readonly onsets: number[];
  readonly onset_count: number;
  /** Onsets per second of audio (0 for empty audio), rounded to 0.001. */
  readonly onset_rate: number;
  /**
   * Global tempo in BPM (60–200), rounded to 0.01; null with fewer than `MIN_ONSETS_FOR_TEMPO` onsets, or
   * when the clip is shorter than 2 s and not a loop of whole bars.
   */
  readonly tempo_bpm: number | null;
  /**
   * How the tempo was found: 'loop_length' (a loop of whole 4/4 bars whose onsets fit their grid: 240·bars /
   * duration, dsp/loop-tempo.ts), 'onsets' (the periodicity of the onsets, dsp/tempo.ts), null without one.
   */
  readonly tempo_source: TempoSource | null;
  /** Whole bars at tempo_bpm when tempo_source is 'loop_length', else null. */
  readonly loop_bars: number | null;
  readonly full_track: true;
  /** Seconds of audio analysed (frames / sample rate), rounded to 1 ms. */
  readonly duration_s: number;
}

/** Fewer onsets than this give no tempo (three onsets make only two intervals). */
export const MIN_ONSETS_FOR_TEMPO = 4;

/** A running onsets analysis that can also be copied as it stands (see `fork`). */
export interface OnsetsStream extends StreamEngine<OnsetsResult> {
  /** An independent copy: finishing it gives the result for the audio pushed so far; this one goes on. */
  fork(): OnsetsStream;
}

/** Start an onsets analysis (the engine's `create`, with `fork`). */
export function createOnsetsStream(format: StreamFormat): OnsetsStream {
  return onsetsStream(format, createOnsetStrength(format.sampleRate), 0);
}

function onsetsStream(format: StreamFormat, odf: OnsetStrengthStream, framesSoFar: number): OnsetsStream {
  const channels = format.channels;
  let frames = framesSoFar;
  return {
    push(chunk) {
      odf.push(chunk, channels);
      frames += chunk.length / channels;
    },
    fork: () => onsetsStream(format, odf.fork(), frames),
    finish() {
      const env = odf.finish();
      return onsetsOfEnvelope(env, odf.accents(), odf.frameRate, frames / format.sampleRate, format.sampleRate);
    },
  };
}

/** The onsets answer from a finished onset-strength envelope and its accents, for `duration` seconds of audio (`sampleRate` only when that is the whole clip: it makes a sample-exact loop length count). */
export function onsetsOfEnvelope(
  env: Float32Array,
  accents: AccentEnvelopes,
  frameRate: number,
  duration: number,
  sampleRate?: number,
): OnsetsResult {
  const onsets = pickOnsets(env, frameRate)
    .filter((t) => t <= duration)
    .map((t) => roundTo(t, 3));
  const detected = onsets.length >= MIN_ONSETS_FOR_TEMPO ? estimateTempo(env, frameRate, {}, accents) : null;
  // Onset strength: the envelope at the onset's frame (frames are centred on i / frameRate).
  const strengths = onsets.map((t) => env[Math.min(env.length - 1, Math.max(0, Math.round((t + ONSET_LATENCY) * frameRate)))] ?? 0);
  const tempo =
    onsets.length >= MIN_ONSETS_FOR_TEMPO
      ? inferLoopTempo({ onsets, strengths, duration, detectedBpm: detected ? detected.bpm : null, ...(sampleRate ? { sampleRate } : {}) })
      : null;
  return {
    onsets,
    onset_count: onsets.length,
    onset_rate: duration > 0 ? roundTo(onsets.length / duration, 3) : 0,
    tempo_bpm: tempo ? roundTo(tempo.bpm, 2) : null,
    tempo_source: tempo ? tempo.source : null,
    loop_bars: tempo ? tempo.bars : null,
    full_track: true,
    duration_s: roundTo(duration, 3),
  };
}

export const onsetsEngine: EngineSpec<Record<string, never>, OnsetsResult> = {
  id: 'onsets',
  version: '4',
  needsTotalFrames: false,
  create: (format) => createOnsetsStream(format),
};
