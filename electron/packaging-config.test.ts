import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { serverNodeFlags } from '../server/config/node-flags.js';

// electron-builder.yml, checked against the JSON schema that ships inside electron-builder
// (app-builder-lib/scheme.json), so a typo or a renamed option fails here rather than at `npm run dist`.
const require = createRequire(import.meta.url);
const config = parse(readFileSync(new URL('../electron-builder.yml', import.meta.url), 'utf8')) as Record<string, unknown>;
const schema = JSON.parse(readFileSync(require.resolve('app-builder-lib/scheme.json'), 'utf8')) as object;

/** Every package a module needs at run time, following `dependencies` from `roots`. */
function dependencyClosure(roots: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const walk = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    // Read from node_modules directly: not every package exports its package.json.
    const manifest = JSON.parse(readFileSync(new URL(`../node_modules/${name}/package.json`, import.meta.url), 'utf8')) as {
      dependencies?: Record<string, string>;
    };
    for (const dependency of Object.keys(manifest.dependencies ?? {})) walk(dependency);
  };
  roots.forEach(walk);
  return seen;
}

describe('electron-builder.yml', () => {
  it('is valid against electron-builder’s own schema', () => {
    const ajv = new Ajv({ allErrors: true, strict: false });
    const validate = ajv.compile(schema);
    const valid = validate(config);
    expect(validate.errors ?? [], JSON.stringify(validate.errors, null, 2)).toEqual([]);
    expect(valid).toBe(true);
  });

  it('fails validation for an option electron-builder does not know (the check can fail)', () => {
    const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
    expect(validate({ ...config, asarUnpak: ['x'] })).toBe(false);
  });

  it('builds for Linux (AppImage, deb), macOS (dmg) and Windows (nsis), starting the compiled main', () => {
    expect(config).toMatchObject({
      linux: { target: ['AppImage', 'deb'] },
      mac: { target: ['dmg'] },
      win: { target: ['nsis'] },
      extraMetadata: { main: 'dist/electron/main.js' },
    });
    expect(config.files).toEqual(expect.arrayContaining(['dist/**/*', 'package.json']));
  });

  it('ships ffmpeg-static’s binary as resources/ffmpeg, where electron/main.ts looks for it', () => {
    expect(config.extraResources).toEqual([{ from: 'node_modules/ffmpeg-static', to: 'ffmpeg', filter: ['ffmpeg', 'ffmpeg.exe'] }]);
    expect(readFileSync(new URL('./main.ts', import.meta.url), 'utf8')).toContain(
      "path.join(process.resourcesPath, 'ffmpeg', process.platform === 'win32' ? 'ffmpeg.exe' : 'ffmpeg')",
    );
  });

  it('unpacks the worker scripts and every package they load from the asar', () => {
    const unpacked = config.asarUnpack as string[];
    expect(unpacked).toContain('dist/server/**');
    const covered = (name: string) =>
      unpacked.includes(`node_modules/${name}/**`) || (name.startsWith('@') && unpacked.includes(`node_modules/${name.split('/')[0]}/**`));
    const needed = [...dependencyClosure(['piscina', 'audio-decode', 'audio-type'])];
    expect(needed.filter((name) => !covered(name))).toEqual([]);
  });
});

describe('headless deployment files', () => {
  const dockerfile = readFileSync(new URL('../Dockerfile', import.meta.url), 'utf8');
  const unit = readFileSync(new URL('../docs/deploy/cratehouse.service', import.meta.url), 'utf8');

  it('the Dockerfile copies only what exists, runs as a non-root user and checks /audio/v1/healthz', () => {
    const sources = [...dockerfile.matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap((m) => (m[1] ?? '').split(/\s+/));
    for (const source of sources) expect(() => readFileSync(new URL(`../${source}`, import.meta.url)), source).not.toThrow(/ENOENT/);
    // Both stages build on NODE_IMAGE, which defaults to the official Node 20 image.
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:20-bookworm-slim$/m);
    expect([...dockerfile.matchAll(/^FROM (\S+)/gm)].map((m) => m[1])).toEqual(['${NODE_IMAGE}', '${NODE_IMAGE}']);
    expect(dockerfile).toMatch(/apt-get install .*ffmpeg git/);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK [\s\S]*\/audio\/v1\/healthz/m);
    expect(dockerfile).toMatch(/CRATEHOUSE_DATA_DIR=\/data/);
    expect(dockerfile).toContain(`\nCMD ${JSON.stringify(['node', ...serverNodeFlags, 'dist/server/main.js']).replace(/,/g, ', ')}\n`);
  });

  it('the systemd unit starts the headless entry as its own user and lets SIGTERM finish the work', () => {
    expect(unit).toContain(`\nExecStart=/usr/bin/node ${serverNodeFlags.join(' ')} dist/server/main.js\n`);
    expect(unit).toMatch(/^User=cratehouse$/m);
    expect(unit).toMatch(/^KillSignal=SIGTERM$/m);
    expect(unit).toMatch(/^Environment=CRATEHOUSE_DATA_DIR=\/var\/lib\/cratehouse\/data$/m);
  });
});
