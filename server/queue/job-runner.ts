import { randomUUID } from 'node:crypto';
import { AppError, notFound } from '../http/errors.js';
import type { Logger } from '../http/logger.js';
import type { JobRecord } from '../store/schema.js';
import { createInProcessQueue, type JobQueue } from './job-queue.js';
import type { JobsRepo } from './jobs-repo.js';
import type { WebhookSender } from './webhooks.js';

/** What a handler gets: its job's inputs, a way to report progress, and a cancellation signal. */
export interface JobContext {
  readonly jobId: string;
  readonly tenant: string;
  readonly params: unknown;
  /** Aborted when the job is cancelled or the server stops; pass it to fetches and child processes. */
  readonly signal: AbortSignal;
  /** Report progress (0..1). Throws JobStoppedError once the job was cancelled: call it between steps. */
  checkpoint(progress: number): void;
}

/** The outcome a handler returns on success. */
export interface JobOutcome {
  readonly result: unknown;
  readonly resultRef?: string | null;
}

export type JobHandler = (ctx: JobContext) => Promise<JobOutcome>;

/** Thrown by checkpoint() when a job must stop (cancelled, or the server is shutting down). */
export class JobStoppedError extends Error {}

/** What POST endpoints hand the runner. */
export interface JobSubmission {
  readonly type: string;
  readonly tenant: string;
  readonly params: unknown;
  readonly priority?: number;
  readonly webhookUrl?: string | null;
}

/** The message of a cancelled job; clients know only the four states, so it ends in `error`. */
export const cancelledMessage = 'cancelled';

/**
 * Runs jobs from a JobQueue (in process on p-queue, or BullMQ over Redis). Records live in the store;
 * the queue holds only job ids, so a restart loses nothing: resume() re-queues what was pending or running.
 */
export class JobRunner {
  private readonly queue: JobQueue;
  private readonly running = new Map<string, AbortController>();
  private stopping = false;
  private readonly progressWrittenAt = new Map<string, number>();
  private readonly handlers = new Map<string, JobHandler>();
  private started = false;

  constructor(
    private readonly repo: JobsRepo,
    handlers: ReadonlyMap<string, JobHandler>,
    private readonly webhooks: WebhookSender,
    private readonly log: Logger,
    /** A number: the in-process queue with that many slots. */
    queue: number | JobQueue,
    private readonly clock: () => number = () => Date.now() / 1000,
  ) {
    this.queue = typeof queue === 'number' ? createInProcessQueue(queue, log) : queue;
    for (const [kind, handler] of handlers) this.register(kind, handler);
    this.queue.onCancel((jobId) => this.running.get(jobId)?.abort(new JobStoppedError(cancelledMessage)));
  }

  /**
   * Run jobs of `kind` with `handler`. Services register theirs once the runner exists, so a service
   * and its handler are built together; register before resume() (a resumed job needs its handler).
   */
  register(kind: string, handler: JobHandler): void {
    if (this.handlers.has(kind)) throw new Error(`job type ${kind} is registered twice`);
    this.handlers.set(kind, handler);
  }

  /** Persist a new pending job and queue it. */
  async submit(submission: JobSubmission): Promise<Readonly<JobRecord>> {
    if (!this.handlers.has(submission.type)) throw new AppError('invalid', `unknown job type ${submission.type}`);
    const job = await this.repo.insert(this.newRecord(submission, 'pending'));
    this.startTaking();
    this.enqueue(job);
    return job;
  }

  /** Persist a job that is already done (a cached answer), delivering its webhook. */
  async submitDone(submission: JobSubmission, outcome: JobOutcome): Promise<Readonly<JobRecord>> {
    const now = this.clock();
    const job = await this.repo.insert({
      ...this.newRecord(submission, 'done'),
      progress: 1,
      result: outcome.result,
      resultRef: outcome.resultRef ?? null,
      started: now,
      finished: now,
    });
    this.webhooks.deliver(job);
    return job;
  }

  /** The job if it belongs to the tenant; otherwise `not-found` (existence never leaks). */
  getForTenant(tenant: string, jobId: string): Readonly<JobRecord> {
    const job = this.repo.byId(jobId);
    if (!job || job.tenant !== tenant) throw notFound('Job');
    return job;
  }

  /** A tenant's finished jobs of one type whose result `match` accepts (a scan: for occasional lookups). */
  findDoneForTenant(tenant: string, type: string, match: (result: unknown) => boolean): Readonly<JobRecord> | undefined {
    return this.repo.all().find((j) => j.tenant === tenant && j.type === type && j.status === 'done' && match(j.result));
  }

  /**
   * Cancel a tenant's job. Pending: ends in `error: cancelled` at once. Running: flagged and its
   * signal aborted; it ends at its next checkpoint. Finished: unchanged (idempotent).
   */
  async cancel(tenant: string, jobId: string): Promise<Readonly<JobRecord>> {
    const job = this.getForTenant(tenant, jobId);
    if (job.status === 'pending') return this.finish(job.jobId, { status: 'error', error: cancelledMessage, cancelRequested: true });
    if (job.status === 'running') {
      if (!job.cancelRequested) await this.repo.update(jobId, { cancelRequested: true });
      // The node running it may be another one: every node hears the cancellation.
      await this.queue.publishCancel(jobId);
      return this.repo.byId(jobId) ?? job;
    }
    return job;
  }

  /**
   * Re-queue jobs a previous run left pending or running, and retry undelivered webhooks. With
   * `othersLive` (other application nodes share the store and the Redis queue), a running job is
   * another node's: it is left to that node, or to the queue's stalled-job recovery if that node died.
   */
  async resume(options: { readonly othersLive?: boolean } = {}): Promise<number> {
    this.startTaking();
    const unfinished = this.repo
      .all()
      .filter((j) => j.status === 'pending' || (j.status === 'running' && !options.othersLive))
      .sort((a, b) => a.created - b.created);
    for (const job of unfinished) {
      if (job.cancelRequested) await this.finish(job.jobId, { status: 'error', error: cancelledMessage });
      else {
        if (job.status === 'running') await this.repo.update(job.jobId, { status: 'pending' });
        this.enqueue(job);
      }
    }
    for (const job of this.repo.all())
      if (job.webhookUrl && job.webhook && !job.webhook.delivered && !job.webhook.gaveUp) this.webhooks.deliver(job);
    return unfinished.length;
  }

  /** Resolve when nothing is queued or running (tests, shutdown). */
  onIdle(): Promise<void> {
    return this.queue.onIdle();
  }

  /** Stop taking work; running handlers are aborted and their jobs stay resumable. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const controller of this.running.values()) controller.abort(new JobStoppedError('server stopping'));
    await this.queue.stop();
    await this.webhooks.stop();
  }

  private newRecord(s: JobSubmission, status: JobRecord['status']): JobRecord {
    return {
      jobId: randomUUID(),
      type: s.type,
      tenant: s.tenant,
      status,
      progress: 0,
      priority: s.priority ?? 0,
      params: s.params,
      result: null,
      resultRef: null,
      error: null,
      created: this.clock(),
      started: null,
      finished: null,
      cancelRequested: false,
      webhookUrl: s.webhookUrl ?? null,
      webhook: s.webhookUrl ? { attempts: 0, delivered: false, gaveUp: false, lastError: null } : null,
    };
  }

  /**
   * Take ids from the queue from the first submit or resume() on, not at construction: a shared queue
   * (Redis) may hold ids of a previous run, which must find every handler registered.
   */
  private startTaking(): void {
    if (this.started) return;
    this.started = true;
    this.queue.start((jobId) => this.run(jobId));
  }

  private enqueue(job: Readonly<JobRecord>): void {
    this.queue.add(job.jobId, job.priority);
  }

  private async run(jobId: string): Promise<void> {
    // `running` but not here: the queue handed it out again because the node that took it died
    // (BullMQ's stalled-job recovery), so it runs again from the start.
    const runnable = (j: Readonly<JobRecord> | undefined) =>
      j?.status === 'pending' || (j?.status === 'running' && !this.running.has(jobId));
    let job = this.repo.byId(jobId);
    // Taken from Redis the moment another node queued it, the job may not be in this node's copy of the
    // store yet (or not in its latest state): catch up before deciding there is nothing to run.
    if (!runnable(job)) {
      await this.repo.sync();
      job = this.repo.byId(jobId);
    }
    if (!job || !runnable(job) || this.stopping) return;
    const handler = this.handlers.get(job.type);
    if (!handler) {
      await this.finish(jobId, { status: 'error', error: `no handler for job type ${job.type}` });
      return;
    }
    const controller = new AbortController();
    this.running.set(jobId, controller);
    await this.repo.update(jobId, { status: 'running', started: this.clock(), progress: 0 });
    const ctx: JobContext = {
      jobId,
      tenant: job.tenant,
      params: job.params,
      signal: controller.signal,
      checkpoint: (progress) => {
        if (controller.signal.aborted)
          throw controller.signal.reason instanceof JobStoppedError ? controller.signal.reason : new JobStoppedError('stopped');
        this.reportProgress(jobId, progress);
      },
    };
    try {
      const outcome = await handler(ctx);
      if (controller.signal.aborted && !this.stopping) throw new JobStoppedError(cancelledMessage);
      await this.finish(jobId, { status: 'done', progress: 1, result: outcome.result, resultRef: outcome.resultRef ?? null });
    } catch (error) {
      const current = this.repo.byId(jobId);
      if (this.stopping && !current?.cancelRequested) return; // left running: resumed at next boot
      if (current?.cancelRequested) await this.finish(jobId, { status: 'error', error: cancelledMessage });
      else {
        if (!(error instanceof AppError)) this.log.error(`job ${jobId} (${job.type}) failed`, error);
        await this.finish(jobId, { status: 'error', error: error instanceof Error ? error.message : String(error) });
      }
    } finally {
      this.running.delete(jobId);
      this.progressWrittenAt.delete(jobId);
    }
  }

  /** Progress is written at most twice a second and without waiting for the disk. */
  private reportProgress(jobId: string, progress: number): void {
    const p = Math.min(1, Math.max(0, Number.isFinite(progress) ? progress : 0));
    const now = Date.now();
    if (now - (this.progressWrittenAt.get(jobId) ?? 0) < 500) return;
    this.progressWrittenAt.set(jobId, now);
    this.repo.touch(jobId, { progress: Math.round(p * 1000) / 1000 });
  }

  private async finish(jobId: string, patch: Partial<JobRecord>): Promise<Readonly<JobRecord>> {
    const job = await this.repo.update(jobId, { ...patch, finished: this.clock() });
    if (!job) throw notFound('Job');
    this.webhooks.deliver(job);
    return job;
  }
}
