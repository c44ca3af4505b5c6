import { describe, expect, it } from 'vitest';
import { asSentence, describeApiError, messageOf } from './error-message';

describe('describeApiError', () => {
  it('turns the audio API detail into a sentence', () => {
    expect(describeApiError(401, { detail: 'Invalid token' })).toBe('Invalid token.');
    expect(describeApiError(401, { detail: 'Not authenticated' })).toBe('Not authenticated.');
  });

  it('lists validation problems with their location', () => {
    const body = { detail: [{ loc: ['query', 'limit'], msg: 'Input should be a valid integer', type: 'int_parsing' }] };
    expect(describeApiError(422, body)).toBe('Limit: Input should be a valid integer.');
    const named = { detail: [{ loc: ['body', 'url'], msg: 'URL should be an absolute http or https URL', type: 'value_error' }] };
    expect(describeApiError(422, named)).toBe('URL should be an absolute http or https URL.');
  });

  it('reads GitLab-style bodies', () => {
    expect(describeApiError(401, { message: '401 Unauthorized' })).toBe('Unauthorized.');
    expect(describeApiError(400, { message: { name: ['is missing'] } })).toBe('Name is missing.');
    expect(describeApiError(400, { error: 'name is missing' })).toBe('Name is missing.');
  });

  it('reads the words of a scope refusal and of a rate limit, not their codes', () => {
    const scope = {
      error: 'insufficient_scope',
      error_description: 'The request requires higher privileges than provided by the access token.',
      scope: 'api read_api',
    };
    expect(describeApiError(403, scope)).toBe('The request requires higher privileges than provided by the access token.');
    expect(describeApiError(429, { message: { error: 'Too many failed authentication attempts. Try again later.' } })).toBe(
      'Too many failed authentication attempts. Try again later.',
    );
  });

  it('falls back to the status when the body says nothing', () => {
    expect(describeApiError(401, undefined)).toBe('The server did not accept this token.');
    expect(describeApiError(418, {})).toBe('The server answered with status 418.');
  });
});

describe('asSentence', () => {
  it('keeps sentences that already end', () => {
    expect(asSentence('Done!')).toBe('Done!');
    expect(asSentence('  spaced   out  ')).toBe('Spaced out.');
    expect(asSentence('')).toBe('');
  });
});

describe('messageOf', () => {
  it("takes an error's own message, else the fallback", () => {
    expect(messageOf(new Error('Disk full.'), 'Failed.')).toBe('Disk full.');
    expect(messageOf(new Error('  '), 'Failed.')).toBe('Failed.');
    expect(messageOf('not an error', 'Failed.')).toBe('Failed.');
    expect(messageOf(undefined, 'Failed.')).toBe('Failed.');
  });
});
