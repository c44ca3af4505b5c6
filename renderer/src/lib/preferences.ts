// The person's preferences for this browser (or desktop window): loudness target, naming scheme,
// theme and the onset marks. Kept in localStorage (nothing secret), read through `parsePreferences`
// because storage is input like any other: another version or a person may have written anything there.

/** Loudness targets a producer masters to, LUFS (integrated). */
export const loudnessTargets = {
  streaming: { label: 'Streaming', short: 'streaming', lufs: -14 },
  apple: { label: 'Apple Music', short: 'Apple', lufs: -16 },
  club: { label: 'Club', short: 'club', lufs: -9 },
  broadcast: { label: 'Broadcast (EBU R 128)', short: 'broadcast', lufs: -23 },
} as const;

/** A named target or the person's own figure. */
export type LoudnessTargetId = keyof typeof loudnessTargets | 'custom';

/** How the GUI colours itself: fixed, or following the system's prefers-color-scheme. */
export type Theme = 'light' | 'dark' | 'system';

export interface Preferences {
  readonly loudnessTarget: LoudnessTargetId;
  /** The custom target, LUFS (−40 to 0). */
  readonly customLufs: number;
  /** Suggested names and renamed copies carry the tempo and key ("01_bass_dark-sub_120bpm_a-min"). */
  readonly namesIncludeTempoKey: boolean;
  readonly theme: Theme;
  /** Onset ticks on the Analyse waveform. */
  readonly showOnsets: boolean;
}

/** What a new browser starts with. */
export const defaultPreferences: Preferences = {
  loudnessTarget: 'streaming',
  customLufs: -12,
  namesIncludeTempoKey: false,
  theme: 'system',
  showOnsets: true,
};

/** The custom target's allowed range, LUFS. */
export const customLufsRange = { min: -40, max: 0 } as const;

const targetIds: readonly LoudnessTargetId[] = ['streaming', 'apple', 'club', 'broadcast', 'custom'];
const themes: readonly Theme[] = ['light', 'dark', 'system'];

function isOneOf<T extends string>(values: readonly T[], value: unknown): value is T {
  return typeof value === 'string' && (values as readonly string[]).includes(value);
}

/** Preferences from stored JSON: each field that is missing or not valid falls back to its default. */
export function parsePreferences(text: string | null): Preferences {
  let raw: unknown;
  try {
    raw = text === null ? undefined : JSON.parse(text);
  } catch {
    raw = undefined;
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return defaultPreferences;
  const r = raw as Record<string, unknown>;
  const custom = r.customLufs;
  return {
    loudnessTarget: isOneOf(targetIds, r.loudnessTarget) ? r.loudnessTarget : defaultPreferences.loudnessTarget,
    customLufs:
      typeof custom === 'number' && Number.isFinite(custom) && custom >= customLufsRange.min && custom <= customLufsRange.max
        ? Math.round(custom * 10) / 10
        : defaultPreferences.customLufs,
    namesIncludeTempoKey: typeof r.namesIncludeTempoKey === 'boolean' ? r.namesIncludeTempoKey : defaultPreferences.namesIncludeTempoKey,
    theme: isOneOf(themes, r.theme) ? r.theme : defaultPreferences.theme,
    showOnsets: typeof r.showOnsets === 'boolean' ? r.showOnsets : defaultPreferences.showOnsets,
  };
}

/** The chosen loudness target: its label, a short word for a meter marker, and LUFS. */
export function chosenTarget(preferences: Preferences): { readonly label: string; readonly short: string; readonly lufs: number } {
  if (preferences.loudnessTarget === 'custom') return { label: 'Custom', short: 'custom', lufs: preferences.customLufs };
  return loudnessTargets[preferences.loudnessTarget];
}

/** Gain that brings integrated loudness `lufs` to `target`, dB (null: no integrated loudness). */
export function gainToTarget(lufs: number | null, target: number): number | null {
  if (lufs === null || !Number.isFinite(lufs)) return null;
  return Math.round((target - lufs) * 10) / 10;
}
