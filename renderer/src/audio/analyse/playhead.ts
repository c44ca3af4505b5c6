import { useSyncExternalStore } from 'react';

// The playback position lives outside React state: it changes every frame while playing, and only the
// clock, the slider's ARIA value and the spectrogram's cursor need it, not the whole screen.

/** The shared playback position and a way to seek the player that currently owns it. */
export interface Playhead {
  readonly get: () => number;
  readonly set: (seconds: number) => void;
  readonly subscribe: (listener: () => void) => () => void;
  /** Seek the attached player (no-op before the waveform is ready). */
  readonly seek: (seconds: number) => void;
  /** The waveform attaches its player here; the returned function detaches it. */
  readonly attach: (seekTo: (seconds: number) => void) => () => void;
}

/** A Playhead at 0 with no player attached. */
export function createPlayhead(): Playhead {
  let time = 0;
  let seekTo: ((seconds: number) => void) | null = null;
  const listeners = new Set<() => void>();
  return {
    get: () => time,
    set: (seconds) => {
      if (seconds === time) return;
      time = seconds;
      for (const listener of listeners) listener();
    },
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    seek: (seconds) => seekTo?.(seconds),
    attach: (fn) => {
      seekTo = fn;
      return () => {
        if (seekTo === fn) seekTo = null;
      };
    },
  };
}

/** The current playback position, re-rendering the caller as it moves. */
export function usePlayheadTime(playhead: Playhead): number {
  return useSyncExternalStore(playhead.subscribe, playhead.get);
}
