import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { createGroup, listGroups, type Group } from '../api/hosting';
import { useSignedIn } from '../lib/session-context';
import { EmptyState, Panel } from '../ui/panel';
import { Busy } from '../ui/status';
import { fieldErrorsOf } from './field-errors';
import { pathFromName } from './project-form-model';
import { Field, hostingKeys, InlineProblem, SubmitButton } from './widgets';

/** Groups: the groups the caller can see, and a form to create one (`POST /groups`) to share projects with. */
export function GroupsPage() {
  const { token } = useSignedIn();
  const queryClient = useQueryClient();
  const groups = useQuery({ queryKey: hostingKeys.groups, queryFn: ({ signal }) => listGroups(token, {}, signal) });
  const [name, setName] = useState('');
  const [path, setPath] = useState('');
  const [visibility, setVisibility] = useState<Group['visibility']>('private');
  const [nameProblem, setNameProblem] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: () => createGroup(token, { name: name.trim(), path: path.trim() || pathFromName(name), visibility }),
    onSuccess: async () => {
      setName('');
      setPath('');
      await queryClient.invalidateQueries({ queryKey: hostingKeys.groups });
      await queryClient.invalidateQueries({ queryKey: hostingKeys.namespaces });
    },
  });
  const errors = fieldErrorsOf(create.error, ['name', 'path', 'visibility']);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (create.isPending) return;
    setNameProblem(name.trim() === '' ? 'Give the group a name.' : null);
    if (name.trim() !== '') create.mutate();
  };

  return (
    <div className="prj-two">
      <Panel title="Your groups">
        {groups.isPending ? <Busy>Loading groups…</Busy> : null}
        {groups.isError ? <InlineProblem>{groups.error.message}</InlineProblem> : null}
        {groups.data && groups.data.length === 0 ? (
          <EmptyState title="No groups yet.">
            <p>A group gathers people (a band, a label) so a project can be shared with all of them at once.</p>
          </EmptyState>
        ) : null}
        {groups.data && groups.data.length > 0 ? (
          <ul className="prj-group-list" aria-label="Groups">
            {groups.data.map((g) => (
              <li key={g.id}>
                <span className="prj-group-name">{g.name}</span> <span className="mono muted small">{g.full_path}</span>{' '}
                <span className="muted small">{g.visibility}</span>
              </li>
            ))}
          </ul>
        ) : null}
      </Panel>
      <Panel title="New group">
        <form className="prj-form" onSubmit={submit} noValidate aria-busy={create.isPending}>
          <Field label="Group name" error={nameProblem ?? errors.fields.name}>
            {(props) => (
              <input {...props} className="input" value={name} onChange={(e) => setName(e.currentTarget.value)} autoComplete="off" />
            )}
          </Field>
          <Field label="Group path" error={errors.fields.path} help={`Left empty: ${pathFromName(name) || 'made from the name'}.`}>
            {(props) => (
              <input
                {...props}
                className="input mono"
                value={path}
                placeholder={pathFromName(name)}
                onChange={(e) => setPath(e.currentTarget.value)}
                autoComplete="off"
                spellCheck={false}
              />
            )}
          </Field>
          <Field label="Group visibility" error={errors.fields.visibility}>
            {(props) => (
              <select
                {...props}
                className="input"
                value={visibility}
                onChange={(e) => setVisibility(e.currentTarget.value as Group['visibility'])}
              >
                <option value="private">Private</option>
                <option value="internal">Internal</option>
                <option value="public">Public</option>
              </select>
            )}
          </Field>
          <InlineProblem>{errors.general}</InlineProblem>
          {create.isSuccess ? (
            <p className="prj-status prj-status-ok" role="status">
              Created the group {create.data.full_path}.
            </p>
          ) : null}
          <div className="actions">
            <SubmitButton pending={create.isPending} busyLabel="Creating…">
              Create group
            </SubmitButton>
          </div>
        </form>
      </Panel>
    </div>
  );
}
