import { afterEach, describe, expect, it, vi } from 'vitest';
import { startIdleRelease } from './idle-release.js';

describe('startIdleRelease', () => {
  afterEach(() => vi.useRealTimers());

  it('releases once after idleMs without activity, and not again until there is more', async () => {
    vi.useFakeTimers();
    let now = 0;
    let released = 0;
    const idle = startIdleRelease(
      30_000,
      () => {
        released++;
      },
      () => now,
    );
    const advance = async (ms: number) => {
      now += ms;
      await vi.advanceTimersByTimeAsync(ms);
    };
    await advance(60_000);
    expect(released).toBe(0); // no activity since start: nothing grew
    idle.noteActivity();
    await advance(20_000);
    expect(released).toBe(0); // busy 20 s ago: not idle long enough
    idle.noteActivity();
    await advance(25_000);
    expect(released).toBe(0); // the second request restarted the wait
    await advance(10_000);
    expect(released).toBe(1); // 35 s idle: released (checks run every 10 s)
    await advance(120_000);
    expect(released).toBe(1); // still idle: once is enough
    idle.noteActivity();
    await advance(40_000);
    expect(released).toBe(2);
    idle.stop();
    idle.noteActivity();
    await advance(120_000);
    expect(released).toBe(2); // stopped
  });

  it('survives a release that throws, and runs the next one', async () => {
    vi.useFakeTimers();
    let now = 0;
    let calls = 0;
    const idle = startIdleRelease(
      300,
      () => {
        calls++;
        throw new Error('boom');
      },
      () => now,
    );
    for (let round = 0; round < 2; round++) {
      idle.noteActivity();
      now += 400;
      await vi.advanceTimersByTimeAsync(400);
    }
    expect(calls).toBe(2);
    idle.stop();
  });
});
