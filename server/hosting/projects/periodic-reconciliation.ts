import type { Logger } from '../../http/logger.js';
import type { ProjectsRepo } from './projects-repo.js';
import type { ReconcileOptions, ReconcileReport } from './reconcile-repositories.js';

/** How often a running node reconciles, and what it spares (CRATEHOUSE_RECONCILE_INTERVAL_S, CRATEHOUSE_RECONCILE_GRACE_S). */
export interface ReconcileSchedule {
  readonly intervalMs: number;
  /** Disagreements younger than this are left alone (another node may be making them). */
  readonly graceMs: number;
}

/** The name the passes hold across nodes (a PostgreSQL advisory lock; in process for the embedded store). */
const lockName = 'reconcile-repositories';

/**
 * The boot reconciliation run again while the node serves, so that a node killed mid-create on a
 * shared data dir does not leave its half-made project or orphan repository until some node
 * restarts. One node at a time runs a pass (the others skip theirs); a pass repairs only what is
 * older than the grace and was already there at this node's previous pass, so nothing a live
 * create, rename or delete on any node is still making is touched. Nothing is deleted: unowned
 * repositories go to lost+found, as at boot.
 */
export class PeriodicReconciliation {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  /** What this node's previous pass found (empty before its first: the first pass only looks). */
  private seen: ReadonlySet<string> = new Set();

  constructor(
    private readonly pass: (options: ReconcileOptions) => Promise<ReconcileReport>,
    private readonly repo: Pick<ProjectsRepo, 'runAlone'>,
    private readonly log: Logger,
    private readonly schedule: ReconcileSchedule,
  ) {}

  /** Run a pass every interval until stopped. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.runOnce(), this.schedule.intervalMs);
    this.timer.unref();
  }

  /**
   * One pass now, unless one is running here or on another node; resolves to its report, or
   * undefined when skipped. Failures are logged, not thrown (the next interval tries again).
   */
  async runOnce(): Promise<ReconcileReport | undefined> {
    if (this.running) return undefined;
    let report: ReconcileReport | undefined;
    this.running = (async () => {
      try {
        const ran = await this.repo.runAlone(lockName, async () => {
          report = await this.pass({ spareYoungerThanMs: this.schedule.graceMs, onlyIfSeenBefore: this.seen });
          this.seen = report.found;
          this.log.debug(
            `repositories: periodic pass found ${report.found.size} disagreement(s), moved ${report.movedAside.length} aside, created ${report.recreated.length}`,
          );
        });
        // Another node's pass ran meanwhile and may have repaired what this one saw; the same key
        // found later can be a new operation in flight: start looking afresh.
        if (!ran) this.seen = new Set();
      } catch (error) {
        this.seen = new Set();
        this.log.error('repositories: the periodic reconciliation failed; the next one tries again', error);
      }
    })();
    try {
      await this.running;
    } finally {
      this.running = null;
    }
    return report;
  }

  /** No more passes; resolves once a pass under way has finished (before the store closes). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
