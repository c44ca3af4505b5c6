import type { ReceivedUpload } from '../../http/multipart.js';
import type { AnalysisAnswer, AnalysisRequest, AnalysisService, EarlyAnalysis } from './analysis-service.js';

/**
 * Several analyses of one upload started as its bytes arrive (the library upload starts its item's
 * summary this way), so the analysis threads work during the transfer instead of after it. Once the
 * upload is complete and hashed, `adopt` offers each run under its cache key: requests by hash and the
 * library summary for the same analysis join it. Nothing is kept for a failed upload: `cancel` stops
 * them all (their answers are never cached).
 */
export class EarlyAnalyses {
  private readonly runs: readonly EarlyAnalysis[];

  constructor(
    private readonly analysis: AnalysisService,
    private readonly requests: readonly AnalysisRequest[],
  ) {
    this.runs = requests.map((r) =>
      analysis.begin(r.engine, r.params, {
        priority: 'interactive',
        ...(r.headSeconds !== undefined ? { headSeconds: r.headSeconds } : {}),
      }),
    );
  }

  /** receiveUpload's `onFileProgress`: every run follows the temp file as it grows. */
  readonly onFileProgress = (path: string, bytesOnDisk: number, complete: boolean): void => {
    for (const run of this.runs) run.onFileProgress(path, bytesOnDisk, complete);
  };

  /** Stop every run (the upload failed or was refused, or its item existed already). */
  cancel(): void {
    for (const run of this.runs) run.cancel();
  }

  /**
   * Each request's answer for `tenant`, in the order of the requests, over the complete `upload`; the
   * caller keeps the temp file until all have settled.
   */
  adopt(tenant: string, upload: ReceivedUpload): Promise<AnalysisAnswer>[] {
    return this.requests.map((request, i) => this.analysis.adoptEarly(tenant, upload, request, this.runs[i]!));
  }
}
