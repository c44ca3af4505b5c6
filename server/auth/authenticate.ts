import type { Request } from 'express';
import { AppError } from '../http/errors.js';
import type { FailedAuthLimiter } from './failed-auth-limiter.js';
import type { Identity, IdentityService } from './identity.js';
import { checkScopes, type ScopeFamily } from './scopes.js';

/** Where a service accepts tokens from. The audio API takes Bearer only; hosting takes all three. */
export type TokenSource = 'bearer' | 'private-token-header' | 'private-token-param' | 'basic';

/** The token presented with a request, if any. */
export function presentedToken(req: Request, sources: readonly TokenSource[]): string | null {
  for (const source of sources) {
    if (source === 'bearer') {
      const header = req.get('authorization');
      const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
      if (match?.[1]) return match[1];
    } else if (source === 'basic') {
      // git over HTTP: any user name, the token as the password (as GitLab takes personal access tokens).
      const header = req.get('authorization');
      const match = header ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header) : null;
      if (match?.[1]) {
        const decoded = Buffer.from(match[1], 'base64').toString('utf8');
        const password = decoded.slice(decoded.indexOf(':') + 1);
        if (decoded.includes(':') && password !== '') return password;
      }
    } else if (source === 'private-token-header') {
      const token = req.get('private-token');
      if (token) return token.trim();
    } else {
      const q = (req.query as Record<string, unknown>).private_token;
      if (typeof q === 'string' && q !== '') return q;
    }
  }
  return null;
}

/** Resolves callers for every API: the failed-authentication limit, the token, then its scopes. */
export interface AuthGuard {
  /**
   * The caller of a request in a scope family: null when no token was presented (anonymous), an
   * Identity when the token is valid and its scopes allow the request. Otherwise throws: `unauthorized`
   * (code says why) for a refused token, `forbidden` for a blocked user or `insufficient_scope`, and
   * `rate-limited` once the client or token has failed too often.
   */
  authenticate(req: Request, sources: readonly TokenSource[], family: ScopeFamily): Promise<Identity | null>;
}

const rejections = {
  unknown: 'Invalid token',
  revoked: 'Token was revoked. You have to re-authorize from the user.',
  expired: 'Token is expired. You can either do re-authorization or token refresh.',
  blocked: 'Your account has been blocked.',
} as const;

/** The one authentication layer of the three route families (audio, hosting, git and uploads). */
export function createAuthGuard(identity: IdentityService, limiter: FailedAuthLimiter | null = null): AuthGuard {
  return {
    async authenticate(req, sources, family) {
      const token = presentedToken(req, sources);
      if (token === null) return null;
      await limiter?.check(req.ip, token);
      const outcome = identity.authenticate(token);
      if ('rejected' in outcome) {
        // A blocked account's token is real: not a guess to count.
        if (outcome.rejected === 'blocked') throw new AppError('forbidden', rejections.blocked, { code: 'blocked' });
        await limiter?.fail(req.ip, token);
        throw new AppError('unauthorized', rejections[outcome.rejected], {
          code: outcome.rejected === 'unknown' ? 'unknown_token' : 'invalid_token',
        });
      }
      checkScopes(outcome.identity, family, req.method);
      return outcome.identity;
    },
  };
}
