import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callHosting, gitClient, withToken } from '../../test-support/hosting-client.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';
import type { Project } from '../api-types.js';

let app: TestApp;
const tokens: Record<string, string> = {};
const work = mkdtempSync(path.join(tmpdir(), 'cratehouse-repo-read-'));
const src = path.join(work, 'src');
const client = gitClient(work);
/** git in the source clone; its output is what the API is compared against. */
const git = (args: readonly string[], cwd = src) => client.ok(args, cwd);
const api = (who: string | null, route: string, init: { method?: string; headers?: Record<string, string> } = {}) =>
  app.fetch(`/api/v4${route}`, {
    method: init.method ?? 'GET',
    headers: { ...(who ? { 'PRIVATE-TOKEN': tokens[who]! } : {}), ...init.headers },
  });

/** The bytes written into the repository, by path, as the test wrote them. */
const written: Record<string, Buffer> = {};
const put = (file: string, bytes: Buffer | string) => {
  const b = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes);
  mkdirSync(path.dirname(path.join(src, file)), { recursive: true });
  writeFileSync(path.join(src, file), b);
  written[file] = b;
};
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let project: Project;
let big: Buffer;

/** `git ls-tree` in the clone, as GitLab's TreeObjects, trees first. */
async function lsTree(
  args: readonly string[],
  prefix = '',
): Promise<{ id: string; name: string; type: string; path: string; mode: string }[]> {
  const out = await git(['ls-tree', '-z', ...args]);
  const entries = out
    .split('\0')
    .filter((r) => r !== '')
    .map((r) => {
      const [meta, file] = r.split('\t') as [string, string];
      const [mode, type, id] = meta.split(' ') as [string, string, string];
      const full = prefix + file;
      return { id, name: full.split('/').pop()!, type, path: full, mode };
    });
  return [...entries.filter((e) => e.type === 'tree'), ...entries.filter((e) => e.type !== 'tree')];
}

beforeAll(async () => {
  app = await startTestApp();
  const owner = await app.addUser('producer');
  tokens.owner = owner.token;
  tokens.stranger = (await app.addUser('outsider')).token;
  tokens.reader = (await app.identity.createToken(owner.id, { name: 'repo', scopes: ['read_repository'] })).token;
  tokens.readApi = (await app.identity.createToken(owner.id, { name: 'ro', scopes: ['read_api'] })).token;
  project = (await (
    await callHosting(app, tokens.owner!, '/projects', { method: 'POST', body: { name: 'Stems', visibility: 'private' } })
  ).json()) as Project;
  expect(project.readme_url).toBeNull();

  await client.ok(['init', '-q', src]);
  put('README.md', '# Stems\n');
  put('docs/notes.txt', 'first take\n');
  put('sub dir/ü file.txt', 'unicode name\n');
  put('index.html', '<script>alert(1)</script>\n');
  put('kick.wav', Buffer.concat([Buffer.from('RIFF'), randomBytes(2000)]));
  put('render.sh', '#!/bin/sh\necho render\n');
  chmodSync(path.join(src, 'render.sh'), 0o755);
  big = randomBytes(5 * 1024 * 1024 + 7);
  put('stems/bass.raw', big);
  await git(['add', '-A']);
  await git(['commit', '-q', '-m', 'First stems']);
  await git(['tag', 'v1']);
  put('docs/notes.txt', 'second take\n');
  await git(['add', '-A']);
  await git(['commit', '-q', '-m', 'Second take']);
  await git(['checkout', '-q', '-b', 'feature/mix']);
  put('mix.txt', 'mix\n');
  await git(['add', '-A']);
  await git(['commit', '-q', '-m', 'Mix']);
  await git(['checkout', '-q', 'main']);
  await git(['push', '-q', withToken(project.http_url_to_repo, tokens.owner!), 'main', 'feature/mix', 'v1']);
}, 60_000);

afterAll(() => app.close());

describe('GET /projects/:id/repository/tree', () => {
  it('lists the default branch root as git ls-tree does, trees first', async () => {
    const res = await api('owner', `/projects/${project.id}/repository/tree`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(await lsTree(['main']));
    expect(res.headers.get('x-total')).toBe(String((await lsTree(['main'])).length));
  });

  it('recursive, a subfolder, a tag and a branch with a slash', async () => {
    const all = await (await api('owner', `/projects/${project.id}/repository/tree?recursive=true&per_page=100`)).json();
    expect(all).toEqual(await lsTree(['-r', '-t', 'main']));
    const docs = await (await api('owner', `/projects/${project.id}/repository/tree?path=docs&ref=v1`)).json();
    expect(docs).toEqual(await lsTree(['v1:docs'], 'docs/'));
    expect((docs as { id: string }[])[0]!.id).toBe((await git(['rev-parse', 'v1:docs/notes.txt'])).trim());
    const mix = await (await api('owner', `/projects/${project.id}/repository/tree?ref=${encodeURIComponent('feature/mix')}`)).json();
    expect(mix).toEqual(await lsTree(['feature/mix']));
    const byPath = await api('owner', `/projects/${encodeURIComponent(`producer/${project.path}`)}/repository/tree?path=sub%20dir/`);
    expect(await byPath.json()).toEqual(await lsTree(['main:sub dir'], 'sub dir/'));
  }, 90_000);

  it('404 Tree Not Found for an unknown ref or path, a file, and a path that climbs', async () => {
    for (const q of ['ref=nope', 'path=nope', 'path=README.md', 'path=../x', 'path=docs/../docs', 'ref=main~1', 'ref=--output=x']) {
      const res = await api('owner', `/projects/${project.id}/repository/tree?${q}`);
      expect(res.status, q).toBe(404);
      expect(await res.json(), q).toEqual({ message: '404 Tree Not Found' });
    }
  });

  it('legacy pages and keyset pages cover the recursive tree exactly once', async () => {
    const everything = await lsTree(['-r', '-t', 'main']);
    const page2 = await api('owner', `/projects/${project.id}/repository/tree?recursive=true&per_page=3&page=2`);
    expect(await page2.json()).toEqual(everything.slice(3, 6));
    expect(page2.headers.get('x-total')).toBe(String(everything.length));

    const seen: unknown[] = [];
    let next: string | null = `/api/v4/projects/${project.id}/repository/tree?recursive=true&pagination=keyset&per_page=4`;
    let pages = 0;
    while (next) {
      const res = await app.fetch(next.replace(app.url, ''), { headers: { 'PRIVATE-TOKEN': tokens.owner! } });
      expect(res.status).toBe(200);
      seen.push(...((await res.json()) as unknown[]));
      const link = res.headers.get('link');
      next = link ? /<([^>]+)>; rel="next"/.exec(link)![1]! : null;
      expect(next === null || next.includes('page_token=')).toBe(true);
      pages++;
    }
    expect(seen).toEqual(everything);
    expect(pages).toBe(Math.ceil(everything.length / 4));
    const none = await api('owner', `/projects/${project.id}/repository/tree?pagination=none`);
    expect(none.status).toBe(400);
    expect(await none.json()).toEqual({ error: 'pagination cannot be "none" unless "recursive" is true' });
  }, 90_000);
});

describe('GET and HEAD /projects/:id/repository/files/:file_path', () => {
  it('answers the content in base64 and the metadata git knows', async () => {
    const res = await api('owner', `/projects/${project.id}/repository/files/${encodeURIComponent('docs/notes.txt')}?ref=v1`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    const body = (await res.json()) as Record<string, unknown>;
    const v1 = (await git(['rev-parse', 'v1'])).trim();
    expect(body).toEqual({
      file_name: 'notes.txt',
      file_path: 'docs/notes.txt',
      size: 'first take\n'.length,
      encoding: 'base64',
      content_sha256: sha256(Buffer.from('first take\n')),
      ref: 'v1',
      blob_id: (await git(['rev-parse', 'v1:docs/notes.txt'])).trim(),
      commit_id: v1,
      last_commit_id: v1,
      execute_filemode: false,
      content: Buffer.from('first take\n').toString('base64'),
    });
    expect(Object.keys(body)).toEqual([
      'file_name',
      'file_path',
      'size',
      'encoding',
      'content_sha256',
      'ref',
      'blob_id',
      'commit_id',
      'last_commit_id',
      'execute_filemode',
      'content',
    ]);
    expect(res.headers.get('x-gitlab-blob-id')).toBe(body.blob_id);

    const script = (await (await api('owner', `/projects/${project.id}/repository/files/render.sh?ref=main`)).json()) as Record<
      string,
      unknown
    >;
    expect(script.execute_filemode).toBe(true);
    // Changed in the second commit only: last_commit_id is main's parent's child, not v1.
    const notes = (await (
      await api('owner', `/projects/${project.id}/repository/files/docs%2Fnotes.txt?ref=feature/mix`)
    ).json()) as Record<string, unknown>;
    expect(notes.last_commit_id).toBe((await git(['log', '-1', '--format=%H', 'feature/mix', '--', 'docs/notes.txt'])).trim());
    expect(notes.commit_id).toBe((await git(['rev-parse', 'feature/mix'])).trim());
    const unicode = (await (
      await api('owner', `/projects/${project.id}/repository/files/${encodeURIComponent('sub dir/ü file.txt')}?ref=main`)
    ).json()) as Record<string, unknown>;
    expect(Buffer.from(String(unicode.content), 'base64')).toEqual(written['sub dir/ü file.txt']);
  }, 90_000);

  it('streams a multi-MB file as correct base64 JSON', async () => {
    const res = await api('owner', `/projects/${project.id}/repository/files/stems%2Fbass.raw?ref=main`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(text));
    const body = JSON.parse(text) as { content: string; size: number; content_sha256: string };
    expect(body.size).toBe(big.length);
    expect(Buffer.from(body.content, 'base64').equals(big)).toBe(true);
    expect(body.content_sha256).toBe(sha256(big));
  }, 90_000);

  it('HEAD answers the metadata in X-Gitlab-* headers and no body', async () => {
    const res = await api('owner', `/projects/${project.id}/repository/files/${encodeURIComponent('sub dir/ü file.txt')}?ref=main`, {
      method: 'HEAD',
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
    expect(res.headers.get('x-gitlab-blob-id')).toBe((await git(['rev-parse', 'main:sub dir/ü file.txt'])).trim());
    expect(res.headers.get('x-gitlab-content-sha256')).toBe(sha256(written['sub dir/ü file.txt']!));
    expect(res.headers.get('x-gitlab-size')).toBe(String(written['sub dir/ü file.txt']!.length));
    expect(res.headers.get('x-gitlab-execute-filemode')).toBe('false');
    expect(Buffer.from(res.headers.get('x-gitlab-file-path')!, 'latin1').toString('utf8')).toBe('sub dir/ü file.txt');
  });

  it('answers GitLab errors: ref missing, unknown ref, no file, a path that climbs', async () => {
    const cases: [string, number, unknown][] = [
      ['README.md', 400, { error: 'ref is missing' }],
      ['README.md?ref=nope', 404, { message: '404 Commit Not Found' }],
      ['nope.txt?ref=main', 404, { message: '404 File Not Found' }],
      ['docs?ref=main', 404, { message: '404 File Not Found' }],
      [`${encodeURIComponent('../README.md')}?ref=main`, 400, { error: 'file_path should be a valid file path' }],
      [`${encodeURIComponent('docs/../README.md')}?ref=main`, 400, { error: 'file_path should be a valid file path' }],
      [`${encodeURIComponent('/README.md')}?ref=main`, 400, { error: 'file_path should be a valid file path' }],
    ];
    for (const [route, status, body] of cases) {
      const res = await api('owner', `/projects/${project.id}/repository/files/${route}`);
      expect(res.status, route).toBe(status);
      expect(await res.json(), route).toEqual(body);
    }
  });
});

describe('raw files and blobs', () => {
  it('streams a raw file byte for byte, as an inert download', async () => {
    const res = await api('owner', `/projects/${project.id}/repository/files/stems%2Fbass.raw/raw?ref=main`);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(big)).toBe(true);
    expect(res.headers.get('content-length')).toBe(String(big.length));
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="bass.raw"/);
    expect(res.headers.get('x-gitlab-blob-id')).toBe((await git(['rev-parse', 'main:stems/bass.raw'])).trim());
  }, 90_000);

  it('never serves HTML as HTML; audio plays inline; ref defaults to the default branch', async () => {
    const html = await api('owner', `/projects/${project.id}/repository/files/index.html/raw`);
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toBe('application/octet-stream');
    expect(html.headers.get('content-disposition')).toMatch(/^attachment/);
    expect(html.headers.get('content-security-policy')).toMatch(/sandbox/);
    expect(await html.text()).toBe(written['index.html']!.toString());
    const wav = await api('owner', `/projects/${project.id}/repository/files/kick.wav/raw?ref=main&lfs=true`);
    expect(wav.headers.get('content-type')).toBe('audio/wav');
    expect(wav.headers.get('content-disposition')).toMatch(/^inline/);
    expect(Buffer.from(await wav.arrayBuffer())).toEqual(written['kick.wav']);
  });

  it('answers byte ranges and conditional requests (the player seeks)', async () => {
    const route = `/projects/${project.id}/repository/files/stems%2Fbass.raw/raw`;
    const part = await api('owner', route, { headers: { Range: 'bytes=1000000-1000099' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 1000000-1000099/${big.length}`);
    expect(Buffer.from(await part.arrayBuffer())).toEqual(big.subarray(1000000, 1000100));
    const tail = await api('owner', route, { headers: { Range: 'bytes=-10' } });
    expect(Buffer.from(await tail.arrayBuffer())).toEqual(big.subarray(big.length - 10));
    const beyond = await api('owner', route, { headers: { Range: `bytes=${big.length}-` } });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe(`bytes */${big.length}`);
    const etag = (await api('owner', route, { method: 'HEAD' })).headers.get('etag')!;
    expect(etag).toBe(`"${(await git(['rev-parse', 'main:stems/bass.raw'])).trim()}"`);
    expect((await api('owner', route, { headers: { 'If-None-Match': etag } })).status).toBe(304);
  }, 90_000);

  it('GET blobs/:sha and blobs/:sha/raw by full and short id; 404 Blob Not Found otherwise', async () => {
    const id = (await git(['rev-parse', 'main:README.md'])).trim();
    expect(await (await api('owner', `/projects/${project.id}/repository/blobs/${id}`)).json()).toEqual({
      size: 8,
      encoding: 'base64',
      content: Buffer.from('# Stems\n').toString('base64'),
      sha: id,
    });
    const raw = await api('owner', `/projects/${project.id}/repository/blobs/${id.slice(0, 8)}/raw`);
    expect(await raw.text()).toBe('# Stems\n');
    const bigId = (await git(['rev-parse', 'main:stems/bass.raw'])).trim();
    expect(Buffer.from(await (await api('owner', `/projects/${project.id}/repository/blobs/${bigId}/raw`)).arrayBuffer()).equals(big)).toBe(
      true,
    );
    const tree = (await git(['rev-parse', 'main:docs'])).trim();
    for (const sha of [tree, '0'.repeat(40), 'main', 'zz']) {
      const res = await api('owner', `/projects/${project.id}/repository/blobs/${sha}`);
      expect(res.status, sha).toBe(404);
      expect(await res.json()).toEqual({ message: '404 Blob Not Found' });
    }
  }, 90_000);
});

describe('GET /projects/:id/repository/archive', () => {
  const fetchArchive = async (route: string) => {
    const res = await api('owner', `/projects/${project.id}/repository/${route}`);
    return { res, bytes: Buffer.from(await res.arrayBuffer()) };
  };
  const list = async (bytes: Buffer, args: readonly string[]) => {
    const file = path.join(work, `archive-${randomBytes(4).toString('hex')}`);
    writeFileSync(file, bytes);
    return new Promise<string[]>((resolve, reject) =>
      execFile(args[0]!, [...args.slice(1), file], { maxBuffer: 1 << 26 }, (e, out) =>
        e
          ? reject(e)
          : resolve(
              out
                .split('\n')
                .filter((l) => l !== '' && !l.endsWith('/'))
                .sort(),
            ),
      ),
    );
  };

  it('tar.gz, tar, tar.bz2 and zip hold every file of the ref under GitLab’s prefix', async () => {
    const head = (await git(['rev-parse', 'main'])).trim();
    const prefix = `${project.path}-main-${head}`;
    const files = (await git(['ls-tree', '-r', '-z', '--name-only', 'main']))
      .split('\0')
      .filter(Boolean)
      .map((f) => `${prefix}/${f}`)
      .sort();
    for (const [route, lister, ext] of [
      ['archive', ['tar', '-tzf'], 'tar.gz'],
      ['archive.tar', ['tar', '-tf'], 'tar'],
      ['archive.tar.bz2', ['tar', '-tjf'], 'tar.bz2'],
      ['archive?format=tbz2', ['tar', '-tjf'], 'tar.bz2'],
      ['archive.zip', ['python3', '-c', 'import sys,zipfile; print("\\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))'], 'zip'],
    ] as const) {
      const { res, bytes } = await fetchArchive(route);
      expect(res.status, route).toBe(200);
      expect(res.headers.get('content-disposition'), route).toBe(
        `attachment; filename="${prefix}.${ext}"; filename*=UTF-8''${prefix}.${ext}`,
      );
      expect(await list(bytes, lister), route).toEqual(files);
    }
    const { bytes } = await fetchArchive('archive.tar');
    const out = path.join(work, 'unpacked');
    mkdirSync(out);
    writeFileSync(path.join(work, 'a.tar'), bytes);
    await new Promise((r, j) => execFile('tar', ['-xf', path.join(work, 'a.tar'), '-C', out], (e) => (e ? j(e) : r(null))));
    expect(readFileSync(path.join(out, prefix, 'stems/bass.raw')).equals(big)).toBe(true);
  }, 120_000);

  it('sha and path pick the commit and the folder; unknown ones are 404 File Not Found', async () => {
    const v1 = (await git(['rev-parse', 'v1'])).trim();
    const { res, bytes } = await fetchArchive('archive.tar?sha=v1&path=docs');
    expect(res.headers.get('content-disposition')).toContain(`filename="${project.path}-v1-${v1}-docs.tar"`);
    expect(await list(bytes, ['tar', '-tf'])).toEqual([`${project.path}-v1-${v1}-docs/docs/notes.txt`]);
    const slash = await fetchArchive(`archive.zip?sha=${encodeURIComponent('feature/mix')}`);
    expect(slash.res.headers.get('content-disposition')).toContain(
      `filename="${project.path}-feature-mix-${(await git(['rev-parse', 'feature/mix'])).trim()}.zip"`,
    );
    for (const q of ['archive?sha=nope', 'archive.zip?path=nope', 'archive?path=../x']) {
      const r = await api('owner', `/projects/${project.id}/repository/${q}`);
      expect(r.status, q).toBe(404);
      expect(await r.json()).toEqual({ message: '404 File Not Found' });
    }
    expect((await api('owner', `/projects/${project.id}/repository/archive.rar`)).status).toBe(404);
    expect(await (await api('owner', `/projects/${project.id}/repository/archive?format=rar`)).json()).toEqual({
      error: 'format does not have a valid value',
    });
  }, 90_000);
});

describe('access, scopes and readme_url', () => {
  const routes = () => [
    `/projects/${project.id}/repository/tree`,
    `/projects/${project.id}/repository/files/README.md?ref=main`,
    `/projects/${project.id}/repository/files/README.md/raw`,
    `/projects/${project.id}/repository/blobs/${'a'.repeat(40)}`,
    `/projects/${project.id}/repository/archive.zip`,
  ];

  it('a private project is 404 Project Not Found to strangers and anonymous callers', async () => {
    for (const route of routes()) {
      for (const who of ['stranger', null]) {
        const res = await api(who, route);
        expect(res.status, `${who} ${route}`).toBe(404);
        expect(await res.json()).toEqual({ message: '404 Project Not Found' });
      }
    }
  });

  it('read_repository reads files only (API::Files); read_api reads everything', async () => {
    expect((await api('reader', `/projects/${project.id}/repository/files/README.md?ref=main`)).status).toBe(200);
    expect((await api('reader', `/projects/${project.id}/repository/files/README.md/raw`)).status).toBe(200);
    const tree = await api('reader', `/projects/${project.id}/repository/tree`);
    expect(tree.status).toBe(403);
    expect(await tree.json()).toMatchObject({ error: 'insufficient_scope', scope: 'api read_api' });
    for (const route of routes().slice(0, 3)) expect((await api('readApi', route)).status, route).toBe(200);
  });

  it('readme_url points at the default branch README after a push, and follows a default-branch change', async () => {
    const read = async () => ((await (await api('owner', `/projects/${project.id}`)).json()) as Project).readme_url;
    expect(await read()).toBe(`${app.url}/producer/${project.path}/-/blob/main/README.md`);
    const listed = (await (await api('owner', '/projects?owned=true')).json()) as Project[];
    expect(listed.find((p) => p.id === project.id)!.readme_url).toBe(`${app.url}/producer/${project.path}/-/blob/main/README.md`);
    await git(['checkout', '-q', 'feature/mix']);
    await git(['rm', '-q', 'README.md']);
    put('readme.txt', 'plain\n');
    await git(['add', '-A']);
    await git(['commit', '-q', '-m', 'Plain readme']);
    const activity = async () => ((await (await api('owner', `/projects/${project.id}`)).json()) as Project).last_activity_at;
    const before = await activity();
    await git(['push', '-q', withToken(project.http_url_to_repo, tokens.owner!), 'feature/mix']);
    // The server records a push just after answering it; wait for that before editing the project.
    for (let i = 0; i < 200 && (await activity()) === before; i++) await new Promise((r) => setTimeout(r, 25));
    expect(await read()).toBe(`${app.url}/producer/${project.path}/-/blob/main/README.md`);
    const edit = await callHosting(app, tokens.owner!, `/projects/${project.id}`, {
      method: 'PUT',
      body: { default_branch: 'feature/mix' },
    });
    expect(edit.status).toBe(200);
    expect(await read()).toBe(`${app.url}/producer/${project.path}/-/blob/feature/mix/readme.txt`);
  });
});
