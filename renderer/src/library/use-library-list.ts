// The library list as the virtual list needs it: rows fetched a page at a time as they scroll into
// view, so 100 000 items cost what the screen shows. A new filter starts over.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { buildLibraryQuery, listLibraryItems, type LibraryFilter, type LibraryItemResponse, type LibrarySort } from '../api/library';
import { messageOf } from '../api/error-message';
import { pagesFor } from './library-model';

/** Rows per request: a screenful or two at any row height, well under the server's 200. */
export const LIST_PAGE_SIZE = 100;
/** How often rows still being analysed are asked again. */
const POLL_MS = 2_000;

/** The list so far. */
export interface LibraryList {
  /** Matching items; null until the first page answers. */
  readonly total: number | null;
  /** The row at an index, once its page has arrived. */
  readonly rowAt: (index: number) => LibraryItemResponse | undefined;
  /** Ask for the pages that hold rows start..end-1. */
  readonly ensureRows: (start: number, end: number) => void;
  /** Put an edited item in place wherever it is shown. */
  readonly replaceItem: (item: LibraryItemResponse) => void;
  /** Fetch everything again (after adding files). */
  readonly reload: () => void;
  readonly problem: string | null;
}

/** Keep the rows of `filter` sorted by `sort` for `token`. */
export function useLibraryList(token: string, filter: LibraryFilter, sort: LibrarySort): LibraryList {
  const [generation, setGeneration] = useState(0);
  const key = JSON.stringify([filter, sort, generation]);
  // Pages belong to the filter they were fetched for: another key's pages read as none.
  const [state, setState] = useState<{
    readonly key: string;
    readonly pages: ReadonlyMap<number, readonly LibraryItemResponse[]>;
    readonly total: number | null;
    readonly problem: string | null;
  }>({ key, pages: new Map(), total: null, problem: null });
  const current = state.key === key ? state : { key, pages: new Map<number, readonly LibraryItemResponse[]>(), total: null, problem: null };
  const { pages, total, problem } = current;
  const inFlight = useRef(new Set<number>());
  const controller = useRef<AbortController | null>(null);

  const fetchPage = useCallback(
    (page: number, signal: AbortSignal) => {
      inFlight.current.add(page);
      listLibraryItems(token, buildLibraryQuery(filter, sort, page, LIST_PAGE_SIZE), signal)
        .then(
          (answer) => {
            if (signal.aborted) return;
            setState((previous) => ({
              key,
              pages: new Map(previous.key === key ? previous.pages : []).set(page, answer.items),
              total: answer.total,
              problem: null,
            }));
          },
          (error: unknown) => {
            if (signal.aborted) return;
            const message = messageOf(error, 'The library could not be loaded.');
            setState((previous) =>
              previous.key === key ? { ...previous, problem: message } : { key, pages: new Map(), total: null, problem: message },
            );
          },
        )
        .finally(() => inFlight.current.delete(page));
    },
    // The key stands for filter and sort.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [token, key],
  );

  // A new filter, sort or reload starts from page 1.
  useEffect(() => {
    controller.current?.abort();
    const next = new AbortController();
    controller.current = next;
    inFlight.current.clear();
    fetchPage(1, next.signal);
    return () => next.abort();
  }, [fetchPage]);

  const ensureRows = useCallback(
    (start: number, end: number) => {
      const signal = controller.current?.signal;
      if (!signal) return;
      for (const page of pagesFor(start, end, LIST_PAGE_SIZE)) if (!pages.has(page) && !inFlight.current.has(page)) fetchPage(page, signal);
    },
    [fetchPage, pages],
  );

  // Rows still being analysed are asked again until they are ready or failed.
  const analysingPages = useMemo(
    () => [...pages.entries()].filter(([, items]) => items.some((item) => item.status === 'analysing')).map(([page]) => page),
    [pages],
  );
  useEffect(() => {
    if (analysingPages.length === 0) return;
    const timer = setTimeout(() => {
      const signal = controller.current?.signal;
      if (signal) for (const page of analysingPages) if (!inFlight.current.has(page)) fetchPage(page, signal);
    }, POLL_MS);
    return () => clearTimeout(timer);
  }, [analysingPages, fetchPage]);

  const rowAt = useCallback((index: number) => pages.get(Math.floor(index / LIST_PAGE_SIZE) + 1)?.[index % LIST_PAGE_SIZE], [pages]);
  const replaceItem = useCallback((item: LibraryItemResponse) => {
    setState((previous) => {
      const next = new Map(previous.pages);
      for (const [page, items] of previous.pages)
        if (items.some((candidate) => candidate.id === item.id))
          next.set(
            page,
            items.map((candidate) => (candidate.id === item.id ? item : candidate)),
          );
      return { ...previous, pages: next };
    });
  }, []);
  const reload = useCallback(() => setGeneration((g) => g + 1), []);

  return { total, rowAt, ensureRows, replaceItem, reload, problem };
}
