// Project webhooks: the hook records and their event switches, and the delivery of events (one try with
// its timeout, the delivery log; the queue, retries and backoff are the DeliveryQueue's). Just over 400
// lines: the records and the delivery are one service because a test delivery and a push share the
// queue; payloads are in hook-payloads.ts.
import { randomUUID } from 'node:crypto';
import type { IdentityService } from '../../auth/identity.js';
import { AppError } from '../../http/errors.js';
import type { Logger } from '../../http/logger.js';
import { outboundRequest, resolvePublicAddress, type OutboundPolicy } from '../../http/outbound.js';
import { createInProcessDeliveryQueue, type AttemptOutcome, type DeliveryQueue } from '../../queue/delivery-queue.js';
import type { HookEvents, ProjectHookRecord, ProjectRecord, UserRecord } from '../../store/schema.js';
import { isZeroId } from '../git/git-names.js';
import { commitsBetween, countCommitsBetween, recentCommits, type CommitSummary } from '../git/repositories.js';
import { branchMatches, maxPayloadCommits, pushPayload, type PayloadProject } from './hook-payloads.js';
import type { HooksRepo } from './hooks-repo.js';
import type { Viewer } from '../projects/project-access.js';
import { httpUrlProblem } from '../projects/project-rules.js';
import type { ProjectService } from '../projects/projects.js';

/** The event switches, in GitLab's order. */
export const hookEventKeys: readonly (keyof HookEvents)[] = [
  'push_events',
  'issues_events',
  'confidential_issues_events',
  'merge_requests_events',
  'tag_push_events',
  'note_events',
  'job_events',
  'pipeline_events',
  'wiki_page_events',
];

/** A new hook's switches: push on, the rest off (GitLab's column defaults). */
export const defaultHookEvents: Readonly<HookEvents> = {
  push_events: true,
  issues_events: false,
  confidential_issues_events: false,
  merge_requests_events: false,
  tag_push_events: false,
  note_events: false,
  job_events: false,
  pipeline_events: false,
  wiki_page_events: false,
};

/** What a create or edit request sets. */
export interface HookInput {
  readonly url?: string;
  readonly token?: string | null;
  readonly events: Partial<HookEvents>;
  readonly pushEventsBranchFilter?: string | null;
  readonly enableSslVerification?: boolean;
}

/** Delivery limits. */
export interface HookDeliveryOptions {
  readonly timeoutMs: number;
  /** Attempts in all (the first plus retries). */
  readonly maxAttempts: number;
  /** Wait before the first retry; each later one doubles it. */
  readonly backoffMs: number;
  readonly concurrency: number;
}

export const defaultHookDelivery: HookDeliveryOptions = { timeoutMs: 10_000, maxAttempts: 3, backoffMs: 1000, concurrency: 4 };

/** How hooks reach git, the network and this server's URL. */
export interface HookServiceOptions {
  readonly gitPath: string;
  /** Hook URLs may name private and loopback addresses (checked at create, edit and delivery). */
  readonly allowPrivate: boolean;
  /** Resolve a host name; the system resolver unless a test injects one. */
  readonly resolve?: OutboundPolicy['resolve'];
  readonly version: string;
  /** The server's public base URL (payload links, X-Gitlab-Instance). */
  readonly baseUrl: () => string;
  readonly log: Logger;
  readonly delivery?: Partial<HookDeliveryOptions>;
  /** Where deliveries wait and are retried: BullMQ over Redis across nodes; in process when absent. */
  readonly queue?: DeliveryQueue<HookDelivery>;
}

/** One queued delivery of an event to a hook (JSON: with Redis it waits there for any node). */
export interface HookDelivery {
  readonly projectId: number;
  readonly hookId: number;
  readonly event: string;
  readonly body: string;
  /** X-Gitlab-Event-UUID: the same on every try. */
  readonly eventUuid: string;
}

/** One delivery's outcome, kept in memory (the latest per hook) for tests and diagnostics. */
export interface DeliveryRecord {
  readonly hookId: number;
  readonly event: string;
  readonly attempts: number;
  readonly status: number | null;
  readonly error: string | null;
  readonly delivered: boolean;
}

/** GitLab's trigger names for the test endpoint, and what a project without such data answers. */
const otherTriggers: Readonly<Record<string, string>> = {
  issues_events: 'Ensure the project has issues.',
  confidential_issues_events: 'Ensure the project has issues.',
  note_events: 'Ensure the project has notes.',
  merge_requests_events: 'Ensure the project has merge requests.',
  job_events: 'Ensure the project has CI jobs.',
  pipeline_events: 'Ensure the project has CI pipelines.',
  wiki_page_events: 'Ensure the wiki is enabled and has pages.',
  releases_events: 'Ensure the project has releases.',
};

/**
 * Project hooks: CRUD for maintainers, and delivery. Pushes are turned into GitLab's `Push Hook` /
 * `Tag Push Hook` payloads and queued; deliveries run on their own small queue (never inside the
 * push), each with a timeout and a bounded number of attempts, under the outbound address rules.
 */
export class HookService {
  private readonly queue: DeliveryQueue<HookDelivery>;
  private readonly options: HookDeliveryOptions;
  private readonly latest = new Map<number, DeliveryRecord[]>();

  constructor(
    private readonly repo: HooksRepo,
    private readonly projects: ProjectService,
    private readonly identity: IdentityService,
    private readonly deps: HookServiceOptions,
  ) {
    this.options = { ...defaultHookDelivery, ...deps.delivery };
    this.queue = deps.queue ?? createInProcessDeliveryQueue(deps.log);
    this.queue.start(
      {
        attempt: (delivery, signal) => this.attemptCurrent(delivery, signal),
        settled: (delivery, attempts, last) => this.settle(delivery, attempts, last),
      },
      this.options,
    );
  }

  list(viewer: Viewer, project: Readonly<ProjectRecord>): readonly Readonly<ProjectHookRecord>[] {
    this.requireMaintainer(viewer, project);
    return this.repo.ofProject(project.id);
  }

  get(viewer: Viewer, project: Readonly<ProjectRecord>, hookId: number): Readonly<ProjectHookRecord> {
    this.requireMaintainer(viewer, project);
    const hook = this.repo.byId(project.id, hookId);
    if (!hook) throw new AppError('not-found', 'Not found', { code: 'record' });
    return hook;
  }

  async create(viewer: Viewer, project: Readonly<ProjectRecord>, input: HookInput): Promise<Readonly<ProjectHookRecord>> {
    this.requireMaintainer(viewer, project);
    const url = await this.checkUrl(input.url ?? '');
    return this.repo.insert({
      projectId: project.id,
      url,
      token: input.token || null,
      events: { ...defaultHookEvents, ...input.events },
      pushEventsBranchFilter: input.pushEventsBranchFilter ?? null,
      enableSslVerification: input.enableSslVerification ?? true,
      createdAt: new Date().toISOString(),
    });
  }

  async update(viewer: Viewer, project: Readonly<ProjectRecord>, hookId: number, input: HookInput): Promise<Readonly<ProjectHookRecord>> {
    const hook = this.get(viewer, project, hookId);
    const url = input.url === undefined ? hook.url : await this.checkUrl(input.url);
    // GitLab: a new URL drops the old secret unless a new one is sent.
    const token = input.token !== undefined ? input.token || null : url !== hook.url ? null : hook.token;
    return this.repo.update(hook.id, {
      url,
      token,
      events: { ...hook.events, ...input.events },
      ...(input.pushEventsBranchFilter !== undefined ? { pushEventsBranchFilter: input.pushEventsBranchFilter } : {}),
      ...(input.enableSslVerification !== undefined ? { enableSslVerification: input.enableSslVerification } : {}),
    });
  }

  /** Idempotent delete: the removed hook, or undefined when there was none. */
  async remove(viewer: Viewer, project: Readonly<ProjectRecord>, hookId: number): Promise<Readonly<ProjectHookRecord> | undefined> {
    this.requireMaintainer(viewer, project);
    return this.repo.remove(project.id, hookId);
  }

  /** Turn a push into hook deliveries (queued; this returns at once and never throws). */
  firePush(
    project: Readonly<ProjectRecord>,
    user: Readonly<UserRecord>,
    refUpdates: readonly { readonly ref: string; readonly before: string; readonly after: string }[],
  ): void {
    const hooks = this.repo.ofProject(project.id);
    if (hooks.length === 0) return;
    void this.buildPushes(project, user, refUpdates)
      .then((pushes) => {
        for (const push of pushes) {
          for (const hook of hooks) {
            if (!hook.events[push.switch]) continue;
            if (push.switch === 'push_events' && !branchMatches(hook.pushEventsBranchFilter, push.ref.replace(/^refs\/heads\//, '')))
              continue;
            this.queue.add({
              projectId: hook.projectId,
              hookId: hook.id,
              event: push.event,
              body: JSON.stringify(push.payload),
              eventUuid: randomUUID(),
            });
          }
        }
      })
      .catch((error: unknown) => this.deps.log.error(`push hooks for project ${project.id} could not be prepared`, error));
  }

  /**
   * `POST /projects/:id/hooks/:hook_id/test/:trigger`: one synchronous delivery of sample data from
   * the repository (the last 3 commits of the default branch). A receiver that does not answer 2xx
   * is a 422 carrying what went wrong.
   */
  async test(viewer: Viewer, project: Readonly<ProjectRecord>, hookId: number, trigger: string, user: Readonly<UserRecord>): Promise<void> {
    const hook = this.get(viewer, project, hookId);
    if (trigger !== 'push_events' && trigger !== 'tag_push_events') {
      if (otherTriggers[trigger]) throw new AppError('unprocessable', otherTriggers[trigger]!);
      throw new AppError('invalid', 'trigger does not have a valid value', {
        issues: [{ loc: ['trigger'], msg: 'does not have a valid value', type: 'value', input: trigger }],
      });
    }
    const dir = this.projects.repositoryOf(project);
    // The record's emptyRepo is updated only after a first push has returned to the client, so a test
    // right after that push asks the repository itself; a branch that does not exist yet holds no commit.
    const read = () => recentCommits(dir, `refs/heads/${project.defaultBranch}`, 3, { gitPath: this.deps.gitPath });
    const commits = project.emptyRepo ? await read().catch(() => []) : await read();
    if (commits.length === 0) throw new AppError('unprocessable', 'Ensure the project has at least one commit.');
    const head = commits[commits.length - 1]!.id;
    const tag = trigger === 'tag_push_events';
    const payload = pushPayload({
      kind: tag ? 'tag_push' : 'push',
      before: commits[0]!.id,
      after: head,
      ref: tag ? 'refs/tags/test' : `refs/heads/${project.defaultBranch}`,
      checkoutSha: head,
      user,
      project: this.payloadProject(project),
      commits: tag ? [] : commits,
      totalCommits: tag ? 0 : commits.length,
    });
    const delivery = {
      projectId: hook.projectId,
      hookId: hook.id,
      event: tag ? 'Tag Push Hook' : 'Push Hook',
      body: JSON.stringify(payload),
    };
    let outcome: AttemptOutcome | undefined;
    try {
      outcome = await this.queue.tryOnce({ ...delivery, eventUuid: randomUUID() });
    } catch (error) {
      // With Redis: no node made the try in time, or this node is stopping.
      throw new AppError('unavailable', 'The test delivery could not be made now; try again', { cause: error });
    }
    if (!outcome) throw new AppError('not-found', 'Not found', { code: 'record' });
    if (!outcome.ok) throw new AppError('unprocessable', outcome.error ?? `Receiver answered ${outcome.status}`);
  }

  /** The latest deliveries of a hook (newest last). */
  deliveries(hookId: number): readonly DeliveryRecord[] {
    return this.latest.get(hookId) ?? [];
  }

  /** Resolve when no delivery is queued, waiting for a retry or running (with Redis: on any node). */
  onIdle(): Promise<void> {
    return this.queue.onIdle();
  }

  /** Stop: running tries are aborted; queued deliveries are dropped (in process) or left to the other nodes (Redis). */
  async stop(): Promise<void> {
    await this.queue.stop();
  }

  /**
   * A hook URL must be http(s) and, unless private targets are allowed, resolve only to public
   * addresses (the outbound rules): refused when stored, not only at delivery, as GitLab's
   * UrlBlocker does. Delivery checks again (the name may resolve elsewhere by then).
   */
  private async checkUrl(raw: string): Promise<string> {
    if (httpUrlProblem(raw) !== null) throw invalidHookUrl();
    if (this.deps.allowPrivate) return raw;
    try {
      await resolvePublicAddress(raw, { allowPrivate: false, allowCredentials: true, resolve: this.deps.resolve });
    } catch (error) {
      if (error instanceof AppError) throw invalidHookUrl(error);
      throw error;
    }
    return raw;
  }

  private requireMaintainer(viewer: Viewer, project: Readonly<ProjectRecord>): void {
    if (!viewer.user) throw new AppError('unauthorized', 'Unauthorized');
    if (!viewer.canAdmin(project)) throw new AppError('forbidden', 'Forbidden');
  }

  private payloadProject(project: Readonly<ProjectRecord>): PayloadProject {
    const ns = this.projects.namespaceOf(project);
    const namespaceName =
      ns.kind === 'user' ? (this.identity.findUserById(ns.ownerId)?.name ?? ns.name) : (this.identity.findGroup(ns.id)?.name ?? ns.name);
    return { project, fullPath: this.projects.fullPath(project), namespaceName, base: this.deps.baseUrl() };
  }

  private async buildPushes(
    project: Readonly<ProjectRecord>,
    user: Readonly<UserRecord>,
    refUpdates: readonly { readonly ref: string; readonly before: string; readonly after: string }[],
  ) {
    const dir = this.projects.repositoryOf(project);
    const run = { gitPath: this.deps.gitPath };
    const out: { switch: 'push_events' | 'tag_push_events'; event: string; ref: string; payload: Record<string, unknown> }[] = [];
    for (const u of refUpdates) {
      const tag = u.ref.startsWith('refs/tags/');
      if (!tag && !u.ref.startsWith('refs/heads/')) continue;
      const deleted = isZeroId(u.after);
      let commits: CommitSummary[] = [];
      let total = 0;
      if (!tag && !deleted) {
        commits = await commitsBetween(dir, u.before, u.after, maxPayloadCommits, run);
        total = await countCommitsBetween(dir, u.before, u.after, run);
      }
      const checkoutSha = deleted ? null : tag ? await this.peel(dir, u.after) : u.after;
      const payload = pushPayload({
        kind: tag ? 'tag_push' : 'push',
        before: u.before,
        after: u.after,
        ref: u.ref,
        checkoutSha,
        user,
        project: this.payloadProject(project),
        commits,
        totalCommits: total,
      });
      out.push({ switch: tag ? 'tag_push_events' : 'push_events', event: tag ? 'Tag Push Hook' : 'Push Hook', ref: u.ref, payload });
    }
    return out;
  }

  /** An annotated tag's commit (GitLab's checkout_sha for tag pushes). */
  private async peel(dir: string, sha: string): Promise<string> {
    const [commit] = await recentCommits(dir, sha, 1, { gitPath: this.deps.gitPath });
    return commit?.id ?? sha;
  }

  /** One try to the hook as it is now (it may have been edited or removed since the event); undefined when removed. */
  private async attemptCurrent(delivery: HookDelivery, signal: AbortSignal): Promise<AttemptOutcome | undefined> {
    // With Redis any node may make the try: catch up with the store first, or a hook another node
    // created a moment ago would read as removed and its event be dropped.
    await this.repo.sync();
    const current = this.repo.byId(delivery.projectId, delivery.hookId);
    if (!current) return undefined;
    return this.attempt(current, delivery.event, delivery.body, delivery.eventUuid, signal);
  }

  private settle(delivery: HookDelivery, attempts: number, last: AttemptOutcome): void {
    const { hookId, event } = delivery;
    this.remember({ hookId, event, attempts, status: last.status, error: last.error, delivered: last.ok });
    if (!last.ok)
      this.deps.log.info(`hook ${hookId} (${event}) given up after ${attempts} attempt(s): ${last.error ?? `HTTP ${last.status}`}`);
  }

  private async attempt(
    hook: Readonly<ProjectHookRecord>,
    event: string,
    body: string,
    eventUuid: string,
    stop: AbortSignal,
  ): Promise<AttemptOutcome> {
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      'User-Agent': `GitLab/${this.deps.version}`,
      'Idempotency-Key': randomUUID(),
      'X-Gitlab-Event': event,
      'X-Gitlab-Webhook-UUID': randomUUID(),
      'X-Gitlab-Event-UUID': eventUuid,
      'X-Gitlab-Instance': this.deps.baseUrl(),
    };
    if (hook.token) headers['X-Gitlab-Token'] = hook.token.replace(/[\r\n]/g, '');
    try {
      const res = await outboundRequest(
        hook.url,
        {
          method: 'POST',
          body,
          headers,
          signal: AbortSignal.any([stop, AbortSignal.timeout(this.options.timeoutMs)]),
          insecureTls: !hook.enableSslVerification,
        },
        { allowPrivate: this.deps.allowPrivate, resolve: this.deps.resolve, maxRedirects: 0, timeoutMs: this.options.timeoutMs },
      );
      res.body.resume();
      // GitLab counts 2xx and 3xx as delivered.
      const ok = res.status >= 200 && res.status < 400;
      return { ok, status: res.status, error: ok ? null : `Receiver answered HTTP ${res.status}` };
    } catch (error) {
      return { ok: false, status: null, error: error instanceof Error ? error.message : String(error) };
    }
  }

  private remember(record: DeliveryRecord): void {
    const list = [...(this.latest.get(record.hookId) ?? []), record].slice(-20);
    this.latest.set(record.hookId, list);
  }
}

/** GitLab's answer to a hook URL it refuses (bad, blocked or unresolvable alike): 422 `{"error": "Invalid url given"}`. */
function invalidHookUrl(cause?: AppError): AppError {
  return new AppError('unprocessable', 'Invalid url given', {
    issues: [{ loc: ['url'], msg: 'Invalid url given', type: 'value_error' }],
    cause,
  });
}
