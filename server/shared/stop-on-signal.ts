/**
 * Graceful stop of a long-running command (serve, worker) on SIGTERM or SIGINT: finish in-flight work,
 * then exit 0; a second signal exits at once with 1. Register it before announcing readiness, so a
 * supervisor that signals right after the ready line gets the graceful stop, not node's default kill.
 */
export function stopOnSignal(
  running: { stop(): Promise<void> },
  log: (line: string) => void = (line) => process.stderr.write(line + '\n'),
): void {
  let signals = 0;
  const shutdown = (signal: NodeJS.Signals) => {
    if (++signals > 1) {
      log(`second ${signal}: exiting now`);
      process.exit(1);
    }
    log(`${signal}: finishing in-flight work…`);
    running.stop().then(
      () => process.exit(0),
      (e: unknown) => {
        log(`shutdown failed: ${String(e)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}
