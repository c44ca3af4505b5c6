/**
 * CI check of the role judgement on real recordings: a subset of sonic-pi-samples (Debian; .ci/run
 * installs it) through the real engine over HTTP, under the name `sample.wav`. These files are among
 * those the model was fitted on, so this guards against regressions of the mechanics (decoding,
 * measurements, model file); the held-out measure is `npm run eval:roles`. Skipped when the package is
 * absent, unless CRATEHOUSE_REQUIRE_REAL_AUDIO=1 (as .ci/run sets).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleAnalysisSchema } from '../../server/audio/engines/sample-schema.js';
import { fileForm, startTestApp, type TestApp } from '../../server/test-support/test-app.js';
import { cacheDir } from '../real-audio/packages.js';
import { readLabels } from '../real-audio/sets.js';
import { computeMetrics } from './metrics.js';

const candidates = ['/usr/share/sonic-pi/samples', path.join(cacheDir, 'pkg', 'sonic-pi-samples', 'usr', 'share', 'sonic-pi', 'samples')];
const dir = candidates.find((d) => existsSync(path.join(d, 'bd_haus.flac')));
const required = process.env.CRATEHOUSE_REQUIRE_REAL_AUDIO === '1';
/** Every third labelled file (sorted by name): 41 files across the five roles. */
const subset = readLabels('sonic-pi')
  .filter((r) => r.role !== null)
  .filter((_, i) => i % 3 === 0);

describe.skipIf(!dir && !required)('role on real recordings (sonic-pi-samples subset)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('is right for at least 92 % of the subset, with calibrated confidence and reasons', { timeout: 300_000 }, async () => {
    expect(dir, 'sonic-pi-samples is not installed (apt-get install sonic-pi-samples)').toBeDefined();
    const predictions = [];
    for (const row of subset) {
      const res = await app.fetch('/audio/v1/analyze/samples', {
        method: 'POST',
        headers: { Authorization: 'Bearer admin-token' },
        body: fileForm(readFileSync(path.join(dir!, row.file)), 'sample.wav'),
      });
      expect(res.status, row.file).toBe(200);
      const body = sampleAnalysisSchema.parse(await res.json());
      expect(body.reasons.length, row.file).toBeGreaterThan(0);
      predictions.push({ truth: row.role!, role: body.role, confidence: body.confidence });
    }
    const m = computeMetrics(predictions);
    const wrong = predictions.map((p, i) => (p.truth !== p.role ? `${subset[i]!.file}: ${p.truth} → ${p.role}` : null)).filter(Boolean);
    expect(m.accuracy, wrong.join('\n')).toBeGreaterThanOrEqual(0.92);
    expect(m.ece).toBeLessThanOrEqual(0.15);
  });
});
