#!/usr/bin/env node
// Fetch the binaries that npm install scripts would have downloaded (they are off: see .npmrc and
// docs/install.md). Usage: node scripts/fetch-binaries.mjs [electron] [ffmpeg]  (default: both)
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const wanted = process.argv.slice(2);
const targets = wanted.length > 0 ? wanted : ['electron', 'ffmpeg'];
const packages = { electron: 'electron', ffmpeg: 'ffmpeg-static' };
let failed = false;

for (const target of targets) {
  const pkg = packages[target];
  if (!pkg) {
    console.error(`unknown binary ${target}; choose electron or ffmpeg`);
    process.exit(2);
  }
  let installer;
  try {
    installer = require.resolve(`${pkg}/install.js`);
  } catch {
    console.error(`${pkg} is not installed (it is optional); run npm install first`);
    failed = true;
    continue;
  }
  console.log(`fetching the ${target} binary (${pkg})…`);
  const run = spawnSync(process.execPath, [installer], {
    stdio: ['ignore', 'inherit', 'pipe'],
    encoding: 'utf8',
    cwd: installer.replace(/install\.js$/, ''),
  });
  if (run.status === 0) {
    console.log(`${target}: ready`);
    continue;
  }
  failed = true;
  const reason =
    (run.stderr ?? '').split('\n').find((l) => /ENOTFOUND|ECONNREFUSED|EAI_AGAIN|getaddrinfo|403|404|certificate/i.test(l)) ??
    (run.stderr ?? '').trim().split('\n')[0];
  console.error(`${target}: could not be downloaded here (${reason || `installer exited ${run.status}`}).`);
  console.error(
    target === 'electron'
      ? '  The desktop app needs the Electron binary from Electron’s release host. The headless server (npm start) works without it.'
      : '  Cratehouse falls back to ffmpeg on PATH (or CRATEHOUSE_FFMPEG); install your system’s ffmpeg package.',
  );
}
if (targets.includes('ffmpeg') && !failed) {
  const path = require('ffmpeg-static');
  if (!path || !existsSync(path)) failed = true;
}
process.exit(failed ? 1 : 0);
