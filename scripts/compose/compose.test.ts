/**
 * docs/deploy/docker-compose.yml, run: the whole set (PostgreSQL, Redis, two app nodes, a worker, nginx)
 * built and started with Docker, then driven through nginx's published port as a client would.
 *
 * The public base images are replaced by stand-ins built from Debian's packages
 * (offline-images.sh, docker-compose.offline.yml): the machines this runs on reach Debian's mirror
 * and the npm registry, not Docker Hub. The compose file, the product's Dockerfile and the nginx config
 * are the shipped ones. Needs a Docker engine and docker-compose; skipped with a message without them,
 * failed instead when CRATEHOUSE_REQUIRE_DOCKER=1 (.ci/run).
 */
import { execFile, execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeWav, sine } from '../../server/test-support/signals.js';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const here = path.join(root, 'scripts/compose');

/** `docker-compose` (1.x, Debian's) or the `docker compose` plugin, whichever this machine has. */
function findCompose(): readonly string[] | undefined {
  for (const cmd of [['docker-compose'], ['docker', 'compose']]) {
    try {
      execFileSync(cmd[0]!, [...cmd.slice(1), 'version'], { stdio: 'ignore' });
      return cmd;
    } catch {
      // try the next
    }
  }
  return undefined;
}

function findSkipReason(): string | null {
  try {
    execFileSync('docker', ['info'], { stdio: 'ignore', timeout: 20_000 });
  } catch {
    return 'no Docker engine answers `docker info` (apt-get install docker.io docker-compose debootstrap; start dockerd)';
  }
  if (!findCompose()) return 'neither docker-compose nor `docker compose` is installed';
  try {
    execFileSync('docker', ['image', 'inspect', 'cratehouse-offline/debian:bookworm'], { stdio: 'ignore' });
  } catch {
    try {
      execFileSync('debootstrap', ['--version'], { stdio: 'ignore' });
    } catch {
      return 'debootstrap is not installed and the Debian base image is not built (apt-get install debootstrap)';
    }
  }
  return null;
}

const skip = findSkipReason();
if (skip && process.env.CRATEHOUSE_REQUIRE_DOCKER === '1') throw new Error(`CRATEHOUSE_REQUIRE_DOCKER=1 but ${skip}`);
if (skip) console.warn(`docker-compose.yml run skipped: ${skip}`);

const token = `compose-admin-${process.pid}`;
/** Every service of the compose file. */
const allServices = ['postgres', 'redis', 'app1', 'app2', 'nginx', 'worker'] as const;
const project = `cratehouse-check-${process.pid}`;

describe.skipIf(skip !== null)('docs/deploy/docker-compose.yml, run with Docker (stand-in base images from Debian)', () => {
  // Made in beforeAll: a skipped run leaves nothing behind.
  let work = '';
  const compose = findCompose() ?? [];
  const files = () => ['docker-compose.yml', 'docker-compose.offline.yml', 'context.yml'].flatMap((f) => ['-f', path.join(work, f)]);
  const dc = async (args: readonly string[], timeout = 120_000) =>
    run(compose[0]!, [...compose.slice(1), '-p', project, ...files(), ...args], {
      cwd: work,
      timeout,
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, CRATEHOUSE_HTTP_PORT: '0' },
    });
  let front = '';
  let media: Server;
  let mediaUrl = '';
  const wav = encodeWav([sine(44_100, 2, 220, 0.5), sine(44_100, 2, 330, 0.5)], 44_100);
  const auth = { 'PRIVATE-TOKEN': token };
  /** The audio API takes the token as a bearer. */
  const bearer = { Authorization: `Bearer ${token}` };

  /** Polls until every service with a health check says healthy. */
  async function waitHealthy(services: readonly string[], ms: number): Promise<void> {
    const until = Date.now() + ms;
    for (;;) {
      const states = await Promise.all(
        services.map(async (s) => {
          const id = (await dc(['ps', '-q', s])).stdout.trim();
          if (!id) return 'missing';
          return (
            await run('docker', ['inspect', '-f', '{{if .State.Health}}{{.State.Health.Status}}{{else}}{{.State.Status}}{{end}}', id])
          ).stdout.trim();
        }),
      );
      if (states.every((s) => s === 'healthy' || s === 'running')) return;
      if (Date.now() > until) throw new Error(`not healthy after ${ms} ms: ${services.map((s, i) => `${s}=${states[i]}`).join(', ')}`);
      await new Promise((r) => setTimeout(r, 1000));
    }
  }

  /** The host port nginx's port 80 was published on. */
  async function frontUrl(): Promise<string> {
    const { stdout } = await dc(['port', 'nginx', '80']);
    return `http://127.0.0.1:${stdout.trim().split(':').at(-1)}`;
  }

  beforeAll(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'cratehouse-compose-'));
    // The shipped files, a generated env file with fresh secrets, and the build context pointed back at
    // this checkout (the copied compose file's `../..` would point elsewhere).
    for (const f of ['docker-compose.yml', 'nginx-cratehouse-nodes.conf'])
      copyFileSync(path.join(root, 'docs/deploy', f), path.join(work, f));
    copyFileSync(path.join(here, 'docker-compose.offline.yml'), path.join(work, 'docker-compose.offline.yml'));
    const password = `pw${process.pid}x${Date.now()}`;
    writeFileSync(
      path.join(work, 'cratehouse.env'),
      [
        `POSTGRES_PASSWORD=${password}`,
        `CRATEHOUSE_DATABASE_URL=postgres://cratehouse:${password}@postgres:5432/cratehouse`,
        `CRATEHOUSE_ADMIN_TOKEN=${token}`,
        'CRATEHOUSE_PUBLIC_URL=http://localhost',
        // The source job below fetches from this test's server on the Docker host (a private address).
        'CRATEHOUSE_FETCH_ALLOW_PRIVATE=true',
        // Analysis only in the worker container (scale-out.md's advice), so the uploads below prove it
        // works; a killed worker's task is taken again after 3 s instead of 30.
        'CRATEHOUSE_ANALYSIS_IN_APP=false',
        'CRATEHOUSE_REDIS_LOCK_S=3',
        '',
      ].join('\n'),
    );
    writeFileSync(
      path.join(work, 'context.yml'),
      `services:\n${['app1', 'app2', 'worker'].map((s) => `  ${s}:\n    build:\n      context: ${JSON.stringify(root)}\n`).join('')}`,
    );
    await run(path.join(here, 'offline-images.sh'), [], { timeout: 900_000 });
    await dc(['build'], 1_200_000);
    await dc(['up', '-d'], 300_000);
    await waitHealthy(allServices, 180_000);
    front = await frontUrl();

    // A media server on the Docker host, reached from the containers through the network's gateway.
    media = createServer((req, res) => {
      if (req.url !== '/loop.wav') return void res.writeHead(404).end();
      res.writeHead(200, { 'Content-Type': 'audio/wav', 'Content-Length': wav.length }).end(wav);
    });
    await new Promise<void>((resolve) => media.listen(0, '0.0.0.0', resolve));
    const network = `${project.replace(/[^a-z0-9_-]/g, '')}_default`;
    const gateway = (await run('docker', ['network', 'inspect', '-f', '{{(index .IPAM.Config 0).Gateway}}', network])).stdout.trim();
    mediaUrl = `http://${gateway}:${(media.address() as AddressInfo).port}/loop.wav`;
  }, 1_800_000);

  afterAll(async () => {
    media?.close();
    if (!work) return;
    await dc(['down', '-v', '--remove-orphans'], 300_000).catch((e: unknown) => console.warn(`compose down failed: ${String(e)}`));
    rmSync(work, { recursive: true, force: true });
  }, 300_000);

  it('answers through nginx: health, version, and a project created once is read from either node with the other stopped', async () => {
    const health = await fetch(`${front}/audio/v1/healthz`);
    expect(health.status).toBe(200);
    expect(((await health.json()) as { ffmpeg: { found: boolean } }).ffmpeg.found).toBe(true);
    expect((await fetch(`${front}/api/v4/version`)).status).toBe(401);
    expect((await fetch(`${front}/api/v4/version`, { headers: auth })).status).toBe(200);

    const created = await fetch(`${front}/api/v4/projects`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Compose Tape', path: 'compose-tape' }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: number };
    await new Promise((r) => setTimeout(r, 1500));
    for (let i = 0; i < 6; i++) {
      const res = await fetch(`${front}/api/v4/projects/${id}`, { headers: auth });
      expect(res.status, `read ${i}`).toBe(200);
      expect(((await res.json()) as { path_with_namespace: string }).path_with_namespace).toBe('root/compose-tape');
    }
    // Either node alone serves the project: with one stopped, nginx passes every request to the other.
    for (const [down, up] of [
      ['app1', 'app2'],
      ['app2', 'app1'],
    ] as const) {
      await dc(['stop', down], 120_000);
      for (let i = 0; i < 4; i++) {
        const t0 = Date.now();
        const res = await fetch(`${front}/api/v4/projects/${id}`, { headers: auth });
        expect(res.status, `${up} alone, read ${i}`).toBe(200);
        // nginx gives up on the stopped node's address after proxy_connect_timeout (2 s), not its default 60 s.
        expect(Date.now() - t0, `${up} alone, read ${i}`).toBeLessThan(5000);
      }
      await dc(['start', down], 120_000);
      await waitHealthy([down], 120_000);
    }
  }, 400_000);

  it('takes a git push through nginx and serves the commit back from the shared volume', async () => {
    const repo = path.join(work, 'repo');
    const git = (...args: string[]) => run('git', ['-C', repo, ...args], { timeout: 60_000 });
    await run('git', ['init', '-q', '-b', 'main', repo]);
    await git('config', 'user.email', 'mia@example.com');
    await git('config', 'user.name', 'Mia');
    writeFileSync(path.join(repo, 'README.md'), '# Compose Tape\n');
    await git('add', 'README.md');
    await git('commit', '-q', '-m', 'First take');
    const remote = `${front.replace('http://', `http://oauth2:${token}@`)}/root/compose-tape.git`;
    await git('push', '-q', remote, 'main');
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${front}/api/v4/projects/root%2Fcompose-tape/repository/files/README.md/raw?ref=main`, { headers: auth });
      expect(res.status, `read ${i}`).toBe(200);
      expect(await res.text()).toBe('# Compose Tape\n');
    }
  }, 120_000);

  it('analyses uploads through nginx, and serves a source job artifact from the volume itself (X-Accel-Redirect)', async () => {
    const form = new FormData();
    form.append('file', new Blob([wav], { type: 'audio/wav' }), 'loop.wav');
    const analysed = await fetch(`${front}/audio/v1/loudness`, { method: 'POST', headers: bearer, body: form });
    expect(analysed.status).toBe(200);
    // Two sines at amplitude 0.5: mean square 0.125 a channel, -0.691 + 10 log10(0.25) = -6.7 LUFS (BS.1770;
    // K-weighting is within 0.3 dB of flat at 220 and 330 Hz).
    expect(((await analysed.json()) as { integrated_lufs: number }).integrated_lufs).toBeCloseTo(-6.7, 0);

    const res = await fetch(`${front}/audio/v1/sources`, {
      method: 'POST',
      headers: { ...bearer, 'Content-Type': 'application/json' },
      body: JSON.stringify({ url: mediaUrl }),
    });
    expect(res.status).toBe(202);
    const jobId = ((await res.json()) as { job_id: string }).job_id;
    let job: { status: string; error?: string; result?: { artifact_ref: string } } = { status: 'queued' };
    const until = Date.now() + 90_000;
    while (job.status !== 'done' && job.status !== 'error' && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 250));
      job = (await (await fetch(`${front}/audio/v1/jobs/${jobId}`, { headers: bearer })).json()) as typeof job;
    }
    expect(job.status, job.error ?? '').toBe('done');
    const got = await fetch(front + job.result!.artifact_ref, { headers: { ...bearer, Range: 'bytes=0-3' } });
    expect(got.status).toBe(206);
    expect(Buffer.from(await got.arrayBuffer()).toString('latin1')).toBe('RIFF');
    // Headers that only nginx's internal location adds: the bytes came from nginx, not a node.
    expect(got.headers.get('content-security-policy')).toContain('sandbox');
    expect(got.headers.get('x-accel-redirect')).toBeNull();
    expect((await fetch(front + job.result!.artifact_ref)).status).toBe(401);
  }, 180_000);

  it('analyses in the worker container: a worker SIGKILLed mid-batch loses nothing (its tasks run again once it is back)', async () => {
    // Twelve different 60 s takes: ~2 s of work for the worker's two threads, killed at 0.6 s.
    const answers = Array.from({ length: 12 }, (_, i) => {
      const take = encodeWav([sine(44_100, 60, 200 + 20 * i, 0.25), sine(44_100, 60, 300 + 20 * i, 0.25)], 44_100);
      const form = new FormData();
      form.append('file', new Blob([take], { type: 'audio/wav' }), `take-${i}.wav`);
      return fetch(`${front}/audio/v1/analyze`, { method: 'POST', headers: bearer, body: form });
    });
    let settled = 0;
    for (const a of answers) void a.finally(() => settled++).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 600));
    const worker = (await dc(['ps', '-q', 'worker'])).stdout.trim();
    await run('docker', ['kill', '--signal', 'KILL', worker]);
    // Killed with work outstanding; with the only worker gone nothing can finish it until it is back.
    expect(settled).toBeLessThan(answers.length);
    await new Promise((r) => setTimeout(r, 2000));
    await dc(['start', 'worker']);
    for (const [i, a] of answers.entries()) {
      const res = await a;
      expect(res.status, `take ${i}`).toBe(200);
      expect(((await res.json()) as { source: { duration_s: number } }).source.duration_s, `take ${i}`).toBeCloseTo(60, 1);
    }
  }, 300_000);

  it('keeps everything across a restart of the whole set, and pg_dump (the documented backup) holds the project', async () => {
    await dc(['stop'], 180_000);
    await dc(['up', '-d'], 300_000);
    await waitHealthy(allServices, 180_000);
    front = await frontUrl();
    const res = await fetch(`${front}/api/v4/projects/root%2Fcompose-tape/repository/files/README.md/raw?ref=main`, { headers: auth });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('# Compose Tape\n');
    const dump = await dc(['exec', '-T', 'postgres', 'pg_dump', '-U', 'cratehouse', 'cratehouse']);
    expect(dump.stdout).toContain('CREATE TABLE');
    expect(dump.stdout).toContain('compose-tape');
  }, 600_000);
});
