import type { ReactNode } from 'react';
import type { LoudnessResponse } from '../../api/audio';
import { chosenTarget, gainToTarget } from '../../lib/preferences';
import { usePreferences } from '../../lib/use-preferences';
import { formatFixed, formatGain, meterFraction } from './readouts';

// The meter spans the loudness a producer meets: from a quiet one-shot to a brick-walled master.
const LUFS_MIN = -42;
const LUFS_MAX = 0;
const PEAK_MIN = -24;
const PEAK_MAX = 3;

function Marker({
  at,
  label,
  tone,
  below = false,
}: {
  readonly at: number;
  readonly label: string;
  readonly tone?: 'warn';
  readonly below?: boolean;
}) {
  return (
    <span
      className={`an-meter-marker${tone ? ` an-meter-marker-${tone}` : ''}${below ? ' an-meter-marker-below' : ''}`}
      style={{ left: `${at * 100}%` }}
    >
      <span className="an-meter-marker-label">{label}</span>
    </span>
  );
}

/** A horizontal meter of `value` (null: silent) between min and max, its markers as children, and a scale. */
function Meter(props: {
  readonly label: string;
  readonly unit: string;
  readonly value: number | null;
  readonly min: number;
  readonly max: number;
  readonly scaleTop: string;
  readonly labelled?: boolean;
  readonly thin?: boolean;
  readonly warn?: boolean;
  readonly children: ReactNode;
}) {
  const { label, unit, value, min, max } = props;
  return (
    <div className={`an-meter-block${props.labelled ? ' an-meter-block-labelled' : ''}`}>
      <div
        className={`an-meter${props.thin ? ' an-meter-thin' : ''}`}
        role="meter"
        aria-label={label}
        aria-valuemin={min}
        aria-valuemax={max}
        aria-valuenow={value ?? min}
        aria-valuetext={value === null ? 'silent' : `${formatFixed(value, 1)} ${unit}`}
      >
        <span
          className={`an-meter-fill${props.warn ? ' an-meter-fill-warn' : ''}`}
          style={{ width: `${meterFraction(value, min, max) * 100}%` }}
        />
        {props.children}
      </div>
      <div className="an-meter-scale mono" aria-hidden="true">
        <span>{formatFixed(min, 0)}</span>
        <span>{unit}</span>
        <span>{props.scaleTop}</span>
      </div>
    </div>
  );
}

/** One headline loudness figure in LUFS ("—" when there is none). */
function LufsReadout({
  label,
  title,
  value,
  testId,
}: {
  readonly label: string;
  readonly title?: string;
  readonly value: number | null;
  readonly testId: string;
}) {
  return (
    <div>
      <dt title={title}>{label}</dt>
      <dd>
        <span className="an-big mono" data-testid={testId}>
          {formatFixed(value, 1)}
        </span>{' '}
        <span className="muted">LUFS</span>
      </dd>
    </div>
  );
}

/** Integrated LUFS against the target chosen in Settings (streaming −14 by default), the ungated clip loudness, and the true peak against −1 dBTP. */
export function LoudnessPanel({ loudness }: { readonly loudness: LoudnessResponse }) {
  const target = chosenTarget(usePreferences());
  const lufs = loudness.integrated_lufs;
  // The gain is computed here for every target; the server's gain_to_target_db has streaming and club only.
  const gain = gainToTarget(lufs, target.lufs);
  const clip = loudness.clip_lufs;
  const peak = loudness.true_peak_dbtp;
  const over = peak !== null && peak > -1;
  return (
    <div className="an-loudness">
      <dl className="an-headline">
        <LufsReadout label="Integrated" value={lufs} testId="integrated-lufs" />
        <LufsReadout
          label="Clip loudness (ungated)"
          title="BS.1770 K-weighting and channel weights, ungated, mean square over the whole clip: not integrated loudness"
          value={clip}
          testId="clip-lufs"
        />
        <div>
          <dt>True peak</dt>
          <dd>
            <span className={`an-big mono${over ? ' an-text-warn' : ''}`}>{formatFixed(peak, 1)}</span> <span className="muted">dBTP</span>
          </dd>
        </div>
      </dl>

      <Meter label="Integrated loudness" unit="LUFS" value={lufs} min={LUFS_MIN} max={LUFS_MAX} scaleTop="0" labelled>
        <Marker
          at={meterFraction(target.lufs, LUFS_MIN, LUFS_MAX)}
          label={`${formatFixed(target.lufs, target.lufs % 1 === 0 ? 0 : 1)} ${target.short}`}
        />
      </Meter>
      <Meter label="True peak" unit="dBTP" value={peak} min={PEAK_MIN} max={PEAK_MAX} scaleTop={`+${PEAK_MAX}`} thin warn={over}>
        <Marker at={meterFraction(-1, PEAK_MIN, PEAK_MAX)} label="−1 dBTP" tone="warn" />
      </Meter>

      <dl className="an-pairs">
        <div>
          <dt title="Change the target in Settings">
            Gain to {target.label} ({formatFixed(target.lufs, target.lufs % 1 === 0 ? 0 : 1)} LUFS)
          </dt>
          <dd className="mono" data-testid="gain-to-target">
            {formatGain(gain)}
          </dd>
        </div>
        <div>
          <dt>Loudness range</dt>
          <dd className="mono">{formatFixed(loudness.loudness_range_lu, 1)} LU</dd>
        </div>
        <div>
          <dt>Crest factor</dt>
          <dd className="mono">{formatFixed(loudness.crest_factor_db, 1)} dB</dd>
        </div>
        <div>
          <dt>Max short-term</dt>
          <dd className="mono">{formatFixed(loudness.max_short_term_lufs, 1)} LUFS</dd>
        </div>
        <div>
          <dt>Sample peak</dt>
          <dd className="mono">{formatFixed(loudness.sample_peak_dbfs, 1)} dBFS</dd>
        </div>
      </dl>
      {lufs === null && clip !== null && loudness.source.duration_s < 0.4 ? (
        <p className="an-note">
          Shorter than one 400 ms gating block, so there is no integrated loudness. The clip loudness is K-weighted like it, but ungated and
          averaged over the whole clip: use it to compare one-shots.
        </p>
      ) : null}
      {over ? (
        <p className="an-note">The true peak is above −1 dBTP: lossy encoding may clip it. Lower the level or use a true-peak limiter.</p>
      ) : null}
    </div>
  );
}
