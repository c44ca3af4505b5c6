import type { ReactNode } from 'react';
import { Pill } from '../../ui/status';
import { progressFillStyle } from '../../ui/progress-bar';
import { keyLabel, type BatchItem, type BatchResult, type SortKey, type SortOrder } from './batch-model';
import { formatOneDecimal, formatScore, missingReason, stageLabels } from './format';
import { describeGradedLength } from '../grade/grade-request';

interface Column {
  readonly key: SortKey;
  readonly label: string;
  /** Read out instead of the short label. */
  readonly longLabel?: string;
  readonly numeric?: boolean;
}

const columns: readonly Column[] = [
  { key: 'name', label: 'File' },
  { key: 'status', label: 'Status' },
  { key: 'role', label: 'Role' },
  { key: 'tier', label: 'Tier' },
  { key: 'lufs', label: 'LUFS', longLabel: 'Integrated loudness, LUFS', numeric: true },
  { key: 'clipLufs', label: 'Clip LUFS', longLabel: 'Clip loudness (ungated), LUFS', numeric: true },
  { key: 'truePeak', label: 'Peak dBTP', longLabel: 'True peak dBTP', numeric: true },
  { key: 'tempo', label: 'BPM', longLabel: 'Tempo, BPM', numeric: true },
  { key: 'key', label: 'Key' },
  { key: 'suggestedName', label: 'Suggested name' },
];

/** The cells between Status and the actions: the figures, or one cell saying why there are none. */
const valueColumns = columns.length - 2;

function SortHeader({
  column,
  order,
  onSort,
}: {
  readonly column: Column;
  readonly order: SortOrder | null;
  readonly onSort: (key: SortKey) => void;
}) {
  const active = order?.key === column.key;
  return (
    <th scope="col" className={column.numeric ? 'num' : undefined} aria-sort={active ? order.direction : undefined}>
      <button type="button" className="batch-sort" onClick={() => onSort(column.key)} title={column.longLabel}>
        <span aria-hidden={column.longLabel ? true : undefined}>{column.label}</span>
        {column.longLabel ? <span className="visually-hidden">{column.longLabel}</span> : null}
        <span className={`batch-sort-icon${active ? ' batch-sort-icon-active' : ''}`} aria-hidden="true">
          {active ? (order.direction === 'ascending' ? '▲' : '▼') : '↕'}
        </span>
      </button>
    </th>
  );
}

function Missing({ why }: { readonly why: string }) {
  return (
    <span className="batch-missing" title={why}>
      —<span className="visually-hidden">{why}</span>
    </span>
  );
}

function StatusPill({ item }: { readonly item: BatchItem }) {
  switch (item.status) {
    case 'queued':
      return <Pill tone="neutral">Queued</Pill>;
    case 'running':
      return <Pill tone="neutral">Analysing</Pill>;
    case 'done':
      return <Pill tone="ok">Done</Pill>;
    case 'failed':
      return <Pill tone="bad">Failed</Pill>;
    case 'cancelled':
      return <Pill tone="warn">Cancelled</Pill>;
  }
}

function RowProgress({ item }: { readonly item: BatchItem }) {
  const percent = Math.round(item.progress * 100);
  const stage = item.stage ? stageLabels[item.stage] : 'Starting';
  return (
    <div className="batch-row-progress">
      <span className="batch-row-stage">
        {stage}… <span className="mono muted">{percent} %</span>
      </span>
      <div
        className="progress-track"
        role="progressbar"
        aria-label={`${item.name}: ${stage}`}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
      >
        <div className="progress-fill" style={progressFillStyle(percent)} />
      </div>
    </div>
  );
}

function ResultCells({ result }: { readonly result: BatchResult }) {
  const lufs = formatOneDecimal(result.integratedLufs);
  const clipLufs = formatOneDecimal(result.clipLufs ?? null);
  const peak = formatOneDecimal(result.truePeakDbtp);
  const tempo = formatOneDecimal(result.tempoBpm);
  const key = keyLabel(result);
  const flags = result.flags.map((flag) => flag.message).join(' ');
  return (
    <>
      <td>
        <span className="batch-role">{result.role}</span>
      </td>
      <td>
        <span className="batch-tier" data-tier={result.tier} title={flags || 'No defects found'}>
          {result.tier}
        </span>{' '}
        <span className="mono muted">{formatScore(result.score)}</span>
        {result.gradedS !== undefined && result.durationS > result.gradedS + 0.05 ? (
          <span className="muted small batch-graded"> · graded the {describeGradedLength(result.gradedS, result.durationS)}</span>
        ) : null}
      </td>
      <td className="num">{lufs ?? <Missing why={missingReason('lufs', result)} />}</td>
      <td className="num">{clipLufs ?? <Missing why={missingReason('clipLufs', result)} />}</td>
      <td className="num">{peak ?? <Missing why={missingReason('truePeak', result)} />}</td>
      <td className="num">{tempo ?? <Missing why={missingReason('tempo', result)} />}</td>
      <td>{key ?? <Missing why={missingReason('key', result)} />}</td>
      <td>
        <span className="mono batch-suggested">{result.suggestedName}</span>
      </td>
    </>
  );
}

function PendingCell({ item, paused }: { readonly item: BatchItem; readonly paused: boolean }): ReactNode {
  switch (item.status) {
    case 'running':
      return <RowProgress item={item} />;
    case 'queued':
      return paused ? (
        <span className="muted">Waiting for the server to come back.</span>
      ) : (
        <span className="muted">Waiting for a free slot: two files are analysed at a time.</span>
      );
    case 'failed':
      return <p className="batch-row-error">{item.error}</p>;
    case 'cancelled':
      return <span className="muted">Stopped before it finished. Retry to analyse it again.</span>;
    case 'done':
      return null;
  }
}

function RowActions({
  item,
  onCancel,
  onRemove,
  onRetry,
}: {
  readonly item: BatchItem;
  readonly onCancel: (id: string) => void;
  readonly onRemove: (id: string) => void;
  readonly onRetry: (id: string) => void;
}) {
  return (
    <div className="batch-row-actions">
      {item.status === 'failed' || item.status === 'cancelled' ? (
        <button
          type="button"
          className="button button-secondary batch-small-button"
          onClick={() => onRetry(item.id)}
          aria-label={`Retry ${item.name}`}
        >
          Retry
        </button>
      ) : null}
      {item.status === 'running' ? (
        <button
          type="button"
          className="button button-ghost batch-small-button"
          onClick={() => onCancel(item.id)}
          aria-label={`Cancel ${item.name}`}
        >
          Cancel
        </button>
      ) : (
        <button
          type="button"
          className="button button-ghost batch-small-button"
          onClick={() => onRemove(item.id)}
          aria-label={`Remove ${item.name}`}
        >
          Remove
        </button>
      )}
    </div>
  );
}

/** The batch as a table: one row per file, sortable by every column; figures once a file is done. */
export function BatchTable({
  items,
  order,
  onSort,
  onCancel,
  onRemove,
  onRetry,
  paused = false,
}: {
  readonly items: readonly BatchItem[];
  /** The batch is paused (server offline): queued files wait for the server, not for a slot. */
  readonly paused?: boolean;
  readonly order: SortOrder | null;
  readonly onSort: (key: SortKey) => void;
  readonly onCancel: (id: string) => void;
  readonly onRemove: (id: string) => void;
  readonly onRetry: (id: string) => void;
}) {
  return (
    // The table may be wider than the window: it scrolls inside this region, never the page.
    <div className="batch-table-wrap" role="region" aria-label="Files in the batch" tabIndex={0}>
      <table className="data batch-table">
        <thead>
          <tr>
            {columns.map((column) => (
              <SortHeader key={column.key} column={column} order={order} onSort={onSort} />
            ))}
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {items.map((item) => (
            <tr key={item.id} data-status={item.status} className={item.status === 'failed' ? 'batch-row-failed' : undefined}>
              <th scope="row" className="batch-file">
                <span className="batch-file-name" title={item.name}>
                  {item.name}
                </span>
              </th>
              <td>
                <StatusPill item={item} />
              </td>
              {item.status === 'done' && item.result ? (
                <ResultCells result={item.result} />
              ) : (
                <td colSpan={valueColumns} className="batch-pending">
                  <PendingCell item={item} paused={paused} />
                </td>
              )}
              <td className="batch-actions-cell">
                <RowActions item={item} onCancel={onCancel} onRemove={onRemove} onRetry={onRetry} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
