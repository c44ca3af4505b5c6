import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { findMissingPaths, findUnmappedFolders, listRepository, mapPages } from './check-doc-paths.js';

describe('the code map in docs/', () => {
  it('names only paths that exist', async () => {
    const entries = await listRepository();
    const missing: string[] = [];
    for (const page of mapPages) {
      for (const token of findMissingPaths(await readFile(page, 'utf8'), entries)) missing.push(`${page}: ${token}`);
    }
    expect(missing).toEqual([]);
  });

  it('puts every source folder on the map (docs/architecture.md)', async () => {
    const entries = await listRepository();
    expect(findUnmappedFolders(await readFile(mapPages[0], 'utf8'), entries)).toEqual([]);
  });

  it('finds a stale path in backticks, in a fenced tree and in a link, and accepts one named from its folder', () => {
    const entries = ['server/', 'server/store/', 'server/store/store.ts', 'docs/', 'docs/security.md'];
    const page = [
      '`store/store.ts` and `store/gone.ts`',
      '```',
      'server/',
      '  old-folder/  gone',
      '```',
      '[security](security.md), [x](missing.md)',
    ].join('\n');
    expect(findMissingPaths(page, entries)).toEqual(['store/gone.ts', 'old-folder/', 'missing.md']);
  });

  it('reports a folder no line of the map names', () => {
    const entries = ['server/', 'server/store/', 'server/queue/', 'docs/'];
    expect(findUnmappedFolders('```\nserver/\n  store/\ndocs/\n```', entries)).toEqual(['server/queue/']);
  });
});
