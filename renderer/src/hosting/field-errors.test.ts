import { describe, expect, it } from 'vitest';
import { ApiError } from '../api/http';
import { fieldErrorsOf } from './field-errors';

const form = ['name', 'path', 'tag_list', 'merge_method'];

describe('fieldErrorsOf', () => {
  it('puts GitLab validation messages under their fields', () => {
    const error = new ApiError(400, 'Path has already been taken.', {
      message: { path: ['has already been taken'], name: ["can't be blank", 'is too short'] },
    });
    expect(fieldErrorsOf(error, form)).toEqual({
      fields: { path: 'Has already been taken.', name: "Can't be blank, is too short." },
      general: null,
    });
  });

  it('keeps problems with fields the form does not have as one general sentence', () => {
    const error = new ApiError(400, 'x', { message: { path: ['has already been taken'], namespace: ['is not valid'] } });
    expect(fieldErrorsOf(error, form)).toEqual({ fields: { path: 'Has already been taken.' }, general: 'Namespace is not valid.' });
  });

  it('splits Grape parameter errors by their leading parameter name', () => {
    const error = new ApiError(400, 'x', { error: 'merge_method does not have a valid value, name is missing, upload[url] is missing' });
    expect(fieldErrorsOf(error, form)).toEqual({
      fields: { merge_method: 'Does not have a valid value.', name: 'Is missing.' },
      general: 'Upload[url] is missing.',
    });
  });

  it('maps an API name to the form field with aliases', () => {
    const error = new ApiError(400, 'x', { message: { topics: ['is too long'] } });
    expect(fieldErrorsOf(error, form, { topics: 'tag_list' }).fields).toEqual({ tag_list: 'Is too long.' });
  });

  it('gives any other failure as its sentence', () => {
    expect(fieldErrorsOf(new ApiError(403, 'Forbidden.', { message: '403 Forbidden' }), form)).toEqual({
      fields: {},
      general: 'Forbidden.',
    });
    expect(fieldErrorsOf(new Error('boom'), form)).toEqual({ fields: {}, general: 'boom' });
    expect(fieldErrorsOf(null, form)).toEqual({ fields: {}, general: null });
  });
});
