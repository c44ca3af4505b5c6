import { describe, expect, it } from 'vitest';
import { namespaceLabel } from './namespace-label';

describe('namespaceLabel', () => {
  it('calls only the signed-in user\'s own namespace "you"', () => {
    expect(namespaceLabel({ kind: 'user', path: 'root', full_path: 'root' }, 'root')).toBe('root (you)');
    expect(namespaceLabel({ kind: 'user', path: 'mia', full_path: 'mia' }, 'root')).toBe('mia (user)');
    expect(namespaceLabel({ kind: 'group', path: 'drums', full_path: 'band/drums' }, 'root')).toBe('band/drums (group)');
  });
});
