import { describe, expect, it } from 'vitest';
import { holdAudio, type HeldAudioTransport } from '../../api/held-audio';
import type { LibraryItemResponse } from '../../api/library';
import { createLimiter } from './limiter';
import { scheduleRequest } from './schedule-request';

/** What POST /library/items answers for a new item: its summary runs these (server/audio/http/summary-plan.ts). */
const summaryAnalyses: LibraryItemResponse['summary_analyses'] = [
  { route: '/analyze', params: {}, defaults: {} },
  { route: '/loudness', params: {}, defaults: {} },
  { route: '/onsets', params: {}, defaults: {} },
  { route: '/grade', params: { role: '' }, defaults: { role: '' } },
  { route: '/naming', params: { index: 1 }, defaults: { index: 1 } },
  { route: '/waveform', params: { bins: 64 }, defaults: { bins: 800 } },
];

/** A server whose analyses by hash finish when the test says; it records the order they were asked in. */
function slowServer(listsAnalyses: boolean) {
  const asked: string[] = [];
  const finish = new Map<string, () => void>();
  const transport: HeldAudioTransport = {
    upload: async () => {
      await Promise.resolve();
      return { id: 1, sha256: 'f'.repeat(64), ...(listsAnalyses ? { summary_analyses: summaryAnalyses } : {}) } as LibraryItemResponse;
    },
    byHash: (route, _sha, query) => {
      const name = `${route}${JSON.stringify(query)}`;
      asked.push(name);
      return new Promise((resolve) => finish.set(name, () => resolve({ result: {} as never, cache: 'miss' })));
    },
    direct: () => Promise.reject(new Error('not used')),
  };
  return { transport, asked, finish };
}

const settle = async () => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

describe('scheduleRequest', () => {
  const screen = [
    { route: 'waveform', query: { bins: 4000 } },
    { route: 'onsets', query: {} },
    { route: 'spectrum', query: { bands: 128, frames: 1000, mel: true } },
    { route: 'loudness', query: {} },
    { route: 'analyze', query: {} },
    { route: 'grade', query: {} },
    { route: 'naming', query: { index: 1 } },
    { route: 'spectrum', query: { bands: 128, frames: 1000, mel: false } },
  ] as const;

  function start(listsAnalyses: boolean) {
    const server = slowServer(listsAnalyses);
    const audio = holdAudio(new Blob(['x']), 'track.wav', server.transport);
    const limiter = createLimiter(2);
    const queued: string[] = [];
    const done = screen.map((r) =>
      scheduleRequest(audio, limiter, { route: r.route, query: r.query as never, onQueued: () => queued.push(r.route) }, () =>
        audio.analyse(r.route, r.query as never),
      ),
    );
    return { server, limiter, queued, done };
  }

  it('sends the analyses the new item’s summary has under way at once, and the cold ones two at a time', async () => {
    const { server, limiter, queued, done } = start(true);
    await settle();
    // Both cold spectra and the waveform need the limiter; onsets, loudness, analyze, grade and naming do not.
    expect(server.asked).toEqual([
      'waveform{"bins":4000}',
      'onsets{}',
      'spectrum{"bands":128,"frames":1000,"mel":true}',
      'loudness{}',
      'analyze{}',
      'grade{}',
      'naming{"index":1}',
    ]);
    expect(queued).toEqual(['waveform', 'spectrum', 'spectrum']);
    expect([limiter.active, limiter.waiting]).toEqual([2, 1]);
    server.finish.get('waveform{"bins":4000}')!();
    await settle();
    expect(server.asked.at(-1)).toBe('spectrum{"bands":128,"frames":1000,"mel":false}');
    for (const f of server.finish.values()) f();
    await Promise.all(done);
  });

  it('queues everything in the limiter when the server does not say what is under way', async () => {
    const { server, limiter, done } = start(false);
    await settle();
    expect(server.asked).toEqual(['waveform{"bins":4000}', 'onsets{}']);
    expect(limiter.waiting).toBe(6);
    for (let i = 0; i < 8; i++) {
      for (const f of server.finish.values()) f();
      await settle();
    }
    await Promise.all(done);
    expect(server.asked).toHaveLength(8);
  });
});
