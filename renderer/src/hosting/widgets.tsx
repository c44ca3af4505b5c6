// Small pieces the Projects screens share: labelled fields with their error (and focusing the first
// invalid one), switches, the modal dialog (native <dialog>: showModal() traps focus and Escape
// closes it) and the query keys.
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';

/** React Query keys of the hosting data, so mutations invalidate exactly what they change. */
export const hostingKeys = {
  projects: ['hosting', 'projects'] as const,
  project: (id: number) => ['hosting', 'project', id] as const,
  starred: (id: number) => ['hosting', 'starred', id] as const,
  hooks: (id: number) => ['hosting', 'hooks', id] as const,
  exportStatus: (id: number) => ['hosting', 'export', id] as const,
  importStatus: (id: number) => ['hosting', 'import', id] as const,
  namespaces: ['hosting', 'namespaces'] as const,
  groups: ['hosting', 'groups'] as const,
  allBadges: ['hosting', 'badges'] as const,
  badges: (kind: 'group' | 'project', id: number) => ['hosting', 'badges', kind, id] as const,
  globalNotifications: ['hosting', 'notifications', 'global'] as const,
  projectNotifications: (id: number) => ['hosting', 'notifications', 'project', id] as const,
};

/**
 * A label, its control and the problem with it: the control is described by the help text and the
 * error, and marked invalid, so a screen reader reads the server's sentence with the field.
 */
export function Field({
  label,
  help,
  error,
  className,
  children,
}: {
  readonly label: string;
  readonly help?: ReactNode;
  readonly error?: string | null;
  readonly className?: string;
  readonly children: (props: { id: string; 'aria-describedby'?: string; 'aria-invalid'?: true }) => ReactNode;
}) {
  const id = useId();
  const helpId = `${id}-help`;
  const errorId = `${id}-error`;
  const describedBy = [help ? helpId : null, error ? errorId : null].filter(Boolean).join(' ');
  return (
    <div className={`prj-field${className ? ` ${className}` : ''}`}>
      <label className="label" htmlFor={id}>
        {label}
      </label>
      {children({ id, 'aria-describedby': describedBy || undefined, 'aria-invalid': error ? true : undefined })}
      {help ? (
        <p className="prj-help" id={helpId}>
          {help}
        </p>
      ) : null}
      {error ? (
        <p className="prj-field-error" id={errorId}>
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** A checkbox with its label on the right. */
export function Switch({
  label,
  checked,
  onChange,
  help,
}: {
  readonly label: string;
  readonly checked: boolean;
  readonly onChange: (value: boolean) => void;
  readonly help?: string;
}) {
  const id = useId();
  return (
    <div className="prj-switch">
      <input
        id={id}
        type="checkbox"
        checked={checked}
        onChange={(event) => onChange(event.currentTarget.checked)}
        aria-describedby={help ? `${id}-help` : undefined}
      />
      <label htmlFor={id}>
        {label}
        {help ? (
          <span className="prj-help" id={`${id}-help`}>
            {help}
          </span>
        ) : null}
      </label>
    </div>
  );
}

/**
 * A modal dialog on the native <dialog>: showModal() makes the page behind it inert (focus stays
 * inside) and Escape closes it; `onClose` hears every way it closes.
 */
export function Dialog({
  open,
  title,
  onClose,
  children,
  className,
}: {
  readonly open: boolean;
  readonly title: string;
  readonly onClose: () => void;
  readonly children: ReactNode;
  readonly className?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} className={`prj-dialog${className ? ` ${className}` : ''}`} aria-labelledby={titleId} onClose={onClose}>
      {open ? (
        <>
          <h2 id={titleId} className="prj-dialog-title">
            {title}
          </h2>
          {children}
        </>
      ) : null}
    </dialog>
  );
}

/**
 * Focuses the first control marked `aria-invalid` inside `root`, to send a person to the field to fix;
 * `deferred` waits a frame, for a field being marked in the render the caller has just asked for.
 */
export function focusFirstInvalid(root: ParentNode | null, deferred = false): void {
  const focus = () => root?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  if (deferred) requestAnimationFrame(focus);
  else focus();
}

/** A form-level problem: the server's sentence where the action was started. */
export function InlineProblem({ children }: { readonly children: ReactNode }) {
  if (!children) return null;
  return (
    <p className="prj-field-error" role="alert">
      {children}
    </p>
  );
}

/**
 * A form's primary submit button: says what it is doing while `pending`, and is aria-disabled then (or
 * while `blocked`) rather than disabled, which would drop keyboard focus to the page.
 */
export function SubmitButton({
  pending,
  busyLabel,
  blocked = false,
  children,
}: {
  readonly pending: boolean;
  readonly busyLabel: string;
  readonly blocked?: boolean;
  readonly children: ReactNode;
}) {
  return (
    <button type="submit" className="button button-primary" aria-disabled={pending || blocked}>
      {pending ? busyLabel : children}
    </button>
  );
}

/** Access levels by number (GitLab's), for shares. */
export const accessLevels = [
  { value: 10, label: 'Guest' },
  { value: 20, label: 'Reporter' },
  { value: 30, label: 'Developer' },
  { value: 40, label: 'Maintainer' },
  { value: 50, label: 'Owner' },
] as const;

/** The name of an access level number. */
export function accessLevelName(level: number): string {
  return accessLevels.find((a) => a.value === level)?.label ?? `Level ${level}`;
}

/** The current time, refreshed every minute, for "5 minutes ago" texts that stay true. */
export function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 60_000);
    return () => clearInterval(timer);
  }, []);
  return now;
}
