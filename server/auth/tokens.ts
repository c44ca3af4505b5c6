import { createHash, randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCb) as (password: string, salt: Buffer, keylen: number) => Promise<Buffer>;

/** Prefix of Cratehouse personal access tokens, so secret scanners can recognise them. */
export const tokenPrefix = 'chpat-';

/** A new random personal access token (shown once, then only its digest is kept). */
export function generateToken(): string {
  return tokenPrefix + randomBytes(24).toString('base64url');
}

/** The digest stored at rest. Tokens are high-entropy, so one sha256 suffices (as GitLab does). */
export function digestToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A random secret for HMAC signatures. */
export function generateSecret(): string {
  return randomBytes(32).toString('hex');
}

/** Hash a password with scrypt (`scrypt$salt$hash`). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, 32);
  return `scrypt$${salt.toString('hex')}$${hash.toString('hex')}`;
}

/** Check a password against a stored scrypt hash in constant time. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, saltHex, hashHex] = stored.split('$');
  if (scheme !== 'scrypt' || !saltHex || !hashHex) return false;
  const expected = Buffer.from(hashHex, 'hex');
  const actual = await scrypt(password, Buffer.from(saltHex, 'hex'), expected.length);
  return timingSafeEqual(actual, expected);
}
