import {
  badgeSequence,
  nextId,
  patchRow,
  type ProjectBadgeRecord,
  type ProjectExportRecord,
  type ProjectHookRecord,
  type ProjectRecord,
  type UploadRecord,
} from '../../store/schema.js';
import type { Store } from '../../store/store.js';

/** What a finished archive import adds to its project, written in one store mutation. */
export interface ImportedContent {
  /** The project's new settings and `import_status: finished`. */
  readonly project: Partial<ProjectRecord>;
  readonly hooks: readonly Omit<ProjectHookRecord, 'id' | 'projectId'>[];
  readonly uploads: readonly Omit<UploadRecord, 'id' | 'projectId'>[];
  /** The project's own badges (none when left out). */
  readonly badges?: readonly Omit<ProjectBadgeRecord, 'id' | 'projectId'>[];
}

/**
 * Store access for project export and import: the `projectExports` table (one row per project),
 * reading a project's hooks and badges for its archive, and landing an import's records atomically.
 */
export interface ExportsRepo {
  byProject(projectId: number): Readonly<ProjectExportRecord> | undefined;
  /** Replace the project's export row (a new export forgets the previous one). */
  put(record: ProjectExportRecord): Promise<Readonly<ProjectExportRecord>>;
  /** Change the project's export row; undefined when it is gone (the project was deleted meanwhile). */
  update(projectId: number, patch: Partial<ProjectExportRecord>): Promise<Readonly<ProjectExportRecord> | undefined>;
  /** The project's hooks as stored (tokens included: the caller leaves them out of archives). */
  hooksOf(projectId: number): readonly Readonly<ProjectHookRecord>[];
  /** The project's own badges, in id order (its groups' badges stay with the groups). */
  badgesOf(projectId: number): readonly Readonly<ProjectBadgeRecord>[];
  /**
   * Apply an import in one mutation: the project's settings, its hooks, badges and upload records, or
   * nothing at all (a failed write leaves no half-imported project). False when the project is gone.
   */
  finishImport(projectId: number, content: ImportedContent): Promise<boolean>;
}

/** An ExportsRepo over the store. */
export function createExportsRepo(store: Store): ExportsRepo {
  return {
    byProject: (projectId) => store.data.projectExports.find((e) => e.projectId === projectId),
    // Export status is written at every step of a job: named, so the project caches (JSON, list index) outlive it.
    put: (record) =>
      store.mutate(
        (d) => {
          // Replaced where it stands (one row per project), so the table keeps its order.
          const copy = { ...record };
          const i = d.projectExports.findIndex((e) => e.projectId === record.projectId);
          if (i >= 0) d.projectExports[i] = copy;
          else d.projectExports.push(copy);
          return copy;
        },
        ['projectExports'],
      ),
    update: (projectId, patch) =>
      store.mutate(
        (d) => {
          return patchRow(d.projectExports, (e) => e.projectId === projectId, patch);
        },
        ['projectExports'],
      ),
    hooksOf: (projectId) => store.data.hooks.filter((h) => h.projectId === projectId),
    badgesOf: (projectId) => store.data.projectBadges.filter((b) => b.projectId === projectId).sort((a, b) => a.id - b.id),
    finishImport: (projectId, content) =>
      store.mutate(
        (d) => {
          if (!patchRow(d.projects, (p) => p.id === projectId, content.project)) return false;
          for (const hook of content.hooks) d.hooks.push({ ...hook, id: nextId(d, 'hooks'), projectId });
          for (const badge of content.badges ?? []) d.projectBadges.push({ ...badge, id: nextId(d, badgeSequence), projectId });
          for (const upload of content.uploads) d.uploads.push({ ...upload, id: nextId(d, 'uploads'), projectId });
          return true;
        },
        ['projects', 'hooks', 'projectBadges', 'uploads', 'sequences'],
      ),
  };
}
