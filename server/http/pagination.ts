import { AppError } from './errors.js';

/** A page of a list and the GitLab headers that describe it. */
export interface Page<T> {
  readonly items: readonly T[];
  readonly headers: Readonly<Record<string, string>>;
}

/** The request facts pagination needs. */
export interface PageRequest {
  /** Absolute URL of the request as the client should see it (host replaced by the public URL). */
  readonly url: URL;
}

/** Parse `page`/`per_page` as GitLab does: defaults 1 and 20, per_page silently capped at 100. */
export function pageParams(url: URL): { readonly page: number; readonly perPage: number } {
  const parse = (name: string, fallback: number): number => {
    const raw = url.searchParams.get(name);
    if (raw === null || raw === '') return fallback;
    if (!/^-?\d+$/.test(raw.trim()))
      throw new AppError('invalid', `${name} is invalid`, { issues: [{ loc: [name], msg: 'is invalid', type: 'invalid', input: raw }] });
    const n = Number(raw);
    if (name === 'per_page' && n === 0)
      throw new AppError('invalid', 'per_page has a value not allowed', {
        issues: [{ loc: [name], msg: 'has a value not allowed', type: 'value', input: raw }],
      });
    if (n < 1)
      throw new AppError('invalid', `${name} does not have a valid value`, {
        issues: [{ loc: [name], msg: 'does not have a valid value', type: 'value', input: raw }],
      });
    return n;
  };
  return { page: parse('page', 1), perPage: Math.min(100, parse('per_page', 20)) };
}

/**
 * Slice a list and build GitLab's offset pagination headers: X-Page, X-Per-Page, X-Next-Page,
 * X-Prev-Page (empty when none), X-Total, X-Total-Pages (at least 1) and Link (prev, next, first, last),
 * whose URLs keep every request parameter, sorted, with page and per_page set.
 */
export function paginate<T>(items: readonly T[], req: PageRequest): Page<T> {
  const { page, perPage } = pageParams(req.url);
  return { items: items.slice((page - 1) * perPage, page * perPage), headers: pageHeaders(req.url, page, perPage, items.length) };
}

/** GitLab's pagination headers for a page of a list of `total` items (for callers that slice the page themselves). */
export function pageHeaders(url: URL, page: number, perPage: number, total: number): Readonly<Record<string, string>> {
  const totalPages = Math.max(1, Math.ceil(total / perPage));
  const next = page < totalPages ? page + 1 : null;
  const prev = page > 1 && page <= totalPages ? page - 1 : null;
  const link = (p: number, rel: string) => `<${pageUrl(url, p, perPage)}>; rel="${rel}"`;
  const links = [...(prev ? [link(prev, 'prev')] : []), ...(next ? [link(next, 'next')] : []), link(1, 'first'), link(totalPages, 'last')];
  return {
    'X-Page': String(page),
    'X-Per-Page': String(perPage),
    'X-Next-Page': next ? String(next) : '',
    'X-Prev-Page': prev ? String(prev) : '',
    'X-Total': String(total),
    'X-Total-Pages': String(totalPages),
    Link: links.join(', '),
  };
}

function pageUrl(base: URL, page: number, perPage: number): string {
  const params = new URLSearchParams(base.searchParams);
  params.set('page', String(page));
  params.set('per_page', String(perPage));
  params.sort();
  return `${base.origin}${base.pathname}?${params.toString()}`;
}
