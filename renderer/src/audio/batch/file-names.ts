// Names for "apply names": the suggested name plus the original file's extension, unique within
// the batch. Uniqueness ignores case because macOS and Windows file systems do.

/** The extension of a file name with its dot (".wav"), or "" when it has none. */
export function extensionOf(fileName: string): string {
  const base = fileName.slice(fileName.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  // A leading dot (".hidden") is part of the name, not an extension.
  return dot > 0 && dot < base.length - 1 ? base.slice(dot) : '';
}

/** The suggested name with the original file's extension: ("01_bass_dark-sub", "Sub.WAV") → "01_bass_dark-sub.WAV". */
export function renamedFileName(suggested: string, originalName: string): string {
  return `${suggested}${extensionOf(originalName)}`;
}

/**
 * The same names, made unique without regard to case by adding "-2", "-3", … before the extension
 * of the second and later copies. A generated name never takes one that appears later in the list.
 */
export function uniqueNames(names: readonly string[]): string[] {
  const taken = new Set(names.map((name) => name.toLowerCase()));
  const used = new Set<string>();
  return names.map((name) => {
    const key = name.toLowerCase();
    if (!used.has(key)) {
      used.add(key);
      return name;
    }
    const extension = extensionOf(name);
    const stem = name.slice(0, name.length - extension.length);
    for (let n = 2; ; n++) {
      const candidate = `${stem}-${n}${extension}`;
      const candidateKey = candidate.toLowerCase();
      if (!used.has(candidateKey) && !taken.has(candidateKey)) {
        used.add(candidateKey);
        return candidate;
      }
    }
  });
}
