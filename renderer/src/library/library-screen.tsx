// The producer's library: every kept file, searchable and filterable, in a virtual list that stays
// smooth at 100 000 items; audition with the arrow keys, edit, find similar sounds, drag out.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, useState, type CSSProperties, type DragEvent, type KeyboardEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { messageOf } from '../api/error-message';
import {
  addLibraryItem,
  listCollections,
  listTags,
  updateLibraryItem,
  type LibraryFilter,
  type LibraryItemResponse,
  type LibrarySort,
} from '../api/library';
import { setPendingAnalysis } from '../audio/sources/handoff';
import { desktopBridge } from '../lib/desktop-bridge';
import { saveBlob } from '../lib/save-blob';
import { useSignedIn } from '../lib/session-context';
import { FileDrop } from '../ui/file-drop';
import { EmptyState } from '../ui/panel';
import { Problem } from '../ui/status';
import { LibraryDetails } from './library-details';
import { LibraryFilters } from './library-filters';
import { LibraryFolders } from './library-folders';
import { filterFromParams, isNavigationKey, moveSelection, paramsOfFilter, visibleRange } from './library-model';
import { LibraryRow, rowPlace } from './library-row';
import { useAudition } from './use-audition';
import { useLibraryList } from './use-library-list';
import './library.css';

/**
 * Row heights for the scrolling arithmetic: a table row, or a card below 720 px. library.css places the rows
 * with the same two heights (`--lib-row-height`) and switches at the same width, so the layout never waits for
 * this hook's re-render.
 */
const ROW_HEIGHT = 58;
const CARD_HEIGHT = 112;
const narrowQuery = '(max-width: 720px)';

function useNarrow(): boolean {
  const [narrow, setNarrow] = useState(() => typeof window !== 'undefined' && window.matchMedia(narrowQuery).matches);
  useEffect(() => {
    const media = window.matchMedia(narrowQuery);
    const onChange = () => setNarrow(media.matches);
    media.addEventListener('change', onChange);
    return () => media.removeEventListener('change', onChange);
  }, []);
  return narrow;
}

/** Library: search, filter and audition every kept file. */
export function LibraryScreen() {
  const { token } = useSignedIn();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [params, setParams] = useSearchParams();
  const { filter, sort } = useMemo(() => filterFromParams(params), [params]);
  const list = useLibraryList(token, filter, sort);
  const audition = useAudition(token);
  const narrow = useNarrow();
  const rowHeight = narrow ? CARD_HEIGHT : ROW_HEIGHT;

  const collections = useQuery({ queryKey: ['library', 'collections', token], queryFn: ({ signal }) => listCollections(token, signal) });
  const tags = useQuery({ queryKey: ['library', 'tags', token], queryFn: ({ signal }) => listTags(token, signal) });
  const refreshSideLists = useCallback(() => {
    void queryClient.invalidateQueries({ queryKey: ['library'] });
  }, [queryClient]);

  const { reload } = list;
  const itemsChanged = useCallback(() => reload(), [reload]);

  const [selected, setSelected] = useState<number | null>(null);
  const [adding, setAdding] = useState<{ readonly done: number; readonly total: number; readonly problem: string | null } | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const viewport = useRef<HTMLDivElement>(null);
  const [scroll, setScroll] = useState({ top: 0, height: 600 });

  const changeFilter = useCallback(
    (next: LibraryFilter, nextSort: LibrarySort) => {
      setSelected(null);
      viewport.current?.scrollTo({ top: 0 });
      setParams(paramsOfFilter(next, nextSort), { replace: true });
    },
    [setParams],
  );

  // The viewport's height follows the window; its scroll position decides which rows exist.
  useEffect(() => {
    const element = viewport.current;
    if (!element) return;
    const observer = new ResizeObserver(() => setScroll((s) => ({ ...s, height: element.clientHeight })));
    observer.observe(element);
    return () => observer.disconnect();
  }, [list.total]);

  const total = list.total ?? 0;
  const range = visibleRange(scroll.top, scroll.height, rowHeight, total);
  const { ensureRows } = list;
  useEffect(() => ensureRows(range.start, range.end), [ensureRows, range.start, range.end]);

  const selectedItem = selected === null ? undefined : list.rowAt(selected);
  const playingId = audition.state.status === 'playing' || audition.state.status === 'loading' ? audition.state.itemId : null;

  const togglePlay = useCallback(
    (item: LibraryItemResponse) => {
      if (playingId === item.id) audition.stop();
      else audition.play(item);
    },
    [audition, playingId],
  );

  const openInAnalyse = useCallback(
    (item: LibraryItemResponse) => {
      audition
        .audioOf(item)
        .then(({ blob }) => {
          // The server holds these bytes: Analyse asks every analysis by hash and uploads nothing.
          setPendingAnalysis(new File([blob], item.name, { type: blob.type || 'audio/wav' }), item.sha256);
          void navigate('/analyse');
        })
        .catch((error: unknown) => setProblem(messageOf(error, 'The audio could not be fetched.')));
    },
    [audition, navigate],
  );

  const download = useCallback(
    (item: LibraryItemResponse) => {
      audition
        .audioOf(item)
        .then(({ blob }) => saveBlob(blob, item.name))
        .catch((error: unknown) => setProblem(messageOf(error, 'The audio could not be downloaded.')));
    },
    [audition],
  );

  const select = useCallback(
    (index: number, play: boolean) => {
      setSelected(index);
      const element = viewport.current;
      if (element) {
        const top = index * rowHeight;
        if (top < element.scrollTop) element.scrollTop = top;
        else if (top + rowHeight > element.scrollTop + element.clientHeight) element.scrollTop = top + rowHeight - element.clientHeight;
      }
      const item = list.rowAt(index);
      if (play && item) audition.play(item);
    },
    [audition, list, rowHeight],
  );

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (isNavigationKey(event.key)) {
      event.preventDefault();
      const next = moveSelection(selected, event.key, total, Math.floor(scroll.height / rowHeight));
      if (next !== null) select(next, true);
    } else if (event.key === ' ') {
      event.preventDefault();
      audition.toggle(selectedItem);
    } else if (event.key === 'Enter' && selectedItem) {
      event.preventDefault();
      openInAnalyse(selectedItem);
    }
  };

  const changed = useCallback(
    (item: LibraryItemResponse) => {
      list.replaceItem(item);
      refreshSideLists();
    },
    [list, refreshSideLists],
  );

  const favourite = useCallback(
    (item: LibraryItemResponse) => {
      updateLibraryItem(token, item.id, { favourite: !item.favourite }).then(changed, (error: unknown) =>
        setProblem(messageOf(error, 'The change was not saved.')),
      );
    },
    [changed, token],
  );

  const dragStart = useCallback(
    (event: DragEvent<HTMLDivElement>, item: LibraryItemResponse) => {
      const bridge = desktopBridge();
      if (bridge?.startDrag) {
        // The desktop app drags the file itself (the original, or a downloaded copy) to the DAW.
        event.preventDefault();
        void bridge.startDrag(item.id).catch((error: unknown) => setProblem(messageOf(error, 'The file could not be dragged.')));
        return;
      }
      // In Chromium a drag to the desktop saves the audio when it has been fetched (auditioned) before.
      const url = audition.cachedUrl(item.id);
      event.dataTransfer.effectAllowed = 'copy';
      if (url) event.dataTransfer.setData('DownloadURL', `audio/wav:${item.name}:${url}`);
      event.dataTransfer.setData('text/plain', item.name);
    },
    [audition],
  );

  const addFiles = async (files: File[]) => {
    setAdding({ done: 0, total: files.length, problem: null });
    let failures = 0;
    let lastProblem: string | null = null;
    for (const [i, file] of files.entries()) {
      try {
        await addLibraryItem(token, file, file.webkitRelativePath || file.name);
      } catch (error) {
        failures++;
        lastProblem = `${file.name}: ${messageOf(error, 'The file was not added.')}`;
      }
      setAdding({ done: i + 1, total: files.length, problem: lastProblem });
    }
    if (failures === 0) setAdding(null);
    list.reload();
    refreshSideLists();
  };

  const filtered = params.toString() !== '';

  return (
    <div className="lib-screen">
      <div className="intro">
        <p className="eyebrow">Library</p>
        <p className="lead">Every file you analyse is kept here. Search it, audition with the arrow keys, and drag sounds out.</p>
      </div>

      <FileDrop multiple folders compact label="Add files or a folder to the library" onFiles={(files) => void addFiles(files)} />
      {adding ? (
        <p className="lib-adding" role="status">
          {adding.done < adding.total
            ? `Adding ${adding.done + 1} of ${adding.total}…`
            : `Added ${adding.total - (adding.problem ? 1 : 0)} files.`}
          {adding.problem ? <span className="lib-adding-problem"> {adding.problem}</span> : null}
        </p>
      ) : null}

      <LibraryFolders token={token} onItemsChanged={itemsChanged} />

      <LibraryFilters
        filter={filter}
        sort={sort}
        collections={collections.data?.items ?? []}
        tags={tags.data?.items ?? []}
        onChange={changeFilter}
      />

      {problem ? <Problem>{problem}</Problem> : null}
      {list.problem ? <Problem title="The library could not be loaded">{list.problem}</Problem> : null}

      <div className="lib-body">
        <div className="lib-list-wrap">
          <p className="lib-count muted" aria-live="polite">
            {list.total === null ? 'Loading…' : `${total.toLocaleString()} ${total === 1 ? 'item' : 'items'}${filtered ? ' match' : ''}`}
            {audition.state.status === 'failed' && audition.state.problem ? (
              <span className="lib-audition-problem"> · {audition.state.problem}</span>
            ) : null}
          </p>
          {list.total === 0 ? (
            <EmptyState title={filtered ? 'Nothing matches' : 'Your library is empty'}>
              <p>
                {filtered
                  ? 'Loosen a filter or clear the search.'
                  : 'Add files above, or analyse a file or run a batch: what you analyse is kept here.'}
              </p>
            </EmptyState>
          ) : (
            <>
              <div className="lib-head" aria-hidden="true">
                <span />
                <span>Waveform</span>
                <span>Name</span>
                <span>Role</span>
                <span>BPM</span>
                <span>Key</span>
                <span>LUFS</span>
                <span>Tier</span>
                <span>Rating</span>
                <span />
                <span>Tags</span>
              </div>
              <div
                ref={viewport}
                className="lib-viewport"
                role="listbox"
                tabIndex={0}
                aria-label="Library items: arrow keys move and play, space plays or stops, Enter opens in Analyse"
                aria-activedescendant={selected === null ? undefined : `lib-row-${selected}`}
                aria-setsize={total}
                onKeyDown={onKeyDown}
                onScroll={(event) => {
                  const element = event.currentTarget;
                  setScroll({ top: element.scrollTop, height: element.clientHeight });
                }}
              >
                <div className="lib-spacer" style={{ '--lib-rows': total } as CSSProperties}>
                  {Array.from({ length: range.end - range.start }, (_, offset) => {
                    const index = range.start + offset;
                    const item = list.rowAt(index);
                    if (!item) return <div key={`placeholder-${index}`} className="lib-row lib-row-placeholder" style={rowPlace(index)} />;
                    return (
                      <LibraryRow
                        key={item.id}
                        item={item}
                        index={index}
                        selected={index === selected}
                        playing={playingId === item.id}
                        onSelect={(i) => select(i, false)}
                        onPlay={togglePlay}
                        onFavourite={favourite}
                        onDragStart={dragStart}
                      />
                    );
                  })}
                </div>
              </div>
            </>
          )}
        </div>
        {selectedItem ? (
          <LibraryDetails
            key={selectedItem.id}
            token={token}
            item={selectedItem}
            playingId={playingId}
            collections={collections.data?.items ?? []}
            onChanged={changed}
            onCollectionsChanged={refreshSideLists}
            onPlay={togglePlay}
            onOpen={openInAnalyse}
            onDownload={download}
          />
        ) : null}
      </div>
    </div>
  );
}
