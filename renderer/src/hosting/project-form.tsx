import { useMutation } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import type { Namespace, Project, ProjectPayload } from '../api/hosting';
import { fieldErrorsOf } from './field-errors';
import {
  checkProjectForm,
  featureSwitches,
  projectToForm,
  formToPayload,
  mergeMethods,
  mergeSwitches,
  pathFromName,
  visibilities,
  type ProjectFormState,
  type SwitchKey,
} from './project-form-model';
import { Field, focusFirstInvalid, InlineProblem, SubmitButton, Switch } from './widgets';

const formFields = [
  'name',
  'path',
  'namespace_id',
  'description',
  'visibility',
  'default_branch',
  'tag_list',
  'merge_method',
  'ci_config_path',
  'import_url',
];
const aliases = { topics: 'tag_list', namespace: 'namespace_id', import_source: 'import_url' };

/**
 * The create and edit form: every `P` attribute a person sets, grouped as GitLab's settings page
 * groups them, with GitLab's validation errors under the field they belong to.
 */
export function ProjectForm({
  mode,
  initial,
  namespaces,
  submitLabel,
  onSubmit,
  onDone,
}: {
  readonly mode: 'create' | 'edit';
  readonly initial: ProjectFormState;
  readonly namespaces?: readonly Namespace[];
  readonly submitLabel: string;
  readonly onSubmit: (payload: ProjectPayload) => Promise<Project>;
  readonly onDone: (project: Project) => void;
}) {
  const [form, setForm] = useState(initial);
  const [checked, setChecked] = useState<Record<string, string>>({});
  const [unchanged, setUnchanged] = useState(false);
  const visibilityName = useId();
  // What the server holds now: an edit sends only the differences from it.
  const [base, setBase] = useState(initial);
  const save = useMutation({
    mutationFn: onSubmit,
    onSuccess: (project) => {
      if (mode === 'edit') setBase(projectToForm(project));
      onDone(project);
    },
  });
  const server = fieldErrorsOf(save.error, formFields, aliases);
  const errorOf = (field: string) => checked[field] ?? server.fields[field] ?? null;
  const set = <K extends keyof ProjectFormState>(key: K, value: ProjectFormState[K]) => {
    setForm((current) => ({ ...current, [key]: value }));
    setUnchanged(false);
  };
  const setSwitch = (key: SwitchKey, value: boolean) => set('switches', { ...form.switches, [key]: value });

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (save.isPending) return;
    const problems = checkProjectForm(form, mode);
    setChecked(problems);
    if (Object.keys(problems).length > 0) {
      // Send the person to the first field to fix, once it is marked.
      focusFirstInvalid(event.currentTarget, true);
      return;
    }
    const payload = formToPayload(form, mode, mode === 'edit' ? base : undefined);
    if (Object.keys(payload).length === 0) {
      setUnchanged(true);
      return;
    }
    save.mutate(payload);
  };

  // A field GitLab refused gets the focus once it is marked, with its sentence as its description.
  const formRef = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (save.error) focusFirstInvalid(formRef.current);
  }, [save.error]);

  const namespace = namespaces?.find((n) => String(n.id) === form.namespaceId);
  // A refused field inside the fold opens it, so the person sees the sentence.
  const advancedRefused = errorOf('merge_method') !== null || errorOf('ci_config_path') !== null;

  return (
    <form ref={formRef} className="prj-form" onSubmit={submit} noValidate aria-busy={save.isPending}>
      <fieldset className="prj-fieldset">
        <legend>Project</legend>
        <div className="prj-grid-2">
          <Field label="Project name" error={errorOf('name')} help="Letters, digits, emoji, spaces, '_', '.', '+' and dashes.">
            {(props) => (
              <input
                {...props}
                className="input"
                value={form.name}
                onChange={(e) => set('name', e.currentTarget.value)}
                autoComplete="off"
              />
            )}
          </Field>
          <Field
            label="Project path"
            error={errorOf('path')}
            help={
              mode === 'create'
                ? `${namespace?.kind === 'group' ? `In the group ${namespace.full_path}. ` : ''}Part of the clone URL. Left empty: ${pathFromName(form.name) || 'made from the name'}.`
                : 'Changing the path moves the repository: clones must update their remote.'
            }
          >
            {(props) => (
              <div className="prj-path">
                {mode === 'create' && namespaces ? (
                  <select
                    className="input prj-path-ns"
                    aria-label="Namespace"
                    value={form.namespaceId}
                    onChange={(e) => set('namespaceId', e.currentTarget.value)}
                    aria-invalid={errorOf('namespace_id') ? true : undefined}
                  >
                    {namespaces.map((n) => (
                      <option key={n.id} value={n.id}>
                        {n.full_path} /
                      </option>
                    ))}
                  </select>
                ) : null}
                <input
                  {...props}
                  className="input mono"
                  value={form.path}
                  placeholder={mode === 'create' ? pathFromName(form.name) : undefined}
                  onChange={(e) => set('path', e.currentTarget.value)}
                  autoComplete="off"
                  spellCheck={false}
                />
              </div>
            )}
          </Field>
        </div>
        {errorOf('namespace_id') ? <p className="prj-field-error">{errorOf('namespace_id')}</p> : null}
        <Field label="Description" error={errorOf('description')}>
          {(props) => (
            <textarea
              {...props}
              className="input prj-textarea"
              rows={3}
              value={form.description}
              onChange={(e) => set('description', e.currentTarget.value)}
            />
          )}
        </Field>
        <Field label="Topics" error={errorOf('tag_list')} help="Separate topics with commas, e.g. house, stems, 124 bpm.">
          {(props) => (
            <input
              {...props}
              className="input"
              value={form.topics}
              onChange={(e) => set('topics', e.currentTarget.value)}
              autoComplete="off"
            />
          )}
        </Field>
      </fieldset>

      <fieldset className="prj-fieldset">
        <legend>Visibility</legend>
        <div className="prj-radios" role="radiogroup" aria-label="Visibility level">
          {visibilities.map((v) => (
            <label key={v.value} className={`prj-radio${form.visibility === v.value ? ' prj-radio-on' : ''}`}>
              <input
                type="radio"
                name={visibilityName}
                value={v.value}
                checked={form.visibility === v.value}
                onChange={() => set('visibility', v.value)}
              />
              <span>
                <strong>{v.label}</strong>
                <span className="prj-help">{v.help}</span>
              </span>
            </label>
          ))}
        </div>
        {errorOf('visibility') ? <p className="prj-field-error">{errorOf('visibility')}</p> : null}
      </fieldset>

      <fieldset className="prj-fieldset">
        <legend>Repository</legend>
        <div className="prj-grid-2">
          <Field
            label="Default branch"
            error={errorOf('default_branch')}
            help={mode === 'create' ? 'Left empty: main.' : 'HEAD of the repository; clones check this branch out.'}
          >
            {(props) => (
              <input
                {...props}
                className="input mono"
                value={form.defaultBranch}
                placeholder={mode === 'create' ? 'main' : undefined}
                onChange={(e) => set('defaultBranch', e.currentTarget.value)}
                autoComplete="off"
                spellCheck={false}
              />
            )}
          </Field>
        </div>
        {mode === 'create' ? (
          <Field
            label="Import the repository from a URL (optional)"
            error={errorOf('import_url')}
            help="An http(s) git URL; the server clones it in the background."
          >
            {(props) => (
              <input
                {...props}
                className="input mono"
                type="url"
                value={form.importUrl}
                placeholder="https://example.com/band/session.git"
                onChange={(e) => set('importUrl', e.currentTarget.value)}
                autoComplete="off"
              />
            )}
          </Field>
        ) : null}
      </fieldset>

      <fieldset className="prj-fieldset">
        <legend>Features and permissions</legend>
        <div className="prj-switches">
          {featureSwitches
            .filter((s) => !s.gitlabOnly)
            .map((s) => (
              <Switch key={s.key} label={s.label} checked={form.switches[s.key]} onChange={(value) => setSwitch(s.key, value)} />
            ))}
        </div>
      </fieldset>

      <details className="prj-advanced" open={advancedRefused || undefined}>
        <summary>Advanced: GitLab CI/CD and merge request settings</summary>
        <p className="prj-help">
          Kept for GitLab clients and exports; Cratehouse runs no pipelines, runners or registry, so these change nothing here.
        </p>
        <fieldset className="prj-fieldset">
          <legend>CI/CD</legend>
          <Field label="CI configuration path" error={errorOf('ci_config_path')} help="Left empty: .gitlab-ci.yml.">
            {(props) => (
              <input
                {...props}
                className="input mono"
                value={form.ciConfigPath}
                onChange={(e) => set('ciConfigPath', e.currentTarget.value)}
                autoComplete="off"
                spellCheck={false}
              />
            )}
          </Field>
          <div className="prj-switches">
            {featureSwitches
              .filter((s) => s.gitlabOnly)
              .map((s) => (
                <Switch key={s.key} label={s.label} checked={form.switches[s.key]} onChange={(value) => setSwitch(s.key, value)} />
              ))}
          </div>
        </fieldset>

        <fieldset className="prj-fieldset">
          <legend>Merge requests</legend>
          <Field label="Merge method" error={errorOf('merge_method')}>
            {(props) => (
              <select
                {...props}
                className="input prj-medium"
                value={form.mergeMethod}
                onChange={(e) => set('mergeMethod', e.currentTarget.value as ProjectFormState['mergeMethod'])}
              >
                {mergeMethods.map((m) => (
                  <option key={m.value} value={m.value}>
                    {m.label}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <div className="prj-switches">
            {mergeSwitches
              .filter((s) => mode === 'create' || !s.createOnly)
              .map((s) => (
                <Switch key={s.key} label={s.label} checked={form.switches[s.key]} onChange={(value) => setSwitch(s.key, value)} />
              ))}
          </div>
        </fieldset>
      </details>

      <InlineProblem>{server.general}</InlineProblem>
      {unchanged ? (
        <p className="prj-status" role="status">
          Nothing changed: there is nothing to save.
        </p>
      ) : null}
      {mode === 'edit' && save.isSuccess && !unchanged ? (
        <p className="prj-status prj-status-ok" role="status">
          Saved.
        </p>
      ) : null}
      <div className="actions">
        <SubmitButton pending={save.isPending} busyLabel="Saving…">
          {submitLabel}
        </SubmitButton>
      </div>
    </form>
  );
}
