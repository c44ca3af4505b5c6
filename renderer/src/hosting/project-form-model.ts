// The project form's state and its mapping to and from the API (the spec's `P` attributes), kept
// pure so the mapping and the checks made before sending are unit-tested.
import type { Project, ProjectPayload } from '../api/hosting';

/**
 * The boolean `P` attributes a person switches, grouped as the form shows them. `gitlabOnly`: kept for
 * GitLab clients but meaningless here (no CI runners, no registry), so the form folds them under "Advanced".
 */
export const featureSwitches = [
  { key: 'issues_enabled', label: 'Issues', gitlabOnly: false },
  { key: 'merge_requests_enabled', label: 'Merge requests', gitlabOnly: false },
  { key: 'wiki_enabled', label: 'Wiki', gitlabOnly: false },
  { key: 'snippets_enabled', label: 'Snippets', gitlabOnly: false },
  { key: 'jobs_enabled', label: 'CI/CD jobs', gitlabOnly: true },
  { key: 'public_jobs', label: 'Jobs visible to non-members', gitlabOnly: true },
  { key: 'shared_runners_enabled', label: 'Shared runners', gitlabOnly: true },
  { key: 'container_registry_enabled', label: 'Container registry', gitlabOnly: true },
  { key: 'lfs_enabled', label: 'Git Large File Storage (LFS)', gitlabOnly: false },
  { key: 'request_access_enabled', label: 'Users can request access', gitlabOnly: false },
] as const;

/** The merge request rules. `printing_merge_request_link_enabled` is a create attribute only (the spec). */
export const mergeSwitches = [
  { key: 'only_allow_merge_if_pipeline_succeeds', label: 'Merge only when the pipeline succeeds', createOnly: false },
  { key: 'only_allow_merge_if_all_discussions_are_resolved', label: 'Merge only when all discussions are resolved', createOnly: false },
  { key: 'resolve_outdated_diff_discussions', label: 'Resolve diff discussions on lines a push changes', createOnly: false },
  { key: 'printing_merge_request_link_enabled', label: 'Show the merge request link when pushing from the command line', createOnly: true },
] as const;

/** Every switch's API name. */
export type SwitchKey = (typeof featureSwitches)[number]['key'] | (typeof mergeSwitches)[number]['key'];

/** Visibility levels, most closed first, with what they mean (the spec's table). */
export const visibilities = [
  { value: 'private', label: 'Private', help: 'Access must be granted explicitly to each user.' },
  { value: 'internal', label: 'Internal', help: 'Any signed-in user can clone.' },
  { value: 'public', label: 'Public', help: 'Cloneable without signing in.' },
] as const;

/** Merge methods (the spec's table). */
export const mergeMethods = [
  { value: 'merge', label: 'Merge commit' },
  { value: 'rebase_merge', label: 'Merge commit with semi-linear history' },
  { value: 'ff', label: 'Fast-forward merge' },
] as const;

/** What the form holds: strings for text fields, booleans for switches. */
export interface ProjectFormState {
  readonly name: string;
  readonly path: string;
  readonly namespaceId: string;
  readonly description: string;
  readonly visibility: Project['visibility'];
  readonly defaultBranch: string;
  readonly topics: string;
  readonly mergeMethod: Project['merge_method'];
  readonly ciConfigPath: string;
  readonly importUrl: string;
  readonly switches: Readonly<Record<SwitchKey, boolean>>;
}

/** GitLab's defaults for a new project. */
export function emptyProjectForm(namespaceId: number | null): ProjectFormState {
  return {
    name: '',
    path: '',
    namespaceId: namespaceId === null ? '' : String(namespaceId),
    description: '',
    visibility: 'private',
    defaultBranch: '',
    topics: '',
    mergeMethod: 'merge',
    ciConfigPath: '',
    importUrl: '',
    switches: {
      issues_enabled: true,
      merge_requests_enabled: true,
      wiki_enabled: true,
      snippets_enabled: true,
      jobs_enabled: true,
      public_jobs: true,
      shared_runners_enabled: true,
      container_registry_enabled: true,
      lfs_enabled: true,
      request_access_enabled: true,
      only_allow_merge_if_pipeline_succeeds: false,
      only_allow_merge_if_all_discussions_are_resolved: false,
      resolve_outdated_diff_discussions: false,
      printing_merge_request_link_enabled: true,
    },
  };
}

/** The form filled from a project, for editing. */
export function projectToForm(project: Project): ProjectFormState {
  return {
    name: project.name,
    path: project.path,
    namespaceId: String(project.namespace.id),
    description: project.description ?? '',
    visibility: project.visibility,
    defaultBranch: project.default_branch ?? '',
    topics: (project.topics.length > 0 ? project.topics : project.tag_list).join(', '),
    mergeMethod: project.merge_method,
    ciConfigPath: project.ci_config_path ?? '',
    importUrl: '',
    switches: {
      issues_enabled: project.issues_enabled,
      merge_requests_enabled: project.merge_requests_enabled,
      wiki_enabled: project.wiki_enabled,
      snippets_enabled: project.snippets_enabled,
      jobs_enabled: project.jobs_enabled,
      public_jobs: project.public_jobs,
      shared_runners_enabled: project.shared_runners_enabled,
      container_registry_enabled: project.container_registry_enabled,
      lfs_enabled: project.lfs_enabled,
      request_access_enabled: project.request_access_enabled,
      only_allow_merge_if_pipeline_succeeds: project.only_allow_merge_if_pipeline_succeeds,
      only_allow_merge_if_all_discussions_are_resolved: project.only_allow_merge_if_all_discussions_are_resolved,
      resolve_outdated_diff_discussions: project.resolve_outdated_diff_discussions,
      printing_merge_request_link_enabled: project.printing_merge_request_link_enabled,
    },
  };
}

/** Topics typed as "a, b, a" → ["a", "b"]: trimmed, empty ones and repeats dropped (case-insensitively). */
export function parseTopics(text: string): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of text.split(/[,\n]/)) {
    const topic = raw.trim();
    if (topic === '' || seen.has(topic.toLowerCase())) continue;
    seen.add(topic.toLowerCase());
    out.push(topic);
  }
  return out;
}

const pathPattern = /^[a-zA-Z0-9]+([._-][a-zA-Z0-9]+)*$/;

/**
 * The path GitLab derives from a name when none is given: the name itself when it is a valid path,
 * else lower-cased with runs of other characters as one dash. Shown as the path field's placeholder.
 */
export function pathFromName(name: string): string {
  const trimmed = name.trim();
  if (pathPattern.test(trimmed) && !/\.(git|atom)$/i.test(trimmed)) return trimmed;
  return trimmed
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-_]+|[-_]+$/g, '');
}

/**
 * Problems the form can see before sending, in GitLab's words, so a person is not sent round the
 * server for them. The server checks everything again (uniqueness, reserved names).
 */
export function checkProjectForm(form: ProjectFormState, mode: 'create' | 'edit'): Record<string, string> {
  const problems: Record<string, string> = {};
  const name = form.name.trim();
  const path = form.path.trim();
  if (mode === 'create' && name === '' && path === '') problems.name = 'Give the project a name (or a path).';
  if (mode === 'edit' && name === '') problems.name = "Can't be blank.";
  if (mode === 'edit' && path === '') problems.path = "Can't be blank.";
  if (path !== '' && (!pathPattern.test(path) || /\.(git|atom)$/i.test(path)))
    problems.path =
      "Can only include non-accented letters, digits, '_', '-' and '.'. It must not start with '-', '_', or '.', nor end with '-', '_', '.', '.git', or '.atom'.";
  if (form.importUrl.trim() !== '' && !/^https?:\/\/\S+$/i.test(form.importUrl.trim()))
    problems.import_url = 'Must be an http:// or https:// address.';
  return problems;
}

/**
 * The request body for POST /projects (`create`) or PUT /projects/:id (`edit`). Create leaves out
 * what is empty so the server's defaults apply (path from name, default branch `main`); edit sends
 * only what changed from `before`, as python-gitlab's save() does, so a rename does not also move
 * the repository unless the path was changed too.
 */
export function formToPayload(form: ProjectFormState, mode: 'create' | 'edit', before?: ProjectFormState): ProjectPayload {
  const all: Record<string, string | number | boolean | readonly string[] | null> = {
    name: form.name.trim(),
    path: form.path.trim(),
    description: form.description.trim(),
    visibility: form.visibility,
    default_branch: form.defaultBranch.trim(),
    tag_list: parseTopics(form.topics),
    merge_method: form.mergeMethod,
    ci_config_path: form.ciConfigPath.trim(),
  };
  for (const item of featureSwitches) all[item.key] = form.switches[item.key];
  for (const item of mergeSwitches) if (mode === 'create' || !item.createOnly) all[item.key] = form.switches[item.key];

  if (mode === 'create') {
    const out: Record<string, string | number | boolean | readonly string[] | null> = {};
    for (const [key, value] of Object.entries(all)) {
      if (value === '' || (Array.isArray(value) && value.length === 0)) continue;
      out[key] = value;
    }
    if (form.namespaceId !== '') out.namespace_id = Number(form.namespaceId);
    if (form.importUrl.trim() !== '') out.import_url = form.importUrl.trim();
    return out;
  }

  const previous = before ? formToPayload(before, 'create') : {};
  const out: Record<string, string | number | boolean | readonly string[] | null> = {};
  for (const [key, value] of Object.entries(all)) {
    const old = previous[key];
    const same = Array.isArray(value)
      ? JSON.stringify(value) === JSON.stringify(old ?? [])
      : value === (old ?? (typeof value === 'string' ? '' : undefined));
    if (!same) out[key] = value;
  }
  return out;
}
