/** The small logging surface the server uses; the host decides where it goes. */
export interface Logger {
  info(message: string): void;
  error(message: string, error?: unknown): void;
  debug(message: string): void;
}

/** A logger writing to stderr at the configured level. */
export function createLogger(level: 'silent' | 'error' | 'info' | 'debug'): Logger {
  const rank = { silent: 0, error: 1, info: 2, debug: 3 }[level];
  const stamp = () => new Date().toISOString();
  return {
    info: (m) => void (rank >= 2 && process.stderr.write(`${stamp()} info  ${m}\n`)),
    debug: (m) => void (rank >= 3 && process.stderr.write(`${stamp()} debug ${m}\n`)),
    error: (m, e) => {
      if (rank < 1) return;
      const detail = e instanceof Error ? `\n${e.stack ?? e.message}` : e === undefined ? '' : ` ${String(e)}`;
      process.stderr.write(`${stamp()} error ${m}${detail}\n`);
    },
  };
}
