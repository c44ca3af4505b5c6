import { createHmac, randomUUID } from 'node:crypto';
import type { Logger } from '../http/logger.js';
import type { JobRecord } from '../store/schema.js';
import { outboundRequest } from '../http/outbound.js';
import type { JobsRepo } from './jobs-repo.js';
import { createInProcessDeliveryQueue, type AttemptOutcome, type DeliveryQueue } from './delivery-queue.js';

/** Sends one webhook request; resolves to the HTTP status. Injected so tests and SSRF rules can wrap it. */
export type WebhookTransport = (
  url: string,
  body: string,
  headers: Readonly<Record<string, string>>,
  signal: AbortSignal,
) => Promise<number>;

/** Header names of a delivery (documented in docs/webhooks.md). */
export const webhookHeaders = {
  signature: 'X-Cratehouse-Signature',
  timestamp: 'X-Cratehouse-Timestamp',
  event: 'X-Cratehouse-Event',
  delivery: 'X-Cratehouse-Delivery',
} as const;

export interface WebhookOptions {
  readonly maxAttempts: number;
  /** Delay before the second attempt; each later one doubles it. */
  readonly backoffMs: number;
  readonly timeoutMs: number;
}

export const defaultWebhookOptions: WebhookOptions = { maxAttempts: 6, backoffMs: 2000, timeoutMs: 10_000 };

/** HMAC-SHA256 over `<timestamp>.<body>` with the tenant's secret, as `sha256=<hex>`. */
export function signWebhook(secret: string, timestamp: string, body: string): string {
  return 'sha256=' + createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

/** Delivers the final JobStatus of finished jobs to their webhook_url, off the job queue. */
export interface WebhookSender {
  deliver(job: Readonly<JobRecord>): void;
  onIdle(): Promise<void>;
  stop(): Promise<void>;
}

/** One queued webhook: the job, and the X-Cratehouse-Delivery id every try of it carries. */
export interface WebhookDelivery {
  readonly jobId: string;
  readonly deliveryId: string;
}

/**
 * Create the sender. Deliveries run on their own DeliveryQueue (in process, or BullMQ over Redis so any
 * node makes them), so a slow receiver never holds up jobs; the queue retries with exponential backoff,
 * and the state is kept on the job record (tries, give-up), so a restart resumes undelivered webhooks.
 */
export function createWebhookSender(deps: {
  readonly repo: JobsRepo;
  readonly secretFor: (tenant: string) => string | null;
  readonly present: (job: Readonly<JobRecord>) => unknown;
  readonly transport: WebhookTransport;
  readonly log: Logger;
  readonly options?: Partial<WebhookOptions>;
  /** Where deliveries wait and are retried; in process when absent. */
  readonly queue?: DeliveryQueue<WebhookDelivery>;
}): WebhookSender {
  const options = { ...defaultWebhookOptions, ...deps.options };
  const queue = deps.queue ?? createInProcessDeliveryQueue<WebhookDelivery>(deps.log);

  /** One try; the record counts tries across restarts and says when to give up. */
  async function attempt({ jobId, deliveryId }: WebhookDelivery, stop: AbortSignal): Promise<AttemptOutcome | undefined> {
    // With Redis any node may make the try: catch up with the store first, or the job would read as
    // unfinished (no webhook state yet: dropped) or be presented as it was before it finished.
    await deps.repo.sync();
    const job = deps.repo.byId(jobId);
    if (!job?.webhookUrl || !job.webhook || job.webhook.delivered || job.webhook.gaveUp) return undefined;
    const secret = deps.secretFor(job.tenant);
    const body = JSON.stringify(deps.present(job));
    const attempts = job.webhook.attempts + 1;
    const timestamp = String(Math.floor(Date.now() / 1000));
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      'User-Agent': 'Cratehouse-Webhook',
      [webhookHeaders.event]: 'job.finished',
      [webhookHeaders.delivery]: deliveryId,
      [webhookHeaders.timestamp]: timestamp,
    };
    if (secret) headers[webhookHeaders.signature] = signWebhook(secret, timestamp, body);
    let status: number | null = null;
    let error: string | null = null;
    try {
      status = await deps.transport(job.webhookUrl, body, headers, AbortSignal.any([stop, AbortSignal.timeout(options.timeoutMs)]));
      if (status >= 200 && status < 300) {
        deps.repo.touch(jobId, { webhook: { attempts, delivered: true, gaveUp: false, lastError: null } });
        return { ok: true, status, error: null };
      }
      error = `receiver answered ${status}`;
    } catch (e) {
      // Stopping: this try does not count (the queue drops or hands it back).
      if (stop.aborted) return { ok: false, status: null, error: 'stopped' };
      error = e instanceof Error ? e.message : String(e);
    }
    const gaveUp = attempts >= options.maxAttempts;
    deps.repo.touch(jobId, { webhook: { attempts, delivered: false, gaveUp, lastError: error } });
    if (gaveUp) deps.log.info(`webhook for job ${jobId} given up after ${attempts} attempts: ${error}`);
    return { ok: false, status, error, final: gaveUp };
  }

  queue.start({ attempt, settled: () => undefined }, { maxAttempts: options.maxAttempts, backoffMs: options.backoffMs, concurrency: 4 });
  return {
    deliver(job) {
      if (!job.webhookUrl) return;
      // Keyed by job: a webhook already queued or under way (here or, with Redis, on any node) is not queued twice.
      queue.add({ jobId: job.jobId, deliveryId: randomUUID() }, `webhook-${job.jobId}`);
    },
    onIdle: () => queue.onIdle(),
    stop: () => queue.stop(),
  };
}

/**
 * The default transport: a POST under the outbound rules (http/https only; private, loopback and
 * metadata addresses refused unless allowed; every resolved address checked and pinned). Redirects
 * are not followed: a webhook receiver answers where it was registered.
 */
export function outboundTransport(allowPrivate: boolean): WebhookTransport {
  return async (url, body, headers, signal) => {
    const res = await outboundRequest(url, { method: 'POST', body, headers, signal }, { allowPrivate, maxRedirects: 0 });
    res.body.resume();
    return res.status;
  };
}
