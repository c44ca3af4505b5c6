import { useEffect, useId, useState } from 'react';
import type { AnalyzeResult, NamingResult } from '../../api/audio';
import { CopyButton } from '../../ui/copy-button';
import { formatPercent, humanize } from './readouts';
import { Pending } from './request-status';
import type { RequestState } from './use-analysis';

type Sample = AnalyzeResult['sample'];

/** The role from the audio, its confidence and the runner-up. */
export function RolePanel({ sample }: { readonly sample: Sample }) {
  const scores = Object.entries(sample.scores).sort((a, b) => b[1] - a[1]);
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
          <dt>Confidence</dt>
          <dd>
            <span className="an-big mono">{formatPercent(sample.confidence)}</span>
          </dd>
        </div>
        <div>
          <dt>Runner-up</dt>
          <dd>
            {humanize(sample.runner_up.role)} <span className="muted mono">{formatPercent(sample.runner_up.confidence)}</span>
          </dd>
        </div>
      </dl>
      <ul className="an-shares" aria-label="Every role">
        {scores.map(([role, share]) => (
          <li key={role} className="an-share">
            <span className="an-share-label">{humanize(role)}</span>
            <span className="an-bar" aria-hidden="true">
              <span className="an-bar-fill" style={{ width: `${share * 100}%` }} />
            </span>
            <span className="mono small">{formatPercent(share)}</span>
          </li>
        ))}
      </ul>
      {sample.name_used ? <p className="help">The file name marked this percussive sound as a loop or break.</p> : null}
    </div>
  );
}

/**
 * The suggested name with a copy button and its index (the NN prefix). The index is sent a moment
 * after typing stops, and each change asks /naming again (the server answers repeats from its cache).
 */
export function NamePanel({ naming, index, onIndex }: { readonly naming: RequestState<NamingResult>; readonly index: number; readonly onIndex: (index: number) => void }) {
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

  return (
    <div className="an-name">
      {result ? (
        <dl className="an-name-block" aria-busy={updating || undefined}>
          <dt>Suggested name</dt>
          <dd className="an-name-row">
            <output className={`an-name-value mono${updating ? ' an-stale' : ''}`} data-testid="suggested-name" htmlFor={inputId}>
              {result.name}
            </output>
            <CopyButton text={result.name} className="button button-secondary an-small-button" />
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
