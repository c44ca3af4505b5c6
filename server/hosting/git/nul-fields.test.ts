import { describe, expect, it } from 'vitest';
import { readNulFields } from './nul-fields.js';

describe('readNulFields', () => {
  it('reads NUL-ended fields, keeping every other byte (newlines, 0x1e, tabs) inside them', () => {
    const fields = readNulFields('\x1eabc\0line 1\nline 2\x1e\t\0last', false);
    expect(fields.peek()).toBe('\x1e');
    fields.skip();
    expect([fields.next(), fields.next()]).toEqual(['abc', 'line 1\nline 2\x1e\t']);
    expect(fields.done).toBe(false);
    expect(fields.next()).toBe('last');
    expect(fields.done).toBe(true);
  });

  it('seeks record markers and, when strict, refuses a last field that no NUL ends', () => {
    const fields = readNulFields('noise\n\x1eone\0two', true);
    expect(fields.seek('\x1e')).toBe(true);
    fields.skip();
    expect(fields.next()).toBe('one');
    expect(() => fields.next()).toThrow(/incomplete commit record/);
    expect(readNulFields('x', true).seek('\x1e')).toBe(false);
  });
});
