import { describe, expect, it } from 'vitest';
import { fileNameOf, pageInfoOf, parseLinkHeader } from './hosting';

describe('parseLinkHeader', () => {
  it('reads the page of each relation of a GitLab Link header', () => {
    const header =
      '<http://127.0.0.1:4000/api/v4/projects?page=1&per_page=2&search=x>; rel="prev", <http://127.0.0.1:4000/api/v4/projects?page=3&per_page=2&search=x>; rel="next", <http://127.0.0.1:4000/api/v4/projects?page=1&per_page=2>; rel="first", <http://127.0.0.1:4000/api/v4/projects?page=7&per_page=2>; rel="last"';
    expect(parseLinkHeader(header)).toEqual({ prev: 1, next: 3, first: 1, last: 7 });
  });

  it('keeps URLs with commas whole and ignores links without a page', () => {
    expect(parseLinkHeader('<https://h/x?tags=a,b&page=2>; rel="next", <https://h/y>; rel="last"')).toEqual({ next: 2 });
    expect(parseLinkHeader(null)).toEqual({});
    expect(parseLinkHeader('nonsense')).toEqual({});
  });
});

describe('pageInfoOf', () => {
  it('prefers the X- headers', () => {
    const headers = new Headers({
      'X-Page': '2',
      'X-Per-Page': '20',
      'X-Total': '45',
      'X-Total-Pages': '3',
      'X-Next-Page': '3',
      'X-Prev-Page': '1',
    });
    expect(pageInfoOf(headers, { page: 9, perPage: 9 })).toEqual({ page: 2, perPage: 20, total: 45, totalPages: 3, next: 3, prev: 1 });
  });

  it('reads an empty X-Next-Page as "no next page"', () => {
    const headers = new Headers({
      'X-Page': '3',
      'X-Per-Page': '20',
      'X-Next-Page': '',
      'X-Prev-Page': '2',
      Link: '<http://h/p?page=4>; rel="next"',
    });
    expect(pageInfoOf(headers, { page: 3, perPage: 20 }).next).toBeNull();
  });

  it('falls back to the Link header and the request when X- headers are missing', () => {
    const headers = new Headers({ Link: '<http://h/p?page=2>; rel="next", <http://h/p?page=5>; rel="last"' });
    expect(pageInfoOf(headers, { page: 1, perPage: 10 })).toEqual({
      page: 1,
      perPage: 10,
      total: null,
      totalPages: 5,
      next: 2,
      prev: null,
    });
  });
});

describe('fileNameOf', () => {
  it('prefers filename* and decodes it', () => {
    expect(fileNameOf(`attachment; filename="a_b.tar.gz"; filename*=UTF-8''2024-01-02_03-04-005_root_m%C3%BCsic_export.tar.gz`)).toBe(
      '2024-01-02_03-04-005_root_müsic_export.tar.gz',
    );
  });

  it('reads a quoted or bare filename', () => {
    expect(fileNameOf('attachment; filename="x_export.tar.gz"')).toBe('x_export.tar.gz');
    expect(fileNameOf('attachment; filename=x.tar.gz')).toBe('x.tar.gz');
    expect(fileNameOf(null)).toBeNull();
    expect(fileNameOf('inline')).toBeNull();
  });
});
