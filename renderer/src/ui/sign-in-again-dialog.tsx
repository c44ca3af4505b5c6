import { useEffect, useId, useRef } from 'react';
import type { ExpiredSession } from '../lib/use-session';
import { SignInForm } from './sign-in-form';

/**
 * Asked once when the server refuses the session's token (revoked or expired), over the screen, which
 * stays as it was: a new token continues the work (the shell retries what failed), or sign out.
 * Escape does not close it: behind it every request would fail again.
 */
export function SignInAgainDialog({
  expired,
  username,
  onSignIn,
  onSignOut,
}: {
  readonly expired: ExpiredSession;
  readonly username: string;
  readonly onSignIn: (token: string) => void;
  readonly onSignOut: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const textId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  return (
    <dialog
      ref={ref}
      className="shell-dialog"
      aria-labelledby={titleId}
      aria-describedby={textId}
      onCancel={(event) => event.preventDefault()}
      data-testid="sign-in-again"
    >
      <h2 id={titleId} className="shell-dialog-title">
        Sign in again
      </h2>
      <p id={textId} className="muted">
        The server no longer accepts the token you signed in with as <span className="mono">@{username}</span>: it was revoked or has
        expired. Paste a current token to carry on where you are.
      </p>
      <SignInForm busy={expired.busy} problem={expired.problem} draft="" focusOnMount onSignIn={onSignIn} />
      <div className="actions">
        <button type="button" className="button button-ghost" onClick={onSignOut}>
          Sign out instead
        </button>
      </div>
    </dialog>
  );
}
