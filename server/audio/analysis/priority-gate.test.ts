import { describe, expect, it } from 'vitest';
import { createPriorityGate } from './worker-pool.js';

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('the analysis priority gate', () => {
  it('holds background tasks while an interactive task runs, then admits them one at a time', async () => {
    const gate = createPriorityGate();
    const order: string[] = [];
    const leaveInteractive = await gate.enter('interactive');
    const background = ['b1', 'b2'].map((name) => gate.enter('background').then((leave) => (order.push(name), leave)));
    await tick();
    expect(order).toEqual([]); // an interactive task runs
    const leaveSecondInteractive = await gate.enter('interactive'); // interactive work is never held
    leaveInteractive();
    leaveSecondInteractive();
    await tick();
    expect(order).toEqual(['b1']); // one background task at a time
    (await background[0]!)();
    await tick();
    expect(order).toEqual(['b1', 'b2']);
    (await background[1]!)();
  });
});
