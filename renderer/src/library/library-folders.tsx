// Folders on the server's disk indexed in place: add one (the desktop app's folder picker, or a
// path typed on a self-hosted server), watch its scan's progress and result, stop indexing it.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { ApiError } from '../api/http';
import { messageOf } from '../api/error-message';
import { addFolder, listFolders, removeFolder, type LibraryFolderResponse } from '../api/library';
import { desktopBridge } from '../lib/desktop-bridge';
import { describeScanProgress, describeScanSkips } from './folder-scan-text';

/** How often the list is asked again while a scan runs. */
const pollMs = 1000;

/** The "Folders on disk" fold of the Library; `onItemsChanged` reloads the list as scans add items. */
export function LibraryFolders({ token, onItemsChanged }: { readonly token: string; readonly onItemsChanged: () => void }) {
  const queryClient = useQueryClient();
  const bridge = desktopBridge();
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const key = ['library', 'folders', token];
  const folders = useQuery({
    queryKey: key,
    queryFn: ({ signal }) => listFolders(token, signal),
    retry: false,
    refetchInterval: (query) => (query.state.data?.items.some((f) => f.scan?.state === 'scanning') ? pollMs : false),
  });

  // Items a scan added show up in the list as it goes, and once more when it ends.
  const indexed = folders.data?.items.reduce((n, f) => n + f.item_count, 0);
  const lastIndexed = useRef(indexed);
  useEffect(() => {
    if (indexed !== undefined && lastIndexed.current !== undefined && indexed !== lastIndexed.current) onItemsChanged();
    lastIndexed.current = indexed;
  }, [indexed, onItemsChanged]);

  const off = folders.error instanceof ApiError && folders.error.status === 403;
  const refresh = () => queryClient.invalidateQueries({ queryKey: key });

  const add = async (path: string) => {
    setBusy(true);
    setProblem(null);
    try {
      await addFolder(token, path);
      setTyped('');
      await refresh();
    } catch (error) {
      setProblem(messageOf(error, 'The folder was not added.'));
    } finally {
      setBusy(false);
    }
  };
  const pick = async () => {
    const path = await bridge?.pickFolder?.();
    if (path) await add(path);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (typed.trim()) void add(typed.trim());
  };
  const remove = async (folder: LibraryFolderResponse) => {
    setProblem(null);
    try {
      await removeFolder(token, folder.id);
      await refresh();
      onItemsChanged();
    } catch (error) {
      setProblem(messageOf(error, 'The folder was not removed.'));
    }
  };

  const items = folders.data?.items ?? [];
  return (
    <details className="lib-folders" open={items.length > 0 ? true : undefined}>
      <summary>
        Folders on disk{items.length > 0 ? ` (${items.length})` : ''}
        {items.some((f) => f.scan?.state === 'scanning') ? <span className="lib-folders-busy"> · scanning</span> : null}
      </summary>
      {off ? (
        <p className="muted lib-folders-note">
          {messageOf(folders.error, 'Indexing folders on disk is off on this server.')} Files you add above are kept instead.
        </p>
      ) : (
        <>
          <p className="muted lib-folders-note">
            Index a folder where it is (nothing is copied); new files in it are added as they appear.
          </p>
          {bridge?.pickFolder ? (
            <button type="button" className="button button-secondary" onClick={() => void pick()} disabled={busy}>
              Add a folder…
            </button>
          ) : (
            <form className="lib-folders-form" onSubmit={submit}>
              <label className="lib-folders-field">
                <span className="label">Folder on the server</span>
                <input
                  className="input"
                  type="text"
                  value={typed}
                  placeholder="/home/me/Samples"
                  spellCheck={false}
                  autoComplete="off"
                  onChange={(event) => setTyped(event.target.value)}
                />
              </label>
              <button type="submit" className="button button-secondary" disabled={busy || typed.trim() === ''}>
                Index folder
              </button>
            </form>
          )}
          {problem ? (
            <p className="lib-folders-problem" role="alert">
              {problem}
            </p>
          ) : null}
          {folders.error && !off ? <p className="lib-folders-problem">{messageOf(folders.error, 'Folders could not be loaded.')}</p> : null}
          <ul className="lib-folder-list">
            {items.map((folder) => (
              <FolderRow key={folder.id} folder={folder} onRemove={() => void remove(folder)} />
            ))}
          </ul>
        </>
      )}
    </details>
  );
}

function FolderRow({ folder, onRemove }: { readonly folder: LibraryFolderResponse; readonly onRemove: () => void }) {
  const scan = folder.scan;
  const skips = scan ? describeScanSkips(scan) : '';
  return (
    <li className="lib-folder" data-state={scan?.state ?? 'unknown'}>
      <div className="lib-folder-head">
        <span className="lib-folder-path" title={folder.path}>
          {folder.path}
        </span>
        <span className="lib-folder-count">
          {folder.item_count.toLocaleString('en')} {folder.item_count === 1 ? 'item' : 'items'}
        </span>
        <button type="button" className="button button-secondary lib-folder-remove" onClick={onRemove}>
          {scan?.state === 'scanning' ? 'Cancel and remove' : 'Remove'}
        </button>
      </div>
      {scan?.state === 'scanning' ? <progress className="lib-folder-progress" aria-label={`Scanning ${folder.path}`} /> : null}
      {scan ? (
        <p className="lib-folder-status" role="status">
          {describeScanProgress(scan)}
          {skips ? <span className="muted"> · {skips}</span> : null}
        </p>
      ) : null}
    </li>
  );
}
