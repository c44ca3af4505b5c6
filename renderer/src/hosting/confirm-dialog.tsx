import { useMutation, type UseMutationOptions, type UseMutationResult } from '@tanstack/react-query';
import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { Dialog, InlineProblem } from './widgets';

/** The props a ConfirmDialog takes from useConfirmedMutation. */
export interface ConfirmedMutationDialog {
  readonly open: boolean;
  readonly busy: boolean;
  readonly error: string | undefined;
  readonly onConfirm: () => void;
  readonly onClose: () => void;
}

/**
 * A mutation run on a target only once a ConfirmDialog is confirmed: `ask(target)` opens the dialog,
 * a success or a close clears the target (a close also resets the mutation's error); spread
 * `dialog` into the ConfirmDialog.
 */
export function useConfirmedMutation<T, TData = unknown>(
  options: UseMutationOptions<TData, Error, T>,
): {
  readonly target: T | null;
  readonly ask: (target: T) => void;
  readonly dialog: ConfirmedMutationDialog;
  readonly mutation: UseMutationResult<TData, Error, T>;
} {
  const [target, setTarget] = useState<T | null>(null);
  const mutation = useMutation<TData, Error, T>({
    ...options,
    onSuccess: (...args) => {
      setTarget(null);
      return options.onSuccess?.(...args);
    },
  });
  return {
    target,
    ask: (next) => setTarget(() => next),
    mutation,
    dialog: {
      open: target !== null,
      busy: mutation.isPending,
      error: mutation.error?.message,
      onConfirm: () => {
        if (target !== null) mutation.mutate(target);
      },
      onClose: () => {
        setTarget(null);
        mutation.reset();
      },
    },
  };
}

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
            <input
              id={inputId}
              className="input mono"
              value={typed}
              onChange={(e) => setTyped(e.currentTarget.value)}
              autoComplete="off"
              spellCheck={false}
              autoFocus
            />
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
