import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { tokenProblem } from '../lib/token-storage';
import type { SignInProblem } from '../lib/use-session';
import { Problem } from './status';

export interface SignInFormProps {
  readonly busy: boolean;
  readonly problem: SignInProblem | null;
  /** What the token field starts with (a token that could not be checked yet). */
  readonly draft: string;
  readonly focusOnMount: boolean;
  readonly onSignIn: (token: string) => void;
}

/** Paste a personal access token; the API's answer to a wrong one is shown right below the field. */
export function SignInForm({ busy, problem, draft, focusOnMount, onSignIn }: SignInFormProps) {
  const [token, setToken] = useState(draft);
  const [reveal, setReveal] = useState(false);
  const [localProblem, setLocalProblem] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const ids = { heading: useId(), token: useId(), help: useId(), error: useId() };

  useEffect(() => {
    if (focusOnMount) input.current?.focus();
  }, [focusOnMount]);

  const shown = localProblem ? { message: localProblem, hint: null } : busy ? null : problem;

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    const value = token.trim();
    const invalid = tokenProblem(value);
    setLocalProblem(invalid);
    if (invalid) {
      input.current?.focus();
      return;
    }
    onSignIn(value);
  };

  return (
    <form className="sign-in" aria-labelledby={ids.heading} aria-busy={busy} onSubmit={submit} noValidate>
      <h3 id={ids.heading} className="form-title">
        Sign in with a personal access token
      </h3>
      <label htmlFor={ids.token} className="label">
        Personal access token
      </label>
      <div className="token-row">
        <input
          ref={input}
          id={ids.token}
          name="token"
          className="input mono"
          type={reveal ? 'text' : 'password'}
          value={token}
          onChange={(event) => {
            setToken(event.target.value);
            setLocalProblem(null);
          }}
          autoComplete="off"
          autoCapitalize="off"
          autoCorrect="off"
          spellCheck={false}
          placeholder="chpat-…"
          aria-describedby={shown ? `${ids.error} ${ids.help}` : ids.help}
          aria-invalid={shown ? true : undefined}
          readOnly={busy}
        />
        <button
          type="button"
          className="button button-secondary"
          aria-pressed={reveal}
          aria-controls={ids.token}
          onClick={() => setReveal((on) => !on)}
        >
          {reveal ? 'Hide' : 'Show'}
        </button>
      </div>
      <p id={ids.help} className="help">
        The first start of the server writes an admin token to <code>admin-credentials.json</code> in its data directory. This tab keeps the
        token until you sign out or close it.
      </p>

      {shown ? (
        <Problem id={ids.error} title="Could not sign in.">
          <p className="problem-message">{shown.message}</p>
          {shown.hint ? <p className="problem-hint">{shown.hint}</p> : null}
        </Problem>
      ) : null}

      <div className="actions">
        {/* aria-disabled rather than disabled: a disabled button drops keyboard focus to the page. */}
        <button type="submit" className="button button-primary" aria-disabled={busy}>
          {busy ? (
            <>
              <span className="spinner spinner-on-accent" aria-hidden="true" />
              Signing in…
            </>
          ) : (
            'Sign in'
          )}
        </button>
      </div>
    </form>
  );
}
