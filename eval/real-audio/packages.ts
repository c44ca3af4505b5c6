/**
 * The Debian packages the real-recording sets come from: downloaded with `apt-get download` and unpacked
 * with `dpkg -x` into .cache/real-audio (outside git), plus WAV conversion and WAV slicing helpers.
 * `lmms-common` is held out (docs: ../shared/reference/real-audio.md) and refused here.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Where packages, renders and converted WAV files live (gitignored). */
export const cacheDir = process.env.CRATEHOUSE_REAL_AUDIO_CACHE ?? path.join(repoRoot, '.cache', 'real-audio');

/** The library kept as an independent check of the product: never downloaded, listed or used here. */
export const HELD_OUT_PACKAGE = 'lmms-common';

export interface UnpackedPackage {
  readonly name: string;
  readonly version: string;
  /** Root of the unpacked file tree. */
  readonly dir: string;
}

/** Download (apt-get download) and unpack (dpkg -x) a Debian package into the cache, once. */
export function ensurePackage(name: string): UnpackedPackage {
  if (name === HELD_OUT_PACKAGE) throw new Error(`${name} is held out: it must not be used for development`);
  const debs = path.join(cacheDir, 'debs');
  const dir = path.join(cacheDir, 'pkg', name);
  const stamp = path.join(dir, '.version');
  if (existsSync(stamp)) return { name, version: readFileSync(stamp, 'utf8').trim(), dir };
  mkdirSync(debs, { recursive: true });
  let deb = findDeb(debs, name);
  if (!deb) {
    let r = spawnSync('apt-get', ['download', name], { cwd: debs, stdio: 'inherit' });
    // A fresh machine has no package lists yet.
    if (r.status !== 0) {
      execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
      r = spawnSync('apt-get', ['download', name], { cwd: debs, stdio: 'inherit' });
    }
    if (r.status !== 0) throw new Error(`apt-get download ${name} failed`);
    deb = findDeb(debs, name);
    if (!deb) throw new Error(`apt-get download ${name} left no .deb`);
  }
  mkdirSync(dir, { recursive: true });
  execFileSync('dpkg', ['-x', deb, dir]);
  const version = execFileSync('dpkg-deb', ['-f', deb, 'Version']).toString().trim();
  writeFileSync(stamp, version + '\n');
  return { name, version, dir };
}

function findDeb(dir: string, name: string): string | null {
  const hit = readdirSync(dir).find((f) => f.startsWith(`${name}_`) && f.endsWith('.deb'));
  return hit ? path.join(dir, hit) : null;
}

/** Fail with an install hint when a command is missing. */
export function requireCommand(cmd: string, pkg: string): void {
  if (spawnSync('sh', ['-c', `command -v ${cmd}`]).status !== 0) throw new Error(`${cmd} not found: apt-get install -y ${pkg}`);
}

/** Convert any audio file ffmpeg reads to 16-bit PCM WAV (rate and channels kept), once. */
export function convertToWav(input: string, output: string): void {
  if (existsSync(output)) return;
  mkdirSync(path.dirname(output), { recursive: true });
  execFileSync('ffmpeg', ['-v', 'error', '-nostdin', '-y', '-i', input, '-map', '0:a:0', '-c:a', 'pcm_s16le', output]);
}

/** A file-system-safe name for a set member (its label file key). */
export const safeName = (key: string): string => key.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/\.(flac|wav|aiff?|ogg)$/i, '') + '.wav';

export interface PcmWav {
  readonly sampleRate: number;
  readonly channels: number;
  /** Interleaved 16-bit samples. */
  readonly samples: Int16Array;
}

/** Parse a 16-bit PCM WAV (as fluidsynth writes it). */
export function readWav16(file: string): PcmWav {
  const buf = readFileSync(file);
  let pos = 12;
  let channels = 0;
  let sampleRate = 0;
  while (pos + 8 <= buf.length) {
    const id = buf.toString('ascii', pos, pos + 4);
    const size = buf.readUInt32LE(pos + 4);
    if (id === 'fmt ') {
      channels = buf.readUInt16LE(pos + 10);
      sampleRate = buf.readUInt32LE(pos + 12);
      if (buf.readUInt16LE(pos + 22) !== 16) throw new Error(`${file}: not 16-bit PCM`);
    } else if (id === 'data') {
      const bytes = Math.min(size, buf.length - pos - 8);
      const copy = Buffer.from(buf.subarray(pos + 8, pos + 8 + bytes - (bytes % 2)));
      return { sampleRate, channels, samples: new Int16Array(copy.buffer, copy.byteOffset, copy.length / 2) };
    }
    pos += 8 + size + (size % 2);
  }
  throw new Error(`${file}: no data chunk`);
}

/** Write a 16-bit PCM WAV. */
export function writeWav16(file: string, wav: PcmWav): void {
  const data = Buffer.from(wav.samples.buffer, wav.samples.byteOffset, wav.samples.byteLength);
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(36 + data.length, 4);
  h.write('WAVEfmt ', 8, 'ascii');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(wav.channels, 22);
  h.writeUInt32LE(wav.sampleRate, 24);
  h.writeUInt32LE(wav.sampleRate * wav.channels * 2, 28);
  h.writeUInt16LE(wav.channels * 2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'ascii');
  h.writeUInt32LE(data.length, 40);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, Buffer.concat([h, data]));
}
