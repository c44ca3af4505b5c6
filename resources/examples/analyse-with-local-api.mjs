#!/usr/bin/env node
// A plugin-side example: analyse an audio file through the Cratehouse desktop app's local API.
//
//   node analyse-with-local-api.mjs loop.wav                 # finds local-api.json in the app's data folder
//   node analyse-with-local-api.mjs --data-dir DIR loop.wav  # or in another data folder
//   CRATEHOUSE_LOCAL_API=/path/to/local-api.json node analyse-with-local-api.mjs loop.wav
//
// It reads local-api.json (url, token, pid, version), sends the file to POST /audio/v1/analyze with
// the token, and prints the role, tempo, key and emotion as JSON. Node 20+, no dependencies.
import { openAsBlob } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** Where the desktop app keeps its data folder on each platform (Electron's userData + /data). */
function defaultDataDir() {
  const home = os.homedir();
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'Cratehouse', 'data');
  if (process.platform === 'win32') return path.join(process.env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'Cratehouse', 'data');
  return path.join(process.env.XDG_CONFIG_HOME ?? path.join(home, '.config'), 'Cratehouse', 'data');
}

function parseArgs(argv) {
  let dataDir = null;
  const files = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--data-dir') dataDir = argv[++i];
    else files.push(argv[i]);
  }
  if (files.length !== 1) throw new Error('usage: analyse-with-local-api.mjs [--data-dir DIR] <audio file>');
  return { dataDir, file: files[0] };
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

async function readLocalApi(dataDir) {
  const file = process.env.CRATEHOUSE_LOCAL_API || path.join(dataDir ?? defaultDataDir(), 'local-api.json');
  let info;
  try {
    info = JSON.parse(await readFile(file, 'utf8'));
  } catch {
    throw new Error(`${file} was not found: is the Cratehouse desktop app running?`);
  }
  if (typeof info.url !== 'string' || typeof info.token !== 'string') throw new Error(`${file} is not a Cratehouse local API file`);
  if (typeof info.pid === 'number' && !isAlive(info.pid))
    throw new Error(`${file} is left over from a Cratehouse that is no longer running (pid ${info.pid}); start the app`);
  return info;
}

async function main() {
  const { dataDir, file } = parseArgs(process.argv.slice(2));
  const api = await readLocalApi(dataDir);
  const form = new FormData();
  form.append('file', await openAsBlob(file), path.basename(file));
  const response = await fetch(`${api.url}/audio/v1/analyze`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${api.token}` },
    body: form,
  });
  const body = await response.json().catch(() => null);
  if (!response.ok) {
    const detail = typeof body?.detail === 'string' ? body.detail : JSON.stringify(body?.detail ?? body);
    throw new Error(`the local API refused the request (${response.status}): ${detail}`);
  }
  const { sample, features, emotion, source } = body;
  const summary = {
    file: path.basename(file),
    duration_s: source.duration_s,
    role: sample.role,
    role_confidence: sample.confidence,
    tempo_bpm: features.rhythm?.tempo_bpm ?? null,
    key: features.chroma.key,
    mode: features.chroma.mode,
    valence: emotion.valence,
    arousal: emotion.arousal,
    emotion: emotion.top[0]?.emotion ?? null,
  };
  process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
}

main().catch((error) => {
  process.stderr.write(`analyse-with-local-api: ${error.message}\n`);
  process.exit(1);
});
