import { useId, useRef, useState, type DragEvent, type ReactNode } from 'react';

/** Audio file extensions the pickers offer (the server decodes anything ffmpeg can). */
export const audioAccept = 'audio/*,.wav,.wave,.aif,.aiff,.flac,.mp3,.ogg,.oga,.opus,.m4a,.aac,.mp4,.webm';

const audioExtension = /\.(wav|wave|aif|aiff|aifc|flac|mp3|ogg|oga|opus|m4a|aac|mp4|webm|wma|caf)$/i;

/** True for a File that looks like audio by type or extension (folders bring other files too). */
export function looksLikeAudio(file: File): boolean {
  return file.type.startsWith('audio/') || audioExtension.test(file.name);
}

async function readEntry(entry: FileSystemEntry, into: File[]): Promise<void> {
  if (entry.isFile) {
    const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
    into.push(file);
    return;
  }
  if (entry.isDirectory) {
    const reader = (entry as FileSystemDirectoryEntry).createReader();
    // readEntries answers in batches until it answers an empty one.
    for (;;) {
      const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
      if (batch.length === 0) break;
      for (const child of batch) await readEntry(child, into);
    }
  }
}

/** The files of a drop, walking into dropped folders. */
async function filesOfDrop(event: DragEvent): Promise<{ files: File[]; fromFolder: boolean }> {
  const items = Array.from(event.dataTransfer.items ?? []);
  const entries = items
    .map((item) => (item.kind === 'file' ? item.webkitGetAsEntry?.() : null))
    .filter((entry): entry is FileSystemEntry => Boolean(entry));
  if (entries.length === 0) return { files: Array.from(event.dataTransfer.files), fromFolder: false };
  const files: File[] = [];
  for (const entry of entries) await readEntry(entry, files);
  return { files, fromFolder: entries.some((entry) => entry.isDirectory) };
}

/**
 * A drop zone with a file picker (and, with `folders`, a folder picker). Keyboard users reach the
 * buttons; the zone itself only adds drag and drop.
 */
export function FileDrop({
  multiple = false,
  folders = false,
  label,
  hint,
  onFiles,
  compact = false,
  accept = audioAccept,
  children,
}: {
  readonly multiple?: boolean;
  readonly folders?: boolean;
  readonly label: string;
  readonly hint?: ReactNode;
  readonly onFiles: (files: File[]) => void;
  readonly compact?: boolean;
  /** The file picker's filter; "" offers every file. */
  readonly accept?: string;
  readonly children?: ReactNode;
}) {
  const fileInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);
  const hintId = useId();

  // Files a person picked or dropped go to the server as they are (it says in a sentence what it
  // cannot decode); only a folder's other files (covers, notes) are left out.
  const deliver = (list: FileList | File[] | null, fromFolder: boolean) => {
    const all = Array.from(list ?? []);
    const files = fromFolder ? all.filter(looksLikeAudio) : all;
    if (files.length > 0) onFiles(multiple ? files : files.slice(0, 1));
  };

  return (
    <div
      className={`file-drop${dragging ? ' file-drop-active' : ''}${compact ? ' file-drop-compact' : ''}`}
      onDragOver={(event) => {
        event.preventDefault();
        event.dataTransfer.dropEffect = 'copy';
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={(event) => {
        event.preventDefault();
        setDragging(false);
        void filesOfDrop(event).then(({ files, fromFolder }) => deliver(files, fromFolder));
      }}
    >
      <p className="file-drop-label">{label}</p>
      {hint ? (
        <p className="file-drop-hint muted" id={hintId}>
          {hint}
        </p>
      ) : null}
      <div className="actions">
        <button
          type="button"
          className="button button-primary"
          onClick={() => fileInput.current?.click()}
          aria-describedby={hint ? hintId : undefined}
        >
          {multiple ? 'Choose files…' : 'Choose a file…'}
        </button>
        {folders ? (
          <button type="button" className="button button-secondary" onClick={() => folderInput.current?.click()}>
            Choose a folder…
          </button>
        ) : null}
        {children}
      </div>
      <input
        ref={fileInput}
        type="file"
        hidden
        accept={accept || undefined}
        multiple={multiple}
        data-testid="file-input"
        onChange={(event) => {
          deliver(event.currentTarget.files, false);
          event.currentTarget.value = '';
        }}
      />
      {folders ? (
        <input
          ref={folderInput}
          type="file"
          hidden
          multiple
          data-testid="folder-input"
          // webkitdirectory is not in React's types; Chromium and Firefox support it.
          {...{ webkitdirectory: '' }}
          onChange={(event) => {
            deliver(event.currentTarget.files, true);
            event.currentTarget.value = '';
          }}
        />
      ) : null}
    </div>
  );
}
