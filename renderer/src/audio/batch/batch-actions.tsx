import { useId, useState } from 'react';
import { messageOf } from '../../api/error-message';
import { desktopBridge } from '../../lib/desktop-bridge';
import { plural } from '../../lib/format';
import { saveBlob } from '../../lib/save-blob';
import { Busy, Problem } from '../../ui/status';
import { applyNamesOnDesktop, desktopRenamer, renamedZip, type DesktopApplyResult } from './apply-names';
import { batchCsv, batchJson, type BatchItem } from './batch-model';

type Outcome =
  | { readonly kind: 'idle' }
  | { readonly kind: 'busy'; readonly what: string }
  | { readonly kind: 'saved'; readonly message: string }
  | { readonly kind: 'written'; readonly result: DesktopApplyResult; readonly mode: 'copy' | 'move' }
  | { readonly kind: 'failed'; readonly message: string };

/** Export CSV and JSON and apply the suggested names, for the analysed files the table shows. */
export function BatchActions({ items }: { readonly items: readonly BatchItem[] }) {
  const [outcome, setOutcome] = useState<Outcome>({ kind: 'idle' });
  const [mode, setMode] = useState<'copy' | 'move'>('copy');
  const bridge = desktopBridge();
  const renamer = desktopRenamer(bridge);
  const modeId = useId();
  const analysed = items.filter((item) => item.status === 'done').length;
  const busy = outcome.kind === 'busy';
  const nothing = analysed === 0;

  const exportAs = (kind: 'csv' | 'json') => {
    if (nothing) return;
    const blob =
      kind === 'csv'
        ? new Blob([batchCsv(items)], { type: 'text/csv;charset=utf-8' })
        : new Blob([batchJson(items)], { type: 'application/json' });
    const name = `cratehouse-batch.${kind}`;
    saveBlob(blob, name);
    setOutcome({ kind: 'saved', message: `Saved ${name} with ${plural(analysed, 'file', 'files')}.` });
  };

  const applyNames = () => {
    if (nothing || busy) return;
    if (renamer) {
      setOutcome({ kind: 'busy', what: 'Choose a folder for the renamed files…' });
      applyNamesOnDesktop(renamer, items, mode).then(
        (result) => setOutcome(result ? { kind: 'written', result, mode } : { kind: 'idle' }),
        (error: unknown) => setOutcome({ kind: 'failed', message: messageOf(error, 'The files could not be written.') }),
      );
      return;
    }
    setOutcome({ kind: 'busy', what: 'Building the zip of renamed copies…' });
    renamedZip(items).then(
      ({ blob, count }) => {
        saveBlob(blob, 'cratehouse-renamed.zip');
        setOutcome({ kind: 'saved', message: `Saved cratehouse-renamed.zip with ${plural(count, 'renamed copy', 'renamed copies')}.` });
      },
      (error: unknown) => setOutcome({ kind: 'failed', message: messageOf(error, 'The zip could not be built.') }),
    );
  };

  return (
    <div className="batch-actions">
      <p className="help batch-actions-help">
        {nothing
          ? 'Exports and names cover the analysed files the table shows; none are analysed yet.'
          : `Exports and names cover the ${plural(analysed, 'analysed file', 'analysed files')} the table shows, in its order.`}
      </p>
      <div className="row">
        <button type="button" className="button button-secondary" onClick={() => exportAs('csv')} aria-disabled={nothing}>
          Export CSV
        </button>
        <button type="button" className="button button-secondary" onClick={() => exportAs('json')} aria-disabled={nothing}>
          Export JSON
        </button>
        {renamer ? (
          <label className="batch-mode" htmlFor={modeId}>
            <span>Apply names by</span>
            <select
              id={modeId}
              className="batch-select"
              value={mode}
              onChange={(event) => setMode(event.target.value === 'move' ? 'move' : 'copy')}
            >
              <option value="copy">copying the files</option>
              <option value="move">moving the files</option>
            </select>
          </label>
        ) : null}
        <button type="button" className="button button-primary" onClick={applyNames} aria-disabled={nothing || busy}>
          {renamer ? 'Apply names to a folder…' : 'Apply names (download zip)'}
        </button>
      </div>
      <div className="batch-outcome">
        {outcome.kind === 'busy' ? <Busy>{outcome.what}</Busy> : null}
        {outcome.kind === 'saved' ? (
          <p className="batch-saved" role="status">
            {outcome.message}
          </p>
        ) : null}
        {outcome.kind === 'written' ? (
          <div className="batch-saved" role="status">
            <p>
              {outcome.mode === 'move' ? 'Moved' : 'Copied'} {plural(outcome.result.written.length, 'file', 'files')} to{' '}
              <span className="mono">{outcome.result.folder}</span>.
              {outcome.result.skipped.length > 0
                ? ` ${plural(outcome.result.skipped.length, 'file was', 'files were')} left out because the app does not know where ${outcome.result.skipped.length === 1 ? 'it is' : 'they are'} on disk: ${outcome.result.skipped.join(', ')}.`
                : ''}
            </p>
            {bridge?.reveal ? (
              <button
                type="button"
                className="button button-ghost batch-small-button"
                onClick={() => void bridge.reveal?.(outcome.result.folder)}
              >
                Show the folder
              </button>
            ) : null}
          </div>
        ) : null}
      </div>
      {outcome.kind === 'failed' ? (
        <Problem title="Names could not be applied.">
          <p>{outcome.message}</p>
        </Problem>
      ) : null}
    </div>
  );
}
