import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { createHook, deleteHook, listHooks, testHook, updateHook, type Project, type ProjectHook } from '../api/hosting';
import { useSignedIn } from '../lib/session-context';
import { EmptyState, Panel } from '../ui/panel';
import { Busy } from '../ui/status';
import { ConfirmDialog, useConfirmedMutation } from './confirm-dialog';
import { fieldErrorsOf } from './field-errors';
import { checkHookForm, emptyHookForm, hookEvents, hookInputOf, hookToForm, type HookFormState } from './hook-model';
import { Field, focusFirstInvalid, hostingKeys, InlineProblem, SubmitButton, Switch } from './widgets';

function HookForm({
  project,
  editing,
  onDone,
}: {
  readonly project: Project;
  readonly editing: ProjectHook | null;
  readonly onDone: () => void;
}) {
  const { token } = useSignedIn();
  const queryClient = useQueryClient();
  const [form, setForm] = useState<HookFormState>(() => (editing ? hookToForm(editing) : emptyHookForm()));
  const [urlProblem, setUrlProblem] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: (state: HookFormState) =>
      editing ? updateHook(token, project.id, editing.id, hookInputOf(state)) : createHook(token, project.id, hookInputOf(state)),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: hostingKeys.hooks(project.id) });
      if (!editing) setForm(emptyHookForm());
      onDone();
    },
  });
  const errors = fieldErrorsOf(save.error, ['url', 'token', 'push_events_branch_filter']);
  // GitLab answers a bad URL with a bare {"error": "Invalid url given"}: that belongs under the URL.
  const urlError = urlProblem ?? errors.fields.url ?? (errors.general && /url/i.test(errors.general) ? errors.general : null);
  const general = errors.general && errors.general !== urlError ? errors.general : null;
  const urlChanged = editing !== null && form.url.trim() !== editing.url;
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (save.isPending) return;
    const problem = checkHookForm(form);
    setUrlProblem(problem);
    if (problem) {
      focusFirstInvalid(event.currentTarget, true);
      return;
    }
    save.mutate(form);
  };
  return (
    <form className="prj-form" onSubmit={submit} noValidate>
      <Field label="URL" error={urlError} help="Receives a POST with GitLab's JSON payload for each chosen event.">
        {(props) => (
          <input
            {...props}
            className="input mono"
            type="url"
            value={form.url}
            placeholder="https://example.com/hook"
            onChange={(e) => setForm({ ...form, url: e.currentTarget.value })}
            autoComplete="off"
            spellCheck={false}
          />
        )}
      </Field>
      <Field
        label="Secret token (optional)"
        error={errors.fields.token}
        help={
          editing
            ? urlChanged
              ? 'A new URL drops the stored secret unless you type one here.'
              : 'Left empty: the stored secret, if any, is kept. It is never shown.'
            : 'Sent as X-Gitlab-Token so the receiver can check the sender.'
        }
      >
        {(props) => (
          <input
            {...props}
            className="input mono"
            type="password"
            value={form.token}
            onChange={(e) => setForm({ ...form, token: e.currentTarget.value })}
            autoComplete="new-password"
          />
        )}
      </Field>
      <fieldset className="prj-fieldset prj-fieldset-plain">
        <legend>Trigger</legend>
        <div className="prj-switches">
          {hookEvents
            .filter((event) => !event.gitlabOnly)
            .map((event) => (
              <Switch
                key={event.key}
                label={event.label}
                checked={form.events[event.key]}
                onChange={(value) => setForm({ ...form, events: { ...form.events, [event.key]: value } })}
              />
            ))}
        </div>
        <details className="prj-advanced" open={hookEvents.some((e) => e.gitlabOnly && form.events[e.key]) || undefined}>
          <summary>Advanced: GitLab CI/CD events</summary>
          <div className="prj-switches">
            {hookEvents
              .filter((event) => event.gitlabOnly)
              .map((event) => (
                <Switch
                  key={event.key}
                  label={event.label}
                  checked={form.events[event.key]}
                  onChange={(value) => setForm({ ...form, events: { ...form.events, [event.key]: value } })}
                />
              ))}
          </div>
        </details>
      </fieldset>
      <Field
        label="Push events: branch filter (optional)"
        error={errors.fields.push_events_branch_filter}
        help="Only pushes to matching branches, * as wildcard, e.g. release/*."
      >
        {(props) => (
          <input
            {...props}
            className="input mono"
            value={form.branchFilter}
            onChange={(e) => setForm({ ...form, branchFilter: e.currentTarget.value })}
            autoComplete="off"
            spellCheck={false}
          />
        )}
      </Field>
      <Switch
        label="Verify the receiver's SSL certificate"
        checked={form.sslVerification}
        onChange={(value) => setForm({ ...form, sslVerification: value })}
      />
      <InlineProblem>{general}</InlineProblem>
      <div className="actions">
        <SubmitButton pending={save.isPending} busyLabel="Saving…">
          {editing ? 'Save hook' : 'Add hook'}
        </SubmitButton>
        {editing ? (
          <button type="button" className="button button-secondary" onClick={onDone}>
            Cancel
          </button>
        ) : null}
      </div>
    </form>
  );
}

function HookRow({
  project,
  hook,
  onEdit,
  onDelete,
}: {
  readonly project: Project;
  readonly hook: ProjectHook;
  readonly onEdit: () => void;
  readonly onDelete: () => void;
}) {
  const { token } = useSignedIn();
  const test = useMutation({ mutationFn: () => testHook(token, project.id, hook.id, 'push_events') });
  const on = hookEvents.filter((e) => hook[e.key]);
  return (
    <li className="prj-hook">
      <div className="prj-hook-main">
        <p className="mono prj-hook-url">{hook.url}</p>
        <p className="prj-row prj-hook-events">
          {on.length > 0 ? (
            on.map((e) => (
              <span key={e.key} className="prj-tag">
                {e.label}
              </span>
            ))
          ) : (
            <span className="muted small">No events</span>
          )}
          {hook.push_events_branch_filter ? <span className="muted small">branches: {hook.push_events_branch_filter}</span> : null}
          <span className="muted small">SSL verification {hook.enable_ssl_verification ? 'on' : 'off'}</span>
        </p>
        {test.isSuccess ? (
          <p className="prj-status prj-status-ok" role="status">
            Test push delivered.
          </p>
        ) : null}
        {test.isError ? (
          <p className="prj-field-error" role="alert">
            Test failed: {test.error.message}
          </p>
        ) : null}
      </div>
      <div className="prj-row prj-hook-actions">
        <button
          type="button"
          className="button button-secondary prj-small-button"
          aria-disabled={test.isPending}
          onClick={() => !test.isPending && test.mutate()}
        >
          {test.isPending ? 'Testing…' : 'Test push'}
          <span className="visually-hidden"> to {hook.url}</span>
        </button>
        <button type="button" className="button button-secondary prj-small-button" onClick={onEdit}>
          Edit<span className="visually-hidden"> {hook.url}</span>
        </button>
        <button type="button" className="button button-ghost prj-small-button" onClick={onDelete}>
          Delete<span className="visually-hidden"> {hook.url}</span>
        </button>
      </div>
    </li>
  );
}

/** Hooks: the project's webhooks with their trigger events; add, edit, test a push, delete. */
export function HooksTab({ project }: { readonly project: Project }) {
  const { token } = useSignedIn();
  const queryClient = useQueryClient();
  const hooks = useQuery({ queryKey: hostingKeys.hooks(project.id), queryFn: ({ signal }) => listHooks(token, project.id, signal) });
  const [editing, setEditing] = useState<ProjectHook | null>(null);
  const formPanel = useRef<HTMLDivElement>(null);
  const remove = useConfirmedMutation({
    mutationFn: (hook: ProjectHook) => deleteHook(token, project.id, hook.id),
    onSuccess: async (_data, hook) => {
      if (editing?.id === hook.id) setEditing(null);
      await queryClient.invalidateQueries({ queryKey: hostingKeys.hooks(project.id) });
    },
  });
  return (
    <div className="prj-two">
      <Panel title="Hooks">
        {hooks.isPending ? <Busy>Loading hooks…</Busy> : null}
        {hooks.isError ? <InlineProblem>{hooks.error.message}</InlineProblem> : null}
        {hooks.data && hooks.data.length === 0 ? (
          <EmptyState title="No hooks yet.">
            <p>Add a hook to tell another service (a build server, a chat) when someone pushes to this project.</p>
          </EmptyState>
        ) : null}
        {hooks.data && hooks.data.length > 0 ? (
          <ul className="prj-hooks" aria-label="Project hooks">
            {hooks.data.map((hook) => (
              <HookRow
                key={hook.id}
                project={project}
                hook={hook}
                onEdit={() => {
                  setEditing(hook);
                  requestAnimationFrame(() => formPanel.current?.querySelector<HTMLElement>('input')?.focus());
                }}
                onDelete={() => remove.ask(hook)}
              />
            ))}
          </ul>
        ) : null}
      </Panel>
      <div ref={formPanel}>
        <Panel title={editing ? `Edit hook #${editing.id}` : 'Add a hook'}>
          <HookForm key={editing?.id ?? 'new'} project={project} editing={editing} onDone={() => setEditing(null)} />
        </Panel>
      </div>
      <ConfirmDialog {...remove.dialog} title="Delete this hook?" confirmLabel="Delete hook">
        <p>
          <span className="mono">{remove.target?.url}</span> stops receiving events from {project.path_with_namespace}.
        </p>
      </ConfirmDialog>
    </div>
  );
}
