import { createHash } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drumLoop } from '../../test-support/drums.js';
import { dbToAmp, encodeWav, sine } from '../../test-support/signals.js';
import { adminToken, fileForm, startTestApp, type TestApp } from '../../test-support/test-app.js';
import { libraryItemListSchema, libraryItemSchema } from './library-schemas.js';

const rate = 44_100;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A chord of sines (equal amplitude, `db` peak each) for `seconds`: its key is the chord's. */
function chord(freqs: readonly number[], seconds: number, db: number): Float32Array {
  const out = new Float32Array(Math.round(seconds * rate));
  for (const f of freqs) {
    const s = sine(rate, seconds, f, dbToAmp(db));
    for (let i = 0; i < out.length; i++) out[i]! += s[i]!;
  }
  return out;
}

// Equal-tempered frequencies (A4 = 440 Hz) of the triads' notes, two octaves each for a clear profile.
const aMinor = [220, 261.63, 329.63, 440, 523.25, 659.26];
const cMajor = [261.63, 329.63, 392.0, 523.25, 659.26, 783.99];

/** Files with known facts: a 1 kHz sine at −20 dBFS in both channels reads −20.0 LUFS (BS.1770: −3.01 per channel + 3.01 for two). */
const tone = encodeWav([sine(rate, 3, 1000, dbToAmp(-20)), sine(rate, 3, 1000, dbToAmp(-20))], rate);
const amChord = encodeWav([chord(aMinor, 4, -30)], rate);
const cChord = encodeWav([chord(cMajor, 4, -30)], rate);
const loop = drumLoop({ bpm: 120, bars: 2, sampleRate: rate, pattern: 'straight8', leadIn: 0, tail: 0 });
const drums = encodeWav([...loop.channels], rate);

let app: TestApp;
const auth = (token = adminToken) => ({ Authorization: `Bearer ${token}` });
const json = (body: unknown, token = adminToken) => ({
  headers: { ...auth(token), 'Content-Type': 'application/json' },
  body: JSON.stringify(body),
});

async function add(bytes: Buffer, name: string, token = adminToken, fields: Record<string, string> = {}) {
  const form = fileForm(bytes, name);
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  const res = await app.fetch('/audio/v1/library/items', { method: 'POST', headers: auth(token), body: form });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function list(query: string, token = adminToken) {
  const res = await app.fetch(`/audio/v1/library/items?${query}`, { headers: auth(token) });
  expect(res.status).toBe(200);
  return libraryItemListSchema.parse(await res.json());
}

const ids: Record<string, number> = {};

beforeAll(async () => {
  app = await startTestApp();
  ids.tone = Number((await add(tone, 'tone -20.wav', adminToken, { tags: 'Test, tone' })).body.id);
  ids.am = Number((await add(amChord, 'pad am.wav')).body.id);
  ids.c = Number((await add(cChord, 'keys c.wav')).body.id);
  ids.drums = Number((await add(drums, 'beat 120.wav', adminToken, { tags: 'drums' })).body.id);
  await app.library.whenIdle();
}, 120_000);
afterAll(() => app.close());

describe('library items', () => {
  it('adds an upload as an item whose summary is computed in the background', async () => {
    const res = await app.fetch(`/audio/v1/library/items/${ids.tone}`, { headers: auth() });
    const item = libraryItemSchema.parse(await res.json());
    expect(item).toMatchObject({
      name: 'tone -20.wav',
      sha256: sha(tone),
      size: tone.length,
      status: 'ready',
      origin: 'upload',
      tags: ['test', 'tone'],
    });
    expect(item.duration_s).toBeCloseTo(3, 3);
    expect(item.sample_rate).toBe(rate);
    expect(item.channels).toBe(2);
    expect(item.loudness_lufs!).toBeCloseTo(-20, 0);
    // A steady sine peaks at its amplitude in every bin: 10^(−20/20) = 0.1.
    expect(item.thumbnail).toHaveLength(64);
    for (const p of item.thumbnail) expect(p).toBeCloseTo(0.1, 2);
  });

  it('names keys and Camelot codes of chords, and measures the drum loop’s tempo', async () => {
    const am = libraryItemSchema.parse(await (await app.fetch(`/audio/v1/library/items/${ids.am}`, { headers: auth() })).json());
    const c = libraryItemSchema.parse(await (await app.fetch(`/audio/v1/library/items/${ids.c}`, { headers: auth() })).json());
    const d = libraryItemSchema.parse(await (await app.fetch(`/audio/v1/library/items/${ids.drums}`, { headers: auth() })).json());
    expect([am.key, am.camelot]).toEqual(['A minor', '8A']);
    expect([c.key, c.camelot]).toEqual(['C major', '8B']);
    expect(d.tempo_bpm!).toBeCloseTo(120, 0);
    expect(d.bpm).toBe(d.tempo_bpm);
  });

  it('answers the same audio again with the existing item and keeps one copy of the bytes', async () => {
    const again = await add(tone, 'copy.wav');
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(ids.tone);
    const held = await readdir(path.join(app.dataDir, 'content', sha(tone).slice(0, 2), sha(tone).slice(2, 4)));
    expect(held).toEqual([sha(tone)]);
  });

  it('lists in the upload answer the analyses its summary runs, which then cost nothing by hash', async () => {
    const again = libraryItemSchema.parse((await add(tone, 'copy.wav')).body);
    const analyses = again.summary_analyses ?? [];
    expect(analyses.map((a) => a.route).sort()).toEqual(['/analyze', '/grade', '/loudness', '/naming', '/onsets', '/waveform']);
    // The documented defaults (audio-api.md): /naming's index is 1, /waveform's bins 800; the thumbnail asks 64 bins.
    expect(analyses.find((a) => a.route === '/naming')).toEqual({ route: '/naming', params: { index: 1 }, defaults: { index: 1 } });
    expect(analyses.find((a) => a.route === '/waveform')).toMatchObject({ params: { bins: 64 }, defaults: { bins: 800 } });
    // Only the upload answer carries it.
    const got = await (await app.fetch(`/audio/v1/library/items/${ids.tone}`, { headers: auth() })).json();
    expect(got).not.toHaveProperty('summary_analyses');
    // Asked by hash, a listed analysis is read from the cache; another is computed.
    const byHash = (q: string) =>
      app.fetch(`/audio/v1/${q}${q.includes('?') ? '&' : '?'}sha256=${sha(tone)}`, { method: 'POST', headers: auth() });
    for (const listed of ['naming?index=1', 'onsets', 'loudness', 'grade', 'analyze'])
      expect((await byHash(listed)).headers.get('x-cache')).toBe('hit');
    expect((await byHash('waveform?bins=500')).headers.get('x-cache')).toBe('miss');
  });

  it('filters by key in any spelling, by tempo with ½×/2× matches, by loudness, tag and text', async () => {
    const idsOf = (r: { items: readonly { id: number }[] }) => r.items.map((i) => i.id).sort((a, b) => a - b);
    for (const k of ['key=Am', 'key=A%20minor', 'camelot=8A', 'key=8a']) expect(idsOf(await list(k))).toEqual([ids.am]);
    expect(idsOf(await list('camelot=C'))).toEqual([ids.c]);
    expect(idsOf(await list('bpm_min=118&bpm_max=122'))).toEqual([ids.drums]);
    expect(idsOf(await list('bpm_min=58&bpm_max=62'))).toEqual([]);
    expect(idsOf(await list('bpm_min=58&bpm_max=62&bpm_related=true'))).toEqual([ids.drums]);
    expect(idsOf(await list('lufs_min=-21&lufs_max=-19'))).toEqual([ids.tone]);
    expect(idsOf(await list('tag=DRUMS'))).toEqual([ids.drums]);
    expect(idsOf(await list('q=PAD'))).toEqual([ids.am]);
    const page = await list('sort=name&per_page=2&page=2');
    expect(page.total).toBe(4);
    expect(page.items.map((i) => i.name)).toEqual(['pad am.wav', 'tone -20.wav']);
  });

  it('keeps the ½×/2× correction and searches by the corrected bpm', async () => {
    const res = await app.fetch(`/audio/v1/library/items/${ids.drums}`, {
      method: 'PATCH',
      ...json({ tempo_multiplier: 0.5, rating: 4, favourite: true }),
    });
    const item = libraryItemSchema.parse(await res.json());
    expect(item.bpm).toBeCloseTo(item.tempo_bpm! / 2, 2);
    expect((await list('bpm_min=58&bpm_max=62')).items.map((i) => i.id)).toEqual([ids.drums]);
    expect((await list('favourite=true')).items.map((i) => i.id)).toEqual([ids.drums]);
    await app.fetch(`/audio/v1/library/items/${ids.drums}`, { method: 'PATCH', ...json({ tempo_multiplier: 1 }) });
  });

  it('streams the audio with ranges and the item name as an attachment', async () => {
    const res = await app.fetch(`/audio/v1/library/items/${ids.tone}/audio`, { headers: { ...auth(), Range: 'bytes=0-11' } });
    expect(res.status).toBe(206);
    expect(Buffer.from(await res.arrayBuffer())).toEqual(tone.subarray(0, 12));
    expect(res.headers.get('content-disposition')).toContain('attachment');
    expect(res.headers.get('content-disposition')).toContain('tone%20-20.wav');
  });

  it('finds similar items among the caller’s own, the item itself excluded', async () => {
    const res = await app.fetch(`/audio/v1/library/items/${ids.am}/similar?limit=2`, { headers: auth() });
    const body = (await res.json()) as { items: { item: { id: number }; distance: number }[] };
    expect(res.status).toBe(200);
    expect(body.items).toHaveLength(2);
    expect(body.items.map((n) => n.item.id)).not.toContain(ids.am);
    expect(body.items[0]!.distance).toBeLessThanOrEqual(body.items[1]!.distance);
  });
});

describe('collections and tags', () => {
  it('creates, fills, lists, empties and deletes a collection; its items stay', async () => {
    const created = await app.fetch('/audio/v1/library/collections', { method: 'POST', ...json({ name: 'Pads' }) });
    expect(created.status).toBe(201);
    const c = (await created.json()) as { id: number };
    const filled = await app.fetch(`/audio/v1/library/collections/${c.id}/items`, {
      method: 'POST',
      ...json({ item_ids: [ids.am, ids.c] }),
    });
    expect(await filled.json()).toEqual({ id: c.id, name: 'Pads', item_count: 2 });
    expect((await list(`collection_id=${c.id}`)).total).toBe(2);
    const out = await app.fetch(`/audio/v1/library/collections/${c.id}/items/${ids.c}`, { method: 'DELETE', headers: auth() });
    expect(out.status).toBe(204);
    expect((await list(`collection_id=${c.id}`)).items.map((i) => i.id)).toEqual([ids.am]);
    expect((await app.fetch(`/audio/v1/library/collections/${c.id}`, { method: 'DELETE', headers: auth() })).status).toBe(204);
    expect((await list('')).total).toBe(4);
    expect(await (await app.fetch('/audio/v1/library/collections', { headers: auth() })).json()).toEqual({ items: [] });
  });

  it('counts tags', async () => {
    const res = await app.fetch('/audio/v1/library/tags', { headers: auth() });
    expect(await res.json()).toEqual({
      items: [
        { name: 'drums', count: 1 },
        { name: 'test', count: 1 },
        { name: 'tone', count: 1 },
      ],
    });
  });
});

describe('tenants, scopes and hostile input', () => {
  it('never shows one tenant another tenant’s items', async () => {
    const mia = await app.addUser('mia');
    expect((await list('', mia.token)).total).toBe(0);
    for (const p of [`/library/items/${ids.tone}`, `/library/items/${ids.tone}/audio`, `/library/items/${ids.tone}/similar`]) {
      const res = await app.fetch(`/audio/v1${p}`, { headers: auth(mia.token) });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ detail: expect.any(String) });
    }
    const patch = await app.fetch(`/audio/v1/library/items/${ids.tone}`, { method: 'PATCH', ...json({ rating: 1 }, mia.token) });
    expect(patch.status).toBe(404);
    // Mia's own copy of the same audio is her own item (the bytes are still held once).
    const own = await add(tone, 'mine.wav', mia.token);
    expect(own.status).toBe(201);
    expect(own.body.id).not.toBe(ids.tone);
  });

  it('lets read_api tokens read but not write', async () => {
    const u = await app.identity.createUser({ username: 'reader', name: 'r', email: 'r@example.com' });
    const { token } = await app.identity.createToken(u.id, { name: 'r', scopes: ['read_api'] });
    expect((await app.fetch('/audio/v1/library/items', { headers: auth(token) })).status).toBe(200);
    const write = await app.fetch('/audio/v1/library/collections', { method: 'POST', ...json({ name: 'x' }, token) });
    expect(write.status).toBe(403);
    const upload = await add(tone, 'x.wav', token);
    expect(upload.status).toBe(403);
    expect((await app.fetch('/audio/v1/library/items')).status).toBe(401);
  });

  it('answers bad parameters with 422 in FastAPI’s shape', async () => {
    for (const q of [
      'per_page=201',
      'per_page=1000000',
      'sort=size',
      'sort=--name',
      'key=H%20minor',
      'camelot=13A',
      'page=0',
      'bpm_min=abc',
      'favourite=maybe',
      'role=drums',
    ]) {
      const res = await app.fetch(`/audio/v1/library/items?${q}`, { headers: auth() });
      expect(res.status, q).toBe(422);
      const body = (await res.json()) as { detail: { loc: unknown[]; msg: string; type: string }[] };
      expect(body.detail[0]!.loc[0], q).toBe('query');
    }
    for (const body of [{ rating: 6 }, { rating: '5' }, { tempo_multiplier: 3 }, { tags: 'a' }, { unknown: 1 }, [1, 2], { name: '' }]) {
      const res = await app.fetch(`/audio/v1/library/items/${ids.tone}`, { method: 'PATCH', ...json(body) });
      expect(res.status, JSON.stringify(body)).toBe(422);
    }
    for (const p of ['/library/items/abc', '/library/items/0', '/library/items/1e400', '/library/items/-1']) {
      expect((await app.fetch(`/audio/v1${p}`, { headers: auth() })).status, p).toBe(422);
    }
    const notJson = await app.fetch('/audio/v1/library/collections', {
      method: 'POST',
      headers: { ...auth(), 'Content-Type': 'application/json' },
      body: '{',
    });
    expect(notJson.status).toBeLessThan(500);
    expect(notJson.headers.get('content-type')).toContain('application/json');
  });

  it('refuses undecodable uploads with 415 and keeps nothing', async () => {
    const before = (await list('')).total;
    const res = await add(Buffer.from('this is not audio at all, just text'), 'fake.wav');
    expect(res.status).toBe(415);
    expect((await list('')).total).toBe(before);
  });

  it('removes an item and its bytes once no item references them', async () => {
    const bytes = encodeWav([sine(rate, 1, 330, 0.3)], rate);
    const item = await add(bytes, 'short.wav');
    const file = path.join(app.dataDir, 'content', sha(bytes).slice(0, 2), sha(bytes).slice(2, 4), sha(bytes));
    expect((await stat(file)).size).toBe(bytes.length);
    const res = await app.fetch(`/audio/v1/library/items/${String(item.body.id)}`, { method: 'DELETE', headers: auth() });
    expect(res.status).toBe(204);
    await expect(stat(file)).rejects.toThrow();
    // The tone is held for two tenants: removing mia's item leaves the admin's bytes.
  });
});
