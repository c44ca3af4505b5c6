import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Debian's nginx-light (CI installs it); null on a machine without nginx. */
export const nginxBinary: string | null =
  ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => existsSync(p)) ??
  (spawnSync('sh', ['-c', 'command -v nginx']).stdout.toString().trim() || null);

/** An nginx running one of the shipped site configs in the foreground. */
export interface TestNginx {
  readonly process: ChildProcess;
  /** Where it listens: http://127.0.0.1:<port>. */
  readonly url: string;
  /** The access log, when a `logFormat` was given. */
  readonly accessLog: string | null;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/**
 * Run `site` (a shipped server block, its `listen 80;` moved to a free loopback port) inside a
 * minimal nginx.conf of its own, and resolve once it answers /audio/v1/healthz. With `logFormat`
 * (an nginx log_format), requests are logged in it to `accessLog`; without, not at all.
 */
export async function startNginx(site: string, options: { readonly logFormat?: string } = {}): Promise<TestNginx> {
  if (!nginxBinary) throw new Error('nginx is not installed (apt-get install nginx-light)');
  if (!site.includes('listen 80;')) throw new Error('the site config has no `listen 80;` to move');
  const dir = await mkdtemp(path.join(tmpdir(), 'cratehouse-nginx-'));
  const port = await freePort();
  const accessLog = options.logFormat ? path.join(dir, 'access.log') : null;
  const logging = options.logFormat ? `log_format test '${options.logFormat}';\n  access_log ${accessLog} test;` : 'access_log off;';
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `${t}_temp_path ${dir}/${t};`).join('\n  ');
  await writeFile(
    path.join(dir, 'nginx.conf'),
    `${process.getuid?.() === 0 ? 'user root;' : ''}
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 64; }
http {
  ${logging}
  ${temp}
  ${site.replace('listen 80;', `listen 127.0.0.1:${port};`)}
}
`,
  );
  const nginx = spawn(nginxBinary, ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-g', 'daemon off;'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  nginx.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      await fetch(`${url}/audio/v1/healthz`);
      return { process: nginx, url, accessLog };
    } catch {
      if (i > 100 || nginx.exitCode !== null) throw new Error(`nginx did not start: ${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
