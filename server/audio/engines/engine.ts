/** The decoded stream's format, known before the first sample arrives. */
export interface StreamFormat {
  readonly sampleRate: number;
  readonly channels: number;
  /** ffmpeg's channel layout name (`stereo`, `5.0`, `5.1(side)`, …) when known. */
  readonly channelLayout: string | null;
  /** Exact number of frames (samples per channel) the stream will deliver, when known up front. */
  readonly totalFrames: number | null;
}

/** A streaming analysis: fed interleaved float32 chunks in order, then asked for its result once. */
export interface StreamEngine<R> {
  /**
   * Interleaved samples; chunk.length is a multiple of the channel count. Chunks may be any size, and
   * are only valid during the call (readers reuse their arrays): copy what you keep.
   */
  push(chunk: Float32Array): void;
  /**
   * Optional fast path for 16-bit PCM sources: the stored integers, interleaved, where x stands for the
   * sample x/2^15. Must give exactly the result `push` gives for the converted samples. The array is only
   * valid during the call.
   */
  pushPcm16?(chunk: Int16Array): void;
  finish(): R;
}

/** One analysis: its id and version (both part of the cache key) and how to start it. */
export interface EngineSpec<P, R> {
  readonly id: string;
  /** Bump whenever results change: cached answers of older versions are then recomputed. */
  readonly version: string;
  /** True when the engine needs StreamFormat.totalFrames (exact bin or frame positions). */
  readonly needsTotalFrames: boolean;
  /** The engine ignores the stream after this many seconds, so a reader may stop there. */
  readonly maxSeconds?: number;
  create(format: StreamFormat, params: P): StreamEngine<R>;
  /**
   * Optional, for engines that need totalFrames: run over a stream whose length is only estimated. The
   * result must equal `create`'s with the true length whenever that length (the frames pushed) lies
   * within the estimate's tolerance; otherwise `finish` returns null and the caller runs again with the
   * exact count (a second decode).
   */
  createEstimated?(format: StreamFormat, params: P, estimate: LengthEstimate): StreamEngine<R | null>;
  /**
   * Optional, for engines that need totalFrames: the same reduction over adjacent frame ranges, each fed
   * by a decode of its own (several cores decoding one file). `near` are the split points wished for;
   * the engine moves each to a frame where its result cannot depend on the split.
   */
  createRanges?(format: StreamFormat, params: P, near: readonly number[]): RangeRun<R>;
  /**
   * Optional: the same analysis as independent parts (engine ids, run with the same params and head),
   * which the service runs on separate worker threads, each decoding the stream itself, and whose
   * results `combine` (run in the pool too: it may do DSP) turns into exactly what `create` gives, with the seconds analysed.
   */
  readonly split?: { readonly parts: readonly string[]; combine(results: readonly unknown[], seconds: number): R };
}

/** An engine split over frame ranges (EngineSpec.createRanges). */
export interface RangeRun<R> {
  /** First frame of each range, ascending from 0; a range ends where the next starts, the last at totalFrames. */
  readonly starts: readonly number[];
  /** One input per range, fed that range's frames in order; ranges may be fed concurrently. */
  readonly parts: readonly Pick<StreamEngine<unknown>, 'push'>[];
  /** Exactly what `create` gives for the whole stream, once every part has had all its frames. */
  finish(): R;
}

/** A stream length known only approximately: the true length is expected within ±tolerance of frames. */
export interface LengthEstimate {
  readonly frames: number;
  readonly tolerance: number;
}

/**
 * Clip-tier head lengths in seconds: features, sample role, grade and naming read the first 30 s,
 * emotion the first 60 s (the spec's ~30 s and ~60 s). Routes and composites use these alone.
 */
export const headSeconds = { clip: 30, emotion: 60 } as const;
