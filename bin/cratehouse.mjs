#!/usr/bin/env node
// `npx cratehouse …`: run the CLI from source through tsx in a checkout (always current), or from
// the compiled dist/ where tsx is not installed (a packaged install).
import { existsSync } from 'node:fs';

const source = new URL('../server/cli.ts', import.meta.url);
const built = new URL('../dist/server/cli.js', import.meta.url);
let tsx = null;
try {
  tsx = await import('tsx/esm/api');
} catch {
  tsx = null;
}
if (tsx && existsSync(source)) {
  tsx.register();
  await import(source.href);
} else if (existsSync(built)) {
  await import(built.href);
} else {
  process.stderr.write('cratehouse: run `npm run build` first\n');
  process.exit(1);
}
