/** Which LFS request a URL and method name, as git-lfs builds them from a remote's URL. */

/** The LFS requests served. */
export type LfsAction = 'batch' | 'download' | 'upload' | 'verify' | 'locks-list' | 'locks-create' | 'locks-verify' | 'unlock';

/** An LFS URL taken apart. */
export interface LfsTarget {
  /** The project's full path, `namespace/sub/project`, without `.git`. */
  readonly fullPath: string;
  readonly action: LfsAction;
  /** The object of a download or upload. */
  readonly oid?: string;
  /** The lock of an unlock. */
  readonly lockId?: string;
}

const routes: readonly { readonly method: string; readonly pattern: RegExp; readonly action: LfsAction }[] = [
  { method: 'POST', pattern: /^objects\/batch$/, action: 'batch' },
  { method: 'POST', pattern: /^objects\/verify$/, action: 'verify' },
  { method: 'GET', pattern: /^objects\/([0-9a-f]{64})$/, action: 'download' },
  { method: 'PUT', pattern: /^objects\/([0-9a-f]{64})$/, action: 'upload' },
  { method: 'GET', pattern: /^locks$/, action: 'locks-list' },
  { method: 'POST', pattern: /^locks$/, action: 'locks-create' },
  { method: 'POST', pattern: /^locks\/verify$/, action: 'locks-verify' },
  { method: 'POST', pattern: /^locks\/(\d{1,15})\/unlock$/, action: 'unlock' },
];

/**
 * Map `<method> /<namespace…>/<project>[.git]/info/lfs/<request>` (a query string may follow) to
 * the project and request; null for anything else, including paths with empty, `.` or `..` segments.
 */
export function parseLfsPath(method: string, url: string): LfsTarget | null {
  const q = url.indexOf('?');
  const pathname = q < 0 ? url : url.slice(0, q);
  const at = pathname.indexOf('/info/lfs/');
  if (at < 0 || pathname[0] !== '/') return null;
  const rest = pathname.slice(at + '/info/lfs/'.length);
  const route = routes.find((r) => r.method === method && r.pattern.test(rest));
  if (!route) return null;
  let segments: string[];
  try {
    segments = pathname
      .slice(1, at)
      .split('/')
      .map((s) => decodeURIComponent(s));
  } catch {
    return null;
  }
  if (segments.length < 2 || segments.some((s) => s === '' || s === '.' || s === '..' || s.includes('/') || s.includes('\\'))) return null;
  const last = segments[segments.length - 1]!.replace(/\.git$/, '');
  if (last === '') return null;
  segments[segments.length - 1] = last;
  const match = route.pattern.exec(rest)!;
  return {
    fullPath: segments.join('/'),
    action: route.action,
    ...(route.action === 'download' || route.action === 'upload' ? { oid: match[1] } : {}),
    ...(route.action === 'unlock' ? { lockId: match[1] } : {}),
  };
}
