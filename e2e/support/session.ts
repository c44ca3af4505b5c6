import type { Page } from '@playwright/test';

// e2e/ is type-checked without DOM types; this callback runs in the page, where sessionStorage exists.
declare const sessionStorage: { setItem(key: string, value: string): void };

/** Sign the page in before it loads, as a person who signed in earlier in this tab (the tab keeps the token). */
export async function signInBeforeLoad(page: Page, token: string): Promise<void> {
  await page.addInitScript((value) => {
    sessionStorage.setItem('cratehouse.token', value);
  }, token);
}

/**
 * A producer of their own (a user with a personal access token, so a tenant of their own): the
 * analyses a spec runs then do not count against root's tenant, whose usage foundation.spec.ts
 * expects at 0 s.
 */
export async function createProducer(
  baseURL: string,
  adminToken: string,
  username: string,
): Promise<{ readonly token: string; readonly tenant: string }> {
  const call = async <T>(path: string, token: string, json?: unknown): Promise<T> => {
    const response = await fetch(`${baseURL}${path}`, {
      method: json === undefined ? 'GET' : 'POST',
      headers: { Authorization: `Bearer ${token}`, ...(json === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
    const body = (await response.json()) as T;
    if (!response.ok) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(body)}`);
    return body;
  };
  const user = await call<{ id: number }>('/api/v4/users', adminToken, {
    email: `${username}@example.test`,
    username,
    name: username,
    force_random_password: true,
  });
  const { token } = await call<{ token: string }>(`/api/v4/users/${user.id}/personal_access_tokens`, adminToken, {
    name: 'e2e',
    scopes: ['api'],
  });
  const me = await call<{ tenant: { id: string } }>('/audio/v1/me', token);
  return { token, tenant: me.tenant.id };
}

/**
 * POST audio bytes to `/audio/v1/<route>` (route without a leading slash, query allowed: `naming?index=1`)
 * as the multipart `file` field, the way the GUI uploads it. The caller reads the status and the body.
 */
export async function postAudio(baseURL: string, token: string, route: string, bytes: Buffer, name: string): Promise<Response> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)], { type: 'audio/wav' }), name);
  return fetch(`${baseURL}/audio/v1/${route}`, { method: 'POST', headers: { Authorization: `Bearer ${token}` }, body: form });
}
