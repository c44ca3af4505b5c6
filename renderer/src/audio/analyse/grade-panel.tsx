import type { GradeResponse } from '../../api/audio';
import { describeGradedLength } from '../grade/grade-request';
import { formatFixed, formatPercent } from './readouts';
import { describeTempoSource } from './tempo';

type SubScores = GradeResponse['sub_scores'];

const subScoreLabels: Readonly<Record<keyof SubScores, string>> = {
  seam_click: 'Loop seam',
  zero_crossing: 'Clean edges',
  dc_offset: 'DC offset',
  bar_consistency: 'Bar length',
  level: 'Level',
  bass_mono: 'Bass in mono',
};

/** The measurement behind each sub-score, in words a producer reads. */
function measurement(key: keyof SubScores, s: SubScores): string {
  if ((key === 'seam_click' || key === 'bar_consistency') && !s[key].applicable)
    return `not applicable: ${s[key].reason ?? 'not the whole file'}`;
  switch (key) {
    case 'seam_click':
      return s.seam_click.jump_dbfs === null ? 'no jump at the wrap' : `jump of ${formatFixed(s.seam_click.jump_dbfs, 1)} dBFS at the wrap`;
    case 'zero_crossing': {
      const start = `start ${formatPercent(s.zero_crossing.start.relative_level)}`;
      const end = s.zero_crossing.end.applicable ? `end ${formatPercent(s.zero_crossing.end.relative_level)}` : null;
      return end
        ? `${start}, ${end} of the local peak`
        : `${start} of the local peak; end not judged: ${s.zero_crossing.end.reason ?? 'not the whole file'}`;
    }
    case 'dc_offset':
      return s.dc_offset.max_abs_dbfs === null ? 'none' : `${formatFixed(s.dc_offset.max_abs_dbfs, 1)} dBFS`;
    case 'bar_consistency': {
      const b = s.bar_consistency;
      if (b.tempo_bpm === null) return 'no tempo found';
      const bars = b.whole_bars === null ? '' : `${b.whole_bars} bar${b.whole_bars === 1 ? '' : 's'} at `;
      const error = b.length_error_ms === null ? '' : `, ${formatFixed(b.length_error_ms, 1)} ms off`;
      const source = describeTempoSource(b.tempo_source, b.tempo_source === 'loop_length' ? b.whole_bars : null);
      return `${bars}${formatFixed(b.tempo_bpm, 1)} BPM${source ? ` · ${source}` : ''}${error}`;
    }
    case 'level':
      return `${formatFixed(s.level.integrated_lufs, 1)} LUFS, ${formatFixed(s.level.true_peak_dbtp, 1)} dBTP${s.level.clip_runs > 0 ? `, ${s.level.clip_runs} clipped runs` : ''}`;
    case 'bass_mono':
      return s.bass_mono.correlation === null ? 'mono or no bass' : `correlation ${formatFixed(s.bass_mono.correlation, 2)}`;
  }
}

const tierTone: Readonly<Record<GradeResponse['tier'], string>> = { S: 'ok', A: 'ok', B: 'accent', C: 'warn', D: 'bad' };

/** The tier letter, the composite, each sub-score as a bar with its measurement, and the flags as sentences. */
export function GradePanel({ grade }: { readonly grade: GradeResponse }) {
  const keys = Object.keys(subScoreLabels) as (keyof SubScores)[];
  return (
    <div className="an-grade">
      <dl className="an-grade-head">
        <div className={`an-tier an-tier-${tierTone[grade.tier]}`}>
          <dt>Tier</dt>
          <dd data-testid="grade-tier">{grade.tier}</dd>
        </div>
        <div className="an-grade-score">
          <dt>Composite</dt>
          <dd>
            <span className="an-big mono">{formatFixed(grade.score, 2)}</span> <span className="muted">of 1</span>
          </dd>
          <dd className="muted small">{grade.role_used === 'default' ? 'Default weights' : `Weights for ${grade.role_used}`}</dd>
          <dd className="muted small" data-testid="grade-scope">
            Graded the {describeGradedLength(grade.graded_s, grade.duration_s)}
          </dd>
        </div>
      </dl>
      <ul className="an-scores" aria-label="Sub-scores">
        {keys.map((key) => {
          const score = grade.sub_scores[key].score;
          const weight = grade.weights[key];
          return (
            <li key={key} className="an-score">
              <span className="an-score-label">{subScoreLabels[key]}</span>
              <span className="an-bar" aria-hidden="true">
                <span
                  className={`an-bar-fill${score !== null && score < 0.5 ? ' an-bar-fill-bad' : score !== null && score < 0.8 ? ' an-bar-fill-warn' : ''}`}
                  style={{ width: `${(score ?? 0) * 100}%` }}
                />
              </span>
              <span className="an-score-value mono">{score === null ? 'n/a' : formatFixed(score, 2)}</span>
              <span className="an-score-detail muted small">
                {measurement(key, grade.sub_scores)}
                {weight > 0 ? ` · weight ${formatPercent(weight)}` : ' · not weighted'}
              </span>
            </li>
          );
        })}
      </ul>
      {grade.flags.length > 0 ? (
        <ul className="an-flags" aria-label="Flags">
          {grade.flags.map((flag) => (
            <li key={flag.code} className="an-flag">
              <span className="an-flag-icon" aria-hidden="true">
                !
              </span>
              {flag.message}
            </li>
          ))}
        </ul>
      ) : (
        <p className="an-ok-line">No defects found.</p>
      )}
    </div>
  );
}
