/**
 * Serialised project JSON, kept across requests until the store changes. A list page is then the
 * concatenation of cached fragments instead of 20 presentations and one 45 KiB JSON.stringify.
 * Correctness rests on two keys: the store's revision (bumped by every write, so an edit, star, share,
 * fork, rename or membership change drops everything) and a variant (project-presenter.ts's variantOf) naming every per-request input of
 * the presenter (base URL, the caller's access and notification levels, whether they administer the
 * project and can read its fork parent).
 */
export class ProjectJsonCache {
  private revision = -1;
  private readonly texts = new Map<string, Buffer>();

  constructor(
    private readonly currentRevision: () => number,
    /** Entries kept (about 2 KiB each); the oldest go first. */
    private readonly capacity = 5000,
  ) {}

  /** The UTF-8 JSON of `present()` for a project in one variant, presented only when not cached. */
  json(projectId: number, variant: string, present: () => unknown): Buffer {
    const revision = this.currentRevision();
    if (revision !== this.revision) {
      this.texts.clear();
      this.revision = revision;
    }
    const key = `${projectId} ${variant}`;
    let text = this.texts.get(key);
    if (text === undefined) {
      text = Buffer.from(JSON.stringify(present()));
      if (this.texts.size >= this.capacity) this.texts.delete(this.texts.keys().next().value!);
      this.texts.set(key, text);
    }
    return text;
  }

  /** Entries held (for tests). */
  get size(): number {
    return this.texts.size;
  }
}

const open = Buffer.from('[');
const comma = Buffer.from(',');
const close = Buffer.from(']');

/** A JSON array of serialised items, byte for byte what JSON.stringify gives for the array of their values. */
export function joinJsonArray(items: readonly Buffer[]): Buffer {
  const parts: Buffer[] = [open];
  items.forEach((item, i) => {
    if (i > 0) parts.push(comma);
    parts.push(item);
  });
  parts.push(close);
  return Buffer.concat(parts);
}
