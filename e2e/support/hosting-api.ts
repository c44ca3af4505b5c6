import { callHosting } from '../../server/test-support/hosting-client.js';

/** An answer of the hosting API: its status and its JSON body (undefined when empty). */
export interface HostingAnswer<T> {
  readonly status: number;
  readonly body: T;
}

/**
 * A call to the hosting API (`<baseURL>/api/v4<route>`) with a personal access token, for setting up
 * (users, groups, projects, commits, hooks, badges) and for checking what the GUI did. The caller
 * reads the status.
 */
export async function hostingApi<T>(
  baseURL: string,
  token: string,
  method: string,
  route: string,
  body?: unknown,
): Promise<HostingAnswer<T>> {
  const server = { fetch: (at: string, init?: RequestInit) => fetch(`${baseURL}${at}`, init) };
  const response = await callHosting(server, token, route, { method, body });
  const text = await response.text();
  return { status: response.status, body: (text === '' ? undefined : JSON.parse(text)) as T };
}

/** Like hostingApi, but an answer other than 2xx is an error; resolves with the body. */
export async function hostingOk<T>(baseURL: string, token: string, method: string, route: string, body?: unknown): Promise<T> {
  const answer = await hostingApi<T>(baseURL, token, method, route, body);
  if (answer.status < 200 || answer.status >= 300)
    throw new Error(`${method} ${route} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}
