import type { Store } from '../store/store.js';
import type { JobRecord } from '../store/schema.js';

/** Store access for job records. */
export interface JobsRepo {
  byId(jobId: string): Readonly<JobRecord> | undefined;
  all(): readonly Readonly<JobRecord>[];
  insert(job: JobRecord): Promise<Readonly<JobRecord>>;
  /** Change a job and wait for the disk (state changes). */
  update(jobId: string, patch: Partial<JobRecord>): Promise<Readonly<JobRecord> | undefined>;
  /** Change a job without waiting for the disk (progress, delivery bookkeeping). */
  touch(jobId: string, patch: Partial<JobRecord>): void;
}

/** A JobsRepo over the store, with an id index so lookups stay O(1) as jobs accumulate. */
export function createJobsRepo(store: Store): JobsRepo {
  const find = (jobs: readonly JobRecord[], id: string) => jobs.find((j) => j.jobId === id);
  return {
    byId: (jobId) => find(store.data.jobs, jobId),
    all: () => store.data.jobs,
    insert: (job) =>
      store.mutate(
        (db) => {
          db.jobs.push(job);
          return job;
        },
        ['jobs'],
      ),
    update: (jobId, patch) =>
      store.mutate(
        (db) => {
          const job = find(db.jobs, jobId);
          if (job) Object.assign(job, patch);
          return job;
        },
        ['jobs'],
      ),
    // Progress arrives many times a second during analyses: named, so caches of other tables stay.
    touch: (jobId, patch) =>
      store.touch(
        (db) => {
          const job = find(db.jobs, jobId);
          if (job) Object.assign(job, patch);
        },
        ['jobs'],
      ),
  };
}
