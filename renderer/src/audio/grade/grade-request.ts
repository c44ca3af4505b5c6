// The one /grade request of the Analyse and Batch screens, so that both give the same grade for the same file.
import type { Analysis, GradeResponse } from '../../api/audio';
import type { HeldAudio, HeldRequestOptions } from '../../api/held-audio';

/**
 * Query of /grade on both screens: no role hint. The hint only picks the weight row, and the measured role
 * is still wrong on many real recordings (issue 19), so passing it would carry the role's errors into the
 * grade; the Analyse screen would also have to wait for the slowest request before grading. The role-neutral
 * `default` weights give the same grade on both screens whatever the role model says.
 */
export const gradeQuery: { readonly role?: string } = {};

/** POST /grade for one held file with the shared query. */
export function requestGrade(audio: HeldAudio, options: HeldRequestOptions): Promise<Analysis<GradeResponse>> {
  return audio.analyse('grade', gradeQuery, options);
}

/** "first 30 s of 3:00", or "whole file (7.7 s)" when the grade read all of it; seconds under a minute, else m:ss. */
export function describeGradedLength(gradedS: number, durationS: number): string {
  // The same tolerance as the server's (WHOLE_FILE_TOLERANCE_S): container rounding is not a cut.
  if (!(durationS > gradedS + 0.05)) return `whole file (${formatLength(durationS)})`;
  return `first ${formatLength(gradedS)} of ${formatLength(durationS)}`;
}

function formatLength(seconds: number): string {
  if (seconds < 60) return `${Number(seconds.toFixed(1))} s`;
  const whole = Math.round(seconds);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, '0')}`;
}
