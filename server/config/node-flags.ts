/**
 * V8 flags the headless server is started with (`node <flags> dist/server/main.js`): every launcher
 * passes them (npm start, the Dockerfile, docs/deploy/cratehouse.service, the e2e tests and benchmarks;
 * node-flags.test.ts and electron/packaging-config.test.ts keep the written-out copies in step). They must be on the command line: heap
 * limits are fixed when the main isolate is created, and Node refuses this one in NODE_OPTIONS.
 *
 * `--initial-old-space-size=64`: the HTTP thread receives uploads in 64 KiB socket buffers, which V8
 * counts as external memory. With the default initial old-generation limit a 53 MB upload set off about
 * two full mark-compacts of the ~16 MB main heap (each 4–9 ms on the thread plus concurrent marking
 * on V8's helper threads) although almost nothing in the heap had died; with a 64 MB initial limit
 * there are none per upload. Measured on /analyze of the benchmark's 53 MB WAV: server CPU ~350 →
 * ~300 ms per request, wall ~193 → ~170 ms. The heap still grows past 64 MB when it needs to.
 */
export const serverNodeFlags: readonly string[] = ['--initial-old-space-size=64'];

/** One of serverNodeFlags, with any value: a V8 flag, which a worker thread's execArgv must not repeat. */
export function isServerNodeFlag(arg: string): boolean {
  const name = arg.split('=')[0];
  return serverNodeFlags.some((flag) => flag.split('=')[0] === name);
}

/**
 * Environment the headless server is started with on Linux (glibc reads it before any code runs, so it
 * must come from the launcher: npm start, the Dockerfile, docs/deploy/cratehouse.service).
 * glibc raises its mmap threshold to the size of the largest block it has freed (up to 32 MB) and its
 * trim threshold to twice that: after one 3-minute WAV's 30 MB sample buffers, every later buffer comes
 * from the arenas, and each analysis thread's arena keeps tens of MB it never hands back. Pinning both at
 * glibc's own defaults keeps large buffers in their own mappings, returned on free. Measured on an idle
 * server after its warm-up: 246 → 157 MB RSS with the analysis threads' garbage collected (docs/performance.md).
 * Other C libraries ignore these names.
 */
export const serverMallocEnv: Readonly<Record<string, string>> = {
  MALLOC_MMAP_THRESHOLD_: '131072',
  MALLOC_TRIM_THRESHOLD_: '131072',
};
