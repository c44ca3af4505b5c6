import { nextId, patchRow, type ProjectHookRecord } from '../../store/schema.js';
import type { Store } from '../../store/store.js';

/** Store access for project hooks. */
export interface HooksRepo {
  ofProject(projectId: number): readonly Readonly<ProjectHookRecord>[];
  byId(projectId: number, hookId: number): Readonly<ProjectHookRecord> | undefined;
  insert(hook: Omit<ProjectHookRecord, 'id'>): Promise<Readonly<ProjectHookRecord>>;
  update(hookId: number, patch: Partial<ProjectHookRecord>): Promise<Readonly<ProjectHookRecord>>;
  /** Remove a hook; resolves to the removed record, or undefined when there was none. */
  remove(projectId: number, hookId: number): Promise<Readonly<ProjectHookRecord> | undefined>;
  /** Resolve once every hook change other nodes committed before the call is readable here (Store.sync). */
  sync(): Promise<void>;
}

/** A HooksRepo over the store. */
export function createHooksRepo(store: Store): HooksRepo {
  return {
    ofProject: (projectId) => store.data.hooks.filter((h) => h.projectId === projectId),
    byId: (projectId, hookId) => store.data.hooks.find((h) => h.projectId === projectId && h.id === hookId),
    // Hooks name their tables: the project caches (JSON, list index) outlive them.
    insert: (hook) =>
      store.mutate(
        (d) => {
          const record: ProjectHookRecord = { ...hook, id: nextId(d, 'hooks') };
          d.hooks.push(record);
          return record;
        },
        ['hooks', 'sequences'],
      ),
    update: (hookId, patch) =>
      store.mutate(
        (d) => {
          const hook = patchRow(d.hooks, (h) => h.id === hookId, patch);
          if (!hook) throw new Error(`hook ${hookId} vanished`);
          return hook;
        },
        ['hooks'],
      ),
    remove: (projectId, hookId) =>
      store.mutate(
        (d) => {
          const hook = d.hooks.find((h) => h.projectId === projectId && h.id === hookId);
          if (hook) d.hooks = d.hooks.filter((h) => h !== hook);
          return hook;
        },
        ['hooks'],
      ),
    sync: () => store.sync(),
  };
}
