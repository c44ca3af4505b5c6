import { describe, expect, it } from 'vitest';
import type { ProjectRecord } from '../../store/schema.js';
import type { Store } from '../../store/store.js';
import { projectFixture, seedOwner } from '../../test-support/store-fixtures.js';
import { storeKinds } from '../../test-support/store-kinds.js';
import { ProjectListIndex } from './project-list.js';
import { createProjectsRepo, type ProjectsRepo } from './projects-repo.js';

/** Fork counts straight from the rows: the answer the kept counts must equal. */
const countForks = (rows: readonly Readonly<ProjectRecord>[]) => {
  const out = new Map<number, number>();
  for (const p of rows) if (p.forkedFromId !== null) out.set(p.forkedFromId, (out.get(p.forkedFromId) ?? 0) + 1);
  return out;
};

/** A search as a plain filter over the rows (name, path, description; substring, ignoring case). */
const linearSearch = (rows: readonly Readonly<ProjectRecord>[], term: string) =>
  rows.filter((p) => [p.name, p.path, p.description ?? ''].some((s) => s.toLowerCase().includes(term.toLowerCase()))).map((p) => p.id);

/** A project of the fixtures' owner (every column: PostgreSQL holds them all), forked from `forkedFromId`. */
const make = (repo: ProjectsRepo, name: string, forkedFromId: number | null, description: string | null = null) =>
  repo.insert({ ...projectFixture(name.toLowerCase().replace(/\W+/g, '-')), name, description, forkedFromId });

for (const kind of storeKinds) {
  describe.skipIf(kind.skip !== null)(`kept project indexes on the ${kind.name} store`, () => {
    it('fork counts equal a count over the rows through forks, unforks, re-forks, removals and a write the repository did not make', async () => {
      const { store } = await kind.open();
      await seedOwner(store);
      const repo = createProjectsRepo(store);
      const check = () => expect(new Map(repo.forkCounts())).toEqual(countForks(repo.projects));
      const origin = await make(repo, 'Origin', null);
      const other = await make(repo, 'Other', null);
      check();
      const a = await make(repo, 'A', origin.id);
      const b = await make(repo, 'B', origin.id);
      await make(repo, 'C', a.id);
      check();
      expect(repo.forkCounts().get(origin.id)).toBe(2);
      await repo.update(b.id, { forkedFromId: null });
      check();
      await repo.update(b.id, { forkedFromId: other.id });
      check();
      // Removing a parent unlinks its forks.
      await repo.remove(a.id);
      check();
      await repo.remove(origin.id);
      check();
      expect(repo.forkCounts().get(origin.id)).toBeUndefined();
      // A write to the table the repository did not make: the index is rebuilt.
      await store.mutate((d) => {
        d.projects = d.projects.map((p) => (p.id === b.id ? { ...p, forkedFromId: null } : p));
      });
      check();
      expect(repo.forkCounts().size).toBe(0);
      await store.close();
    });

    it('search and fork counts follow creates, renames and deletes, on this node and (PostgreSQL) on another', async () => {
      const opened = await kind.open();
      await seedOwner(opened.store);
      // With PostgreSQL, a second node on the same database writes half of the changes.
      const stores: Store[] = [opened.store];
      if (kind.name === 'postgres') stores.push(await opened.reopen());
      const here = createProjectsRepo(stores[0]!);
      const there = createProjectsRepo(stores.at(-1)!);
      const index = new ProjectListIndex(here);
      const check = async () => {
        await stores[0]!.sync();
        for (const term of ['synth', 'SYNTHWAVE', 'wave', 'loop', 'kit', 'e', 'ü'])
          expect(
            index.matching(term.toLowerCase()).records.map((p) => p.id),
            term,
          ).toEqual(linearSearch(here.projects, term));
        expect(new Map(here.forkCounts())).toEqual(countForks(here.projects));
      };
      const tape = await make(here, 'Tape Loops', null, 'synthwave stems');
      await check();
      const kit = await make(there, 'Drum Kit', null);
      await check();
      await there.sync();
      const fork = await make(there, 'Kit Fork', kit.id, 'Überwave');
      await check();
      await there.sync();
      await there.update(kit.id, { name: 'Synth Kit', path: 'synth-kit' });
      await check();
      await here.update(tape.id, { name: 'Tape', path: 'tape', description: null });
      await check();
      await there.sync();
      await there.remove(fork.id);
      await check();
      await here.remove(kit.id);
      await check();
      expect(index.matching('synth').records).toEqual([]);
      for (const s of stores) await s.close();
    });
  });
}
