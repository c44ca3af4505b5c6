import { z } from 'zod';
import { FLAG_CODES, ROLE_WEIGHTS, SUB_SCORES, TIER_THRESHOLDS, type GradeRole } from './grade-policy.js';
import { sourceSchema } from './source-schema.js';

/**
 * Response schema of `POST /grade`: the `grade` engine's GradeResult (server/audio/engines/grade.ts) plus the
 * `source` block the route adds. Field names are snake_case as in the rest of the audio API. dB values are
 * rounded to 0.01, scores to 0.001; `null` marks a value that is −∞ (silence) or was not measurable.
 */

const unit = () => z.number().min(0).max(1);
const dbOrNull = () => z.number().nullable();

/** A loop-only check: whether it was scored, and why not. */
const applicability = () => ({
  applicable: z
    .boolean()
    .describe('False when only the head of a longer file was graded: the wrap and the length of the cut are not the loop’s'),
  reason: z
    .string()
    .nullable()
    .describe('Why the check is not applicable, e.g. "only the first 30 s of 3:00 were graded"; null when applicable'),
});

const tierText = TIER_THRESHOLDS.map(([t, min]) => `${t} ≥ ${min}`).join(', ') + ', else D';
const roles = Object.keys(ROLE_WEIGHTS) as [GradeRole, ...GradeRole[]];
const weightTable = roles.map((r) => `${r}: ${SUB_SCORES.map((k) => `${k} ${ROLE_WEIGHTS[r][k]}`).join(', ')}`).join('; ');

const edgeSchema = z.object({
  score: unit()
    .nullable()
    .describe(
      '1 − relative_level × audibility (audibility 0 at ≤ −60 dBFS, 1 at ≥ −40 dBFS, linear in dB); flagged below 0.5; null when not applicable (the end of a head cut from a longer file)',
    ),
  applicable: z
    .boolean()
    .describe(
      'Always true for the start; false for the end when only the head of a longer file was graded: its last sample is where the head was cut, not the file’s end',
    ),
  reason: z
    .string()
    .nullable()
    .describe('Why the edge is not applicable, e.g. "only the first 30 s of 3:00 were graded"; null when applicable'),
  channel: z.number().int().min(0).describe('Worst channel, 0-based'),
  sample: z.number().describe('Its edge sample (first or last), linear full scale'),
  sample_dbfs: dbOrNull().describe('|sample| in dBFS; null for exactly 0'),
  relative_level: unit().describe('|sample| / peak |x| of the 10 ms beside the edge: 0 on a zero crossing, 1 on a crest'),
  crossing_distance_ms: z
    .number()
    .min(0)
    .nullable()
    .describe('Distance from the edge to the nearest sign change within 10 ms, ms; null if none'),
});

const flagSchema = z.object({
  code: z.enum(FLAG_CODES).describe('Machine-readable defect code'),
  message: z.string().describe('One human sentence describing the defect and its fix'),
});

export const gradeSchema = z
  .object({
    source: sourceSchema,
    score: unit().describe(
      `Composite 0..1: the weighted geometric mean Π max(s, 0.05)^w of the scored sub-scores (weights of the role, renormalised over the sub-scores that are not null); 0 for digital silence. Tiers: ${tierText}`,
    ),
    tier: z.enum(['S', 'A', 'B', 'C', 'D']).describe(`Tier of the composite score: ${tierText}`),
    role: z.string().describe('The role hint as given (query parameter `role`)'),
    role_used: z
      .enum(roles)
      .describe(
        'Weight row used: the hint resolved through synonyms (drums, beat, break → percs; hats, hihat → tops; sub, 808 → bass; pad, ambient, fx → atmos; keys, synth, lead → melodic); unknown or empty → default',
      ),
    weights: z
      .object(Object.fromEntries(SUB_SCORES.map((k) => [k, unit()])) as Record<(typeof SUB_SCORES)[number], z.ZodNumber>)
      .describe(`Effective weights, summing to 1 over the scored sub-scores (0 where a sub-score is null). Rows per role: ${weightTable}`),
    graded_s: z.number().min(0).describe('Seconds graded: the head of the file, 30 s at most'),
    duration_s: z
      .number()
      .min(0)
      .describe(
        'Seconds of the whole file. When it exceeds graded_s (beyond 0.05 s), the loop-only checks (seam_click, bar_consistency, and the end of zero_crossing) are not applicable and left out of the score',
      ),
    sub_scores: z.object({
      seam_click: z
        .object({
          score: unit()
            .nullable()
            .describe(
              '1 at ratio ≤ 2, 0 at ratio ≥ 16 (log-linear), the loss scaled by the jump’s audibility (none at ≤ −60 dBFS); flagged below 0.5; null when not applicable',
            ),
          ...applicability(),
          channel: z.number().int().min(0).describe('Worst channel, 0-based'),
          jump: z.number().min(0).describe('|x[0] − x[N−1]|, linear full scale: the step the wrap makes'),
          jump_dbfs: dbOrNull().describe('The jump in dBFS; null for 0'),
          step_start: z.number().min(0).describe('RMS sample-to-sample difference over the first 1.5 ms, linear'),
          step_end: z.number().min(0).describe('RMS sample-to-sample difference over the last 1.5 ms, linear'),
          ratio: z.number().min(0).describe('jump / max(step_start, step_end) (capped at 1e6)'),
        })
        .describe('The wrap from the last sample to the first, compared with the signal’s own roughness beside it'),
      zero_crossing: z
        .object({
          score: unit().describe(
            'Mean of the start and end scores; the start’s alone when the end is not applicable (the head of a longer file)',
          ),
          start: edgeSchema,
          end: edgeSchema,
        })
        .describe('Cleanliness of both ends: how far the first and last samples sit from zero'),
      dc_offset: z
        .object({
          score: unit().describe('1 at |mean| ≤ 0.001 (−60 dBFS), 0 at ≥ 0.05 (−26 dBFS), linear in dB; flagged above 0.003 (−50 dBFS)'),
          mean: z.array(z.number()).describe('Mean of each channel, linear full scale'),
          max_abs: z.number().min(0).describe('Largest |mean|, linear'),
          max_abs_dbfs: dbOrNull().describe('Largest |mean|, dBFS; null for 0'),
        })
        .describe('DC offset per channel'),
      bar_consistency: z
        .object({
          score: unit()
            .nullable()
            .describe(
              'length_score × (0.75 + 0.25 × similarity_score) (either alone when the other is null); null when no tempo is found or not applicable',
            ),
          ...applicability(),
          detected_tempo_bpm: z.number().nullable().describe('Tempo of the onsets engine (its tempo_bpm), BPM'),
          detected_tempo_source: z.enum(['onsets', 'loop_length']).nullable().describe('How the onsets engine found it (its tempo_source)'),
          tempo_bpm: z
            .number()
            .nullable()
            .describe(
              'Tempo used: the loop-length tempo when the onsets agree with it, else refined by a least-squares fit of the onsets to their metrical grid, else the detected one',
            ),
          tempo_source: z
            .enum(['onset_grid', 'onsets', 'loop_length'])
            .nullable()
            .describe(
              "'onset_grid': the detected tempo refined on the onsets' grid (it judges the length); 'loop_length': the onsets engine's loop-length tempo, kept when it lies in the 95 % confidence interval of the beat fitted to the onsets (Student's t) (the length is then whole within what the onsets can measure: length_score 1) or when no grid fits them (length_score null); 'onsets': the unrefined detected tempo. Before version 3 the unrefined value was 'detected'; before version 4 an agreeing loop-length tempo was reported as 'onset_grid'",
            ),
          grid: z.enum(['16th', '8th_triplet', '8th', 'beat']).nullable().describe('Metrical grid the onsets were fitted to'),
          bar_s: z.number().nullable().describe('Bar length (4 beats), seconds'),
          bars: z.number().nullable().describe('duration_s / bar_s'),
          whole_bars: z.number().int().nullable().describe('Nearest whole number of bars'),
          length_error_ms: z.number().nullable().describe('duration − whole_bars × bar, ms (positive: too long); null under half a bar'),
          length_error_pct_of_bar: z.number().nullable().describe('The length error in % of a bar'),
          length_score: unit()
            .nullable()
            .describe('1 at |error| ≤ 5 ms, 0 at ≥ 45 ms, linear; flagged above 20 ms; null unless the tempo was refined'),
          bar_similarity: z
            .number()
            .min(-1)
            .max(1)
            .nullable()
            .describe(
              'Mean concordance correlation of consecutive bars’ 16-step energy envelopes (dB) in three bands (all, < 120 Hz, first difference); null under two bars',
            ),
          similarity_score: unit().nullable().describe('0 at bar_similarity ≤ 0.5, 1 at ≥ 0.9, linear'),
        })
        .describe(
          'Length against a whole number of 4/4 bars at the detected tempo (the clip is assumed to start on a bar line), and bar-to-bar similarity',
        ),
      level: z
        .object({
          score: unit().describe('quiet_score × clipping_score × true_peak_score'),
          integrated_lufs: dbOrNull().describe(
            'BS.1770 integrated loudness, LUFS (from the loudness engine); null for silence or under 0.4 s',
          ),
          sample_peak_dbfs: dbOrNull(),
          true_peak_dbtp: dbOrNull().describe('BS.1770 true peak, dBTP'),
          clip_runs: z.number().int().min(0).describe('Runs of ≥ 3 consecutive samples at |x| ≥ 0.999 in a channel'),
          clipped_samples: z.number().int().min(0).describe('Samples in those runs'),
          quiet_score: unit().describe(
            'min(ramp of the peak from −32 to −20 dBFS, ramp of the loudness from −42 to −30 LUFS); flagged too_quiet under −20 dBFS or −30 LUFS',
          ),
          clipping_score: unit().describe('1 without clip runs, else max(0.1, 0.7 − 0.1 × log2(runs))'),
          true_peak_score: unit().describe('1 at ≤ −1 dBTP, 0.95 up to 0 dBTP, 0.8 above (flagged true_peak_over)'),
        })
        .describe('Too quiet, clipping, true-peak overs'),
      bass_mono: z
        .object({
          score: unit().describe('0 at correlation ≤ −0.3, 1 at ≥ 0.7, linear; 1 when mono or without bass'),
          cutoff_hz: z.number().describe('Low band: 4th-order Linkwitz–Riley low pass at this frequency'),
          correlation: z
            .number()
            .min(-1)
            .max(1)
            .nullable()
            .describe(
              'Correlation of the left and right low bands (channels 0 and 1); flagged bass_out_of_phase under 0; null for mono or a low band under −60 dBFS',
            ),
          mono_sum_db: z
            .number()
            .nullable()
            .describe(
              'Low-band energy of (L + R) relative to in-phase channels of the same energies, dB: 0 in phase, −3 uncorrelated, −100 (floor) fully out of phase',
            ),
          low_band_rms_dbfs: dbOrNull().describe('RMS of the low band, dBFS'),
        })
        .describe('Mono compatibility of the bass'),
    }),
    flags: z.array(flagSchema).describe(`Defects found, each with a sentence: ${FLAG_CODES.join(', ')}`),
  })
  .meta({ id: 'GradeResult' });
