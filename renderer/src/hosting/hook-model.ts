// The hook form's state and its request body, pure so the mapping is unit-tested.
import { hookEventKeys, type HookEventKey, type HookInput, type ProjectHook } from '../api/hosting';

/**
 * The trigger events with their labels, in the order GitLab's hook page lists them. `gitlabOnly`:
 * events of CI/CD, which Cratehouse never runs (kept for GitLab clients; the form folds them away).
 */
export const hookEvents: readonly { readonly key: HookEventKey; readonly label: string; readonly gitlabOnly: boolean }[] = [
  { key: 'push_events', label: 'Push events', gitlabOnly: false },
  { key: 'tag_push_events', label: 'Tag push events', gitlabOnly: false },
  { key: 'merge_requests_events', label: 'Merge request events', gitlabOnly: false },
  { key: 'issues_events', label: 'Issues events', gitlabOnly: false },
  { key: 'confidential_issues_events', label: 'Confidential issues events', gitlabOnly: false },
  { key: 'note_events', label: 'Comments', gitlabOnly: false },
  { key: 'job_events', label: 'Job events', gitlabOnly: true },
  { key: 'pipeline_events', label: 'Pipeline events', gitlabOnly: true },
  { key: 'wiki_page_events', label: 'Wiki page events', gitlabOnly: false },
];

/** What the hook form holds. */
export interface HookFormState {
  readonly url: string;
  readonly token: string;
  readonly branchFilter: string;
  readonly sslVerification: boolean;
  readonly events: Readonly<Record<HookEventKey, boolean>>;
}

/** A new hook: pushes on, the rest off, SSL verified (the API's defaults). */
export function emptyHookForm(): HookFormState {
  const events = Object.fromEntries(hookEventKeys.map((key) => [key, key === 'push_events'])) as Record<HookEventKey, boolean>;
  return { url: '', token: '', branchFilter: '', sslVerification: true, events };
}

/** The form for an existing hook; its token is never shown, so the field starts empty. */
export function hookToForm(hook: ProjectHook): HookFormState {
  const events = Object.fromEntries(hookEventKeys.map((key) => [key, Boolean(hook[key])])) as Record<HookEventKey, boolean>;
  return {
    url: hook.url,
    token: '',
    branchFilter: hook.push_events_branch_filter ?? '',
    sslVerification: hook.enable_ssl_verification,
    events,
  };
}

/**
 * The request body. An empty token is left out (on an edit that keeps the stored secret, unless
 * the URL changes: then GitLab drops it, which the form says). The branch filter is always sent so
 * clearing it takes effect.
 */
export function hookInputOf(form: HookFormState): HookInput {
  return {
    url: form.url.trim(),
    ...(form.token !== '' ? { token: form.token } : {}),
    push_events_branch_filter: form.branchFilter.trim(),
    enable_ssl_verification: form.sslVerification,
    ...form.events,
  };
}

/** A check before sending: the API takes only http(s) URLs. */
export function checkHookForm(form: HookFormState): string | null {
  const url = form.url.trim();
  if (url === '') return 'Enter the URL that receives the events.';
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'Use an http:// or https:// URL.';
  } catch {
    return 'This is not a URL; it should look like https://example.com/hook.';
  }
  return null;
}
