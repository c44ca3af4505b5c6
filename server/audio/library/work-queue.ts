/** Ids worked on at most `concurrency` at a time, in the order they came (the library's summaries). */
export class WorkQueue {
  private readonly waiting: number[] = [];
  private running = 0;
  private stopped = false;
  private idle: (() => void)[] = [];

  constructor(
    private readonly work: (id: number) => Promise<void>,
    private readonly concurrency: number,
  ) {}

  /** Queue an id (ignored once stopped). */
  add(id: number): void {
    if (this.stopped) return;
    this.waiting.push(id);
    this.pump();
  }

  /** Resolves when nothing is waiting or running. */
  whenIdle(): Promise<void> {
    if (this.running === 0 && this.waiting.length === 0) return Promise.resolve();
    return new Promise((r) => this.idle.push(r));
  }

  /** Start nothing more; resolves once the running work is done. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.waiting.length = 0;
    await this.whenIdle();
  }

  private pump(): void {
    while (this.running < this.concurrency && this.waiting.length > 0) {
      const id = this.waiting.shift()!;
      this.running++;
      void this.work(id).finally(() => {
        this.running--;
        this.pump();
        if (this.running === 0 && this.waiting.length === 0) for (const r of this.idle.splice(0)) r();
      });
    }
  }
}
