/**
 * Drop CPU, A/B (issue 22 item 6; not a test): two built servers side by side (this checkout's
 * `dist/` and another checkout's, `--other <dir>`), the same 3-minute synth WAV with fresh bytes per
 * round, sent as the Analyse screen sends it (drop-support.ts sendAsPage: upload once to the library,
 * then by hash the analyses it lists as under way at once, the rest two at a time), rounds alternating
 * between the two servers. Prints per round the wall time from the upload's first byte to the last
 * answer, when the upload was answered, and the server process's CPU meanwhile.
 *
 *   npm run build && npx tsx bench/drop-cpu-ab.ts --other /tmp/old-checkout [--rounds 4]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { median, optionValue, say } from './bench-support.js';
import { sendAsPage, serverCpuMs, startBuiltServer, withOneSampleChanged } from './drop-support.js';
import { writeSynthTrack } from './synth-track.js';

const token = 'bench-ab-admin';
const rounds = Number(optionValue('--rounds') ?? 4);
const other = optionValue('--other');
// The Analyse screen's requests (its two cold ones, then the summary's).
const requests = ['/waveform?bins=4000', '/spectrum', '/onsets', '/loudness', '/analyze', '/grade', '/naming?index=1'].map(
  (r) => `/audio/v1${r}`,
);
let variant = 0;

async function main(): Promise<void> {
  if (!other) throw new Error('--other <checkout with a built dist/> is required');
  const work = mkdtempSync(path.join(tmpdir(), 'cratehouse-ab-'));
  const wav = path.join(work, 'track.wav');
  await writeSynthTrack(wav, 180);
  const track = readFileSync(wav);
  const start = (dir: string, name: string) => startBuiltServer(dir, path.join(work, name), token);
  const servers = { this: await start(process.cwd(), 'this'), other: await start(other, 'other') };
  try {
    say(
      `# Drop CPU A/B: ${(track.length / 1e6).toFixed(1)} MB WAV, this=${process.cwd()} other=${other} (load ${loadavg()[0]!.toFixed(2)})`,
    );
    const got: Record<'this' | 'other', { wall: number[]; uploaded: number[]; cpu: number[] }> = {
      this: { wall: [], uploaded: [], cpu: [] },
      other: { wall: [], uploaded: [], cpu: [] },
    };
    for (let round = 0; round <= rounds; round++) {
      for (const side of round % 2 ? (['other', 'this'] as const) : (['this', 'other'] as const)) {
        const server = servers[side];
        const cpu0 = serverCpuMs(server.pid);
        const r = await sendAsPage(server.url, token, withOneSampleChanged(track, ++variant), requests);
        const cpu = serverCpuMs(server.pid) - cpu0;
        if (round === 0) continue; // warms both servers
        got[side].wall.push(r.wall);
        got[side].uploaded.push(r.uploaded);
        got[side].cpu.push(cpu);
        say(
          `round ${round} ${side.padEnd(5)}: all answered ${r.wall.toFixed(0)} ms, upload answered ${r.uploaded.toFixed(0)} ms, server CPU ${cpu.toFixed(0)} ms (load ${loadavg()[0]!.toFixed(2)})`,
        );
      }
    }
    for (const side of ['this', 'other'] as const)
      say(
        `median ${side}: all answered ${median(got[side].wall).toFixed(0)} ms, upload answered ${median(got[side].uploaded).toFixed(0)} ms, server CPU ${median(got[side].cpu).toFixed(0)} ms`,
      );
  } finally {
    await servers.this.stop();
    await servers.other.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
