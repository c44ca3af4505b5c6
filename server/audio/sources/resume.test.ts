import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../config/load-config.js';
import { startServer } from '../../start-server.js';
import { encodeWav, sine } from '../../test-support/signals.js';
import { startMediaServer, type MediaServer } from '../../test-support/media-server.js';
import { memoryLogger } from '../../test-support/test-app.js';
import type { JobStatus } from '../api-types.js';

let media: MediaServer;
const wav = encodeWav([sine(44_100, 3, 440, 0.5)], 44_100);

beforeAll(async () => {
  media = await startMediaServer();
  let served = 0;
  // The first download trickles (the server is stopped during it); later ones are quick.
  media.route('/slow.wav', (req, res) => {
    res.writeHead(200, { 'Content-Type': 'audio/wav', 'Content-Length': String(wav.length) });
    if (served++ > 0) return void res.end(wav);
    let offset = 0;
    const timer = setInterval(() => {
      res.write(wav.subarray(offset, offset + 4096));
      offset += 4096;
      if (offset >= wav.length) {
        clearInterval(timer);
        res.end();
      }
    }, 20);
    req.socket.on('close', () => clearInterval(timer));
  });
});

afterAll(() => media.close());

it('a source job interrupted by a restart resumes and finishes on the next start', async () => {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'cratehouse-resume-'));
  const config = loadConfig({}, { dataDir, port: 0, adminToken: 'resume-admin', fetchAllowPrivate: true });
  const headers = { Authorization: 'Bearer resume-admin', 'Content-Type': 'application/json' };

  const first = await startServer(config, { log: memoryLogger(), rendererDir: null, meterFlushMs: 60_000 });
  const created = (await (
    await fetch(`${first.url}/audio/v1/sources`, { method: 'POST', headers, body: JSON.stringify({ url: `${media.url}/slow.wav` }) })
  ).json()) as JobStatus;
  let seen: JobStatus = created;
  for (let i = 0; i < 200 && !(seen.status === 'running' && seen.progress > 0); i++) {
    await new Promise((r) => setTimeout(r, 25));
    seen = (await (await fetch(`${first.url}/audio/v1/jobs/${created.job_id}`, { headers })).json()) as JobStatus;
  }
  expect(seen.status).toBe('running');
  expect(seen.progress).toBeGreaterThan(0);
  await first.stop();

  const second = await startServer(config, { log: memoryLogger(), rendererDir: null, meterFlushMs: 60_000 });
  try {
    let job: JobStatus = seen;
    for (let i = 0; i < 400 && job.status !== 'done' && job.status !== 'error'; i++) {
      await new Promise((r) => setTimeout(r, 25));
      job = (await (await fetch(`${second.url}/audio/v1/jobs/${created.job_id}`, { headers })).json()) as JobStatus;
    }
    expect(job.status, job.error ?? '').toBe('done');
    expect(job.result).toMatchObject({ frames: 3 * 44_100, channels: 1, sample_rate: 44_100 });
    expect(media.hits.get('/slow.wav')).toBe(2);
    expect((await readdir(path.join(dataDir, 'tmp'))).filter((f) => f.startsWith('source-'))).toEqual([]);
  } finally {
    await second.stop();
  }
});
