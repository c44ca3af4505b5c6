import type { ProjectRecord } from '../../store/schema.js';

/**
 * Projects by id and, per namespace, by lowercased path and by lowercased name (both unique per
 * namespace ignoring case): built from the table in one pass, then kept up to date row by row by
 * the repository's own writes, so a create's duplicate check, a lookup by path and the fork counts
 * of its answer cost O(1) at 100,000 projects.
 */
export class ProjectsIndex {
  private readonly ids = new Map<number, ProjectRecord>();
  private readonly paths = new Map<number, Map<string, ProjectRecord>>();
  private readonly names = new Map<number, Map<string, ProjectRecord>>();
  private readonly forks = new Map<number, number>();

  constructor(rows: readonly ProjectRecord[]) {
    for (const row of rows) this.add(row);
  }

  /** By id. */
  findById(id: number): ProjectRecord | undefined {
    return this.ids.get(id);
  }

  /** By namespace and path, ignoring case. */
  findByPath(namespaceId: number, path: string): ProjectRecord | undefined {
    return this.paths.get(namespaceId)?.get(path.toLowerCase());
  }

  /** By namespace and name, ignoring case. */
  findByName(namespaceId: number, name: string): ProjectRecord | undefined {
    return this.names.get(namespaceId)?.get(name.toLowerCase());
  }

  /** How many projects are forks of each forked project (kept row by row: a create's answer counts without a pass over the table). */
  forkCounts(): ReadonlyMap<number, number> {
    return this.forks;
  }

  /** Put `row` in place of the row with its id (if any). */
  put(row: ProjectRecord): void {
    const old = this.ids.get(row.id);
    if (old) this.drop(old);
    this.add(row);
  }

  private add(row: ProjectRecord): void {
    this.ids.set(row.id, row);
    setIn(this.paths, row.namespaceId, row.path.toLowerCase(), row);
    setIn(this.names, row.namespaceId, row.name.toLowerCase(), row);
    if (row.forkedFromId !== null) this.forks.set(row.forkedFromId, (this.forks.get(row.forkedFromId) ?? 0) + 1);
  }

  private drop(row: ProjectRecord): void {
    this.ids.delete(row.id);
    deleteIn(this.paths, row.namespaceId, row.path.toLowerCase(), row);
    deleteIn(this.names, row.namespaceId, row.name.toLowerCase(), row);
    if (row.forkedFromId !== null) {
      const left = (this.forks.get(row.forkedFromId) ?? 0) - 1;
      if (left > 0) this.forks.set(row.forkedFromId, left);
      else this.forks.delete(row.forkedFromId);
    }
  }
}

function setIn(maps: Map<number, Map<string, ProjectRecord>>, namespaceId: number, key: string, row: ProjectRecord): void {
  let inner = maps.get(namespaceId);
  if (!inner) maps.set(namespaceId, (inner = new Map()));
  // The first row wins, as a scan in table order would find it.
  if (!inner.has(key)) inner.set(key, row);
}

function deleteIn(maps: Map<number, Map<string, ProjectRecord>>, namespaceId: number, key: string, row: ProjectRecord): void {
  const inner = maps.get(namespaceId);
  if (inner?.get(key)?.id === row.id) inner.delete(key);
}
