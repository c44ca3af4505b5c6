import { getPriority, setPriority } from 'node:os';

/**
 * How much lower an analysis thread's CPU priority is than the HTTP thread's (a Linux nice increment).
 * On two cores, two analysis threads at the HTTP thread's priority took its core for tens of
 * milliseconds at a time while 200 uploads were analysed, and `/healthz` waited (bench/RESULTS.md,
 * "/healthz under 200 uploads"). At +10 the scheduler gives the HTTP thread the core when it has work
 * and the analyses every cycle it leaves idle, so throughput on an otherwise idle machine is unchanged;
 * a DAW or the GUI beside the server also comes first.
 */
export const analysisThreadNice = 10;

/**
 * Lower the calling thread's CPU priority by `increment`. Only on Linux, where a nice value belongs to
 * one thread; elsewhere setpriority() would lower the whole process, HTTP thread included. Best effort:
 * a refusal leaves the priority as it was.
 */
export function lowerThisThreadPriority(increment: number): void {
  if (process.platform !== 'linux' || increment <= 0) return;
  try {
    setPriority(0, Math.min(19, getPriority(0) + increment));
  } catch {
    // A sandbox may forbid it; the analyses still run, at the HTTP thread's priority.
  }
}
