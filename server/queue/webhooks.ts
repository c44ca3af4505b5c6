import { createHmac, randomUUID } from 'node:crypto';
import PQueue from 'p-queue';
import type { Logger } from '../http/logger.js';
import type { JobRecord } from '../store/schema.js';
import { outboundRequest } from '../http/outbound.js';
import type { JobsRepo } from './jobs-repo.js';

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

/**
 * Create the sender. Deliveries run on their own small queue, so a slow receiver never holds up
 * jobs; each is retried with exponential backoff, and its state is kept on the job record so a
 * restart resumes undelivered webhooks.
 */
export function createWebhookSender(deps: {
  readonly repo: JobsRepo;
  readonly secretFor: (tenant: string) => string | null;
  readonly present: (job: Readonly<JobRecord>) => unknown;
  readonly transport: WebhookTransport;
  readonly log: Logger;
  readonly options?: Partial<WebhookOptions>;
}): WebhookSender {
  const options = { ...defaultWebhookOptions, ...deps.options };
  const queue = new PQueue({ concurrency: 4 });
  const inFlight = new Set<string>();
  const stopper = new AbortController();

  /** Wait between attempts; stop() ends the wait at once. */
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(resolve, ms);
      stopper.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(t);
          resolve();
        },
        { once: true },
      );
    });

  async function attemptAll(jobId: string): Promise<void> {
    const job = deps.repo.byId(jobId);
    if (!job?.webhookUrl || !job.webhook || job.webhook.delivered || job.webhook.gaveUp) return;
    const secret = deps.secretFor(job.tenant);
    const body = JSON.stringify(deps.present(job));
    const deliveryId = randomUUID();
    let attempts = job.webhook.attempts;
    while (attempts < options.maxAttempts && !stopper.signal.aborted) {
      if (attempts > 0) await sleep(options.backoffMs * 2 ** (attempts - 1));
      if (stopper.signal.aborted) return;
      attempts++;
      const timestamp = String(Math.floor(Date.now() / 1000));
      const headers: Record<string, string> = {
        'Content-Type': 'application/json',
        'User-Agent': 'Cratehouse-Webhook',
        [webhookHeaders.event]: 'job.finished',
        [webhookHeaders.delivery]: deliveryId,
        [webhookHeaders.timestamp]: timestamp,
      };
      if (secret) headers[webhookHeaders.signature] = signWebhook(secret, timestamp, body);
      let error: string | null = null;
      try {
        const signal = AbortSignal.any([stopper.signal, AbortSignal.timeout(options.timeoutMs)]);
        const status = await deps.transport(job.webhookUrl, body, headers, signal);
        if (status >= 200 && status < 300) {
          deps.repo.touch(jobId, { webhook: { attempts, delivered: true, gaveUp: false, lastError: null } });
          return;
        }
        error = `receiver answered ${status}`;
      } catch (e) {
        if (stopper.signal.aborted) return;
        error = e instanceof Error ? e.message : String(e);
      }
      const gaveUp = attempts >= options.maxAttempts;
      deps.repo.touch(jobId, { webhook: { attempts, delivered: false, gaveUp, lastError: error } });
      if (gaveUp) deps.log.info(`webhook for job ${jobId} given up after ${attempts} attempts: ${error}`);
    }
  }

  return {
    deliver(job) {
      if (!job.webhookUrl || inFlight.has(job.jobId) || stopper.signal.aborted) return;
      inFlight.add(job.jobId);
      void queue
        .add(() => attemptAll(job.jobId))
        .catch((e: unknown) => deps.log.error(`webhook delivery for ${job.jobId} crashed`, e))
        .finally(() => inFlight.delete(job.jobId));
    },
    onIdle: () => queue.onIdle(),
    async stop() {
      stopper.abort();
      queue.clear();
      await queue.onIdle();
    },
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
