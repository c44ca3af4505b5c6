import type { EngineSpec, StreamEngine, StreamFormat } from './engine.js';

/**
 * Wrap a running engine: count the frames pushed (capped at `limitFrames`) and turn its result into
 * another with that count (seconds analysed, for example).
 */
export function mapWithFrames<R, O>(
  format: StreamFormat,
  inner: StreamEngine<R>,
  map: (result: R, frames: number) => O,
  limitFrames = Infinity,
): StreamEngine<O> {
  let frames = 0;
  return {
    push(chunk) {
      frames = Math.min(limitFrames, frames + chunk.length / format.channels);
      inner.push(chunk);
    },
    finish: () => map(inner.finish(), frames),
  };
}

/** One part of a composite: an engine, its params, and how much of the stream it sees. */
export interface CompositePart {
  readonly key: string;
  readonly engine: EngineSpec<never, unknown>;
  readonly params: unknown;
  /** Only the first round(headSeconds · sampleRate) frames go to this part; undefined = all. */
  readonly headSeconds?: number;
}

/**
 * Run several engines over one decode, each on its own head of the stream. Because every engine is
 * chunk-invariant and sees exactly the frames its dedicated route would, each part's answer equals
 * that route's answer for the same file. The version combines the parts' versions (cache key).
 */
export function composeEngines(
  id: string,
  version: string,
  parts: readonly CompositePart[],
): EngineSpec<Record<string, never>, Record<string, unknown>> {
  return {
    id,
    version: `${version}(${parts.map((p) => `${p.engine.id}@${p.engine.version}`).join(',')})`,
    needsTotalFrames: parts.some((p) => p.engine.needsTotalFrames),
    create(format) {
      const running = parts.map((p) => ({
        key: p.key,
        engine: p.engine.create(format, p.params as never) as StreamEngine<unknown>,
        limit: p.headSeconds === undefined ? Infinity : Math.round(p.headSeconds * format.sampleRate),
      }));
      let frames = 0;
      return {
        push(chunk) {
          const n = chunk.length / format.channels;
          for (const r of running) {
            const take = Math.min(n, r.limit - frames);
            if (take <= 0) continue;
            r.engine.push(take === n ? chunk : chunk.subarray(0, take * format.channels));
          }
          frames += n;
        },
        finish() {
          return Object.fromEntries(running.map((r) => [r.key, r.engine.finish()]));
        },
      };
    },
  };
}
