import type { SourceRecord } from '../../store/schema.js';
import type { Store } from '../../store/store.js';

/** Store access for fetched source URLs. */
export interface SourcesRepo {
  byUrl(url: string): Readonly<SourceRecord> | undefined;
  /** Record (or replace) what a URL was fetched into; waits for the disk. */
  save(record: SourceRecord): Promise<void>;
  /** Forget a URL whose artifact is gone. */
  forget(url: string): Promise<void>;
}

/** A SourcesRepo over the store. */
export function createSourcesRepo(store: Store): SourcesRepo {
  return {
    byUrl: (url) => store.data.sources.find((s) => s.url === url),
    save: (record) =>
      store.mutate((db) => {
        db.sources = db.sources.filter((s) => s.url !== record.url);
        db.sources.push(record);
      }),
    forget: (url) =>
      store.mutate((db) => {
        db.sources = db.sources.filter((s) => s.url !== url);
      }),
  };
}
