// How a namespace reads in a picker: the caller's own, a group, or another user's (an
// administrator sees every user's namespace, and only one of them is "you").
import type { Namespace } from '../api/hosting';

/** "root (you)", "band (group)" or "mia (user)". */
export function namespaceLabel(namespace: Pick<Namespace, 'kind' | 'path' | 'full_path'>, username: string): string {
  if (namespace.kind === 'group') return `${namespace.full_path} (group)`;
  return `${namespace.full_path} (${namespace.path === username ? 'you' : 'user'})`;
}
