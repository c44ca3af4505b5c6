import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAudioRouter } from './routes.js';
import { startTestApp } from '../../test-support/test-app.js';
import { presentAudioError } from './present.js';
import { validatePart } from './validation.js';
import type { AppError } from '../../http/errors.js';

describe('audio API basics', () => {
  it('answers /healthz without a token, with version and tool discovery', async () => {
    const app = await startTestApp();
    try {
      const res = await app.fetch('/audio/v1/healthz');
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        status: 'ok',
        service: 'cratehouse-audio',
        version: '0.0.0-test',
        api_version: '0.1.0',
        ffmpeg: { found: false, path: null, version: null },
        git: { found: false, path: null, version: null },
        analysis: { warm: expect.any(Boolean) },
      });
      // The pool warms its threads at start, then says so.
      let warm = false;
      for (let i = 0; i < 200 && !warm; i++) {
        warm = ((await (await app.fetch('/audio/v1/healthz')).json()) as { analysis: { warm: boolean } }).analysis.warm;
        if (!warm) await new Promise((r) => setTimeout(r, 50));
      }
      expect(warm).toBe(true);
    } finally {
      await app.close();
    }
  });

  it('requires a bearer token for /me and echoes identity, tenant and metered usage', async () => {
    const app = await startTestApp();
    try {
      const anonymous = await app.fetch('/audio/v1/me');
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
      expect(await anonymous.json()).toEqual({ detail: 'Not authenticated' });

      const wrong = await app.fetch('/audio/v1/me', { headers: { Authorization: 'Bearer nope' } });
      expect(wrong.status).toBe(401);
      expect(await wrong.json()).toEqual({ detail: 'Invalid token' });

      // The hosting API's token header is not the audio gateway's.
      const privateToken = await app.fetch('/audio/v1/me', { headers: { 'PRIVATE-TOKEN': 'admin-token' } });
      expect(privateToken.status).toBe(401);

      const dj = await app.addUser('dj', { tenant: 'studio-a' });
      for (let i = 0; i < 3; i++) await app.fetch('/audio/v1/me', { headers: { Authorization: `Bearer ${dj.token}` } });
      const res = await app.fetch('/audio/v1/me', { headers: { Authorization: `Bearer ${dj.token}` } });
      expect(res.status).toBe(200);
      const me = (await res.json()) as {
        identity: unknown;
        tenant: { id: string; webhook_secret: string };
        usage: { requests: Record<string, number>; requests_total: number };
      };
      expect(me.identity).toEqual({ user_id: dj.id, username: 'dj', name: 'dj', admin: false, token_name: 'test' });
      expect(me.tenant.id).toBe('studio-a');
      expect(me.tenant.webhook_secret).toMatch(/^[0-9a-f]{64}$/);
      // Three earlier calls were metered (this one is counted when it finishes).
      expect(me.usage.requests).toEqual({ 'GET /audio/v1/me': 3 });
      expect(me.usage.requests_total).toBe(3);
    } finally {
      await app.close();
    }
  });

  it('persists usage per tenant and keeps tenants apart', async () => {
    const app = await startTestApp();
    try {
      const a = await app.addUser('a1', { tenant: 'ta' });
      const b = await app.addUser('b1', { tenant: 'tb' });
      await app.fetch('/audio/v1/me', { headers: { Authorization: `Bearer ${a.token}` } });
      await app.fetch('/audio/v1/jobs/none', { headers: { Authorization: `Bearer ${a.token}` } });
      await app.fetch('/audio/v1/me', { headers: { Authorization: `Bearer ${b.token}` } });
      app.meter.uploaded('ta', 1000);
      app.meter.analysed('ta', 12.5);
      await app.meter.flush();
      expect(app.store.data.usage.ta).toMatchObject({
        requests: { 'GET /audio/v1/me': 1, 'GET /audio/v1/jobs/{job_id}': 1 },
        bytesUploaded: 1000,
        audioSeconds: 12.5,
      });
      expect(app.store.data.usage.tb).toMatchObject({ requests: { 'GET /audio/v1/me': 1 }, bytesUploaded: 0, audioSeconds: 0 });
      const persisted = (await app.adapter.read())!;
      expect(persisted.usage.ta?.audioSeconds).toBe(12.5);
    } finally {
      await app.close();
    }
  });

  it('answers unknown routes 404 and wrong methods 405 in the FastAPI shape', async () => {
    const app = await startTestApp();
    try {
      const missing = await app.fetch('/audio/v1/no-such-route');
      expect(missing.status).toBe(404);
      expect(await missing.json()).toEqual({ detail: 'Not Found' });
      const wrongMethod = await app.fetch('/audio/v1/healthz', { method: 'POST' });
      expect(wrongMethod.status).toBe(405);
      expect(wrongMethod.headers.get('allow')).toBe('GET');
      expect(await wrongMethod.json()).toEqual({ detail: 'Method Not Allowed' });
    } finally {
      await app.close();
    }
  });

  it('describes every mounted route in openapi.json (version 0.1.0)', async () => {
    const app = await startTestApp();
    try {
      const res = await app.fetch('/audio/v1/openapi.json');
      expect(res.status).toBe(200);
      const doc = (await res.json()) as {
        openapi: string;
        info: { version: string };
        paths: Record<string, Record<string, unknown>>;
        components: { schemas: Record<string, unknown> };
      };
      expect(doc.openapi).toBe('3.1.0');
      expect(doc.info.version).toBe('0.1.0');

      // Walk the real Express router: every mounted (path, method) must be in the document.
      const router = createAudioRouter(app.audioDeps);
      const mounted = (router.stack as { route?: { path: string; methods: Record<string, boolean> } }[])
        .filter((layer) => layer.route)
        .flatMap((layer) =>
          Object.keys(layer.route!.methods).map((m) => `${m.toUpperCase()} ${layer.route!.path.replace(/:(\w+)/g, '{$1}')}`),
        );
      expect(mounted.length).toBeGreaterThanOrEqual(9);
      const documented = Object.entries(doc.paths).flatMap(([p, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${p}`));
      expect(mounted.filter((r) => !documented.includes(r))).toEqual([]);
      expect(documented.filter((r) => !mounted.includes(r))).toEqual([]);

      expect(doc.components.schemas).toHaveProperty('JobStatus');
      expect(doc.paths['/jobs/{job_id}']?.get).toMatchObject({ parameters: [{ name: 'job_id', in: 'path', required: true }] });
      expect(doc.paths['/healthz']?.get).toMatchObject({ security: [] });
    } finally {
      await app.close();
    }
  });
});

describe('audio validation errors', () => {
  const query = z.object({ bins: z.coerce.number().int().min(1).max(4000).default(800), mel: z.stringbool().default(true) });
  const present = (fn: () => unknown) => {
    try {
      fn();
    } catch (e) {
      return presentAudioError(e as AppError);
    }
    throw new Error('expected a validation error');
  };

  it('presents bad query values as 422 HTTPValidationError with pydantic types', () => {
    expect(present(() => validatePart(query, 'query', { bins: 'abc' }))).toEqual({
      status: 422,
      body: {
        detail: [
          {
            loc: ['query', 'bins'],
            msg: 'Input should be a valid integer, unable to parse string as an integer',
            type: 'int_parsing',
            input: 'abc',
          },
        ],
      },
    });
    expect(present(() => validatePart(query, 'query', { bins: '5000' }))).toEqual({
      status: 422,
      body: {
        detail: [
          {
            loc: ['query', 'bins'],
            msg: 'Input should be less than or equal to 4000',
            type: 'less_than_equal',
            input: '5000',
            ctx: { le: 4000 },
          },
        ],
      },
    });
    expect(present(() => validatePart(query, 'query', { bins: '0' }))).toMatchObject({
      status: 422,
      body: { detail: [{ loc: ['query', 'bins'], type: 'greater_than_equal', ctx: { ge: 1 } }] },
    });
    expect(present(() => validatePart(query, 'query', { mel: 'maybe' }))).toMatchObject({
      status: 422,
      body: { detail: [{ loc: ['query', 'mel'], type: 'bool_parsing', input: 'maybe' }] },
    });
    expect(validatePart(query, 'query', {})).toEqual({ bins: 800, mel: true });
    expect(validatePart(query, 'query', { bins: '12', mel: 'false' })).toEqual({ bins: 12, mel: false });
  });

  it('reports a missing required field as pydantic does', () => {
    const body = z.object({ url: z.string() });
    expect(present(() => validatePart(body, 'body', {}))).toEqual({
      status: 422,
      body: { detail: [{ loc: ['body', 'url'], msg: 'Field required', type: 'missing' }] },
    });
  });

  it('answers a malformed JSON body with 422, not 500', async () => {
    const app = await startTestApp();
    try {
      const res = await app.fetch('/audio/v1/me', {
        method: 'GET',
        headers: { Authorization: 'Bearer admin-token', 'Content-Type': 'application/json' },
        body: undefined,
      });
      expect(res.status).toBe(200);
      const bad = await app.fetch('/audio/v1/jobs/x', {
        method: 'DELETE',
        headers: { Authorization: 'Bearer admin-token', 'Content-Type': 'application/json' },
        body: '{not json',
      });
      expect(bad.status).toBe(422);
      expect(await bad.json()).toEqual({ detail: [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }] });
      const huge = await app.fetch('/audio/v1/jobs/x', {
        method: 'DELETE',
        headers: { Authorization: 'Bearer admin-token', 'Content-Type': 'application/json' },
        body: JSON.stringify({ pad: 'x'.repeat(100_000) }),
      });
      expect(huge.status).toBe(413);
      expect(await huge.json()).toEqual({ detail: 'Request body is too large' });
    } finally {
      await app.close();
    }
  });

  it('turns an unexpected failure into a bare 500 without internals', () => {
    expect(presentAudioError(null)).toEqual({ status: 500, body: { detail: 'Internal Server Error' } });
  });
});
