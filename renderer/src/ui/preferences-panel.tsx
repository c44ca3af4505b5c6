import { useId, useState } from 'react';
import { chosenTarget, customLufsRange, loudnessTargets, type LoudnessTargetId, type Theme } from '../lib/preferences';
import { updatePreferences, usePreferences } from '../lib/use-preferences';
import { Panel } from './panel';

const themeLabels: Readonly<Record<Theme, string>> = { system: 'Follow the system', light: 'Light', dark: 'Dark' };

function formatLufs(lufs: number): string {
  return `${lufs < 0 ? '−' : ''}${Math.abs(lufs)} LUFS`;
}

/** The custom target's field: typed freely, saved when it is a number in range. */
function CustomTarget({ value }: { readonly value: number }) {
  const [draft, setDraft] = useState(String(value));
  const id = useId();
  const helpId = useId();
  const number = Number(draft.replace('−', '-'));
  const valid = draft.trim() !== '' && Number.isFinite(number) && number >= customLufsRange.min && number <= customLufsRange.max;
  return (
    <div className="pref-custom">
      <label className="label" htmlFor={id}>
        Custom target, LUFS
      </label>
      <input
        id={id}
        className="input mono pref-number"
        type="number"
        inputMode="decimal"
        step={0.5}
        min={customLufsRange.min}
        max={customLufsRange.max}
        value={draft}
        aria-invalid={!valid || undefined}
        aria-describedby={helpId}
        onChange={(event) => {
          setDraft(event.target.value);
          const next = Number(event.target.value);
          if (event.target.value.trim() !== '' && Number.isFinite(next) && next >= customLufsRange.min && next <= customLufsRange.max)
            updatePreferences({ customLufs: next });
        }}
      />
      <p id={helpId} className="help">
        {valid ? 'From −40 to 0.' : 'Type a number from −40 to 0.'}
      </p>
    </div>
  );
}

/**
 * What a producer sets for this browser: the loudness target of the Analyse screen's gain figures,
 * whether names carry tempo and key, the theme, and the onset marks. Each applies at once and is kept.
 */
export function PreferencesPanel() {
  const preferences = usePreferences();
  const ids = { target: useId(), naming: useId(), theme: useId() };
  const target = chosenTarget(preferences);
  return (
    <Panel title="Preferences" className="pref-panel">
      <fieldset className="pref-group" aria-describedby={`${ids.target}-help`}>
        <legend className="pref-legend">Loudness target</legend>
        <div className="pref-options">
          {(Object.keys(loudnessTargets) as (keyof typeof loudnessTargets)[]).map((id) => (
            <label key={id} className="pref-option">
              <input
                type="radio"
                name={ids.target}
                checked={preferences.loudnessTarget === id}
                onChange={() => updatePreferences({ loudnessTarget: id })}
              />
              <span>{loudnessTargets[id].label}</span>
              <span className="muted mono small">{formatLufs(loudnessTargets[id].lufs)}</span>
            </label>
          ))}
          <label className="pref-option">
            <input
              type="radio"
              name={ids.target}
              checked={preferences.loudnessTarget === 'custom'}
              onChange={() => updatePreferences({ loudnessTarget: 'custom' satisfies LoudnessTargetId })}
            />
            <span>Custom</span>
          </label>
        </div>
        {preferences.loudnessTarget === 'custom' ? <CustomTarget value={preferences.customLufs} /> : null}
        <p id={`${ids.target}-help`} className="help">
          Analyse shows the gain to {target.label.toLowerCase()} ({formatLufs(target.lufs)}) and marks it on the loudness meter.
        </p>
      </fieldset>

      <fieldset className="pref-group">
        <legend className="pref-legend">Names</legend>
        <div className="pref-options">
          <label className="pref-option">
            <input
              type="radio"
              name={ids.naming}
              checked={!preferences.namesIncludeTempoKey}
              onChange={() => updatePreferences({ namesIncludeTempoKey: false })}
            />
            <span>Role and character</span>
            <span className="muted mono small">01_bass_dark-sub</span>
          </label>
          <label className="pref-option">
            <input
              type="radio"
              name={ids.naming}
              checked={preferences.namesIncludeTempoKey}
              onChange={() => updatePreferences({ namesIncludeTempoKey: true })}
            />
            <span>With tempo and key</span>
            <span className="muted mono small">01_bass_dark-sub_120bpm_a-min</span>
          </label>
        </div>
        <p className="help">Used for the suggested name on Analyse.</p>
      </fieldset>

      <fieldset className="pref-group">
        <legend className="pref-legend">Theme</legend>
        <div className="pref-options">
          {(Object.keys(themeLabels) as Theme[]).map((theme) => (
            <label key={theme} className="pref-option">
              <input type="radio" name={ids.theme} checked={preferences.theme === theme} onChange={() => updatePreferences({ theme })} />
              <span>{themeLabels[theme]}</span>
            </label>
          ))}
        </div>
      </fieldset>

      <fieldset className="pref-group">
        <legend className="pref-legend">Waveform</legend>
        <label className="pref-option">
          <input
            type="checkbox"
            checked={preferences.showOnsets}
            onChange={(event) => updatePreferences({ showOnsets: event.target.checked })}
          />
          <span>Show onset marks</span>
        </label>
        <p className="help">On long files only the strongest onset per few pixels is drawn; zoom in to see more.</p>
      </fieldset>
    </Panel>
  );
}
