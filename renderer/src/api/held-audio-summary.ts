// Which requests the library's summary of a new item already covers (held-audio.ts isUnderWay). It
// imports nothing, so bench/gui-drop-bench.ts decides with this same code what the page decides.

/** One entry of a library upload answer's `summary_analyses` (LibraryItem in the API schema). */
export interface SummaryAnalysis {
  readonly route: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly defaults: Readonly<Record<string, unknown>>;
}

/** Whether `query` for the route at `path` (as "/onsets"), completed with the route's defaults, is one of `listed`. */
export function isSummaryAnalysis(listed: readonly SummaryAnalysis[], path: string, query: Readonly<Record<string, unknown>>): boolean {
  return listed.some((a) => {
    if (a.route !== path) return false;
    const asked: Record<string, unknown> = { ...a.defaults, ...query };
    const keys = new Set([...Object.keys(asked), ...Object.keys(a.params)]);
    return [...keys].every((k) => asked[k] !== undefined && String(asked[k]) === String(a.params[k]));
  });
}
