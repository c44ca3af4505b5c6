// CRATEHOUSE_WARMUP (config `warmUp`): the start-up JIT warm-up is on by default and can be switched
// off, trading slower first analyses for ~100 MB less idle memory (docs/performance.md).
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/load-config.js';
import { startServer } from '../../start-server.js';
import { encodeWav } from '../../test-support/signals.js';

/** A server over a fresh data dir; `check` runs against it, then it stops. */
async function withServer(env: Record<string, string>, check: (url: string) => Promise<void>): Promise<void> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'cratehouse-warm-up-'));
  const server = await startServer(loadConfig(env, { port: 0, dataDir, logLevel: 'silent', adminToken: 'warm-up-admin' }), {
    rendererDir: null,
  });
  try {
    await check(server.url);
  } finally {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

const warmOf = async (url: string) =>
  ((await (await fetch(`${url}/audio/v1/healthz`)).json()) as { analysis: { warm: boolean } }).analysis.warm;

describe('the start-up warm-up setting', () => {
  it('by default the analysis threads are still warming when the server starts listening', async () => {
    // Three rounds of every engine and three /analyze paths over a 36 s WAV per thread: seconds of CPU.
    await withServer({}, async (url) => expect(await warmOf(url)).toBe(false));
  }, 60_000);

  it('with CRATEHOUSE_WARMUP=off nothing is warming, and a cold server still analyses', async () => {
    await withServer({ CRATEHOUSE_WARMUP: 'off' }, async (url) => {
      expect(await warmOf(url)).toBe(true);
      // A 1 kHz sine at -20 dBFS peak, 1 s: its sample peak is known without our meter.
      const rate = 48_000;
      const tone = Float32Array.from({ length: rate }, (_, i) => 0.1 * Math.sin((2 * Math.PI * 1000 * i) / rate));
      const form = new FormData();
      form.set('file', new Blob([encodeWav([tone, tone], rate, 'float32')], { type: 'audio/wav' }), 'tone.wav');
      const res = await fetch(`${url}/audio/v1/loudness`, {
        method: 'POST',
        headers: { authorization: 'Bearer warm-up-admin' },
        body: form,
      });
      expect(res.status).toBe(200);
      // 20·log10(0.1) = −20 dBFS, to the rounding the API gives.
      expect(((await res.json()) as { sample_peak_dbfs: number }).sample_peak_dbfs).toBeCloseTo(-20, 1);
    });
  }, 60_000);
});
