import { describe, expect, it } from 'vitest';
import type { Project } from '../api/hosting';
import { checkProjectForm, emptyProjectForm, formToPayload, parseTopics, pathFromName, projectToForm } from './project-form-model';

describe('parseTopics', () => {
  it('trims, drops empty ones and repeats', () => {
    expect(parseTopics(' house, techno,,House ,\nambient ')).toEqual(['house', 'techno', 'ambient']);
    expect(parseTopics('')).toEqual([]);
  });
});

describe('pathFromName', () => {
  it('keeps a name that is already a valid path, else parameterizes it as GitLab does', () => {
    expect(pathFromName('Album-2')).toBe('Album-2');
    expect(pathFromName('My Great Album!')).toBe('my-great-album');
    expect(pathFromName('Crème brûlée')).toBe('creme-brulee');
    expect(pathFromName('mix.git')).toBe('mix-git');
  });
});

describe('checkProjectForm', () => {
  it('needs a name or a path to create, both to edit', () => {
    expect(checkProjectForm(emptyProjectForm(1), 'create')).toHaveProperty('name');
    expect(checkProjectForm({ ...emptyProjectForm(1), path: 'x' }, 'create')).toEqual({});
    expect(checkProjectForm({ ...emptyProjectForm(1), name: 'x' }, 'edit')).toHaveProperty('path');
  });

  it('catches a path GitLab refuses and an import URL that is not http(s)', () => {
    expect(checkProjectForm({ ...emptyProjectForm(1), path: '-bad' }, 'create').path).toMatch(/non-accented letters/);
    expect(checkProjectForm({ ...emptyProjectForm(1), path: 'x.git' }, 'create').path).toBeDefined();
    expect(checkProjectForm({ ...emptyProjectForm(1), name: 'x', importUrl: 'ssh://h/r.git' }, 'create').import_url).toBeDefined();
  });
});

describe('formToPayload', () => {
  it('creates with what is filled in, the namespace as a number and topics as tag_list', () => {
    const payload = formToPayload(
      { ...emptyProjectForm(7), name: 'Album', description: ' LP ', topics: 'lp, house', visibility: 'internal' },
      'create',
    );
    expect(payload).toMatchObject({
      name: 'Album',
      description: 'LP',
      tag_list: ['lp', 'house'],
      visibility: 'internal',
      namespace_id: 7,
      issues_enabled: true,
      printing_merge_request_link_enabled: true,
    });
    expect(payload).not.toHaveProperty('path');
    expect(payload).not.toHaveProperty('default_branch');
    expect(payload).not.toHaveProperty('import_url');
  });

  it('edits with only what changed, including a cleared description and a switch turned off', () => {
    const before = { ...emptyProjectForm(7), name: 'Album', path: 'album', description: 'LP', topics: 'lp' };
    const after = { ...before, description: '', visibility: 'public' as const, switches: { ...before.switches, wiki_enabled: false } };
    expect(formToPayload(after, 'edit', before)).toEqual({ description: '', visibility: 'public', wiki_enabled: false });
    expect(formToPayload(before, 'edit', before)).toEqual({});
    expect(formToPayload({ ...before, topics: '' }, 'edit', before)).toEqual({ tag_list: [] });
  });

  it('round-trips a project through the form', () => {
    const project = {
      name: 'Album',
      path: 'album',
      namespace: { id: 3 },
      description: null,
      visibility: 'internal',
      default_branch: 'main',
      topics: ['b', 'a'],
      tag_list: ['b', 'a'],
      merge_method: 'ff',
      ci_config_path: 'ci/build.yml',
      // Switches alternate within each group, phased so that most differ from emptyProjectForm's
      // defaults: a switch mapped from the wrong attribute, or left at its default, shows.
      issues_enabled: false,
      merge_requests_enabled: true,
      wiki_enabled: false,
      snippets_enabled: true,
      jobs_enabled: false,
      public_jobs: true,
      shared_runners_enabled: false,
      container_registry_enabled: true,
      lfs_enabled: false,
      request_access_enabled: true,
      only_allow_merge_if_pipeline_succeeds: true,
      only_allow_merge_if_all_discussions_are_resolved: false,
      resolve_outdated_diff_discussions: true,
      printing_merge_request_link_enabled: false,
    } as unknown as Project;
    const form = projectToForm(project);
    expect(form).toMatchObject({ description: '', topics: 'b, a', mergeMethod: 'ff', namespaceId: '3' });
    expect(form.switches.issues_enabled).toBe(false);
    expect(formToPayload(form, 'edit', form)).toEqual({});
    expect(formToPayload(form, 'create')).toMatchObject({
      name: 'Album',
      path: 'album',
      namespace_id: 3,
      visibility: 'internal',
      default_branch: 'main',
      tag_list: ['b', 'a'],
      merge_method: 'ff',
      ci_config_path: 'ci/build.yml',
      issues_enabled: false,
      merge_requests_enabled: true,
      wiki_enabled: false,
      snippets_enabled: true,
      jobs_enabled: false,
      public_jobs: true,
      shared_runners_enabled: false,
      container_registry_enabled: true,
      lfs_enabled: false,
      request_access_enabled: true,
      only_allow_merge_if_pipeline_succeeds: true,
      only_allow_merge_if_all_discussions_are_resolved: false,
      resolve_outdated_diff_discussions: true,
      printing_merge_request_link_enabled: false,
    });
  });
});
