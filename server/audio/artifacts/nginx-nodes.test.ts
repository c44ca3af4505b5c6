import { existsSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { postgresSkipReason } from '../../test-support/private-postgres.js';
import { redisSkipReason, startPrivateRedis, type PrivateRedis } from '../../test-support/private-redis.js';
import { encodeWav, sine } from '../../test-support/signals.js';
import { serveBytes, startMediaServer, type MediaServer } from '../../test-support/media-server.js';
import { nginxBinary, startNginx, type TestNginx } from '../../test-support/nginx.js';
import { startServerChild, type ServerChild } from '../../test-support/server-child.js';
import { createTestDatabase } from '../../test-support/store-kinds.js';
import type { JobStatus } from '../api-types.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const composeFile = path.join(root, 'docs/deploy/docker-compose.yml');
const nodesConfig = path.join(root, 'docs/deploy/nginx-cratehouse-nodes.conf');

interface ComposeService {
  readonly image?: string;
  readonly build?: { readonly context: string; readonly dockerfile: string };
  readonly command?: readonly string[];
  readonly env_file?: string;
  readonly environment?: Readonly<Record<string, string>>;
  readonly volumes?: readonly string[];
  readonly depends_on?: Readonly<Record<string, { readonly condition: string }>>;
  readonly healthcheck?: { readonly test?: readonly string[]; readonly disable?: boolean };
}

describe('docs/deploy/docker-compose.yml (parsed; scripts/compose/compose.test.ts runs it with Docker)', () => {
  let services: Readonly<Record<string, ComposeService>>;
  let volumeNames: readonly string[];
  beforeAll(async () => {
    // merge: YAML merge keys (<<), which docker compose follows.
    const doc = parse(await readFile(composeFile, 'utf8'), { merge: true }) as {
      services: Record<string, ComposeService>;
      volumes: Record<string, unknown>;
    };
    services = doc.services;
    volumeNames = Object.keys(doc.volumes);
  });

  it('has PostgreSQL 15, Redis 7 (noeviction, AOF), two app nodes, one worker and nginx', () => {
    expect(Object.keys(services).sort()).toEqual(['app1', 'app2', 'nginx', 'postgres', 'redis', 'worker']);
    expect(services.postgres!.image).toBe('postgres:15');
    expect(services.redis!.image).toBe('redis:7');
    expect(services.redis!.command).toEqual(expect.arrayContaining(['--maxmemory-policy', 'noeviction']));
    expect(services.redis!.command!.join(' ')).toContain('--appendonly yes');
    for (const name of ['app1', 'app2', 'worker']) {
      expect(services[name]!.build, name).toEqual({ context: '../..', dockerfile: 'Dockerfile' });
      expect(existsSync(path.join(path.dirname(composeFile), services[name]!.build!.context, 'Dockerfile')), name).toBe(true);
    }
    // The worker runs the CLI the image builds (tsconfig.build.json: server/cli.ts -> dist/server/cli.js).
    expect(services.worker!.command!.slice(-2)).toEqual(['dist/server/cli.js', 'worker']);
    expect(existsSync(path.join(root, 'server/cli.ts'))).toBe(true);
  });

  it('shares one named volume for the data dir: read-write on the nodes and the worker, read-only for nginx', () => {
    const data = (s: ComposeService) => s.volumes?.find((v) => v.startsWith('cratehouse-data:'));
    for (const name of ['app1', 'app2', 'worker']) expect(data(services[name]!), name).toBe('cratehouse-data:/data');
    expect(data(services.nginx!)).toBe('cratehouse-data:/var/lib/cratehouse:ro');
    expect(volumeNames).toContain('cratehouse-data');
    // nginx's internal location reads that mount, and the compose file mounts the tested config.
    expect(services.nginx!.volumes).toContain('./nginx-cratehouse-nodes.conf:/etc/nginx/conf.d/default.conf:ro');
  });

  it('starts app2 only once app1 is healthy, and nginx once both are; the databases first', () => {
    expect(services.app1!.depends_on).toEqual({ postgres: { condition: 'service_healthy' }, redis: { condition: 'service_healthy' } });
    expect(services.app2!.depends_on).toEqual({ app1: { condition: 'service_healthy' } });
    expect(services.nginx!.depends_on).toEqual({ app1: { condition: 'service_healthy' }, app2: { condition: 'service_healthy' } });
    expect(services.worker!.depends_on?.redis).toEqual({ condition: 'service_healthy' });
    for (const name of ['postgres', 'redis', 'app1', 'app2', 'nginx']) expect(services[name]!.healthcheck?.test, name).toBeDefined();
  });

  it('names only settings that load-config reads, and keeps secrets in the env file', async () => {
    const loadConfig = await readFile(path.join(root, 'server/config/load-config.ts'), 'utf8');
    const example = await readFile(path.join(path.dirname(composeFile), 'cratehouse.env.example'), 'utf8');
    const exampleNames = [...example.matchAll(/^([A-Z_0-9]+)=/gm)].map((m) => m[1]!);
    const names = [...Object.values(services).flatMap((s) => Object.keys(s.environment ?? {})), ...exampleNames].filter((n) =>
      n.startsWith('CRATEHOUSE_'),
    );
    expect(names).toEqual(expect.arrayContaining(['CRATEHOUSE_DATABASE_URL', 'CRATEHOUSE_REDIS_URL', 'CRATEHOUSE_ACCEL_REDIRECT']));
    for (const name of names) expect(loadConfig, name).toContain(`'${name}'`);
    for (const name of ['app1', 'app2', 'worker']) {
      expect(services[name]!.env_file, name).toBe('cratehouse.env');
      expect(services[name]!.environment?.CRATEHOUSE_ACCEL_REDIRECT, name).toBe('/_artifacts/');
    }
    // No secret in the compose file itself; the example's are placeholders.
    const compose = await readFile(composeFile, 'utf8');
    expect(compose).not.toMatch(/PASSWORD|ADMIN_TOKEN|DATABASE_URL/);
    for (const line of example.split('\n').filter((l) => /PASSWORD=|TOKEN=/.test(l))) expect(line).toContain('CHANGE_ME');
    // The nginx internal location is the prefix the nodes are told to redirect to.
    expect(await readFile(nodesConfig, 'utf8')).toContain('location /_artifacts/ {');
  });
});

/** Outside CI a machine without nginx skips the run below. */
const skip = postgresSkipReason ?? redisSkipReason(process.env) ?? (nginxBinary || process.env.CI ? null : 'nginx is not installed');
if (skip) console.warn(`nginx-cratehouse-nodes.conf run skipped: ${skip}`);

const token = 'nginx-nodes-admin-token';
const auth = { Authorization: `Bearer ${token}` };

describe.skipIf(skip !== null)(
  'docs/deploy/nginx-cratehouse-nodes.conf in front of two real nodes (PostgreSQL, Redis, one data dir)',
  () => {
    let redis: PrivateRedis;
    let media: MediaServer;
    const nodes: ServerChild[] = [];
    let nginx: TestNginx;
    let front: string;
    let dataDir: string;
    const hostOf = (node: ServerChild) => new URL(node.url).host;
    /** The upstream (node host:port) nginx logged for each request, in order. */
    const upstreams = async () =>
      (await readFile(nginx.accessLog!, 'utf8'))
        .trim()
        .split('\n')
        .map((l) => l.split(' ').at(-1)!);

    beforeAll(async () => {
      expect(nginxBinary, 'nginx is not installed (apt-get install nginx-light)').toBeTruthy();
      redis = await startPrivateRedis();
      dataDir = await mkdtemp(path.join(tmpdir(), 'cratehouse-nginx-nodes-'));
      const env = {
        CRATEHOUSE_DATABASE_URL: await createTestDatabase(),
        CRATEHOUSE_REDIS_URL: redis.url,
        CRATEHOUSE_ACCEL_REDIRECT: '/_artifacts/',
        CRATEHOUSE_TRUST_PROXY: 'loopback',
        CRATEHOUSE_FETCH_ALLOW_PRIVATE: 'true',
      };
      // One after the other, as docker-compose.yml starts them (app2 waits for app1 to be healthy).
      nodes.push(await startServerChild(dataDir, token, env));
      nodes.push(await startServerChild(dataDir, token, env));
      media = await startMediaServer();
      media.route('/loop.wav', serveBytes(encodeWav([sine(44_100, 1, 220, 0.5), sine(44_100, 1, 330, 0.5)], 44_100), 'audio/wav'));

      // The shipped config, pointed at these nodes and this data dir, inside a minimal nginx.conf.
      const site = (await readFile(nodesConfig, 'utf8'))
        .replace('server app1:8080', `server ${hostOf(nodes[0]!)}`)
        .replace('server app2:8080', `server ${hostOf(nodes[1]!)}`)
        .replace('/var/lib/cratehouse/artifacts/', `${path.join(dataDir, 'artifacts')}/`);
      // Every compose address in the directives was replaced (comments may still name them).
      expect(site.replace(/#.*$/gm, '')).not.toMatch(/app[12]:8080|\/var\/lib\/cratehouse/);
      nginx = await startNginx(site, { logFormat: '$request_method $uri $status $upstream_addr' });
      front = nginx.url;
    }, 120_000);

    afterAll(async () => {
      nginx?.process.kill('SIGTERM');
      await media?.close();
      await Promise.all(
        nodes.map(
          (s) =>
            new Promise((resolve) => {
              if (s.child.exitCode !== null) return resolve(null);
              s.child.once('exit', resolve);
              s.child.kill('SIGTERM');
            }),
        ),
      );
      await redis?.stop();
    }, 60_000);

    it('spreads requests over both nodes, and a project created through nginx reads back from either', async () => {
      const created = await fetch(`${front}/api/v4/projects`, {
        method: 'POST',
        headers: { 'PRIVATE-TOKEN': token, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'Compose Tape', path: 'compose-tape' }),
      });
      expect(created.status).toBe(201);
      const { id } = (await created.json()) as { id: number };
      // The other node follows the create through the change log within a second (postgres.md).
      await new Promise((r) => setTimeout(r, 1000));
      const before = (await upstreams()).length;
      for (let i = 0; i < 8; i++) {
        const res = await fetch(`${front}/api/v4/projects/${id}`, { headers: { 'PRIVATE-TOKEN': token } });
        expect(res.status, `read ${i}`).toBe(200);
        expect(((await res.json()) as { path_with_namespace: string }).path_with_namespace).toBe('root/compose-tape');
      }
      const reads = (await upstreams()).slice(before);
      expect(reads).toHaveLength(8);
      expect(new Set(reads)).toEqual(new Set(nodes.map(hostOf)));
    }, 60_000);

    it('serves an artifact made by a source job from the shared data dir itself (X-Accel-Redirect), after a node checked the token', async () => {
      const res = await fetch(`${front}/audio/v1/sources`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({ url: `${media.url}/loop.wav` }),
      });
      expect(res.status).toBe(202);
      const jobId = ((await res.json()) as JobStatus).job_id;
      let job: JobStatus;
      const until = Date.now() + 60_000;
      for (;;) {
        job = (await (await fetch(`${front}/audio/v1/jobs/${jobId}`, { headers: auth })).json()) as JobStatus;
        if (job.status === 'done' || job.status === 'error' || Date.now() > until) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(job.status, job.error ?? '').toBe('done');
      const result = job.result as { artifact_ref: string; content_id: string; name: string };
      const wav = await readFile(path.join(dataDir, 'artifacts', result.content_id, result.name));
      expect(wav.length).toBeGreaterThan(44_100);

      // A node alone answers with the redirect and no bytes: the bytes below come from nginx.
      const direct = await fetch(nodes[1]!.url + result.artifact_ref, { headers: auth });
      expect(direct.headers.get('x-accel-redirect')).toBe(`/_artifacts/${result.content_id}/${result.name}`);
      expect((await direct.arrayBuffer()).byteLength).toBe(0);

      for (let i = 0; i < 2; i++) {
        const got = await fetch(front + result.artifact_ref, { headers: { ...auth, Range: 'bytes=1000-4999' } });
        expect(got.status).toBe(206);
        expect(got.headers.get('content-range')).toBe(`bytes 1000-4999/${wav.length}`);
        expect(got.headers.get('x-accel-redirect')).toBeNull();
        expect(got.headers.get('x-content-type-options')).toBe('nosniff');
        expect(Buffer.from(await got.arrayBuffer()).equals(wav.subarray(1000, 5000))).toBe(true);
      }
      expect((await fetch(front + result.artifact_ref)).status).toBe(401);
      expect((await fetch(`${front}/_artifacts/${result.content_id}/${result.name}`, { headers: auth })).status).toBe(404);
    }, 120_000);
  },
);
