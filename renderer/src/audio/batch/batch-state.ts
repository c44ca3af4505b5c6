// The one batch of this window and how its table was last sorted and filtered: both outlive the
// screen, so coming back to Batch shows the same files the same way.
import { getHealth } from '../../api/client';
import { analyseFile } from './analyse-file';
import type { BatchFilter, SortOrder } from './batch-model';
import { createBatchStore } from './batch-store';

/** The server has two cores: two files at a time keep both busy without queueing requests there. */
export const batchStore = createBatchStore(analyseFile, 2, {
  // A paused batch asks every 3 s whether the server is back.
  probe: () => getHealth().then(() => true),
  intervalMs: 3_000,
});

/** The table's sort (null: the order files were added in) and filter as the person left them. */
export const batchView: { order: SortOrder | null; filter: BatchFilter } = {
  order: null,
  filter: { text: '', role: 'all', tier: 'all' },
};
