// Two application nodes on one PostgreSQL and one Redis: a hook delivery queued on one node and taken
// from Redis by the other before that node's copy of the store has the hook (the delivery would be
// dropped as "hook removed"). The same gap as a job's, mended in job-runner-nodes.test.ts.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { IdentityService } from '../../auth/identity.js';
import { createBullDeliveryQueue } from '../../queue/bullmq-delivery-queue.js';
import { postgresSkipReason } from '../../test-support/private-postgres.js';
import { redisSkipReason, startPrivateRedis } from '../../test-support/private-redis.js';
import { fixtureAt, projectFixture, seedOwner } from '../../test-support/store-fixtures.js';
import { hearsOnlyWhenAsked, openTwoPostgresNodes } from '../../test-support/store-kinds.js';
import { memoryLogger } from '../../test-support/test-app.js';
import type { ProjectService } from '../projects/projects.js';
import { createProjectsRepo } from '../projects/projects-repo.js';
import { createHooksRepo } from './hooks-repo.js';
import { defaultHookEvents, HookService, type HookDelivery } from './hooks.js';

const skip = postgresSkipReason ?? redisSkipReason(process.env);

describe.skipIf(skip !== null)('hook deliveries across two nodes (PostgreSQL and Redis)', () => {
  const closing: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closing.splice(0).reverse()) await close();
  });

  it('delivers to a hook another node created, though its copy of the store did not have the hook yet', async () => {
    const redis = await startPrivateRedis();
    closing.push(() => redis.stop());
    const received: { readonly event: string; readonly uuid: string; readonly body: string }[] = [];
    const receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push({ event: String(req.headers['x-gitlab-event']), uuid: String(req.headers['x-gitlab-event-uuid']), body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    closing.push(() => new Promise((r) => receiver.close(() => r())));
    // B's copy is behind when the delivery reaches it.
    const { a, b } = await openTwoPostgresNodes(hearsOnlyWhenAsked);
    closing.push(
      () => a.close(),
      () => b.close(),
    );
    const log = memoryLogger();
    const queueB = createBullDeliveryQueue<HookDelivery>({ url: redis.url, name: 'hooks-nodes-test', lockS: 5, tryTimeoutMs: 5000 }, log);
    // A delivery's try reads only the hook: the project and identity services are never reached.
    const hooksB = new HookService(createHooksRepo(b), {} as ProjectService, {} as IdentityService, {
      gitPath: 'git',
      allowPrivate: true,
      version: 'test',
      baseUrl: () => 'http://cratehouse.test',
      log,
      delivery: { maxAttempts: 1, timeoutMs: 5000 },
      queue: queueB,
    });
    closing.push(() => hooksB.stop());

    await seedOwner(a);
    const project = await createProjectsRepo(a).insert(projectFixture('song'));
    const { port } = receiver.address() as AddressInfo;
    const hook = await createHooksRepo(a).insert({
      projectId: project.id,
      url: `http://127.0.0.1:${port}/hook`,
      token: null,
      events: defaultHookEvents,
      pushEventsBranchFilter: null,
      enableSslVerification: true,
      createdAt: fixtureAt,
    });
    // A push on A queues the event in Redis at once; B, the only node taking, makes the try.
    const eventUuid = randomUUID();
    queueB.add({ projectId: project.id, hookId: hook.id, event: 'Push Hook', body: '{"object_kind":"push"}', eventUuid });
    await hooksB.onIdle();

    expect(received).toEqual([{ event: 'Push Hook', uuid: eventUuid, body: '{"object_kind":"push"}' }]);
    expect(hooksB.deliveries(hook.id)).toMatchObject([{ event: 'Push Hook', attempts: 1, status: 204, delivered: true }]);
  }, 60_000);
});
