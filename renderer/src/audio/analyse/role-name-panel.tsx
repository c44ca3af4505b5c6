import { useEffect, useId, useState } from 'react';
import type { AnalyzeResponse, NamingResponse } from '../../api/audio';
import { applyNamingScheme, type NameReadings } from '../../lib/naming-scheme';
import { usePreferences } from '../../lib/use-preferences';
import { CopyButton } from '../../ui/copy-button';
import { formatPercent, humanize } from './readouts';
import { Pending } from './request-status';
import type { RequestState } from './use-analysis';

type Sample = AnalyzeResponse['sample'];

/** One role per line with a bar, its share (0..1) and the percentage, largest first. */
function RoleBars({ label, values }: { readonly label: string; readonly values: Readonly<Record<string, number>> }) {
  const rows = Object.entries(values).sort((a, b) => b[1] - a[1]);
  return (
    <ul className="an-shares" aria-label={label}>
      {rows.map(([role, share]) => (
        <li key={role} className="an-share">
          <span className="an-share-label">{humanize(role)}</span>
          <span className="an-bar" aria-hidden="true">
            <span className="an-bar-fill" style={{ width: `${share * 100}%` }} />
          </span>
          <span className="mono small">{formatPercent(share)}</span>
        </li>
      ))}
    </ul>
  );
}

/** A reason as the server words it, starting with a capital. */
const sentenceStart = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * The role from the audio, its calibrated confidence and the runner-up, the measurements that decided
 * it, and every role's probability; for a full mix, a note and each role's share of the mix instead.
 */
export function RolePanel({ sample }: { readonly sample: Sample }) {
  const shares = sample.mixture ? sample.shares : null;
  const reasonsId = useId();
  return (
    <div className="an-role">
      <dl className="an-headline">
        <div>
          <dt>Role</dt>
          <dd>
            <span className="an-big" data-testid="role">
              {humanize(sample.role)}
            </span>
          </dd>
        </div>
        <div>
          <dt title="Calibrated: of the sounds given this confidence, about this share really have this role">Confidence</dt>
          <dd>
            <span className="an-big mono" data-testid="role-confidence">
              {formatPercent(sample.confidence)}
            </span>
          </dd>
        </div>
        <div>
          <dt>Runner-up</dt>
          <dd data-testid="role-runner-up">
            {humanize(sample.runner_up.role)} <span className="muted mono">{formatPercent(sample.runner_up.confidence)}</span>
          </dd>
        </div>
      </dl>
      {shares ? (
        <p className="an-mix-note" data-testid="role-mixture">
          <strong>Full mix.</strong> No single role fits a whole track, so the confidence stays low (at most 40 %); the bars show the
          estimated share of each role in the mix.
        </p>
      ) : null}
      {sample.reasons.length > 0 ? (
        <div className="an-reasons-block">
          <h3 className="an-subhead" id={reasonsId}>
            Why {humanize(sample.role).toLowerCase()}
          </h3>
          <ul className="an-reasons" aria-labelledby={reasonsId} data-testid="role-reasons">
            {sample.reasons.map((reason) => (
              <li key={reason}>{sentenceStart(reason)}</li>
            ))}
          </ul>
        </div>
      ) : null}
      {shares ? <RoleBars label="Share of the mix" values={shares} /> : <RoleBars label="Every role" values={sample.scores} />}
    </div>
  );
}

/**
 * The suggested name with a copy button and its index (the NN prefix). The index is sent a moment
 * after typing stops, and each change asks /naming again (the server answers repeats from its cache).
 */
export function NamePanel({
  naming,
  index,
  onIndex,
  readings,
}: {
  readonly naming: RequestState<NamingResponse>;
  readonly index: number;
  readonly onIndex: (index: number) => void;
  /** Tempo and key for the naming scheme chosen in Settings. */
  readonly readings: NameReadings;
}) {
  const { namesIncludeTempoKey } = usePreferences();
  const [draft, setDraft] = useState(String(index));
  const inputId = useId();
  const helpId = useId();
  const value = Number(draft);
  const valid = draft.trim() !== '' && Number.isInteger(value) && value >= 0 && value <= 999;

  useEffect(() => {
    if (!valid || value === index) return;
    const timer = setTimeout(() => onIndex(value), 350);
    return () => clearTimeout(timer);
  }, [valid, value, index, onIndex]);

  const result = naming.status === 'done' ? naming.result : 'previous' in naming ? naming.previous : undefined;
  const updating = naming.status === 'queued' || naming.status === 'uploading' || naming.status === 'analysing';
  const name = result ? applyNamingScheme(result.name, namesIncludeTempoKey, readings) : '';

  return (
    <div className="an-name">
      {result ? (
        <dl className="an-name-block" aria-busy={updating || undefined}>
          <dt>Suggested name</dt>
          <dd className="an-name-row">
            <output className={`an-name-value mono${updating ? ' an-stale' : ''}`} data-testid="suggested-name" htmlFor={inputId}>
              {name}
            </output>
            <CopyButton text={name} className="button button-secondary an-small-button" />
          </dd>
        </dl>
      ) : null}
      {!result || naming.status === 'failed' ? <Pending state={naming} what="name" /> : null}
      <div className="an-index">
        <label htmlFor={inputId} className="label">
          Index
        </label>
        <input
          id={inputId}
          className="input mono an-index-input"
          type="number"
          inputMode="numeric"
          min={0}
          max={999}
          step={1}
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
          aria-invalid={!valid || undefined}
          aria-describedby={helpId}
        />
        <p id={helpId} className="help">
          {valid ? 'The NN prefix of the name, 0–999; two digits, three from 100.' : 'Type a whole number from 0 to 999.'}
          {updating ? ' Updating…' : ''}
        </p>
      </div>
      {result ? (
        <ul className="an-chips" aria-label="Descriptors">
          {Object.entries(result.descriptors).map(([axis, descriptor]) => (
            <li key={axis} className={`an-chip${result.parts.character.includes(descriptor.word ?? '') ? ' an-chip-used' : ''}`}>
              <span className="muted">{humanize(axis)}</span> {descriptor.word ?? '—'}
              <span className="mono muted"> {descriptor.strength.toFixed(2)}</span>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
