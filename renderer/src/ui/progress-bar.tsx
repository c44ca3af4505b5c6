import type { CSSProperties } from 'react';

/** The fill of a `.progress-track` at `percent` (0–100): scaled, so the compositor animates it (styles.css). */
export function progressFillStyle(percent: number): CSSProperties {
  return { transform: `scaleX(${percent / 100})` };
}

/** A labelled progress bar; `value` null means "working, amount unknown". */
export function ProgressBar({ label, value, detail }: { readonly label: string; readonly value: number | null; readonly detail?: string }) {
  const percent = value === null ? null : Math.round(Math.min(1, Math.max(0, value)) * 100);
  return (
    <div className="progress">
      <div className="progress-text">
        <span>{label}</span>
        <span className="muted mono">{detail ?? (percent === null ? '' : `${percent} %`)}</span>
      </div>
      <div
        className={`progress-track${percent === null ? ' progress-indeterminate' : ''}`}
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent ?? undefined}
      >
        <div className="progress-fill" style={percent === null ? undefined : progressFillStyle(percent)} />
      </div>
    </div>
  );
}
