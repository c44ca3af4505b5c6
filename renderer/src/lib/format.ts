// Number and duration formatting for the UI (the person's locale, tabular figures in CSS).

const integer = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });
const oneDecimal = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });

export function formatCount(value: number): string {
  return integer.format(value);
}

/** Seconds of audio as "0 s", "42.5 s", "3 min 07 s" or "2 h 05 min". */
export function formatAudioSeconds(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds <= 0) return '0 s';
  if (seconds < 60) return `${oneDecimal.format(seconds)} s`;
  const totalSeconds = Math.round(seconds);
  if (totalSeconds < 3600) {
    const minutes = Math.floor(totalSeconds / 60);
    return `${minutes} min ${String(totalSeconds % 60).padStart(2, '0')} s`;
  }
  const totalMinutes = Math.round(seconds / 60);
  const hours = Math.floor(totalMinutes / 60);
  return `${integer.format(hours)} h ${String(totalMinutes % 60).padStart(2, '0')} min`;
}

/** Bytes as "812 B", "44.1 kB", "5.3 MB", "1.2 GB" (SI units, as file managers show them). */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '—';
  if (bytes < 1000) return `${integer.format(bytes)} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = -1;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${oneDecimal.format(value)} ${units[unit]}`;
}

/** "Mono", "Stereo" or "6 channels". */
export function formatChannels(channels: number): string {
  if (channels === 1) return 'Mono';
  if (channels === 2) return 'Stereo';
  return `${channels} channels`;
}

/** A count with its noun: "1 file", "3 files". */
export function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** Two letters for an avatar placeholder: "Ada Lovelace" → "AL", "root" → "RO". */
export function initials(name: string, fallback: string): string {
  const words = (name.trim() || fallback.trim()).split(/\s+/).filter(Boolean);
  if (words.length === 0) return '?';
  const letters = words.length === 1 ? (words[0] ?? '').slice(0, 2) : `${words[0]?.[0] ?? ''}${words[words.length - 1]?.[0] ?? ''}`;
  return letters.toUpperCase();
}

const relative = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });

/** How long ago `at` was, from `now` (ms): "just now", "5 minutes ago", "yesterday", "3 days ago". */
export function formatAgo(at: number, now: number): string {
  const seconds = Math.round((now - at) / 1000);
  if (seconds < 45) return 'just now';
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return relative.format(-minutes, 'minute');
  const hours = Math.round(minutes / 60);
  if (hours < 24) return relative.format(-hours, 'hour');
  return relative.format(-Math.round(hours / 24), 'day');
}
