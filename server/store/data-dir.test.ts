import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireLock, DataDirLockedError, lockFileName, prepareDataDir } from './data-dir.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill();
});

/** A live process that is not this one, to hold a lock in the test's name. */
function otherProcess(): number {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  children.push(child);
  return child.pid!;
}

const freshDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'cratehouse-dd-'));
  prepareDataDir(dir);
  return dir;
};

describe('data dir lock', () => {
  it('lets several shared nodes (metadata in PostgreSQL) hold one data dir', () => {
    const dir = freshDir();
    const pid = otherProcess();
    const lock = { pid, url: 'http://node1', startedAt: '', holder: 'server', host: hostname() };
    writeFileSync(path.join(dir, `node-${hostname()}-${pid}.lock`), JSON.stringify(lock));
    const mine = acquireLock(dir, 'server', 'shared');
    mine.update('http://node2');
    mine.release();
  });

  it('keeps refusing an embedded-store server while a shared node holds the data dir', () => {
    const dir = freshDir();
    const pid = otherProcess();
    writeFileSync(
      path.join(dir, `node-${hostname()}-${pid}.lock`),
      JSON.stringify({ pid, url: null, startedAt: '', holder: 'server', host: hostname() }),
    );
    expect(() => acquireLock(dir, 'server')).toThrow(DataDirLockedError);
    // And it left no lock of its own behind.
    expect(existsSync(path.join(dir, lockFileName))).toBe(false);
  });

  it('refuses a shared node while an embedded-store server holds the data dir, and another embedded one', () => {
    const dir = freshDir();
    const pid = otherProcess();
    writeFileSync(path.join(dir, lockFileName), JSON.stringify({ pid, url: null, startedAt: '', holder: 'server' }));
    expect(() => acquireLock(dir, 'server', 'shared')).toThrow(DataDirLockedError);
    expect(() => acquireLock(dir, 'server')).toThrow(DataDirLockedError);
  });

  it('forgets node locks of dead processes on this machine', () => {
    const dir = freshDir();
    writeFileSync(
      path.join(dir, `node-${hostname()}-999999999.lock`),
      JSON.stringify({ pid: 999_999_999, url: null, startedAt: '', holder: 'server', host: hostname() }),
    );
    acquireLock(dir, 'server').release();
  });
});

describe('data dir preparation', () => {
  it('empties tmp/ for the embedded store, and keeps other nodes’ files in flight when shared (only day-old leftovers go)', () => {
    const dir = freshDir();
    const young = path.join(dir, 'tmp', 'upload-in-flight');
    const old = path.join(dir, 'tmp', 'dead-node-leftover');
    writeFileSync(young, 'x');
    writeFileSync(old, 'x');
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3600 * 1000);
    utimesSync(old, twoDaysAgo, twoDaysAgo);
    prepareDataDir(dir, 'shared');
    expect(existsSync(young)).toBe(true);
    expect(existsSync(old)).toBe(false);
    prepareDataDir(dir);
    expect(existsSync(young)).toBe(false);
  });
});
