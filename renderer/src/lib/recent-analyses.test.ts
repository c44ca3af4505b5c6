import { describe, expect, it } from 'vitest';
import { parseRecentAnalyses, RECENT_LIMIT, withRecentAnalysis, type RecentAnalysis } from './recent-analyses';

const kick: RecentAnalysis = { name: 'kick.wav', size: 100, at: 1, durationS: 0.5, role: 'percs', tempoBpm: null, key: null };

describe('recent analyses', () => {
  it('puts the newest first and moves a file analysed again to the top', () => {
    const loop: RecentAnalysis = { ...kick, name: 'loop.wav', at: 2, tempoBpm: 120, key: 'A minor' };
    const again = { ...kick, at: 3 };
    expect(withRecentAnalysis(withRecentAnalysis([kick], loop), again).map((r) => [r.name, r.at])).toEqual([
      ['kick.wav', 3],
      ['loop.wav', 2],
    ]);
  });

  it('treats a different size as a different file', () => {
    expect(withRecentAnalysis([kick], { ...kick, size: 101 })).toHaveLength(2);
  });

  it(`keeps at most ${RECENT_LIMIT}`, () => {
    let list: RecentAnalysis[] = [];
    for (let i = 0; i < 20; i++) list = withRecentAnalysis(list, { ...kick, name: `${i}.wav`, at: i });
    expect(list).toHaveLength(RECENT_LIMIT);
    expect(list[0]?.name).toBe('19.wav');
  });

  it('reads back what it stored and drops entries that are not valid', () => {
    const stored = JSON.stringify([
      kick,
      { name: 42 },
      null,
      { ...kick, name: '' },
      { ...kick, at: 'now' },
      { ...kick, name: 'b.wav', role: 7 },
    ]);
    expect(parseRecentAnalyses(stored)).toEqual([kick, { ...kick, name: 'b.wav', role: null }]);
    for (const text of [null, '', '{', '{}', '"x"']) expect(parseRecentAnalyses(text)).toEqual([]);
  });
});
