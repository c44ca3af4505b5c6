import { useId, useMemo, useState } from 'react';
import { desktopBridge } from '../lib/desktop-bridge';
import { plural } from '../lib/format';
import { useSignedIn } from '../lib/session-context';
import { FileDrop } from '../ui/file-drop';
import { EmptyState, Panel } from '../ui/panel';
import { ProgressBar } from '../ui/progress-bar';
import { BatchActions } from './batch/batch-actions';
import {
  filterItems,
  isUnfiltered,
  sampleRoles,
  sortItems,
  tiers,
  type BatchFilter,
  type BatchItem,
  type SortKey,
  type SortOrder,
} from './batch/batch-model';
import { Link } from 'react-router';
import { batchStore, batchView } from './batch/batch-state';
import { useBatch } from './batch/batch-store';
import { BatchTable } from './batch/batch-table';
import './batch/batch.css';

const noItems: readonly BatchItem[] = [];

function OverallProgress({ items, paused }: { readonly items: readonly BatchItem[]; readonly paused: boolean }) {
  const counted = items.filter((item) => item.status !== 'cancelled');
  const done = counted.filter((item) => item.status === 'done').length;
  const failed = counted.filter((item) => item.status === 'failed').length;
  const running = counted.filter((item) => item.status === 'running').length;
  // A failed file is finished too: the bar reaches the end when nothing is left to do.
  const value =
    counted.length === 0 ? 0 : counted.reduce((sum, item) => sum + (item.status === 'failed' ? 1 : item.progress), 0) / counted.length;
  const finished = !paused && running === 0 && counted.every((item) => item.status === 'done' || item.status === 'failed');
  const detail = [
    `${done} of ${counted.length} analysed`,
    failed > 0 ? `${failed} failed` : null,
    running > 0 ? `${running} running` : null,
  ]
    .filter(Boolean)
    .join(' · ');
  return (
    <div className="batch-overall">
      <ProgressBar label={paused ? 'Batch paused' : finished ? 'Batch finished' : 'Batch progress'} value={value} detail={detail} />
    </div>
  );
}

function FilterBar({
  filter,
  onChange,
  shown,
  total,
}: {
  readonly filter: BatchFilter;
  readonly onChange: (filter: BatchFilter) => void;
  readonly shown: number;
  readonly total: number;
}) {
  const ids = { text: useId(), role: useId(), tier: useId() };
  return (
    <div className="batch-filters" role="search" aria-label="Filter the batch">
      <div className="batch-filter batch-filter-text">
        <label className="label" htmlFor={ids.text}>
          Filter
        </label>
        <input
          id={ids.text}
          className="input"
          type="search"
          value={filter.text}
          placeholder="Name, suggested name, role or key"
          onChange={(event) => onChange({ ...filter, text: event.target.value })}
        />
      </div>
      <div className="batch-filter">
        <label className="label" htmlFor={ids.role}>
          Role
        </label>
        <select
          id={ids.role}
          className="batch-select"
          value={filter.role}
          onChange={(event) => onChange({ ...filter, role: sampleRoles.find((role) => role === event.target.value) ?? 'all' })}
        >
          <option value="all">All roles</option>
          {sampleRoles.map((role) => (
            <option key={role} value={role}>
              {role}
            </option>
          ))}
        </select>
      </div>
      <div className="batch-filter">
        <label className="label" htmlFor={ids.tier}>
          Tier
        </label>
        <select
          id={ids.tier}
          className="batch-select"
          value={filter.tier}
          onChange={(event) => onChange({ ...filter, tier: tiers.find((tier) => tier === event.target.value) ?? 'all' })}
        >
          <option value="all">All tiers</option>
          {tiers.map((tier) => (
            <option key={tier} value={tier}>
              Tier {tier}
            </option>
          ))}
        </select>
      </div>
      <p className="batch-count muted" aria-live="polite">
        {shown === total ? plural(total, 'file', 'files') : `${shown} of ${plural(total, 'file', 'files')} shown`}
      </p>
      {!isUnfiltered(filter) ? (
        <button
          type="button"
          className="button button-ghost batch-small-button"
          onClick={() => onChange({ text: '', role: 'all', tier: 'all' })}
        >
          Show all
        </button>
      ) : null}
    </div>
  );
}

/** Batch: analyse many files two at a time, compare them in a table, export the figures and apply the names. */
export function BatchScreen() {
  const { token } = useSignedIn();
  const snapshot = useBatch(batchStore);
  // A batch another person started in this window is not shown (the store drops it on their next add).
  const items = snapshot.owner === token ? snapshot.items : noItems;
  const [order, setOrderState] = useState<SortOrder | null>(batchView.order);
  const [filter, setFilterState] = useState<BatchFilter>(batchView.filter);
  const setOrder = (next: SortOrder | null) => {
    batchView.order = next;
    setOrderState(next);
  };
  const setFilter = (next: BatchFilter) => {
    batchView.filter = next;
    setFilterState(next);
  };
  const shown = useMemo(() => {
    const filtered = filterItems(items, filter);
    return order ? sortItems(filtered, order) : filtered;
  }, [items, filter, order]);

  const addFiles = (files: File[]) => {
    const bridge = desktopBridge();
    batchStore.add(
      token,
      files.map((file) => ({ file, name: file.webkitRelativePath || file.name, path: bridge?.pathOf?.(file) ?? null })),
    );
  };
  const sortBy = (key: SortKey) =>
    setOrder(
      order?.key === key
        ? { key, direction: order.direction === 'ascending' ? 'descending' : 'ascending' }
        : { key, direction: 'ascending' },
    );
  const running = items.some((item) => item.status === 'running' || item.status === 'queued');

  return (
    <div className="batch-screen">
      <div className="intro">
        <p className="eyebrow">Batch</p>
        <p className="lead">
          Grade and name a whole pack: each file is measured, analysed for role, tempo and key, graded and given a name. Two files are
          analysed at a time. Each file is uploaded once and kept in your <Link to="/library">Library</Link>, so a reload loses nothing.
        </p>
      </div>

      <FileDrop
        multiple
        folders
        compact={items.length > 0}
        label={items.length > 0 ? 'Add more files or a folder' : 'Drop audio files or a folder here'}
        hint="WAV, AIFF, FLAC, MP3, Ogg and more; other files in a folder are skipped."
        onFiles={addFiles}
      />

      {items.length === 0 ? (
        <div className="batch-empty">
          <EmptyState title="No files in the batch yet">
            <p>
              Drop files or a whole sample folder above, or use the two buttons to choose them. Results appear here as each file finishes
              and stay while you visit other screens.
            </p>
          </EmptyState>
        </div>
      ) : (
        <Panel
          title="Files"
          className="batch-panel"
          busy={running}
          actions={
            <button type="button" className="button button-ghost batch-small-button" onClick={() => batchStore.clear()}>
              {running ? 'Stop and clear list' : 'Clear list'}
            </button>
          }
        >
          {snapshot.paused === 'offline' ? (
            <div className="batch-paused" role="status">
              <p>
                <strong>Paused: server offline.</strong> The queued files wait; the batch resumes by itself when the server answers again.
              </p>
              <button type="button" className="button batch-small-button" onClick={() => batchStore.resume()}>
                Resume now
              </button>
            </div>
          ) : null}
          <OverallProgress items={items} paused={snapshot.paused !== null} />
          <FilterBar filter={filter} onChange={setFilter} shown={shown.length} total={items.length} />
          {shown.length > 0 ? (
            <BatchTable
              items={shown}
              order={order}
              onSort={sortBy}
              onCancel={batchStore.cancel}
              onRemove={batchStore.remove}
              onRetry={batchStore.retry}
              paused={snapshot.paused !== null}
            />
          ) : (
            <EmptyState title="No file matches the filter">
              <p>Change the words, role or tier above, or choose Show all.</p>
            </EmptyState>
          )}
          <BatchActions items={shown} />
        </Panel>
      )}
    </div>
  );
}
