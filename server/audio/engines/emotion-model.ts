/**
 * Emotion from measured features, with no trained weights (none can be downloaded here).
 *
 * The transparent model maps measurements onto Russell's circumplex (Russell 1980, "A circumplex
 * model of affect"): arousal and valence in −1..1. The directions follow the music-emotion
 * literature's most replicated cues (Gabrielsson & Lindström 2010; Eerola & Vuoskoski 2013):
 * arousal rises with tempo, loudness, onset density and brightness; valence rises with major mode,
 * key clarity (tonal stability), harmonicity (consonance) and moderately fast tempo. Each cue is
 * normalised to −1..1 with the anchors below, then combined with the documented weights. Emotion
 * labels are points on the same plane; their scores are a softmax of negative distance.
 *
 * A trained model plugs in through EmotionModel (for example loaded from a model file in the data
 * dir); the engine and the API do not change.
 */
import { roundTo } from '../dsp/round.js';

/** The measurements the model reads (from the features and loudness engines on the first ~60 s). */
export interface EmotionMeasures {
  readonly tempoBpm: number | null;
  readonly loudnessLufs: number | null;
  readonly onsetRate: number;
  readonly centroidHz: number;
  readonly mode: 'major' | 'minor' | null;
  /** 0..1: how clearly one key fits (features' key_confidence). */
  readonly keyClarity: number;
  /** 0..1: tonal (1) versus noisy (0), e.g. 1 − spectral flatness. */
  readonly harmonicity: number;
}

/** One emotion label with its score (scores of all labels sum to 1). */
export interface EmotionScore {
  readonly emotion: string;
  readonly score: number;
}

export interface EmotionPrediction {
  /** −1 (negative) .. 1 (positive). */
  readonly valence: number;
  /** −1 (calm) .. 1 (energetic). */
  readonly arousal: number;
  readonly top: readonly EmotionScore[];
  /** Each cue's normalised value (−1..1), so a person can see why. */
  readonly cues: Readonly<Record<string, number>>;
}

/** A model that turns measures into a prediction; a trained model implements the same interface. */
export interface EmotionModel {
  readonly id: string;
  readonly version: string;
  predict(measures: EmotionMeasures): EmotionPrediction;
}

/** Clamp a linear map of x from [lo, hi] to [−1, 1]. */
const scale = (x: number, lo: number, hi: number) => Math.max(-1, Math.min(1, ((x - lo) / (hi - lo)) * 2 - 1));

/** Weights of the transparent model (sum of absolute weights per axis = 1). */
export const emotionWeights = {
  arousal: { tempo: 0.3, loudness: 0.3, onsetDensity: 0.25, brightness: 0.15 },
  valence: { mode: 0.4, keyClarity: 0.15, harmonicity: 0.2, tempo: 0.15, brightness: 0.1 },
} as const;

/** Where each emotion label sits on the plane (valence, arousal). */
export const emotionLabels: Readonly<Record<string, readonly [number, number]>> = {
  happy: [0.75, 0.45],
  excited: [0.45, 0.85],
  tense: [-0.55, 0.75],
  angry: [-0.75, 0.6],
  sad: [-0.7, -0.45],
  melancholic: [-0.35, -0.6],
  calm: [0.45, -0.65],
  dreamy: [0.15, -0.45],
  neutral: [0, 0],
};

/** The transparent, documented model (`transparent-v1`). */
export const transparentEmotionModel: EmotionModel = {
  id: 'transparent',
  version: '1',
  predict(m) {
    const tempo = m.tempoBpm === null ? 0 : scale(m.tempoBpm, 60, 160);
    // Valence favours moderately fast tempi (about 100–130 BPM) rather than the extremes.
    const tempoValence = m.tempoBpm === null ? 0 : 1 - Math.min(2, Math.abs(m.tempoBpm - 115) / 35);
    const cues = {
      tempo,
      loudness: m.loudnessLufs === null ? -1 : scale(m.loudnessLufs, -35, -8),
      onsetDensity: scale(m.onsetRate, 0, 8),
      brightness: scale(Math.log2(Math.max(50, m.centroidHz)), Math.log2(300), Math.log2(4000)),
      mode: m.mode === 'major' ? 1 : m.mode === 'minor' ? -1 : 0,
      keyClarity: scale(m.keyClarity, 0, 1),
      harmonicity: scale(m.harmonicity, 0, 1),
      tempoValence: Math.max(-1, Math.min(1, tempoValence)),
    };
    const w = emotionWeights;
    const arousal =
      w.arousal.tempo * cues.tempo +
      w.arousal.loudness * cues.loudness +
      w.arousal.onsetDensity * cues.onsetDensity +
      w.arousal.brightness * cues.brightness;
    // Key clarity strengthens whatever the mode says (a clear minor key reads sadder, not happier).
    const modeTerm = cues.mode * (0.5 + 0.5 * Math.max(0, cues.keyClarity));
    const valence =
      w.valence.mode * modeTerm +
      w.valence.keyClarity * cues.keyClarity * 0.5 +
      w.valence.harmonicity * cues.harmonicity +
      w.valence.tempo * cues.tempoValence +
      w.valence.brightness * cues.brightness;
    const distances = Object.entries(emotionLabels).map(([emotion, [v, a]]) => ({ emotion, d: Math.hypot(valence - v, arousal - a) }));
    const temperature = 0.25;
    const exps = distances.map(({ emotion, d }) => ({ emotion, e: Math.exp(-d / temperature) }));
    const total = exps.reduce((s, x) => s + x.e, 0);
    const top = exps
      .map(({ emotion, e }) => ({ emotion, score: roundTo(e / total, 3) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, 3);
    return {
      valence: roundTo(valence, 3),
      arousal: roundTo(arousal, 3),
      top,
      cues: Object.fromEntries(Object.entries(cues).map(([k, v]) => [k, roundTo(v, 3)])),
    };
  },
};
