import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { listGroups, shareProject, unshareProject, type Project } from '../api/hosting';
import { useSignedIn } from '../lib/session-context';
import { EmptyState, Panel } from '../ui/panel';
import { Busy, Pill } from '../ui/status';
import { ConfirmDialog, useConfirmedMutation } from './confirm-dialog';
import { fieldErrorsOf } from './field-errors';
import { dayOf, expiryProblem, shareState } from './share-expiry';
import { accessLevelName, accessLevels, Field, hostingKeys, InlineProblem, SubmitButton } from './widgets';

/** Sharing: the groups the project is shared with, a share form (group, access, expiry), unshare. */
export function ShareTab({ project }: { readonly project: Project }) {
  const { token } = useSignedIn();
  const queryClient = useQueryClient();
  const groups = useQuery({ queryKey: hostingKeys.groups, queryFn: ({ signal }) => listGroups(token, {}, signal) });
  const [groupId, setGroupId] = useState('');
  const [access, setAccess] = useState('30');
  const [expires, setExpires] = useState('');
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: hostingKeys.project(project.id) }),
      queryClient.invalidateQueries({ queryKey: hostingKeys.projects }),
    ]);
  const share = useMutation({
    mutationFn: () =>
      shareProject(token, project.id, {
        group_id: Number(groupId),
        group_access: Number(access),
        ...(expires ? { expires_at: expires } : {}),
      }),
    onSuccess: async () => {
      setGroupId('');
      setExpires('');
      await refresh();
    },
  });
  const unshare = useConfirmedMutation({
    mutationFn: (group: { readonly id: number; readonly path: string }) => unshareProject(token, project.id, group.id),
    onSuccess: refresh,
  });
  const errors = fieldErrorsOf(share.error, ['group_id', 'group_access', 'expires_at']);
  const sharedIds = new Set(project.shared_with_groups.map((g) => g.group_id));
  const available = (groups.data ?? []).filter((g) => !sharedIds.has(g.id) && g.id !== project.namespace.id);
  const [groupProblem, setGroupProblem] = useState<string | null>(null);
  const [expiresProblem, setExpiresProblem] = useState<string | null>(null);
  const today = dayOf(new Date());
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (share.isPending) return;
    const badExpiry = expiryProblem(expires, today);
    setGroupProblem(groupId ? null : 'Choose a group to share with.');
    setExpiresProblem(badExpiry);
    if (!groupId || badExpiry) return;
    share.mutate();
  };

  return (
    <div className="prj-two">
      <Panel title="Shared with">
        {project.shared_with_groups.length === 0 ? (
          <EmptyState title="Not shared with any group.">
            <p>Share the project with a group to give its members access at the level you choose.</p>
          </EmptyState>
        ) : (
          <div className="prj-table-wrap">
            <table className="data prj-stack-table">
              <thead>
                <tr>
                  <th scope="col">Group</th>
                  <th scope="col">Access</th>
                  <th scope="col">Expires</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {project.shared_with_groups.map((g) => (
                  <tr key={g.group_id}>
                    <td className="mono" data-label="Group">
                      {g.group_full_path}
                    </td>
                    <td data-label="Access">{accessLevelName(g.group_access_level)}</td>
                    <td data-label="Expires">
                      <ShareExpiry expiresAt={g.expires_at} today={today} />
                    </td>
                    <td className="num">
                      <button
                        type="button"
                        className="button button-ghost prj-small-button"
                        onClick={() => unshare.ask({ id: g.group_id, path: g.group_full_path })}
                      >
                        Unshare<span className="visually-hidden"> {g.group_full_path}</span>
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Panel>
      <Panel title="Share with a group">
        {groups.isPending ? <Busy>Loading groups…</Busy> : null}
        {groups.isError ? <InlineProblem>{groups.error.message}</InlineProblem> : null}
        {groups.data && available.length === 0 ? (
          <p className="prj-help">
            {groups.data.length > 1 || sharedIds.size > 0
              ? 'Every group you can see has access already.'
              : 'There is no group to share with yet: groups you belong to appear here.'}
          </p>
        ) : null}
        {groups.data && available.length > 0 ? (
          <form className="prj-form" onSubmit={submit} noValidate>
            <Field label="Group" error={groupProblem ?? errors.fields.group_id}>
              {(props) => (
                <select {...props} className="input" value={groupId} onChange={(e) => setGroupId(e.currentTarget.value)}>
                  <option value="">Choose a group…</option>
                  {available.map((g) => (
                    <option key={g.id} value={g.id}>
                      {g.full_path}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <div className="prj-grid-2">
              <Field
                label="Access level"
                error={errors.fields.group_access}
                help="The most a member gets; their own lower level still applies."
              >
                {(props) => (
                  <select {...props} className="input" value={access} onChange={(e) => setAccess(e.currentTarget.value)}>
                    {accessLevels.map((a) => (
                      <option key={a.value} value={a.value}>
                        {a.label}
                      </option>
                    ))}
                  </select>
                )}
              </Field>
              <Field label="Expires (optional)" error={expiresProblem ?? errors.fields.expires_at} help="Left empty: never.">
                {(props) => (
                  <input
                    {...props}
                    className="input"
                    type="date"
                    min={today}
                    value={expires}
                    onChange={(e) => setExpires(e.currentTarget.value)}
                  />
                )}
              </Field>
            </div>
            <InlineProblem>{errors.general}</InlineProblem>
            <div className="actions">
              <SubmitButton pending={share.isPending} busyLabel="Sharing…">
                Share
              </SubmitButton>
            </div>
          </form>
        ) : null}
      </Panel>
      <ConfirmDialog {...unshare.dialog} title="Stop sharing with this group?" confirmLabel="Unshare">
        <p>
          Members of <strong>{unshare.target?.path}</strong> lose the access this share gave them to {project.path_with_namespace}.
        </p>
      </ConfirmDialog>
    </div>
  );
}

/** A share's expiry: the day it ends, or that it has ended (GitLab keeps listing it until its cleanup runs). */
function ShareExpiry({ expiresAt, today }: { readonly expiresAt: string | null; readonly today: string }) {
  const state = shareState(expiresAt, today);
  if (state === 'never') return <span className="muted">Never</span>;
  if (state === 'active') return <>{expiresAt}</>;
  return (
    <span className="prj-expired">
      <Pill tone="bad">Expired</Pill> <span className="muted small">{expiresAt}</span>
    </span>
  );
}
