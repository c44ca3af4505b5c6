import type { Store } from '../store/store.js';
import { patchRow, type JobRecord } from '../store/schema.js';

/** Store access for job records. */
export interface JobsRepo {
  byId(jobId: string): Readonly<JobRecord> | undefined;
  all(): readonly Readonly<JobRecord>[];
  insert(job: JobRecord): Promise<Readonly<JobRecord>>;
  /** Change a job and wait for the disk (state changes). */
  update(jobId: string, patch: Partial<JobRecord>): Promise<Readonly<JobRecord> | undefined>;
  /** Change a job without waiting for the disk (progress, delivery bookkeeping). */
  touch(jobId: string, patch: Partial<JobRecord>): void;
  /** Resolve once every job other nodes committed before the call is readable here (Store.sync). */
  sync(): Promise<void>;
}

/** A JobsRepo over the store, with an id index so lookups stay O(1) as jobs accumulate. */
export function createJobsRepo(store: Store): JobsRepo {
  const find = (jobs: readonly JobRecord[], id: string) => jobs.find((j) => j.jobId === id);
  /** Replace a job's row (rows are immutable); undefined when there is none. */
  const patchJob = (jobs: JobRecord[], id: string, patch: Partial<JobRecord>) => patchRow(jobs, (j) => j.jobId === id, patch);
  return {
    byId: (jobId) => find(store.data.jobs, jobId),
    all: () => store.data.jobs,
    sync: () => store.sync(),
    insert: (job) =>
      store.mutate(
        (db) => {
          db.jobs.push(job);
          return job;
        },
        ['jobs'],
      ),
    update: (jobId, patch) => store.mutate((db) => patchJob(db.jobs, jobId, patch), ['jobs']),
    // Progress arrives many times a second during analyses: named, so caches of other tables stay.
    touch: (jobId, patch) => store.touch((db) => void patchJob(db.jobs, jobId, patch), ['jobs']),
  };
}
