import type { ReactNode } from 'react';

/** A busy indicator with a text a screen reader announces politely. */
export function Busy({ children }: { readonly children: ReactNode }) {
  return (
    <p className="busy" role="status">
      <span className="spinner" aria-hidden="true" />
      {children}
    </p>
  );
}

/** A problem, announced as soon as it appears. */
export function Problem({ id, title, children }: { readonly id?: string; readonly title?: string; readonly children: ReactNode }) {
  return (
    <div className="problem" role="alert" id={id}>
      <span className="problem-icon" aria-hidden="true">
        !
      </span>
      <div>
        {title ? <p className="problem-title">{title}</p> : null}
        {children}
      </div>
    </div>
  );
}

/** A coloured dot with a word: "Found", "Not found", "Online". */
export function Pill({ tone, children }: { readonly tone: 'ok' | 'warn' | 'bad' | 'neutral'; readonly children: ReactNode }) {
  return (
    <span className={`pill pill-${tone}`}>
      <span className="pill-dot" aria-hidden="true" />
      {children}
    </span>
  );
}
