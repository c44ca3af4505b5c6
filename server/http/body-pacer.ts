import type { Readable, Writable } from 'node:stream';

/** How long, and how much, a body may stream before it yields its lane to a waiting one. */
export interface PacerTurn {
  readonly ms: number;
  readonly bytes: number;
}

/** A body being fed through a pacer. */
export interface PacedFeed {
  /** Stop feeding the sink and give up the lane; what is left of the body is read and dropped. */
  abandon(): void;
}

/**
 * Reads request bodies a few at a time, taking turns. Why: every readable socket hands the event loop
 * up to 64 KB per turn of the loop, so 200 uploads arriving at once over loopback or a fast LAN had one
 * turn parse, hash and write 200 × 64 KB while `/healthz` and every other request waited behind it
 * (p99 ~100 ms). With at most `lanes` bodies flowing, a turn of the loop handles at most lanes × 64 KB;
 * the rest wait in the kernel's socket buffers (TCP backpressure). A body keeps its lane only for one
 * `turn` while others wait, so a slow or stalled client never holds up the line. One event loop, so one
 * pacer per process (`uploadPacer`).
 */
export class BodyPacer {
  private readonly flowing = new Set<Lane>();
  private readonly waiting: Lane[] = [];

  constructor(
    readonly lanes = 4,
    readonly turn: PacerTurn = { ms: 50, bytes: 1 << 20 },
  ) {
    if (!(lanes >= 1)) throw new RangeError('a pacer needs at least one lane');
  }

  /** Bodies streaming now, and bodies waiting for a lane (for tests and diagnostics). */
  counts(): { readonly flowing: number; readonly waiting: number } {
    return { flowing: this.flowing.size, waiting: this.waiting.length };
  }

  /**
   * Feed `source` into `sink`, ending the sink at the source's end, honouring the sink's backpressure
   * and taking turns with the other bodies. A source that closes or fails early just leaves the line;
   * its owner handles that (as with pipe()).
   */
  feed(source: Readable, sink: Writable): PacedFeed {
    const lane = new Lane(this, source, sink);
    if (this.flowing.size < this.lanes) this.start(lane);
    else this.enqueue(lane);
    return { abandon: () => lane.abandon() };
  }

  /** @internal A lane's turn ended with others waiting: to the back of the line. */
  yieldTurn(lane: Lane): void {
    this.flowing.delete(lane);
    this.enqueue(lane);
    this.next();
  }

  /** @internal A lane is done (ended, closed, abandoned): free its place wherever it is. */
  leave(lane: Lane): void {
    const at = this.waiting.indexOf(lane);
    if (at >= 0) this.waiting.splice(at, 1);
    if (this.flowing.delete(lane)) this.next();
  }

  /** @internal Whether anyone waits for a lane (a turn is only cut short then). */
  hasWaiting(): boolean {
    return this.waiting.length > 0;
  }

  private enqueue(lane: Lane): void {
    this.waiting.push(lane);
    // Flowing bodies that were alone had no turn timer: now their turns count.
    for (const other of this.flowing) other.armTurn();
  }

  private next(): void {
    while (this.flowing.size < this.lanes) {
      const lane = this.waiting.shift();
      if (!lane) return;
      this.start(lane);
    }
  }

  private start(lane: Lane): void {
    this.flowing.add(lane);
    lane.beginTurn();
  }
}

/** One body's place in the pacer. */
class Lane {
  private hasTurn = false;
  private blocked = false;
  private done = false;
  private turnBytes = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly onData = (chunk: Buffer): void => {
    if (this.done) return;
    this.turnBytes += chunk.length;
    if (!this.sink.write(chunk)) {
      this.blocked = true;
      this.source.pause();
    }
    if (this.turnBytes >= this.pacer.turn.bytes && this.pacer.hasWaiting()) this.endTurn();
  };
  private readonly onDrain = (): void => {
    this.blocked = false;
    if (this.hasTurn && !this.done) this.source.resume();
  };
  private readonly onEnd = (): void => {
    if (this.done) return;
    this.finish();
    this.sink.end();
  };
  private readonly onGone = (): void => this.finish();

  constructor(
    private readonly pacer: BodyPacer,
    private readonly source: Readable,
    private readonly sink: Writable,
  ) {
    source.pause();
    source.on('data', this.onData);
    source.once('end', this.onEnd);
    source.once('close', this.onGone);
    source.once('error', this.onGone);
    sink.on('drain', this.onDrain);
  }

  beginTurn(): void {
    if (this.done) return;
    this.hasTurn = true;
    this.turnBytes = 0;
    this.clearTimer();
    if (this.pacer.hasWaiting()) this.armTurn();
    if (!this.blocked) this.source.resume();
  }

  /** Start counting this turn's time, if not already. */
  armTurn(): void {
    if (this.timer || !this.hasTurn || this.done) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.pacer.hasWaiting()) this.endTurn();
    }, this.pacer.turn.ms);
    this.timer.unref();
  }

  abandon(): void {
    if (this.done) return;
    this.finish();
    this.source.resume();
  }

  private endTurn(): void {
    this.hasTurn = false;
    this.clearTimer();
    this.source.pause();
    this.pacer.yieldTurn(this);
  }

  private finish(): void {
    this.done = true;
    this.hasTurn = false;
    this.clearTimer();
    this.source.off('data', this.onData);
    this.sink.off('drain', this.onDrain);
    this.pacer.leave(this);
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}

/** The process's pacer for multipart uploads (see BodyPacer: one event loop, one line). */
export const uploadPacer = new BodyPacer();
