import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callHosting, gitClient, readJson, withToken } from '../../test-support/hosting-client.js';
import { encodeWav, sine } from '../../test-support/signals.js';
import { fileForm, startTestApp, type TestApp } from '../../test-support/test-app.js';
import type { Project } from '../api-types.js';

/** Pushed files larger than this are not analysed in the background (the test app's limit below). */
const pushLimitBytes = 100_000;

let app: TestApp;
const tokens: Record<string, string> = {};
const work = mkdtempSync(path.join(tmpdir(), 'cratehouse-file-analysis-'));
const src = path.join(work, 'src');
const client = gitClient(work);
const git = (args: readonly string[]) => client.ok(args, src);
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const api = (who: string | null, route: string, headers: Record<string, string> = {}) =>
  app.fetch(`/api/v4${route}`, { headers: { ...(who ? { 'PRIVATE-TOKEN': tokens[who]! } : {}), ...headers } });

// Known answers: a sine of peak amplitude A has a peak of 20·log10(A) dBFS and an RMS 3.01 dB lower.
/** 1 kHz at −20 dBFS peak, 2.5 s, 48 kHz mono (240,044 bytes: above the push limit, so only a GET analyses it). */
const toneWav = encodeWav([sine(48_000, 2.5, 1000, 10 ** (-20 / 20))], 48_000);
/** 440 Hz at −12 dBFS peak, 3 s, 44.1 kHz mono: the LFS object. */
const lfsWav = encodeWav([sine(44_100, 3, 440, 10 ** (-12 / 20))], 44_100);
/** 0.5 s, 48 kHz mono (48,044 bytes: a push queues it). */
const shortWav = encodeWav([sine(48_000, 0.5, 250, 0.5)], 48_000);
const pointer = (bytes: Buffer) => `version https://git-lfs.github.com/spec/v1\noid sha256:${sha256(bytes)}\nsize ${bytes.length}\n`;

let project: Project;

const put = (file: string, bytes: Buffer | string) => {
  mkdirSync(path.dirname(path.join(src, file)), { recursive: true });
  writeFileSync(path.join(src, file), bytes);
};
const filePath = (p: string) => encodeURIComponent(p);

/** Upload an LFS object through the batch API as git-lfs does before a push (batch, PUT). */
async function uploadLfsObject(bytes: Buffer): Promise<void> {
  const headers = {
    Accept: 'application/vnd.git-lfs+json',
    'Content-Type': 'application/vnd.git-lfs+json',
    Authorization: `Basic ${Buffer.from(`any:${tokens.owner}`).toString('base64')}`,
  };
  const batch = await readJson<{ objects: { actions?: { upload?: { href: string; header: Record<string, string> } } }[] }>(
    app.fetch(`/${project.path_with_namespace}.git/info/lfs/objects/batch`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ operation: 'upload', transfers: ['basic'], objects: [{ oid: sha256(bytes), size: bytes.length }] }),
    }),
  );
  const upload = batch.objects[0]!.actions!.upload!;
  const res = await fetch(upload.href, { method: 'PUT', headers: upload.header, body: new Uint8Array(bytes) });
  expect(res.status).toBe(200);
}

/** GET the analysis until it is no longer pending; returns the first answer and the final one. */
async function analysisUntilDone(file: string): Promise<{ first: Response; last: Response; body: Record<string, unknown> }> {
  const route = `/projects/${project.id}/repository/files/${filePath(file)}/analysis?ref=main`;
  const first = await api('owner', route);
  let last = first;
  for (let i = 0; last.status === 202 && i < 600; i++) {
    await last.body?.cancel();
    await new Promise((r) => setTimeout(r, 100));
    last = await api('owner', route);
  }
  return { first, last, body: (await last.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  app = await startTestApp({ pushAnalysis: { maxFiles: 50, maxBytes: pushLimitBytes } });
  tokens.owner = (await app.addUser('producer')).token;
  tokens.stranger = (await app.addUser('outsider')).token;
  project = await readJson<Project>(
    callHosting(app, tokens.owner!, '/projects', { method: 'POST', body: { name: 'Stems', visibility: 'private' } }),
  );
  await uploadLfsObject(lfsWav);
  await client.ok(['init', '-q', src]);
  put('.gitattributes', 'lfs/*.wav filter=lfs diff=lfs merge=lfs -text\n');
  put('stems/tone.wav', toneWav);
  put('lfs/object.wav', pointer(lfsWav));
  put('queued/short.wav', shortWav);
  put('notes.txt', 'not audio\n');
  put('fake.wav', 'text, not audio\n');
  await git(['add', '-A']);
  await git(['commit', '-qm', 'stems']);
  await git(['push', '-q', withToken(`${app.url}/${project.path_with_namespace}.git`, tokens.owner!), 'HEAD:main']);
}, 60_000);

afterAll(async () => {
  await app.close();
});

describe('GET …/repository/files/:file_path/analysis', () => {
  it('answers 202 while a pushed WAV is analysed, then 200 with the measured level and exact duration', async () => {
    const { first, last, body } = await analysisUntilDone('stems/tone.wav');
    expect(first.status).toBe(202);
    expect(first.headers.get('retry-after')).toBe('2');
    expect(last.status).toBe(200);
    const blobId = (await git(['rev-parse', 'HEAD:stems/tone.wav'])).trim();
    expect(body).toMatchObject({
      status: 'ready',
      file_path: 'stems/tone.wav',
      blob_id: blobId,
      sha256: sha256(toneWav),
      size: toneWav.length,
    });
    const analysis = body.analysis as { source: { duration_s: number }; sample: { level: { peak_dbfs: number; rms_dbfs: number } } };
    expect(analysis.source.duration_s).toBe(2.5);
    expect(Math.abs(analysis.sample.level.peak_dbfs + 20)).toBeLessThan(0.05);
    expect(Math.abs(analysis.sample.level.rms_dbfs + 23.01)).toBeLessThan(0.05);
    const waveform = body.waveform as { bins: number; frames: number; min_max: unknown[] };
    expect(waveform).toMatchObject({ bins: 800, frames: 2.5 * 48_000 });
    expect(waveform.min_max).toHaveLength(800);

    // Exactly what the audio API answers for an upload of the same bytes.
    const auth = { Authorization: `Bearer ${tokens.owner}` };
    const analyze = await app.fetch('/audio/v1/analyze', { method: 'POST', headers: auth, body: fileForm(toneWav, 'tone.wav') });
    expect(await analyze.json()).toEqual(body.analysis);
    const wave = await app.fetch('/audio/v1/waveform?bins=800', { method: 'POST', headers: auth, body: fileForm(toneWav, 'tone.wav') });
    expect(await wave.json()).toEqual(body.waveform);
  }, 90_000);

  it('analyses the LFS object a pointer names, not the pointer', async () => {
    const { last, body } = await analysisUntilDone('lfs/object.wav');
    expect(last.status).toBe(200);
    expect(body).toMatchObject({ status: 'ready', sha256: sha256(lfsWav), size: lfsWav.length });
    const analysis = body.analysis as { source: { duration_s: number }; sample: { level: { peak_dbfs: number } } };
    expect(analysis.source.duration_s).toBe(3);
    expect(Math.abs(analysis.sample.level.peak_dbfs + 12)).toBeLessThan(0.05);
  }, 90_000);

  it('has the analysis of a file a push added ready at the first request (queued at push time)', async () => {
    // The push queued it in the background: wait until the cache holds its two answers (the only
    // 0.5 s file) as seen by the project's owner, without asking the route (which would queue it).
    const owner = createHash('sha256').update(`project:${project.id}`).digest('hex').slice(0, 32);
    const cache = path.join(app.dataDir, 'cache');
    const shortAnswers = () => {
      let n = 0;
      let keys: string[] = [];
      try {
        keys = readdirSync(path.join(cache, 'seen', owner), { recursive: true })
          .map(String)
          .filter((f) => f.includes('/'));
      } catch {
        return 0;
      }
      for (const k of keys) {
        const [head, rest] = k.split('/') as [string, string];
        try {
          const entry = JSON.parse(readFileSync(path.join(cache, head, `${rest}.json`), 'utf8')) as { source: { duration_s: number } };
          if (entry.source.duration_s === 0.5) n += 1;
        } catch {
          // not written yet
        }
      }
      return n;
    };
    const deadline = Date.now() + 60_000;
    while (shortAnswers() < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(shortAnswers()).toBe(2);
    const res = await api('owner', `/projects/${project.id}/repository/files/${filePath('queued/short.wav')}/analysis?ref=main`);
    expect(res.status).toBe(200);
    const body = await readJson(res);
    expect(body).toMatchObject({ status: 'ready', sha256: sha256(shortWav) });
    expect((body.analysis as { source: { duration_s: number } }).source.duration_s).toBe(0.5);
  }, 90_000);

  it('answers 422 for a file that is not audio, by extension or by content', async () => {
    const text = await api('owner', `/projects/${project.id}/repository/files/notes.txt/analysis?ref=main`);
    expect(text.status).toBe(422);
    expect(await text.json()).toEqual({ message: 'Not an audio file' });
    const { last, body } = await analysisUntilDone('fake.wav');
    expect(last.status).toBe(422);
    expect(body).toEqual({ message: 'Not an audio file' });
  }, 60_000);

  it('answers 404 as the Files API for a missing file', async () => {
    const res = await api('owner', `/projects/${project.id}/repository/files/${filePath('stems/none.wav')}/analysis?ref=main`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ message: '404 File Not Found' });
  });

  it('tells a stranger nothing: 404 for the private project, and no cached answer by hash', async () => {
    const res = await api('stranger', `/projects/${project.id}/repository/files/${filePath('stems/tone.wav')}/analysis?ref=main`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ message: '404 Project Not Found' });
    // The project's file was analysed (first test); the stranger's hash-first request without the
    // bytes must not be answered from the cache: it is asked for the file.
    for (const [route, hash] of [
      ['/audio/v1/analyze', sha256(toneWav)],
      ['/audio/v1/waveform?bins=800', sha256(toneWav)],
      ['/audio/v1/analyze', sha256(lfsWav)],
    ] as const) {
      const form = new FormData();
      form.append('note', 'no file');
      const probe = await app.fetch(route, {
        method: 'POST',
        headers: { Authorization: `Bearer ${tokens.stranger}`, 'X-Content-SHA256': hash },
        body: form,
      });
      expect(probe.headers.get('x-cache')).not.toBe('hit');
      expect(probe.status).toBe(422);
    }
  });
});

describe('raw reads with lfs=true', () => {
  it('serves the LFS object for a pointer, with ranges; without lfs=true the pointer', async () => {
    const route = `/projects/${project.id}/repository/files/${filePath('lfs/object.wav')}/raw?ref=main`;
    const plain = await api('owner', route);
    expect(await plain.text()).toBe(pointer(lfsWav));
    const object = Buffer.from(await (await api('owner', `${route}&lfs=true`)).arrayBuffer());
    expect(sha256(object)).toBe(sha256(lfsWav));
    const part = await api('owner', `${route}&lfs=true`, { Range: 'bytes=100-199' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 100-199/${lfsWav.length}`);
    expect(Buffer.from(await part.arrayBuffer())).toEqual(lfsWav.subarray(100, 200));
    const blobId = (await git(['rev-parse', 'HEAD:lfs/object.wav'])).trim();
    const blob = Buffer.from(await (await api('owner', `/projects/${project.id}/repository/blobs/${blobId}/raw?lfs=true`)).arrayBuffer());
    expect(sha256(blob)).toBe(sha256(lfsWav));
  });

  it('serves a plain file as it is with lfs=true', async () => {
    const res = await api('owner', `/projects/${project.id}/repository/files/${filePath('stems/tone.wav')}/raw?ref=main&lfs=true`);
    expect(sha256(Buffer.from(await res.arrayBuffer()))).toBe(sha256(toneWav));
  });
});

describe('API commits into LFS-tracked paths', () => {
  it('stores tracked content as an LFS object and commits a pointer; untracked content stays in git', async () => {
    const stem = encodeWav([sine(22_050, 0.3, 330, 0.3)], 22_050); // small: the test app's JSON limit is 64 KB
    const res = await callHosting(app, tokens.owner!, `/projects/${project.id}/repository/commits`, {
      method: 'POST',
      body: {
        branch: 'main',
        commit_message: 'Drop two stems',
        actions: [
          { action: 'create', file_path: 'lfs/dropped.wav', content: stem.toString('base64'), encoding: 'base64' },
          { action: 'create', file_path: 'stems/dropped.wav', content: stem.toString('base64'), encoding: 'base64' },
        ],
      },
    });
    expect(res.status).toBe(201);
    const raw = (p: string, lfs = '') =>
      api('owner', `/projects/${project.id}/repository/files/${filePath(p)}/raw?ref=main${lfs}`).then(async (r) =>
        Buffer.from(await r.arrayBuffer()),
      );
    expect((await raw('lfs/dropped.wav')).toString('utf8')).toBe(pointer(stem));
    expect(sha256(await raw('lfs/dropped.wav', '&lfs=true'))).toBe(sha256(stem));
    expect(sha256(await raw('stems/dropped.wav'))).toBe(sha256(stem));
    // The object is the project's: git-lfs can download it through the batch API.
    const batch = await readJson<{ objects: { oid: string; actions?: { download?: unknown }; error?: unknown }[] }>(
      app.fetch(`/${project.path_with_namespace}.git/info/lfs/objects/batch`, {
        method: 'POST',
        headers: {
          Accept: 'application/vnd.git-lfs+json',
          'Content-Type': 'application/vnd.git-lfs+json',
          Authorization: `Basic ${Buffer.from(`any:${tokens.owner}`).toString('base64')}`,
        },
        body: JSON.stringify({ operation: 'download', objects: [{ oid: sha256(stem), size: stem.length }] }),
      }),
    );
    expect(batch.objects[0]!.actions?.download).toBeDefined();
  });

  it('commits a pointer to an object the project holds as it is, and stores a pointer to one it lacks as content', async () => {
    // As the GUI does: upload through the batch API first, then commit the pointer.
    const held = encodeWav([sine(22_050, 0.4, 550, 0.3)], 22_050);
    await uploadLfsObject(held);
    // Never uploaded: committing it as is would leave a tracked path that points nowhere.
    const missing = encodeWav([sine(22_050, 0.4, 660, 0.3)], 22_050);
    const res = await callHosting(app, tokens.owner!, `/projects/${project.id}/repository/commits`, {
      method: 'POST',
      body: {
        branch: 'main',
        commit_message: 'Pointers',
        actions: [
          { action: 'create', file_path: 'lfs/held.wav', content: pointer(held) },
          { action: 'create', file_path: 'lfs/missing.wav', content: pointer(missing) },
        ],
      },
    });
    expect(res.status).toBe(201);
    const raw = async (p: string, lfs = '') =>
      Buffer.from(await (await api('owner', `/projects/${project.id}/repository/files/${filePath(p)}/raw?ref=main${lfs}`)).arrayBuffer());
    expect((await raw('lfs/held.wav')).toString('utf8')).toBe(pointer(held));
    expect(sha256(await raw('lfs/held.wav', '&lfs=true'))).toBe(sha256(held));
    const missingText = Buffer.from(pointer(missing), 'utf8');
    expect((await raw('lfs/missing.wav')).toString('utf8')).toBe(pointer(missingText));
    expect((await raw('lfs/missing.wav', '&lfs=true')).toString('utf8')).toBe(pointer(missing));
  });
});
