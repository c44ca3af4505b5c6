import { describe, expect, it } from 'vitest';
import type { HeldAudioTransport } from '../../api/held-audio';
import type { LibraryItemResponse } from '../../api/library';
import { createAnalyseFile } from './analyse-file';

// Minimal answers of the four routes, enough for the batch's figures.
const answers: Record<string, unknown> = {
  loudness: { source: { duration_s: 2 }, integrated_lufs: -12, clip_lufs: -11, true_peak_dbtp: -1 },
  analyze: {
    sample: { role: 'percs', confidence: 0.9 },
    features: { chroma: { key: null, mode: null, key_confidence: 0, key_reason: 'no_pitched_content' }, rhythm: { tempo_bpm: 120 } },
  },
  grade: { tier: 'A', score: 80, graded_s: 2, flags: [] },
  naming: { name: '01_percs_120bpm.wav' },
};

describe('a batch file', () => {
  it('is uploaded once, into the library, and analysed four times by hash', async () => {
    const requests: string[] = [];
    let uploadedBytes = 0;
    const transport: HeldAudioTransport = {
      async upload(file, name) {
        requests.push(`upload ${name}`);
        uploadedBytes += file.size;
        return { id: 42, sha256: 'f'.repeat(64) } as LibraryItemResponse;
      },
      async byHash(route, sha256, query) {
        requests.push(`${route}?sha256=${sha256.slice(0, 4)}${JSON.stringify(query)}`);
        return { result: answers[route] as never, cache: 'miss' };
      },
      async direct(route) {
        requests.push(`direct ${route}`);
        return { result: answers[route] as never, cache: 'miss' };
      },
    };
    const file = new File([new Uint8Array(1000)], 'kick.wav');
    const progress: number[] = [];
    const result = await createAnalyseFile(() => transport)(file, 3, {
      token: 't',
      signal: new AbortController().signal,
      onProgress: (_stage, fraction) => progress.push(fraction),
    });
    expect(requests).toEqual([
      'upload kick.wav',
      'loudness?sha256=ffff{}',
      'analyze?sha256=ffff{}',
      'grade?sha256=ffff{}',
      'naming?sha256=ffff{"index":3}',
    ]);
    expect(uploadedBytes).toBe(1000);
    expect(result).toMatchObject({ role: 'percs', tier: 'A', suggestedName: '01_percs_120bpm.wav', libraryItemId: 42 });
    // Progress only goes forward and ends at 1.
    expect(progress.every((value, i) => i === 0 || value >= progress[i - 1]!)).toBe(true);
    expect(progress.at(-1)).toBe(1);
  });
});
