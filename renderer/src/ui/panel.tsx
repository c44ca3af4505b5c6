import { useId, type ReactNode } from 'react';

/** A titled card: a <section> named by its heading, with optional actions at the right of the title. */
export function Panel({
  title,
  actions,
  className,
  busy,
  children,
}: {
  readonly title: ReactNode;
  readonly actions?: ReactNode;
  readonly className?: string;
  readonly busy?: boolean;
  readonly children: ReactNode;
}) {
  const headingId = useId();
  return (
    <section className={`panel${className ? ` ${className}` : ''}`} aria-labelledby={headingId} aria-busy={busy || undefined}>
      <header className="panel-header">
        <h2 id={headingId}>{title}</h2>
        {actions ? <div className="panel-actions">{actions}</div> : null}
      </header>
      {children}
    </section>
  );
}

/** What to do when there is nothing to show yet. */
export function EmptyState({ title, children }: { readonly title: string; readonly children?: ReactNode }) {
  return (
    <div className="empty-state">
      <p className="empty-title">{title}</p>
      {children ? <div className="empty-body">{children}</div> : null}
    </div>
  );
}
