import { describe, expect, it } from 'vitest';
import { AppError } from '../http/errors.js';
import { Params } from './params.js';

describe('Params.checked', () => {
  it('returns the reads of required parameters, coerced', () => {
    const p = new Params({ group_id: '12', group_access: 30 });
    p.require('group_id', 'group_access');
    const [groupId, groupAccess] = p.checked(p.int('group_id'), p.int('group_access'));
    expect([groupId, groupAccess]).toEqual([12, 30]);
  });

  it('throws the collected problems as one 400, in Grape order, before looking at the values', () => {
    const p = new Params({ group_access: 'x' });
    p.require('group_id', 'group_access');
    const reads = [p.int('group_id'), p.int('group_access')] as const;
    const error = (() => {
      try {
        p.checked(...reads);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).kind).toBe('invalid');
    expect((error as AppError).message).toBe('group_id is missing, group_access is invalid');
  });

  it('refuses, as a bug, a value read from a parameter nobody required', () => {
    const p = new Params({});
    expect(() => p.checked(p.int('optional'))).toThrow('Params.checked: value 0 was read from a parameter that is not required');
  });
});

describe('Params.nested', () => {
  it("names a nested hash's problems as Grape does and throws them with the parent's", () => {
    const p = new Params({ branch: 'main' });
    const first = p.nested('actions[0]', { action: 'create', content: 5 });
    const second = p.nested('actions[1]', { content: { a: 1 }, file_path: ['x'] }).require('action');
    expect([first.string('content'), second.string('content'), second.string('file_path')]).toEqual(['5', undefined, undefined]);
    expect(() => p.check()).toThrow('actions[1][action] is missing, actions[1][content] is invalid, actions[1][file_path] is invalid');
  });
});
