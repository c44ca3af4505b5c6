import { describe, expect, it } from 'vitest';
import { createLimiter } from './limiter';

/** A task that finishes when told to, recording when it started. */
function deferred(log: string[], name: string) {
  let finish: (value: string) => void = () => {};
  let fail: (error: Error) => void = () => {};
  const task = () => {
    log.push(`start ${name}`);
    return new Promise<string>((resolve, reject) => {
      finish = resolve;
      fail = reject;
    });
  };
  return { task, finish: (v = name) => finish(v), fail: (e: Error) => fail(e) };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('createLimiter', () => {
  it('runs at most two at a time, in order', async () => {
    const log: string[] = [];
    const limiter = createLimiter(2);
    const [a, b, c] = [deferred(log, 'a'), deferred(log, 'b'), deferred(log, 'c')];
    const results = [limiter.run(a.task), limiter.run(b.task), limiter.run(c.task)];
    await tick();
    expect(log).toEqual(['start a', 'start b']);
    expect(limiter.active).toBe(2);
    expect(limiter.waiting).toBe(1);
    b.finish();
    await tick();
    expect(log).toEqual(['start a', 'start b', 'start c']);
    a.finish();
    c.finish();
    expect(await Promise.all(results)).toEqual(['a', 'b', 'c']);
    expect(limiter.active).toBe(0);
  });

  it('frees the slot when a task fails', async () => {
    const log: string[] = [];
    const limiter = createLimiter(1);
    const [a, b] = [deferred(log, 'a'), deferred(log, 'b')];
    const first = limiter.run(a.task);
    const second = limiter.run(b.task);
    a.fail(new Error('415'));
    await expect(first).rejects.toThrow('415');
    await tick();
    expect(log).toEqual(['start a', 'start b']);
    b.finish();
    await expect(second).resolves.toBe('b');
  });

  it('drops a queued task whose signal aborts, without starting it', async () => {
    const log: string[] = [];
    const limiter = createLimiter(1);
    const [a, b, c] = [deferred(log, 'a'), deferred(log, 'b'), deferred(log, 'c')];
    const controller = new AbortController();
    void limiter.run(a.task);
    const dropped = limiter.run(b.task, controller.signal);
    const kept = limiter.run(c.task);
    controller.abort(new DOMException('new file', 'AbortError'));
    await expect(dropped).rejects.toThrow('new file');
    expect(limiter.waiting).toBe(1);
    a.finish();
    await tick();
    expect(log).toEqual(['start a', 'start c']);
    c.finish();
    await expect(kept).resolves.toBe('c');
  });

  it('rejects at once when the signal already fired', async () => {
    const limiter = createLimiter(2);
    const controller = new AbortController();
    controller.abort();
    await expect(limiter.run(() => Promise.resolve(1), controller.signal)).rejects.toMatchObject({ name: 'AbortError' });
  });
});
