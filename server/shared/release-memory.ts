import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | null | undefined;

/**
 * Run a full garbage collection on this thread now, so the heap V8 grew for a burst of work (the
 * start-up warm-up, a batch of analyses) is given back instead of held while the server idles. V8
 * only shrinks its heap after a full collection, and Node never asks for one on an idle event loop.
 * `gc` is exposed at run time (not with `--expose-gc` on the command line) because the desktop app
 * embeds the server in Electron's main process, whose command line we do not choose. Returns false
 * when the runtime refuses (then nothing happened).
 */
export function collectGarbage(): boolean {
  if (gc === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      // A new context reads the flag as it is now; the function works on the whole isolate.
      gc = runInNewContext('gc') as () => void;
    } catch {
      gc = null;
    }
  }
  if (!gc) return false;
  gc();
  return true;
}
