/**
 * Issue 18's hostile client, rerunnable: `npm run probe:hostile` (after `npm run build`).
 *
 * Starts the built server in fresh data dirs, makes two ordinary users in different tenants and
 * counts what must stay zero: 5xx or HTML answers to bad audio, user content that could run script,
 * local files read through playlists, scope escapes, orphan names after SIGKILL, and the smaller
 * items (nested JSON, bad Host, IPv6 SSRF forms, private hook URLs, X-Cache across tenants, the
 * pre-read 413, failed-auth throttling). Prints one line per probe and a total; exits 1 on any
 * failure. Traffic goes to loopback only, and every loop is bounded.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const adminToken = `probe-admin-${randomBytes(12).toString('hex')}`;

/** One probe's outcome: how many attempts, and which of them failed (with a short why). */
interface Tally {
  readonly name: string;
  attempts: number;
  readonly failures: string[];
}

const tallies: Tally[] = [];
function tally(name: string): Tally {
  const t: Tally = { name, attempts: 0, failures: [] };
  tallies.push(t);
  return t;
}

let reported = 0;
/** Print the lines of the probes finished since the last call. */
function reportNew(): void {
  for (; reported < tallies.length; reported++) report(tallies[reported]!);
}

/** `--only a,b` runs just those probes (bad-audio, uploads, local-files, scopes, small, orphans). */
const only = process.argv.includes('--only') ? new Set(process.argv[process.argv.indexOf('--only') + 1]?.split(',')) : null;
const wanted = (name: string): boolean => !only || only.has(name);

/** Print one probe's line (and its first failures) as soon as it is done. */
function report(t: Tally): void {
  process.stdout.write(`${t.failures.length === 0 ? 'ok  ' : 'FAIL'} ${t.name}: ${t.attempts} attempts, ${t.failures.length} failures\n`);
  for (const f of t.failures.slice(0, 12)) process.stdout.write(`       ${f}\n`);
  if (t.failures.length > 12) process.stdout.write(`       … ${t.failures.length - 12} more\n`);
}

interface Running {
  readonly url: string;
  readonly child: ChildProcess;
  readonly dataDir: string;
}

/** Start dist/server/main.js on a free port with `env`; resolves once it prints its URL. */
async function startServer(dataDir: string, env: Readonly<Record<string, string>> = {}): Promise<Running> {
  const child = spawn(process.execPath, [path.join(root, 'dist/server/main.js')], {
    cwd: root,
    env: {
      ...process.env,
      CRATEHOUSE_DATA_DIR: dataDir,
      CRATEHOUSE_PORT: '0',
      CRATEHOUSE_ADMIN_TOKEN: adminToken,
      CRATEHOUSE_LOG_LEVEL: 'error',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr!.resume();
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (l) => {
      const m = /listening on (\S+)/.exec(l);
      if (m?.[1]) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`server exited (${String(code)})`)));
  });
  return { url, child, dataDir };
}

async function stop(s: Running, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (s.child.exitCode !== null || s.child.signalCode !== null) return;
  await new Promise<void>((r) => {
    s.child.once('exit', () => r());
    s.child.kill(signal);
  });
}

interface Answer {
  readonly status: number;
  readonly type: string;
  readonly text: string;
  readonly headers: Headers;
  json(): unknown;
}

async function call(url: string, init: RequestInit & { token?: string; tokenHeader?: string } = {}): Promise<Answer> {
  const headers = new Headers(init.headers);
  if (init.token) headers.set(init.tokenHeader ?? 'Authorization', init.tokenHeader ? init.token : `Bearer ${init.token}`);
  const r = await fetch(url, { ...init, headers, redirect: 'manual', signal: AbortSignal.timeout(60_000) });
  const text = await r.text();
  return { status: r.status, type: r.headers.get('content-type') ?? '', text, headers: r.headers, json: () => JSON.parse(text) as unknown };
}

function upload(url: string, token: string, bytes: Uint8Array, filename: string): Promise<Answer> {
  const form = new FormData();
  form.append('file', new Blob([bytes]), filename);
  return call(url, { method: 'POST', body: form, token });
}

/** A canonical PCM WAV header (44 bytes) with whatever values a hostile client writes, then `data`. */
function wav(
  o: { rate?: number; channels?: number; bits?: number; format?: number; dataSize?: number; blockAlign?: number },
  data: Uint8Array,
): Uint8Array {
  const rate = o.rate ?? 44100;
  const channels = o.channels ?? 1;
  const bits = o.bits ?? 16;
  const blockAlign = o.blockAlign ?? (channels * bits) / 8;
  const b = Buffer.alloc(44 + data.length);
  b.write('RIFF', 0);
  b.writeUInt32LE(36 + data.length, 4);
  b.write('WAVEfmt ', 8);
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(o.format ?? 1, 20);
  b.writeUInt16LE(channels & 0xffff, 22);
  b.writeUInt32LE(rate >>> 0, 24);
  b.writeUInt32LE(Math.min(0xffffffff, Math.round(rate * blockAlign)) >>> 0, 28);
  b.writeUInt16LE(blockAlign & 0xffff, 32);
  b.writeUInt16LE(bits & 0xffff, 34);
  b.write('data', 36);
  b.writeUInt32LE((o.dataSize ?? data.length) >>> 0, 40);
  Buffer.from(data).copy(b, 44);
  return b;
}

/** `seconds` of a 16-bit mono sine at 44.1 kHz: the distinctive "secret" a playlist may point at. */
function sineWav(seconds: number, hz: number): Uint8Array {
  const n = Math.round(seconds * 44100);
  const pcm = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++) pcm.writeInt16LE(Math.round(12000 * Math.sin((2 * Math.PI * hz * i) / 44100)), i * 2);
  return wav({}, pcm);
}

const audioRoutes = [
  '/loudness',
  '/waveform',
  '/spectrum',
  '/onsets',
  '/grade',
  '/analyze/samples',
  '/naming',
  '/features',
  '/analyze/emotion',
  '/analyze',
];

/** Bad audio: every route × every hostile file; any 5xx, HTML body or hang counts. */
async function probeBadAudio(base: string, token: string): Promise<void> {
  const t = tally('bad audio: 0 × 5xx, 0 HTML, none over 30 s');
  const noise = randomBytes(40_000);
  const files: [string, Uint8Array][] = [
    ['rate 4294967295', wav({ rate: 0xffffffff }, noise)],
    ['rate 10 MHz', wav({ rate: 10_000_000 }, noise)],
    ['rate 384001', wav({ rate: 384_001 }, noise)],
    ['rate 7999', wav({ rate: 7999 }, noise)],
    ['rate 1', wav({ rate: 1 }, noise)],
    ['rate 0', wav({ rate: 0 }, noise)],
    ['channels 0', wav({ channels: 0, blockAlign: 2 }, noise)],
    ['channels 33', wav({ channels: 33 }, noise)],
    ['channels 65535', wav({ channels: 65535, blockAlign: 65535 * 2 }, noise)],
    ['bits 0', wav({ bits: 0, blockAlign: 2 }, noise)],
    ['bits 7', wav({ bits: 7, blockAlign: 1 }, noise)],
    ['bits 12', wav({ bits: 12, blockAlign: 2 }, noise)],
    ['bits 64 float', wav({ bits: 64, format: 3 }, noise)],
    ['block align 0', wav({ blockAlign: 0 }, noise)],
    ['block align 3 for 16-bit mono', wav({ blockAlign: 3 }, noise)],
    ['data size beyond the file', wav({ dataSize: 0xfffffff0 }, noise)],
    ['empty data', wav({}, new Uint8Array(0))],
    [
      'float NaN and Inf',
      wav({ bits: 32, format: 3 }, Buffer.from(new Float32Array(44100).map((_, i) => [NaN, Infinity, -Infinity, 0.5][i % 4]!).buffer)),
    ],
    ['format 0x1234', wav({ format: 0x1234 }, noise)],
    ['random bytes', randomBytes(20_000)],
    ['truncated header', wav({}, noise).subarray(0, 30)],
    ['RIFF only', Buffer.from('RIFF')],
    ['empty file', new Uint8Array(0)],
  ];
  for (const route of audioRoutes) {
    for (const [what, bytes] of files) {
      t.attempts++;
      const started = Date.now();
      try {
        const r = await upload(`${base}/audio/v1${route}`, token, bytes, 'sample.wav');
        const seconds = (Date.now() - started) / 1000;
        if (r.status >= 500) t.failures.push(`${route} ${what}: ${r.status} ${r.text.slice(0, 120)}`);
        else if (!r.type.includes('json')) t.failures.push(`${route} ${what}: ${r.status} ${r.type}`);
        else if (seconds > 30) t.failures.push(`${route} ${what}: ${seconds.toFixed(1)} s`);
      } catch (e) {
        t.failures.push(`${route} ${what}: ${String(e)}`);
      }
    }
  }
}

/** Uploaded HTML/SVG/XML served back: it must be an attachment or sandboxed, with nosniff. */
async function probeUploads(base: string, token: string, projectId: number): Promise<void> {
  const t = tally('user content: 0 script-capable answers');
  const script = '<script>document.title="pwned"</script>';
  const files: [string, string][] = [
    ['page.html', `<!doctype html><html><body>${script}</body></html>`],
    ['page.htm', `<html>${script}</html>`],
    ['image.svg', `<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`],
    ['page.xhtml', `<html xmlns="http://www.w3.org/1999/xhtml"><body>${script}</body></html>`],
    ['data.xml', `<?xml version="1.0"?><x:script xmlns:x="http://www.w3.org/1999/xhtml">alert(1)</x:script>`],
    ['sneaky.png', `<html>${script}</html>`],
    ['notes.txt', `<html>${script}</html>`],
    ['noext', `<html>${script}</html>`],
  ];
  for (const [name, body] of files) {
    t.attempts++;
    const u = await upload(`${base}/api/v4/projects/${projectId}/uploads`, token, Buffer.from(body), name);
    if (u.status !== 201) {
      t.failures.push(`${name}: upload answered ${u.status}`);
      continue;
    }
    const fullPath = (u.json() as { full_path: string }).full_path;
    const r = await call(`${base}${fullPath}`, { token, tokenHeader: 'PRIVATE-TOKEN' });
    const attachment = /^attachment/i.test(r.headers.get('content-disposition') ?? '');
    const sandboxed =
      /(^|;)\s*sandbox\b/i.test(r.headers.get('content-security-policy') ?? '') &&
      /default-src 'none'/.test(r.headers.get('content-security-policy') ?? '');
    const nosniff = r.headers.get('x-content-type-options') === 'nosniff';
    const scriptable = /html|svg|xml|javascript/i.test(r.type) && !attachment;
    if (r.status !== 200) t.failures.push(`${name}: served ${r.status}`);
    else if (!nosniff || !sandboxed || scriptable)
      t.failures.push(
        `${name}: ${r.type}, disposition ${r.headers.get('content-disposition')}, csp ${r.headers.get('content-security-policy')}, nosniff ${String(nosniff)}`,
      );
  }
}

/** Playlists naming a file outside the data dir: analysis must refuse them and never read the file. */
async function probeLocalFiles(base: string, token: string, secretPath: string, mediaBase: string): Promise<void> {
  const t = tally('local files: 0 read through playlists');
  const playlists: [string, string][] = [
    ['list.m3u8', `#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\nfile://${secretPath}\n#EXT-X-ENDLIST\n`],
    ['list2.m3u8', `#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\n${secretPath}\n#EXT-X-ENDLIST\n`],
    ['list.m3u', `${secretPath}\n`],
    ['list.ffconcat', `ffconcat version 1.0\nfile '${secretPath}'\n`],
    ['list.txt', `file '${secretPath}'\n`],
    ['list.pls', `[playlist]\nFile1=${secretPath}\nNumberOfEntries=1\n`],
  ];
  for (const [name, body] of playlists) {
    for (const route of ['/loudness', '/analyze/samples']) {
      t.attempts++;
      const r = await upload(`${base}/audio/v1${route}`, token, Buffer.from(body), name);
      // A playlist is text, not audio: any 2xx decoded what it names.
      if (r.status < 300) t.failures.push(`${route} ${name}: ${r.status} read the file it names`);
      else if (r.status >= 500) t.failures.push(`${route} ${name}: ${r.status}`);
    }
    if (mediaBase) {
      t.attempts++;
      const job = await call(`${base}/audio/v1/sources`, {
        method: 'POST',
        token,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${mediaBase}/${name}` }),
      });
      if (job.status !== 202) {
        if (job.status >= 500) t.failures.push(`source ${name}: ${job.status}`);
        continue;
      }
      const id = (job.json() as { job_id: string }).job_id;
      let status = 'pending';
      let text = '';
      for (let i = 0; i < 120 && (status === 'pending' || status === 'running'); i++) {
        await new Promise((r) => setTimeout(r, 250));
        const s = await call(`${base}/audio/v1/jobs/${id}`, { token });
        status = (s.json() as { status: string }).status;
        text = s.text;
      }
      if (status !== 'error') t.failures.push(`source ${name}: ended ${status} ${text.slice(0, 160)}`);
    }
  }
}

/** Which requests each scope may make; every other (scope, request) pair must be refused. */
async function probeScopes(base: string, admin: string, userId: number, adminId: number): Promise<void> {
  const t = tally('scopes: 0 escapes');
  const scopes = ['api', 'read_api', 'read_user', 'read_repository', 'write_repository'];
  const mint = async (uid: number, scope: string): Promise<string> => {
    const r = await call(`${base}/api/v4/users/${uid}/personal_access_tokens`, {
      method: 'POST',
      token: admin,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: `p-${scope}`, scopes: [scope] }),
    });
    return (r.json() as { token: string }).token;
  };
  const json = { 'content-type': 'application/json' };
  for (const scope of scopes) {
    const token = await mint(userId, scope);
    const adminScoped = await mint(adminId, scope);
    const writes: [string, () => Promise<Answer>][] = [
      [
        'create project',
        () =>
          call(`${base}/api/v4/projects`, {
            method: 'POST',
            token,
            headers: json,
            body: JSON.stringify({ name: `scope-${scope}-${randomBytes(3).toString('hex')}` }),
          }),
      ],
      [
        'create group',
        () =>
          call(`${base}/api/v4/groups`, {
            method: 'POST',
            token,
            headers: json,
            body: JSON.stringify({ name: `g${randomBytes(3).toString('hex')}`, path: `g${randomBytes(3).toString('hex')}` }),
          }),
      ],
      [
        'start a source job',
        () =>
          call(`${base}/audio/v1/sources`, {
            method: 'POST',
            token,
            headers: json,
            body: JSON.stringify({ url: 'https://example.invalid/a.wav' }),
          }),
      ],
      [
        'admin mints a token',
        () =>
          call(`${base}/api/v4/users/${userId}/personal_access_tokens`, {
            method: 'POST',
            token: adminScoped,
            headers: json,
            body: JSON.stringify({ name: 'escalate', scopes: ['api'] }),
          }),
      ],
      [
        'admin creates a user',
        () =>
          call(`${base}/api/v4/users`, {
            method: 'POST',
            token: adminScoped,
            headers: json,
            body: JSON.stringify({
              username: `u${randomBytes(3).toString('hex')}`,
              email: `${randomBytes(3).toString('hex')}@x.test`,
              name: 'x',
              password: 'abcdefgh12',
            }),
          }),
      ],
    ];
    const reads: [string, () => Promise<Answer>][] = [
      ['list projects', () => call(`${base}/api/v4/projects`, { token })],
      ['audio me', () => call(`${base}/audio/v1/me`, { token })],
      ['analyse audio', () => upload(`${base}/audio/v1/loudness`, token, sineWav(1, 440), 'sample.wav')],
    ];
    for (const [what, send] of writes) {
      t.attempts++;
      const r = await send();
      const allowed = scope === 'api';
      if (!allowed && r.status < 400) t.failures.push(`${scope} could ${what} (${r.status})`);
      if (!allowed && r.status !== 403) t.failures.push(`${scope} ${what}: ${r.status}, expected 403`);
    }
    for (const [what, send] of reads) {
      t.attempts++;
      const r = await send();
      const allowed = scope === 'api' || scope === 'read_api';
      if (!allowed && r.status < 400) t.failures.push(`${scope} could ${what} (${r.status})`);
      if (allowed && r.status >= 400) t.failures.push(`${scope} refused ${what} (${r.status})`);
    }
    t.attempts++;
    const user = await call(`${base}/api/v4/user`, { token });
    const userAllowed = scope === 'api' || scope === 'read_api' || scope === 'read_user';
    if (userAllowed !== (user.status === 200)) t.failures.push(`${scope} GET /user: ${user.status}`);
  }
}

/** SIGKILL during project creates; afterwards every attempted name is owned or can be created. */
async function probeOrphans(rounds: number): Promise<void> {
  const t = tally(`orphans: 0 names blocked after ${rounds} SIGKILL rounds`);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'probe-kill-'));
  const names: string[] = [];
  for (let round = 0; round < rounds; round++) {
    const s = await startServer(dataDir);
    const batch = Array.from({ length: 40 }, (_, i) => `kill-${round}-${i}`);
    names.push(...batch);
    const pending = batch.map((name) =>
      call(`${s.url}/api/v4/projects`, {
        method: 'POST',
        token: adminToken,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name }),
      }).catch(() => undefined),
    );
    await new Promise((r) => setTimeout(r, 60 + round * 40));
    await stop(s, 'SIGKILL');
    await Promise.allSettled(pending);
  }
  const s = await startServer(dataDir);
  for (const name of names) {
    t.attempts++;
    const owned = await call(`${s.url}/api/v4/projects/root%2F${name}`, { token: adminToken });
    if (owned.status === 200) continue;
    const created = await call(`${s.url}/api/v4/projects`, {
      method: 'POST',
      token: adminToken,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name }),
    });
    if (created.status !== 201) t.failures.push(`${name}: no project, create answers ${created.status} ${created.text.slice(0, 100)}`);
  }
  await stop(s);
}

/** Send raw bytes and read the status line and headers (clients normalise what this sends). */
function rawRequest(port: number, request: string): Promise<{ status: number; head: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.setTimeout(10_000, () => socket.destroy(new Error('timeout')));
    socket.on('data', (d) => (data += d.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = data.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), head, body });
    });
    socket.end(request);
  });
}

async function probeSmallItems(base: string, tokenA: string, tokenB: string, projectId: number): Promise<void> {
  const port = Number(new URL(base).port);
  const json = { 'content-type': 'application/json' };

  const nested = tally('nested JSON and bad queries: 0 × 5xx, 0 HTML');
  const deep = '['.repeat(100_000) + ']'.repeat(100_000);
  const hostile: [string, () => Promise<Answer>][] = [
    ['audio sources nested', () => call(`${base}/audio/v1/sources`, { method: 'POST', token: tokenA, headers: json, body: deep })],
    ['hosting projects nested', () => call(`${base}/api/v4/projects`, { method: 'POST', token: tokenA, headers: json, body: deep })],
    ['hosting invalid JSON', () => call(`${base}/api/v4/projects`, { method: 'POST', token: tokenA, headers: json, body: '{"name":' })],
    ['audio bad percent-encoding', () => call(`${base}/audio/v1/jobs/%E0%A4%A`, { token: tokenA })],
    ['hosting bad percent-encoding', () => call(`${base}/api/v4/projects/%E0%A4%A`, { token: tokenA })],
    ['hosting deep query', () => call(`${base}/api/v4/projects?${'a' + '[]'.repeat(1000)}=1`, { token: tokenA })],
    ['audio deep query', () => call(`${base}/audio/v1/me?${'a' + '[b]'.repeat(1000)}=1`, { token: tokenA })],
  ];
  for (const [what, send] of hostile) {
    nested.attempts++;
    const r = await send();
    if (r.status >= 500 || !r.type.includes('json') || /at \S+ \(|\/work\/|node_modules/.test(r.text))
      nested.failures.push(`${what}: ${r.status} ${r.type} ${r.text.slice(0, 80)}`);
  }

  const host = tally('bad Host: 400, never 5xx');
  for (const h of ['', 'a b', 'evil.test/x', '[::1', 'user@host', 'x'.repeat(300)]) {
    for (const p of ['/api/v4/projects', `/api/v4/projects/${projectId}`, '/audio/v1/me']) {
      host.attempts++;
      const r = await rawRequest(
        port,
        `GET ${p} HTTP/1.1\r\nHost: ${h}\r\nPRIVATE-TOKEN: ${tokenA}\r\nAuthorization: Bearer ${tokenA}\r\nConnection: close\r\n\r\n`,
      );
      if (r.status !== 400) host.failures.push(`Host ${JSON.stringify(h.slice(0, 20))} ${p}: ${r.status}`);
    }
  }

  const ssrf = tally('SSRF: 0 private targets accepted');
  const targets = [
    'http://[::127.0.0.1]/',
    'http://[::7f00:1]/',
    'http://[::a9fe:a9fe]/',
    'http://[::ffff:0:7f00:1]/',
    'http://[64:ff9b::7f00:1]/',
    'http://[64:ff9b:1::a00:1]/',
    'http://[2002:7f00:1::]/',
    'http://[fec0::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://2130706433/',
    'http://0x7f.1/',
    'http://017700000001/',
    'http://[::1]/',
    'http://169.254.169.254/',
  ];
  for (const url of targets) {
    ssrf.attempts++;
    const r = await call(`${base}/audio/v1/sources`, { method: 'POST', token: tokenA, headers: json, body: JSON.stringify({ url }) });
    if (r.status === 202) {
      const id = (r.json() as { job_id: string }).job_id;
      let s: { status: string; error?: unknown } = { status: 'pending' };
      for (let i = 0; i < 40 && (s.status === 'pending' || s.status === 'running'); i++) {
        await new Promise((res) => setTimeout(res, 250));
        s = (await call(`${base}/audio/v1/jobs/${id}`, { token: tokenA })).json() as typeof s;
      }
      if (s.status !== 'error' || !/private|not allowed|blocked|refus/i.test(JSON.stringify(s.error)))
        ssrf.failures.push(`${url}: job ${s.status} ${JSON.stringify(s.error)}`);
    } else if (r.status >= 500) ssrf.failures.push(`${url}: ${r.status}`);
    for (const hookUrl of [url]) {
      ssrf.attempts++;
      const h = await call(`${base}/api/v4/projects/${projectId}/hooks`, {
        method: 'POST',
        token: tokenA,
        headers: json,
        body: JSON.stringify({ url: hookUrl }),
      });
      if (h.status !== 422) ssrf.failures.push(`hook ${hookUrl}: ${h.status}`);
    }
  }

  const cache = tally('X-Cache: no cross-tenant hit');
  const bytes = sineWav(2, 523.25 + Math.random());
  await upload(`${base}/audio/v1/loudness`, tokenA, bytes, 'sample.wav');
  cache.attempts++;
  const b = await upload(`${base}/audio/v1/loudness`, tokenB, bytes, 'sample.wav');
  if (b.headers.get('x-cache') === 'hit') cache.failures.push('tenant B saw a hit on its first upload');

  const big = tally('oversized upload: 413 before reading');
  big.attempts++;
  const started = Date.now();
  const r = await rawRequest(
    port,
    `POST /audio/v1/loudness HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${tokenA}\r\nContent-Type: multipart/form-data; boundary=x\r\nContent-Length: ${2 ** 40}\r\n\r\n--x\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n\r\n${'a'.repeat(4096)}`,
  ).catch((e: unknown) => ({ status: 0, head: String(e), body: '' }));
  if (r.status !== 413 || Date.now() - started > 5000) big.failures.push(`answered ${r.status} after ${Date.now() - started} ms`);

  const auth = tally('failed auth: throttled with 429 and Retry-After');
  let limited: Answer | undefined;
  for (let i = 0; i < 60 && !limited; i++) {
    auth.attempts++;
    const a = await call(`${base}/api/v4/user`, { token: `wrong-${i}`, tokenHeader: 'PRIVATE-TOKEN' });
    if (a.status === 429) limited = a;
  }
  if (!limited) auth.failures.push('60 bad tokens, no 429');
  else if (!limited.headers.get('retry-after')) auth.failures.push('429 without Retry-After');
}

async function main(): Promise<void> {
  const scratch = mkdtempSync(path.join(tmpdir(), 'probe-'));
  const secretWav = path.join(scratch, 'secret.wav');
  writeFileSync(secretWav, sineWav(7.77, 1000));
  // HLS takes a segment only when its content matches an allowed extension: an MP3 secret is read.
  const secretPath = path.join(scratch, 'secret.mp3');
  execFileSync(process.env.CRATEHOUSE_FFMPEG ?? 'ffmpeg', ['-v', 'error', '-y', '-i', secretWav, secretPath]);

  // A loopback media server that serves the playlists to source jobs (their server allows private fetches).
  const media: Server = createServer((req, res) => {
    const name = (req.url ?? '').slice(1);
    const body: Record<string, string> = {
      'list.m3u8': `#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\nfile://${secretPath}\n#EXT-X-ENDLIST\n`,
      'list2.m3u8': `#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\n${secretPath}\n#EXT-X-ENDLIST\n`,
      'list.m3u': `${secretPath}\n`,
      'list.ffconcat': `ffconcat version 1.0\nfile '${secretPath}'\n`,
      'list.txt': `file '${secretPath}'\n`,
      'list.pls': `[playlist]\nFile1=${secretPath}\nNumberOfEntries=1\n`,
    };
    const type = name.endsWith('.m3u8') ? 'application/vnd.apple.mpegurl' : 'audio/x-mpegurl';
    res.writeHead(body[name] ? 200 : 404, { 'content-type': type }).end(body[name] ?? '');
  });
  await new Promise<void>((r) => media.listen(0, '127.0.0.1', r));
  const mediaBase = `http://127.0.0.1:${(media.address() as { port: number }).port}`;

  const main = await startServer(mkdtempSync(path.join(tmpdir(), 'probe-data-')));
  const permissive = await startServer(mkdtempSync(path.join(tmpdir(), 'probe-data-')), { CRATEHOUSE_FETCH_ALLOW_PRIVATE: 'true' });
  try {
    const json = { 'content-type': 'application/json' };
    const makeUser = async (base: string, username: string): Promise<{ id: number; token: string }> => {
      const u = await call(`${base}/api/v4/users`, {
        method: 'POST',
        token: adminToken,
        headers: json,
        body: JSON.stringify({ username, email: `${username}@probe.test`, name: username, password: 'probe-password-1' }),
      });
      const id = (u.json() as { id: number }).id;
      const tok = await call(`${base}/api/v4/users/${id}/personal_access_tokens`, {
        method: 'POST',
        token: adminToken,
        headers: json,
        body: JSON.stringify({ name: 'probe', scopes: ['api'] }),
      });
      return { id, token: (tok.json() as { token: string }).token };
    };
    const alice = await makeUser(main.url, 'alice');
    const bob = await makeUser(main.url, 'bob');
    const carol = await makeUser(permissive.url, 'carol');
    const adminId = ((await call(`${main.url}/api/v4/user`, { token: adminToken })).json() as { id: number }).id;
    const project = (
      await call(`${main.url}/api/v4/projects`, {
        method: 'POST',
        token: alice.token,
        headers: json,
        body: JSON.stringify({ name: 'probe' }),
      })
    ).json() as { id: number };

    if (wanted('scopes')) await probeScopes(main.url, adminToken, alice.id, adminId);
    reportNew();
    if (wanted('uploads')) await probeUploads(main.url, alice.token, project.id);
    reportNew();
    if (wanted('local-files')) {
      await probeLocalFiles(main.url, alice.token, secretPath, '');
      await probeLocalFiles(permissive.url, carol.token, secretPath, mediaBase);
    }
    reportNew();
    if (wanted('bad-audio')) await probeBadAudio(main.url, alice.token);
    reportNew();
    // Last on this server: it ends with failed-auth throttling of this address.
    if (wanted('small')) await probeSmallItems(main.url, alice.token, bob.token, project.id);
    reportNew();
  } finally {
    await stop(main);
    await stop(permissive);
    media.close();
  }
  if (wanted('orphans')) await probeOrphans(Number(process.env.PROBE_KILL_ROUNDS ?? 6));
  reportNew();

  const failed = tallies.reduce((n, t) => n + t.failures.length, 0);
  process.stdout.write(`${tallies.reduce((n, t) => n + t.attempts, 0)} probes, ${failed} failures\n`);
  process.exit(failed === 0 ? 0 : 1);
}

await main();
