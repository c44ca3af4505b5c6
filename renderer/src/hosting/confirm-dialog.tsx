import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { Dialog, InlineProblem } from './widgets';

/**
 * A confirmation for a destructive action. With `typeToConfirm`, the person types that text first
 * (GitLab asks for the project's path before a deletion); the action's error stays in the dialog.
 */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  typeToConfirm,
  busy,
  error,
  onConfirm,
  onClose,
}: {
  readonly open: boolean;
  readonly title: string;
  readonly children: ReactNode;
  readonly confirmLabel: string;
  readonly typeToConfirm?: string;
  readonly busy?: boolean;
  readonly error?: string | null;
  readonly onConfirm: () => void;
  readonly onClose: () => void;
}) {
  const [typed, setTyped] = useState('');
  const inputId = useId();
  const matches = typeToConfirm === undefined || typed === typeToConfirm;
  const close = () => {
    setTyped('');
    onClose();
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (matches && !busy) onConfirm();
  };
  return (
    <Dialog open={open} title={title} onClose={close}>
      <form onSubmit={submit} className="prj-dialog-body">
        <div className="prj-dialog-text">{children}</div>
        {typeToConfirm !== undefined ? (
          <div className="prj-field">
            <label className="label" htmlFor={inputId}>
              Type <code>{typeToConfirm}</code> to confirm
            </label>
            <input id={inputId} className="input mono" value={typed} onChange={(e) => setTyped(e.currentTarget.value)} autoComplete="off" spellCheck={false} autoFocus />
          </div>
        ) : null}
        <InlineProblem>{error}</InlineProblem>
        <div className="actions prj-dialog-actions">
          <button type="button" className="button button-secondary" onClick={close} autoFocus={typeToConfirm === undefined}>
            Cancel
          </button>
          <button type="submit" className="button prj-danger-button" disabled={!matches} aria-disabled={busy}>
            {busy ? 'Working…' : confirmLabel}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
