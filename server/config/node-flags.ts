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
