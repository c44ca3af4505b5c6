/**
 * Shared memory between the HTTP thread and an analysis worker: the worker can read a temp file while
 * the upload is still being written to it (waiting, without polling, until enough bytes are on disk),
 * and the HTTP thread can cancel the analysis at any time. Cancellation is cooperative: the worker
 * checks the flag between chunks, so a worker thread is never terminated mid-task.
 *
 * Layout of the SharedArrayBuffer: Int32 [sequence, state, cancelled, unused], then the bytes on disk
 * as a BigInt64. Every change bumps the sequence and notifies waiters on it.
 */
const SEQ = 0;
const STATE = 1;
const CANCELLED = 2;
const GROWING = 0;
const COMPLETE = 1;
const FAILED = 2;
const BYTES = 2; // BigInt64 index (byte offset 16)

/** Atomics.waitAsync (Node ≥ 16; typed in TypeScript's ES2024 library, which this project does not load). */
const waitAsync = (
  Atomics as unknown as {
    waitAsync(
      array: Int32Array,
      index: number,
      value: number,
      timeout?: number,
    ): { async: false; value: string } | { async: true; value: Promise<string> };
  }
).waitAsync;

/** Size of the shared buffer a feed needs. */
export const FEED_BYTES = 24;

/** The HTTP side: reports bytes on disk, completion or failure of the upload, and cancels. */
export class FeedWriter {
  private readonly flags: Int32Array;
  private readonly bytes: BigInt64Array;

  /** A new feed, or a writer over an existing one's `shared` buffer. */
  constructor(
    /** Pass this to the worker task. */
    readonly shared = new SharedArrayBuffer(FEED_BYTES),
  ) {
    this.flags = new Int32Array(shared, 0, 4);
    this.bytes = new BigInt64Array(shared);
  }

  /** `bytes` of the file are on disk; `complete` when that is the whole upload. */
  written(bytes: number, complete = false): void {
    if (Atomics.load(this.flags, STATE) !== GROWING) return;
    Atomics.store(this.bytes, BYTES, BigInt(bytes));
    if (complete) Atomics.store(this.flags, STATE, COMPLETE);
    this.bump();
  }

  /** The upload failed (too large, interrupted, malformed): a waiting reader stops. */
  fail(): void {
    if (Atomics.load(this.flags, STATE) === GROWING) Atomics.store(this.flags, STATE, FAILED);
    this.bump();
  }

  /** Stop the analysis at its next chunk (the client went away, or the answer came from the cache). */
  cancel(): void {
    Atomics.store(this.flags, CANCELLED, 1);
    this.bump();
  }

  private bump(): void {
    Atomics.add(this.flags, SEQ, 1);
    Atomics.notify(this.flags, SEQ);
  }
}

/** What a reader learns from a wait: bytes on disk now, and whether the file is complete. */
export interface FeedState {
  readonly available: number;
  readonly complete: boolean;
}

/** Thrown in the worker when the analysis was cancelled or the upload it was reading failed. */
export class FeedStopped extends Error {}

/** The worker side of a feed. */
export class FeedReader {
  private readonly flags: Int32Array;
  private readonly bytes: BigInt64Array;

  constructor(shared: SharedArrayBuffer) {
    this.flags = new Int32Array(shared, 0, 4);
    this.bytes = new BigInt64Array(shared);
  }

  get cancelled(): boolean {
    return Atomics.load(this.flags, CANCELLED) === 1;
  }

  /** Throw FeedStopped once cancelled. */
  check(): void {
    if (this.cancelled) throw new FeedStopped('cancelled');
  }

  /** The state now, without waiting. */
  state(): FeedState {
    const complete = Atomics.load(this.flags, STATE) === COMPLETE;
    return { available: Number(Atomics.load(this.bytes, BYTES)), complete };
  }

  /**
   * Wait until at least `bytes` are on disk or the upload is complete (then fewer may be there).
   * Throws FeedStopped when cancelled or when the upload failed.
   */
  async waitFor(bytes: number): Promise<FeedState> {
    for (;;) {
      const seq = Atomics.load(this.flags, SEQ);
      this.check();
      if (Atomics.load(this.flags, STATE) === FAILED) throw new FeedStopped('the upload failed');
      const now = this.state();
      if (now.complete || now.available >= bytes) return now;
      // Woken by the next change; the timeout only guards against a lost wake-up.
      const wait = waitAsync(this.flags, SEQ, seq, 1000);
      if (wait.async) await wait.value;
    }
  }
}
