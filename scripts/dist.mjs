#!/usr/bin/env node
// `npm run dist`: package the desktop app for this platform with electron-builder, or say clearly
// why it cannot be done here. electron-builder needs the Electron binary for this platform (from
// Electron's release host, or its cache); ffmpeg-static's binary is shipped when it was fetched.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

function electronBinaryProblem() {
  let electronDir;
  try {
    electronDir = path.dirname(require.resolve('electron/package.json'));
  } catch {
    return 'the electron package is not installed (run npm ci)';
  }
  if (!existsSync(path.join(electronDir, 'path.txt')) || !existsSync(path.join(electronDir, 'dist'))) {
    return 'the Electron binary was never downloaded (npm install scripts are off, see docs/install.md): run `npm run fetch-binaries electron`, which needs access to Electron’s release host';
  }
  return null;
}

const problem = electronBinaryProblem();
if (problem) {
  console.error(`npm run dist: cannot package the desktop app here: ${problem}.`);
  console.error('The headless server (npm start) and the Docker image (docs/install.md) do not need Electron.');
  process.exit(1);
}

let ffmpegBinary = null;
try {
  const found = require('ffmpeg-static');
  ffmpegBinary = typeof found === 'string' && existsSync(found) ? found : null;
} catch {
  // optional dependency not installed
}
if (!ffmpegBinary)
  console.warn(
    'npm run dist: ffmpeg-static has no binary (run `npm run fetch-binaries ffmpeg`); the packaged app will use ffmpeg on PATH.',
  );

const { build } = await import('electron-builder');
try {
  const artifacts = await build({ config: 'electron-builder.yml', publish: 'never' });
  console.log(`npm run dist: built\n  ${artifacts.join('\n  ')}`);
} catch (error) {
  console.error(`npm run dist: electron-builder failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
