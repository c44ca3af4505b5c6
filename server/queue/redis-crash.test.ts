import type { ChildProcess } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { JobStatus } from '../audio/api-types.js';
import { startMediaServer, type MediaServer } from '../test-support/media-server.js';
import { redisSkipReason, startPrivateRedis, type PrivateRedis } from '../test-support/private-redis.js';
import { startServerChild } from '../test-support/server-child.js';
import { encodeWav, sine } from '../test-support/signals.js';

const redisSkip = redisSkipReason(process.env);
if (redisSkip) console.warn(redisSkip);

let media: MediaServer;
let redis: PrivateRedis | null = null;
let downloads = 0;
/** Server children, killed after the test whatever happened. */
const children: ChildProcess[] = [];
const wav = encodeWav([sine(44_100, 3, 440, 0.5)], 44_100);

beforeAll(async () => {
  if (redisSkip) return;
  redis = await startPrivateRedis();
  media = await startMediaServer();
  // The first download trickles for ~3 s (the app node is killed during it); later ones are quick.
  media.route('/slow.wav', (req, res) => {
    res.writeHead(200, { 'Content-Type': 'audio/wav', 'Content-Length': String(wav.length) });
    if (downloads++ > 0) return void res.end(wav);
    let offset = 0;
    const timer = setInterval(() => {
      res.write(wav.subarray(offset, offset + 4096));
      offset += 4096;
      if (offset >= wav.length) {
        clearInterval(timer);
        res.end();
      }
    }, 50);
    req.socket.on('close', () => clearInterval(timer));
  });
});

afterAll(async () => {
  if (redisSkip) return;
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  media.close();
  await redis?.stop();
});

it.skipIf(redisSkip !== null)(
  'a job running on an app node SIGKILLed over Redis is run again after the restart and finishes once',
  async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'cratehouse-redis-crash-'));
    const env = { CRATEHOUSE_REDIS_URL: redis!.url, CRATEHOUSE_REDIS_LOCK_S: '2', CRATEHOUSE_FETCH_ALLOW_PRIVATE: 'true' };
    const headers = { Authorization: 'Bearer crash-admin', 'Content-Type': 'application/json' };
    const first = await startServerChild(dataDir, 'crash-admin', env);
    children.push(first.child);
    const created = (await (
      await fetch(`${first.url}/audio/v1/sources`, { method: 'POST', headers, body: JSON.stringify({ url: `${media.url}/slow.wav` }) })
    ).json()) as JobStatus;
    let seen: JobStatus = created;
    for (let i = 0; i < 400 && !(seen.status === 'running' && seen.progress > 0); i++) {
      await new Promise((r) => setTimeout(r, 25));
      seen = (await (await fetch(`${first.url}/audio/v1/jobs/${created.job_id}`, { headers })).json()) as JobStatus;
    }
    expect(seen.status).toBe('running');
    const exited = new Promise((r) => first.child.once('exit', r));
    first.child.kill('SIGKILL'); // no shutdown: the BullMQ job stays active under a lock nobody renews
    await exited;
    expect(downloads).toBe(1);

    const second = await startServerChild(dataDir, 'crash-admin', env);
    children.push(second.child);
    try {
      let job: JobStatus = seen;
      for (let i = 0; i < 1200 && job.status !== 'done' && job.status !== 'error'; i++) {
        await new Promise((r) => setTimeout(r, 25));
        job = (await (await fetch(`${second.url}/audio/v1/jobs/${created.job_id}`, { headers })).json()) as JobStatus;
      }
      expect(job).toMatchObject({ job_id: created.job_id, status: 'done', progress: 1, error: null });
      // Run again from the start once (a second download), not twice.
      await new Promise((r) => setTimeout(r, 3000)); // past another lock period: nothing runs it a third time
      expect(downloads).toBe(2);
    } finally {
      const gone = new Promise((r) => second.child.once('exit', r));
      second.child.kill('SIGTERM');
      await gone;
    }
  },
  180_000,
);
