import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../server/config/load-config.js';
import { startServer, type RunningServer } from '../server/start-server.js';
import { localApiFilePath, writeLocalApiFile } from './local-api-file.js';

// The plugin flow end to end: a server configured as the desktop app runs it (loopback host names
// only), local-api.json written as the app writes it, and the shipped example client reading it.
const run = promisify(execFile);
const example = fileURLToPath(new URL('../resources/examples/analyse-with-local-api.mjs', import.meta.url));
const token = 'desktop-local-api-token-for-tests';

/** A 16-bit mono WAV: a click track at 120 BPM (a 5 ms 2 kHz burst every 0.5 s) over a soft 220 Hz tone, 8 s. */
function testWav(): Buffer {
  const rate = 44_100;
  const frames = rate * 8;
  const data = Buffer.alloc(frames * 2);
  for (let i = 0; i < frames; i++) {
    const sinceClick = (i % (rate / 2)) / rate;
    const click = sinceClick < 0.005 ? 0.8 * Math.sin(2 * Math.PI * 2000 * sinceClick) : 0;
    const value = 0.1 * Math.sin((2 * Math.PI * 220 * i) / rate) + click;
    data.writeInt16LE(Math.round(Math.max(-1, Math.min(1, value)) * 32767), i * 2);
  }
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVEfmt ', 8, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

let server: RunningServer;
let dataDir: string;
let wavPath: string;
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'cratehouse-plugin-'));
  server = await startServer(
    loadConfig({}, { host: '127.0.0.1', port: 0, dataDir, logLevel: 'silent', allowedHosts: ['loopback'], adminToken: token }),
    { rendererDir: null },
  );
  wavPath = path.join(dataDir, 'plugin loop.wav');
  await writeFile(wavPath, testWav());
}, 60_000);
afterAll(async () => {
  await server.stop();
  await rm(dataDir, { recursive: true, force: true });
});

async function runExample(env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [example, '--data-dir', dataDir, wavPath], {
      env: { ...process.env, ...env },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

describe('the plugin example client', () => {
  it('analyses a file through the local API named in local-api.json', async () => {
    await writeLocalApiFile(dataDir, { url: server.url, token, pid: process.pid, version: '0.1.0' });
    const result = await runExample();
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout) as Record<string, unknown>;

    // The same figures as the API's own answer for this file.
    const form = new FormData();
    form.append('file', new Blob([await readFile(wavPath)]), 'plugin loop.wav');
    const direct = (await (
      await fetch(`${server.url}/audio/v1/analyze`, { method: 'POST', headers: { Authorization: `Bearer ${token}` }, body: form })
    ).json()) as {
      sample: { role: string; confidence: number };
      features: { rhythm: { tempo_bpm: number | null }; chroma: { key: string | null; mode: string | null } };
      emotion: { valence: number; arousal: number };
    };
    expect(summary).toMatchObject({
      file: 'plugin loop.wav',
      duration_s: 8,
      role: direct.sample.role,
      role_confidence: direct.sample.confidence,
      tempo_bpm: direct.features.rhythm.tempo_bpm,
      key: direct.features.chroma.key,
      valence: direct.emotion.valence,
      arousal: direct.emotion.arousal,
    });
    // Known independently: a pulse every half second is 120 BPM.
    expect(summary.tempo_bpm).toBeCloseTo(120, 0);
  }, 90_000);

  it('is refused with a wrong token, and says so', async () => {
    await writeLocalApiFile(dataDir, { url: server.url, token: 'not-the-token', pid: process.pid, version: '0.1.0' });
    const result = await runExample();
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/refused the request \(401\)/);
  });

  it('says the app is not running when local-api.json is missing or left over', async () => {
    await rm(localApiFilePath(dataDir), { force: true });
    expect((await runExample()).stderr).toMatch(/is the Cratehouse desktop app running\?/);
    await writeLocalApiFile(dataDir, { url: server.url, token, pid: 2 ** 22 + 12345, version: '0.1.0' });
    expect((await runExample()).stderr).toMatch(/no longer running/);
  });

  it('is refused under a foreign Host name (DNS rebinding), even with the right token', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const url = new URL(`${server.url}/audio/v1/me`);
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          headers: { Host: `rebind.attacker.example:${url.port}`, Authorization: `Bearer ${token}` },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(403);
  });
});
