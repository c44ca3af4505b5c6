import { useSyncExternalStore } from 'react';
import { parsePreferences, type Preferences } from './preferences';

// One store for the whole window: Settings writes, the loudness panel, names, theme and waveform read,
// and every change applies at once (another tab of the same origin follows through the storage event).

const storageKey = 'cratehouse.preferences';
const listeners = new Set<() => void>();
let current: Preferences = parsePreferences(readStored());

function readStored(): string | null {
  try {
    return window.localStorage.getItem(storageKey);
  } catch {
    return null;
  }
}

function emit(): void {
  applyTheme(current);
  for (const listener of listeners) listener();
}

/** Puts the theme on <html data-theme>; styles.css picks the colours from it ("system" follows the OS). */
export function applyTheme(preferences: Preferences): void {
  document.documentElement.dataset.theme = preferences.theme;
  window.dispatchEvent(new Event('cratehouse:theme'));
}

/** The current preferences, outside React (e.g. when a name is made). */
export function readPreferences(): Preferences {
  return current;
}

/** Change some preferences, remember them and tell every reader. */
export function updatePreferences(change: Partial<Preferences>): void {
  current = parsePreferences(JSON.stringify({ ...current, ...change }));
  try {
    window.localStorage.setItem(storageKey, JSON.stringify(current));
  } catch {
    // Storage unavailable (privacy mode): the change lasts this page load.
  }
  emit();
}

function subscribe(listener: () => void): () => void {
  if (listeners.size === 0) window.addEventListener('storage', onStorage);
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0) window.removeEventListener('storage', onStorage);
  };
}

function onStorage(event: StorageEvent): void {
  if (event.key !== storageKey) return;
  current = parsePreferences(event.newValue);
  emit();
}

/** The preferences, re-rendering on every change. */
export function usePreferences(): Preferences {
  return useSyncExternalStore(subscribe, readPreferences);
}
