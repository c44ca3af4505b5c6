import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { choosePort, isPortFree } from './port-choice.js';

describe('choosePort', () => {
  it('keeps the previous port when it is free, else lets the OS choose (0)', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const taken = (blocker.address() as AddressInfo).port;
    try {
      expect(await isPortFree('127.0.0.1', taken)).toBe(false);
      expect(await choosePort('127.0.0.1', taken)).toBe(0);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
    expect(await isPortFree('127.0.0.1', taken)).toBe(true);
    expect(await choosePort('127.0.0.1', taken)).toBe(taken);
  });

  it('ignores no previous port and privileged or invalid ones', async () => {
    expect(await choosePort('127.0.0.1', null)).toBe(0);
    expect(await choosePort('127.0.0.1', 80)).toBe(0);
    expect(await choosePort('127.0.0.1', 70_000)).toBe(0);
  });
});
