import { describe, expect, it } from 'vitest';
import { formatWhen, isFiltered, listQueryOf, withListChange } from './project-list-query';

describe('listQueryOf', () => {
  it("uses GitLab's defaults for an empty address", () => {
    expect(listQueryOf(new URLSearchParams())).toEqual({
      search: undefined,
      archived: undefined,
      visibility: undefined,
      starred: undefined,
      owned: undefined,
      order_by: 'created_at',
      sort: 'desc',
      page: 1,
      per_page: 20,
    });
  });

  it('reads every filter and ignores values the API would refuse', () => {
    const q = listQueryOf(
      new URLSearchParams(
        'search= mix &archived=false&visibility=public&starred=true&owned=true&order_by=star_count&sort=asc&page=3&per_page=50',
      ),
    );
    expect(q).toEqual({
      search: 'mix',
      archived: false,
      visibility: 'public',
      starred: true,
      owned: true,
      order_by: 'star_count',
      sort: 'asc',
      page: 3,
      per_page: 50,
    });
    const bad = listQueryOf(new URLSearchParams('visibility=secret&order_by=drop&page=-2&per_page=1000'));
    expect(bad).toMatchObject({ visibility: undefined, order_by: 'created_at', page: 1, per_page: 100 });
  });
});

describe('withListChange', () => {
  it('goes back to page 1 when a filter changes and drops defaults', () => {
    const next = withListChange(new URLSearchParams('page=4&visibility=private'), { visibility: 'public', sort: 'desc' });
    expect(next.toString()).toBe('visibility=public');
  });

  it('keeps the filters when only the page changes', () => {
    expect(withListChange(new URLSearchParams('search=a'), { page: '2' }).toString()).toBe('search=a&page=2');
    expect(withListChange(new URLSearchParams('search=a&page=2'), { page: '1' }).toString()).toBe('search=a');
  });
});

describe('isFiltered', () => {
  it('is false only with no narrowing filter', () => {
    expect(isFiltered(listQueryOf(new URLSearchParams('order_by=name&page=2')))).toBe(false);
    expect(isFiltered(listQueryOf(new URLSearchParams('archived=false')))).toBe(true);
  });
});

describe('formatWhen', () => {
  const now = Date.parse('2025-06-10T12:00:00Z');
  it('speaks in minutes, hours and days, then dates', () => {
    expect(formatWhen('2025-06-10T11:59:50Z', now)).toBe('just now');
    expect(formatWhen('2025-06-10T11:57:00Z', now)).toBe('3 minutes ago');
    expect(formatWhen('2025-06-10T11:00:00Z', now)).toBe('1 hour ago');
    expect(formatWhen('2025-06-08T12:00:00Z', now)).toBe('2 days ago');
    expect(formatWhen('2025-01-02T00:00:00Z', now)).toBe('2025-01-02');
  });
});
