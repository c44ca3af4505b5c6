import { describe, expect, it } from 'vitest';
import type { ProjectHook } from '../api/hosting';
import { checkHookForm, emptyHookForm, hookInputOf, hookToForm } from './hook-model';

describe('hook form', () => {
  it('starts with pushes on and everything else off, SSL verified', () => {
    const input = hookInputOf({ ...emptyHookForm(), url: ' https://h.example/hook ' });
    expect(input).toMatchObject({
      url: 'https://h.example/hook',
      push_events: true,
      tag_push_events: false,
      wiki_page_events: false,
      enable_ssl_verification: true,
      push_events_branch_filter: '',
    });
    expect(input).not.toHaveProperty('token');
  });

  it('sends a typed token and keeps the events of an existing hook', () => {
    const hook = {
      id: 1,
      url: 'http://h/x',
      project_id: 2,
      push_events: false,
      tag_push_events: true,
      merge_requests_events: false,
      issues_events: false,
      confidential_issues_events: false,
      note_events: true,
      job_events: false,
      pipeline_events: false,
      wiki_page_events: false,
      push_events_branch_filter: 'main',
      enable_ssl_verification: false,
      created_at: '',
    } satisfies ProjectHook;
    const form = hookToForm(hook);
    expect(form).toMatchObject({ url: 'http://h/x', token: '', branchFilter: 'main', sslVerification: false });
    expect(hookInputOf({ ...form, token: 's3cret' })).toMatchObject({
      token: 's3cret',
      push_events: false,
      tag_push_events: true,
      note_events: true,
    });
  });

  it('refuses an empty or non-http URL before sending', () => {
    expect(checkHookForm(emptyHookForm())).toMatch(/Enter the URL/);
    expect(checkHookForm({ ...emptyHookForm(), url: 'ftp://h/x' })).toMatch(/http/);
    expect(checkHookForm({ ...emptyHookForm(), url: 'not a url' })).toMatch(/not a URL/);
    expect(checkHookForm({ ...emptyHookForm(), url: 'http://127.0.0.1:9/hook' })).toBeNull();
  });
});
