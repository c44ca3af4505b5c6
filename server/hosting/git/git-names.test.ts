import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { isObjectId, isValidBranchName, isZeroId } from './git-names.js';

/** git's own verdict on a branch name. */
function gitAccepts(name: string): Promise<boolean> {
  return new Promise((resolve) => execFile('git', ['check-ref-format', `refs/heads/${name}`], (error) => resolve(error === null)));
}

describe('isValidBranchName', () => {
  const names = [
    'main',
    'feature/loops',
    'v1.0',
    'a-b_c',
    'émotion',
    'UPPER',
    'x@y',
    'a/b/c',
    '',
    'a..b',
    'a b',
    'a~1',
    'a^',
    'a:b',
    'a?',
    'a*',
    'a[',
    'a\\b',
    '/a',
    'a/',
    'a//b',
    'a.',
    '.a',
    'a/.b',
    'a.lock',
    'a/b.lock/c',
    'a@{1}',
    'tab\there',
    'nul\u0001',
    'del\u007f',
  ];
  it.each(names)('%j agrees with git check-ref-format', async (name) => {
    expect(isValidBranchName(name)).toBe(await gitAccepts(name));
  });

  it('refuses names that stand for HEAD in revisions, and names git would read as options', () => {
    expect(isValidBranchName('@')).toBe(false);
    expect(isValidBranchName('HEAD')).toBe(false);
    expect(isValidBranchName('-f')).toBe(false);
    expect(isValidBranchName('--output=x')).toBe(false);
  });
});

describe('object ids', () => {
  it('accepts full SHA-1 and SHA-256 names only', () => {
    expect(isObjectId('a'.repeat(40))).toBe(true);
    expect(isObjectId('a'.repeat(64))).toBe(true);
    expect(isObjectId('a'.repeat(39))).toBe(false);
    expect(isObjectId('A'.repeat(40))).toBe(false);
    expect(isObjectId(`--${'a'.repeat(38)}`)).toBe(false);
    expect(isZeroId('0'.repeat(40))).toBe(true);
    expect(isZeroId('0'.repeat(41))).toBe(false);
  });
});
