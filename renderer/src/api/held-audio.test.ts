import { describe, expect, it } from 'vitest';
import { holdAudio, type HeldAudioTransport } from './held-audio';
import { ApiError } from './http';
import type { LibraryItemResponse } from './library';

/**
 * A server in memory: it holds the hashes of what was uploaded, answers 404 for any other hash, and
 * counts the bytes it received. The hash is the file's text, which is enough to tell files apart here.
 */
function fakeServer(options: { library?: boolean; failUploads?: number } = {}) {
  const held = new Set<string>();
  const log = { uploads: 0, uploadedBytes: 0, byHash: [] as string[], direct: 0 };
  let failures = options.failUploads ?? 0;
  const transport: HeldAudioTransport = {
    async upload(file, name, { onProgress }) {
      await Promise.resolve();
      if (options.library === false) throw new ApiError(404, 'Not Found.');
      if (failures > 0) {
        failures--;
        throw new ApiError(0, 'The Cratehouse server could not be reached.');
      }
      log.uploads++;
      log.uploadedBytes += file.size;
      onProgress?.({ loaded: file.size, total: file.size });
      const sha256 = await file.text();
      held.add(sha256);
      return { id: 1, sha256, name } as LibraryItemResponse;
    },
    async byHash(route, sha256) {
      await Promise.resolve();
      log.byHash.push(`${route}:${sha256}`);
      if (!held.has(sha256)) throw new ApiError(404, 'No audio with this sha256 is held for you: send the file.');
      return { result: { route } as never, cache: 'miss' };
    },
    async direct(route, file) {
      log.direct++;
      log.uploadedBytes += file.size;
      return { result: { route } as never, cache: 'miss' };
    },
  };
  return { transport, log, held };
}

const routes = ['waveform', 'onsets', 'spectrum', 'loudness', 'analyze', 'grade', 'naming'] as const;

describe('holdAudio', () => {
  it('uploads a file once for the seven analyses the Analyse screen asks, concurrently', async () => {
    const server = fakeServer();
    const file = new Blob(['abc123']);
    const audio = holdAudio(file, 'kick.wav', server.transport);
    const answers = await Promise.all(routes.map((route) => audio.analyse(route, {})));
    expect(answers.map((a) => (a.result as unknown as { route: string }).route)).toEqual([...routes]);
    expect(server.log.uploads).toBe(1);
    expect(server.log.uploadedBytes).toBe(file.size);
    expect(server.log.byHash).toHaveLength(7);
    expect(audio.item()?.sha256).toBe('abc123');
  });

  it('sends nothing for audio the server already holds, and once when it answers 404', async () => {
    const server = fakeServer();
    server.held.add('held');
    const audio = holdAudio(new Blob(['held']), 'a.wav', server.transport, { sha256: 'held' });
    await audio.analyse('loudness', {});
    await audio.analyse('analyze', {});
    expect(server.log.uploads).toBe(0);

    const gone = holdAudio(new Blob(['gone']), 'b.wav', server.transport, { sha256: 'gone' });
    await Promise.all([gone.analyse('loudness', {}), gone.analyse('grade', {})]);
    expect(server.log.uploads).toBe(1);
  });

  it('falls back to uploading to each route only on a server without the library', async () => {
    const server = fakeServer({ library: false });
    const audio = holdAudio(new Blob(['x']), 'x.wav', server.transport);
    await audio.analyse('loudness', {});
    await audio.analyse('analyze', {});
    expect(server.log.direct).toBe(2);
    expect(audio.item()).toBeNull();
  });

  it('does not remember a failed upload: the next request sends the file again', async () => {
    const server = fakeServer({ failUploads: 1 });
    const audio = holdAudio(new Blob(['y']), 'y.wav', server.transport);
    await expect(audio.analyse('loudness', {})).rejects.toMatchObject({ status: 0 });
    await audio.analyse('loudness', {});
    expect(server.log.uploads).toBe(1);
  });

  it('stops one request on its own signal without cancelling the shared upload', async () => {
    const server = fakeServer();
    const audio = holdAudio(new Blob(['z']), 'z.wav', server.transport);
    const controller = new AbortController();
    const stopped = audio.analyse('naming', {}, { signal: controller.signal });
    controller.abort(new DOMException('replaced', 'AbortError'));
    const other = audio.analyse('loudness', {});
    await expect(stopped).rejects.toMatchObject({ name: 'AbortError' });
    await other;
    expect(server.log.uploads).toBe(1);
  });

  it('gives every waiting request the upload progress, and says when the bytes are held', async () => {
    const server = fakeServer();
    const audio = holdAudio(new Blob(['four']), 'p.wav', server.transport);
    const seen: number[] = [];
    await Promise.all([
      audio.analyse('waveform', {}, { onProgress: (p) => seen.push(p.loaded) }),
      audio.analyse('onsets', {}, { onProgress: (p) => seen.push(p.loaded) }),
    ]);
    expect(seen).toEqual([4, 4, 4, 4]);
    const later: number[] = [];
    await audio.analyse('loudness', {}, { onProgress: (p) => later.push(p.loaded / p.total) });
    expect(later).toEqual([1]);
  });

  it('knows which analyses the upload answer listed as under way, completing a query with the route’s defaults', async () => {
    const summary_analyses: LibraryItemResponse['summary_analyses'] = [
      { route: '/onsets', params: {}, defaults: {} },
      { route: '/grade', params: { role: '' }, defaults: { role: '' } },
      { route: '/naming', params: { index: 1 }, defaults: { index: 1 } },
      { route: '/waveform', params: { bins: 64 }, defaults: { bins: 800 } },
    ];
    const transport: HeldAudioTransport = {
      ...fakeServer().transport,
      upload: () => Promise.resolve({ id: 1, sha256: 'abc', summary_analyses } as LibraryItemResponse),
    };
    const audio = holdAudio(new Blob(['abc']), 'a.wav', transport);
    expect(audio.isUnderWay('onsets', {})).toBe(false); // nothing known before the upload answers
    await audio.hold();
    expect(audio.isUnderWay('onsets', {})).toBe(true);
    expect(audio.isUnderWay('grade', {})).toBe(true);
    expect(audio.isUnderWay('grade', { role: 'bass' })).toBe(false);
    expect(audio.isUnderWay('naming', { index: 1 })).toBe(true);
    expect(audio.isUnderWay('naming', {})).toBe(true);
    expect(audio.isUnderWay('naming', { index: 2 })).toBe(false);
    expect(audio.isUnderWay('waveform', { bins: 64 })).toBe(true);
    expect(audio.isUnderWay('waveform', {})).toBe(false); // 800 bins by default
    expect(audio.isUnderWay('waveform', { bins: 4000 })).toBe(false);
    expect(audio.isUnderWay('loudness', {})).toBe(false); // not listed
  });

  it('is not sure of anything for a file opened by hash, or a server that lists nothing', async () => {
    const server = fakeServer();
    server.held.add('abc');
    const byHash = holdAudio(new Blob(['abc']), 'a.wav', server.transport, { sha256: 'abc' });
    await byHash.hold();
    expect(byHash.isUnderWay('onsets', {})).toBe(false);
    const uploaded = holdAudio(new Blob(['xyz']), 'b.wav', server.transport);
    await uploaded.hold();
    expect(server.log.uploads).toBe(1);
    expect(uploaded.isUnderWay('onsets', {})).toBe(false);
  });
});
