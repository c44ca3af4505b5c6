/**
 * `tsx scripts/check-doc-paths.ts [docs…]`: list the repository paths a Markdown page names that do not
 * exist, so the code map in docs/ cannot quietly go stale. A path is a backticked span or a first word of
 * a fenced line that looks like a file (`dir/name.ts`, `name.ts`) or a folder (`dir/`). It exists when
 * some file or folder of the repository is that path or ends with `/` + that path, because the docs
 * name files relative to the folder they describe (`store/store.ts` is server/store/store.ts).
 * Also lists the folders docs/architecture.md leaves off its map. Exits 1 when a path is missing or a
 * folder unmapped. Default pages: the ones that map the code.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The pages that describe the code's layout, checked by default and by check-doc-paths.test.ts. */
export const mapPages = ['docs/architecture.md', 'docs/contributing.md', 'docs/performance.md'] as const;

/** Folders that are not the project's own source (installed, built, generated at run time). */
const skippedDirs = new Set(['node_modules', '.git', 'dist', 'data', 'test-results', 'playwright-report', 'release']);

/**
 * Names the docs use for the data dir's layout and the files a running server writes, which are not
 * in the repository (docs/architecture.md, "Data dir and the lock").
 */
const runtimeNames = new Set([
  'cache/',
  'artifacts/',
  'repositories/',
  'uploads/',
  'exports/',
  'tmp/',
  'lost+found/',
  'db.json',
  'server.lock',
  'config.json',
  'local-api.json',
  'admin-credentials.json',
  'analysis-worker.js',
]);

const fileLike = /^[\w.@+-]+(?:\/[\w.@+-]+)*(?:\.(?:ts|tsx|mjs|cjs|js|json|md|yml|yaml|conf|service|css|html)|\/)$/;

/** Every path in `markdown` that names a file or folder of the repository (see the header). */
export function findNamedPaths(markdown: string): string[] {
  const named = new Set<string>();
  const consider = (raw: string) => {
    const token = raw.trim().replace(/^\.\//, '');
    if (token.startsWith('../') || token.includes('://') || !fileLike.test(token)) return;
    named.add(token);
  };
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.trimStart().startsWith('```')) {
      fenced = !fenced;
      continue;
    }
    if (fenced) {
      const first = /^\s*([^\s]+)/.exec(line)?.[1];
      if (first !== undefined) consider(first);
      continue;
    }
    for (const match of line.matchAll(/`([^`]+)`/g)) consider(match[1] ?? '');
    for (const match of line.matchAll(/\]\(([^)#\s]+)[^)]*\)/g)) consider(match[1] ?? '');
  }
  return [...named];
}

/** Every file and folder under `dir` (relative, folders with a trailing `/`), skipping skippedDirs. */
export async function listRepository(dir = root): Promise<string[]> {
  const out: string[] = [];
  const walk = async (relative: string): Promise<void> => {
    for (const entry of await readdir(path.join(dir, relative), { withFileTypes: true })) {
      if (skippedDirs.has(entry.name)) continue;
      const child = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) {
        out.push(`${child}/`);
        await walk(child);
      } else out.push(child);
    }
  };
  await walk('');
  return out;
}

/** The named paths that match no entry of `entries` (the page's own folder counts for relative links). */
export function findMissingPaths(markdown: string, entries: readonly string[], pageDir = 'docs'): string[] {
  const known = new Set(entries);
  const exists = (token: string) =>
    known.has(token) || known.has(`${pageDir}/${token}`) || entries.some((entry) => entry.endsWith(`/${token}`));
  const runtime = (token: string) => runtimeNames.has(token) || token.startsWith('lost+found/');
  return findNamedPaths(markdown).filter((token) => !runtime(token) && !exists(token));
}

/**
 * The folders a code map must name that `markdown` does not: every top-level source folder and every
 * folder under server/ and renderer/src/ (named as a backticked or fenced `name/` or `path/to/name/`).
 */
export function findUnmappedFolders(markdown: string, entries: readonly string[]): string[] {
  const named = findNamedPaths(markdown).filter((token) => token.endsWith('/'));
  const mapped = (folder: string) => named.some((token) => folder === token || folder.endsWith(`/${token}`));
  const mustMap = (entry: string) =>
    entry.endsWith('/') && !entry.startsWith('.') && (!entry.slice(0, -1).includes('/') || /^(server|renderer\/src)\/./.test(entry));
  return entries.filter((entry) => mustMap(entry) && !mapped(entry));
}

async function main(): Promise<void> {
  const pages = process.argv.slice(2);
  const entries = await listRepository();
  let missing = 0;
  for (const page of pages.length > 0 ? pages : mapPages) {
    const markdown = await readFile(path.join(root, page), 'utf8');
    for (const token of findMissingPaths(markdown, entries, path.dirname(page))) {
      console.log(`${page}: ${token} does not exist`);
      missing++;
    }
  }
  const map = await readFile(path.join(root, mapPages[0]), 'utf8');
  for (const folder of findUnmappedFolders(map, entries)) {
    console.log(`${mapPages[0]}: the folder ${folder} is not on the map`);
    missing++;
  }
  if (missing > 0) process.exitCode = 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
