import type { TenantUsage } from '../store/schema.js';
import type { UsageDelta, UsageRepo } from './usage-repo.js';

/** Per-tenant usage as /me reports it. */
export interface UsageReport {
  readonly requests: Readonly<Record<string, number>>;
  readonly requests_total: number;
  readonly bytes_uploaded: number;
  readonly audio_seconds: number;
}

/**
 * Counts requests per route, bytes uploaded and seconds of audio analysed, per tenant. Counts are
 * kept in memory and persisted in one write every `flushMs` (and at shutdown): metering must not
 * turn every request into a disk write. A hard kill loses at most the last interval's counts.
 */
export class Meter {
  private pending = new Map<string, UsageDelta>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly repo: UsageRepo,
    private readonly flushMs = 5000,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Count one request to a route (`GET /audio/v1/me`). */
  request(tenant: string, route: string): void {
    const d = this.delta(tenant);
    d.requests.set(route, (d.requests.get(route) ?? 0) + 1);
  }

  uploaded(tenant: string, bytes: number): void {
    this.delta(tenant).bytesUploaded += bytes;
  }

  analysed(tenant: string, seconds: number): void {
    this.delta(tenant).audioSeconds += seconds;
  }

  /** Persisted counts plus those not yet flushed. */
  report(tenant: string): UsageReport {
    const stored: Readonly<TenantUsage> | undefined = this.repo.get(tenant);
    const requests: Record<string, number> = { ...(stored?.requests ?? {}) };
    const d = this.pending.get(tenant);
    for (const [route, n] of d?.requests ?? []) requests[route] = (requests[route] ?? 0) + n;
    return {
      requests,
      requests_total: Object.values(requests).reduce((a, b) => a + b, 0),
      bytes_uploaded: (stored?.bytesUploaded ?? 0) + (d?.bytesUploaded ?? 0),
      audio_seconds: Math.round(((stored?.audioSeconds ?? 0) + (d?.audioSeconds ?? 0)) * 1000) / 1000,
    };
  }

  /** Persist what has been counted so far. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      if (this.pending.size === 0) return;
      const batch = this.pending;
      this.pending = new Map();
      try {
        await this.repo.add(batch, this.now().toISOString());
      } catch {
        // Put the counts back so the next flush retries them.
        for (const [tenant, delta] of batch) {
          const d = this.delta(tenant);
          for (const [route, n] of delta.requests) d.requests.set(route, (d.requests.get(route) ?? 0) + n);
          d.bytesUploaded += delta.bytesUploaded;
          d.audioSeconds += delta.audioSeconds;
        }
      }
    });
    return this.flushing;
  }

  /** Start the periodic flush. */
  start(): void {
    this.timer ??= setInterval(() => void this.flush(), this.flushMs);
    this.timer.unref();
  }

  /** Stop the timer and persist the remainder. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }

  private delta(tenant: string): UsageDelta {
    let d = this.pending.get(tenant);
    if (!d) {
      d = { requests: new Map(), bytesUploaded: 0, audioSeconds: 0 };
      this.pending.set(tenant, d);
    }
    return d;
  }
}
