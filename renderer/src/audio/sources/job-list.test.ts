import { describe, expect, it } from 'vitest';
import { jobListKey, loadJobList, maxRememberedJobs, parseJobList, saveJobList, withJob, withoutJob, type RememberedJob } from './job-list';

const job = (id: string, added = 1): RememberedJob => ({ id, url: `http://example.test/${id}.wav`, added });

/** A Map behind the Storage methods the list uses. */
function memoryStorage() {
  const map = new Map<string, string>();
  return {
    map,
    getItem: (key: string) => map.get(key) ?? null,
    setItem: (key: string, value: string) => void map.set(key, value),
    removeItem: (key: string) => void map.delete(key),
  };
}

describe('job list', () => {
  it('puts a new job first and moves a repeated id to the front', () => {
    const list = withJob(withJob([], job('a')), job('b'));
    expect(list.map((j) => j.id)).toEqual(['b', 'a']);
    expect(withJob(list, job('a', 2)).map((j) => [j.id, j.added])).toEqual([
      ['a', 2],
      ['b', 1],
    ]);
  });

  it('forgets the oldest beyond the limit', () => {
    let list: RememberedJob[] = [];
    for (let i = 0; i < maxRememberedJobs + 3; i++) list = withJob(list, job(`j${i}`));
    expect(list).toHaveLength(maxRememberedJobs);
    expect(list[0]?.id).toBe(`j${maxRememberedJobs + 2}`);
    expect(list.some((j) => j.id === 'j0')).toBe(false);
  });

  it('removes a job by id', () => {
    expect(withoutJob([job('a'), job('b')], 'a').map((j) => j.id)).toEqual(['b']);
  });

  it('drops unreadable or repeated entries when parsing', () => {
    expect(parseJobList(null)).toEqual([]);
    expect(parseJobList('not json')).toEqual([]);
    expect(parseJobList('{"id":"a"}')).toEqual([]);
    expect(
      parseJobList(JSON.stringify([job('a'), { id: 3 }, { id: '', url: 'x', added: 1 }, job('a', 5), job('b')])).map((j) => j.id),
    ).toEqual(['a', 'b']);
  });

  it('keeps each tenant in its own key and removes the key for an empty list', () => {
    const storage = memoryStorage();
    saveJobList(storage, 'root', [job('a')]);
    saveJobList(storage, 'other', [job('b')]);
    expect(loadJobList(storage, 'root').map((j) => j.id)).toEqual(['a']);
    expect(loadJobList(storage, 'other').map((j) => j.id)).toEqual(['b']);
    saveJobList(storage, 'root', []);
    expect(storage.map.has(jobListKey('root'))).toBe(false);
  });

  it('survives storage that throws', () => {
    const broken = {
      getItem: () => {
        throw new Error('denied');
      },
      setItem: () => {
        throw new Error('full');
      },
      removeItem: () => {
        throw new Error('denied');
      },
    };
    expect(loadJobList(broken, 'root')).toEqual([]);
    expect(() => saveJobList(broken, 'root', [job('a')])).not.toThrow();
    expect(loadJobList(null, 'root')).toEqual([]);
  });
});
