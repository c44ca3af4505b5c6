// Where one of the Analyse screen's requests waits. The limiter keeps the server's two cores from
// being handed more cold analyses than they can run; a request the server is computing anyway (one
// of the new library item's summary analyses) adds no work there, so it must not queue behind the
// cold ones: it is sent as soon as the file is held.
import type { AnalysisRoute, AnalysisRoutes } from '../../api/audio';
import type { HeldAudio, HeldRequestOptions } from '../../api/held-audio';
import type { Limiter } from './limiter';

/** One request of the screen: its route and query, and how to hear about its wait. */
export interface ScheduledRequest<R extends AnalysisRoute> {
  readonly route: R;
  readonly query: AnalysisRoutes[R]['query'];
  /** Called when the file is held and the request waits for a slot of the limiter. */
  readonly onQueued?: () => void;
}

/**
 * Run `task` once `audio` is held (the upload's progress goes to `options.onProgress`): at once when
 * the server already has the analysis under way (`HeldAudio.isUnderWay`), else in a slot of `limiter`.
 */
export async function scheduleRequest<R extends AnalysisRoute, T>(
  audio: HeldAudio,
  limiter: Limiter,
  request: ScheduledRequest<R>,
  task: () => Promise<T>,
  options: HeldRequestOptions = {},
): Promise<T> {
  await audio.hold(options);
  if (audio.isUnderWay(request.route, request.query)) return task();
  request.onQueued?.();
  return limiter.run(task, options.signal);
}
