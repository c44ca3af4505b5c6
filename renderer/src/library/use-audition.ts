// Audition: one player for the whole library. The audio needs the token, so it is fetched as a blob
// (the last few are kept, so stepping back and forth with the arrow keys does not fetch again).
import { useCallback, useEffect, useRef, useState } from 'react';
import { messageOf } from '../api/error-message';
import { isAbort } from '../api/http';
import { downloadLibraryAudio, type LibraryItemResponse } from '../api/library';

const KEEP = 12;

/** What the player is doing. */
export interface AuditionState {
  readonly itemId: number | null;
  readonly status: 'idle' | 'loading' | 'playing' | 'paused' | 'failed';
  readonly problem: string | null;
}

/** The player and the blob URLs of the items it has fetched. */
export function useAudition(token: string) {
  const [state, setState] = useState<AuditionState>({ itemId: null, status: 'idle', problem: null });
  const audio = useRef<HTMLAudioElement | null>(null);
  const urls = useRef(new Map<number, { readonly blob: Blob; readonly url: string }>());
  const loading = useRef<AbortController | null>(null);

  useEffect(() => {
    const element = new Audio();
    audio.current = element;
    const onEnded = () => setState((s) => ({ ...s, status: 'paused' }));
    element.addEventListener('ended', onEnded);
    const kept = urls.current;
    return () => {
      element.pause();
      element.removeEventListener('ended', onEnded);
      loading.current?.abort();
      for (const { url } of kept.values()) URL.revokeObjectURL(url);
      kept.clear();
    };
  }, []);

  /** An item's audio and its blob URL, fetched once. */
  const audioOf = useCallback(
    async (item: LibraryItemResponse, signal?: AbortSignal): Promise<{ readonly blob: Blob; readonly url: string }> => {
      const known = urls.current.get(item.id);
      if (known) {
        // Most recently used last, so the oldest is the first to go.
        urls.current.delete(item.id);
        urls.current.set(item.id, known);
        return known;
      }
      const blob = await downloadLibraryAudio(token, item.id, signal);
      const entry = { blob, url: URL.createObjectURL(blob) };
      urls.current.set(item.id, entry);
      while (urls.current.size > KEEP) {
        const [oldest, old] = urls.current.entries().next().value as [number, { url: string }];
        urls.current.delete(oldest);
        URL.revokeObjectURL(old.url);
      }
      return entry;
    },
    [token],
  );

  const play = useCallback(
    (item: LibraryItemResponse) => {
      const element = audio.current;
      if (!element) return;
      loading.current?.abort();
      const controller = new AbortController();
      loading.current = controller;
      element.pause();
      setState({ itemId: item.id, status: 'loading', problem: null });
      audioOf(item, controller.signal)
        .then(async ({ url }) => {
          if (controller.signal.aborted) return;
          if (element.src !== url) element.src = url;
          element.currentTime = 0;
          await element.play();
          if (!controller.signal.aborted) setState({ itemId: item.id, status: 'playing', problem: null });
        })
        .catch((error: unknown) => {
          if (controller.signal.aborted || isAbort(error)) return;
          setState({ itemId: item.id, status: 'failed', problem: messageOf(error, 'The audio could not be played.') });
        });
    },
    [audioOf],
  );

  const stop = useCallback(() => {
    loading.current?.abort();
    audio.current?.pause();
    setState((s) => ({ ...s, status: s.itemId === null ? 'idle' : 'paused' }));
  }, []);

  /** Space: stop what plays, or play `item` (the selected row). */
  const toggle = useCallback(
    (item: LibraryItemResponse | undefined) => {
      if (state.status === 'playing' || state.status === 'loading') stop();
      else if (item) play(item);
    },
    [play, state.status, stop],
  );

  /** The blob URL if the item's audio was already fetched (for a drag out of the browser). */
  const cachedUrl = useCallback((id: number) => urls.current.get(id)?.url, []);

  return { state, play, stop, toggle, audioOf, cachedUrl };
}
