import { AppError } from '../../http/errors.js';

/** The old or new object name of a ref that does not exist (before a creation, after a deletion). */
export const ZERO_SHA = '0000000000000000000000000000000000000000';

/** True for a full object name: 40 hex digits (SHA-1) or 64 (SHA-256). */
export function isObjectId(value: string): boolean {
  return /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(value);
}

/** True for an all-zero object name, of either length. */
export function isZeroId(value: string): boolean {
  return /^0+$/.test(value) && isObjectId(value);
}

/**
 * True when `name` is a valid branch name under git-check-ref-format's rules (checked here rather
 * than by spawning git, because names reach git as arguments and must never be read as options):
 * no leading '-', no empty, '.'-led or '.lock'-ended component, no '..', '@{', '//', control
 * characters, space or any of ~^:?*[\, and no leading/trailing '/' or trailing '.'. Stricter than
 * git in refusing `@` and `HEAD`, which name HEAD itself wherever a revision is read.
 */
export function isValidBranchName(name: string): boolean {
  if (
    name === '' ||
    name === '@' ||
    name === 'HEAD' ||
    name.startsWith('-') ||
    name.startsWith('/') ||
    name.endsWith('/') ||
    name.endsWith('.')
  )
    return false;
  if (name.includes('..') || name.includes('@{') || name.includes('//')) return false;
  // eslint-disable-next-line no-control-regex -- control characters are exactly what git forbids
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(name)) return false;
  return name.split('/').every((part) => !part.startsWith('.') && !part.endsWith('.lock'));
}

/** Throw an `invalid` AppError unless `name` is a valid branch name. */
export function assertBranchName(name: string): void {
  if (!isValidBranchName(name)) throw new AppError('invalid', `"${name}" is not a valid branch name`, { code: 'invalid_branch' });
}

/**
 * Throw unless `rev` can be handed to git as a revision: a full ref name or object name, never
 * something that starts with '-' (which git would read as an option) or carries revision syntax.
 */
export function assertRevision(rev: string): void {
  const plain = rev === 'HEAD' || isObjectId(rev) || isValidBranchName(rev);
  if (!plain) throw new AppError('invalid', `"${rev}" is not a valid revision`, { code: 'invalid_revision' });
}
