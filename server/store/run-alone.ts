/** Work running under a name in this process: a second start under the same name is skipped, not queued. */
export class RunningNames {
  private readonly running = new Set<string>();

  /** Run `work` unless work under `name` is already running here: its result, or false when skipped. */
  async run(name: string, work: () => Promise<boolean>): Promise<boolean> {
    if (this.running.has(name)) return false;
    this.running.add(name);
    try {
      return await work();
    } finally {
      this.running.delete(name);
    }
  }
}
