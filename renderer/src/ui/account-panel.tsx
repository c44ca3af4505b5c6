import { useEffect, useId, useRef } from 'react';
import { initials } from '../lib/format';
import type { Session } from '../lib/use-session';
import { Fact } from './fact';
import { SignInForm } from './sign-in-form';
import { Busy, Pill, Problem } from './status';
import { UsageStats } from './usage-stats';

type SignedIn = Extract<Session['state'], { status: 'signed-in' }>;

function SignedInView({
  state,
  onRefresh,
  onSignOut,
}: {
  readonly state: SignedIn;
  readonly onRefresh: () => void;
  readonly onSignOut: () => void;
}) {
  const { me, user } = state;
  const nameId = useId();
  const usageId = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  const moveFocus = state.via === 'sign-in';

  useEffect(() => {
    // After an explicit sign-in the form (and its focused button) is gone: continue from the profile.
    if (moveFocus) heading.current?.focus();
  }, [moveFocus]);

  return (
    <div className="signed-in" aria-busy={state.refreshing}>
      <div className="profile" aria-labelledby={nameId} role="group">
        <span className="avatar" aria-hidden="true">
          {initials(user.name, user.username)}
        </span>
        <div className="profile-text">
          <h3 id={nameId} ref={heading} tabIndex={-1} className="profile-name">
            {user.name}
          </h3>
          <p className="profile-username mono">@{user.username}</p>
        </div>
        {user.is_admin ? <Pill tone="neutral">Admin</Pill> : null}
      </div>

      <dl className="facts">
        <Fact term="Username">
          <span className="mono">{user.username}</span>
        </Fact>
        <Fact term="Name">{user.name}</Fact>
        <Fact term="Access">{user.is_admin ? 'Administrator' : 'Standard user'}</Fact>
        <Fact term="Tenant">
          <span className="mono">{me.tenant.id}</span>
        </Fact>
        <Fact term="Token name">{me.identity.token_name}</Fact>
      </dl>

      <section className="usage" aria-labelledby={usageId}>
        <h3 id={usageId} className="section-title">
          Usage of tenant <span className="mono">{me.tenant.id}</span>
        </h3>
        <UsageStats me={me} />
      </section>

      {state.refreshProblem ? (
        <Problem title="Could not refresh.">
          <p>{state.refreshProblem}</p>
        </Problem>
      ) : null}

      <div className="actions">
        <button
          type="button"
          className="button button-secondary"
          onClick={() => !state.refreshing && onRefresh()}
          aria-disabled={state.refreshing}
        >
          {state.refreshing ? 'Refreshing…' : 'Refresh'}
        </button>
        <button type="button" className="button button-ghost" onClick={onSignOut}>
          Sign out
        </button>
      </div>
    </div>
  );
}

/** The account panel: the sign-in form, or who is signed in with their tenant and usage. */
export function AccountPanel({ session }: { readonly session: Session }) {
  const { state } = session;
  const headingId = useId();
  return (
    <section
      className="panel panel-account"
      aria-labelledby={headingId}
      aria-busy={state.status === 'restoring' || state.status === 'signing-in'}
    >
      <header className="panel-header">
        <h2 id={headingId}>Account</h2>
        {state.status === 'signed-in' ? <Pill tone="ok">Signed in</Pill> : null}
      </header>

      {state.status === 'restoring' ? <Busy>Restoring your session…</Busy> : null}

      {state.status === 'signed-out' || state.status === 'signing-in' ? (
        <SignInForm
          busy={state.status === 'signing-in'}
          problem={state.status === 'signed-out' ? state.problem : null}
          draft={state.status === 'signed-out' ? state.draft : ''}
          focusOnMount={state.status === 'signed-out' && state.focusForm}
          onSignIn={session.signIn}
        />
      ) : null}

      {state.status === 'signed-in' ? <SignedInView state={state} onRefresh={session.refresh} onSignOut={session.signOut} /> : null}
    </section>
  );
}
