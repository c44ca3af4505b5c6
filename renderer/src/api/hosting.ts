// The hosting API (/api/v4, GitLab's shapes): every call the Projects screens make (over 400 lines:
// one short function per endpoint, kept in one place so the screens share one client). The token goes
// in GitLab's PRIVATE-TOKEN header; lists come with GitLab's pagination headers.
import type {
  BadgeRender,
  GlobalNotificationSetting,
  Group,
  GroupBadge,
  Namespace,
  NotificationLevelName,
  NotificationSetting,
  Project,
  ProjectExportStatus,
  ProjectImportStatus,
} from '../../../server/hosting/api-types.js';
import { failureOf, getJson, requestJson, send, uploadFile, type Query, type UploadProgress } from './http';

export type {
  BadgeRender,
  GlobalNotificationSetting,
  Group,
  GroupBadge,
  Namespace,
  NotificationLevelName,
  NotificationSetting,
  Project,
  ProjectExportStatus,
  ProjectImportStatus,
};

const base = '/api/v4';

/** The switches of a project hook; `wiki_page_events` is spelled `wiki_events` on PUT. */
export const hookEventKeys = [
  'push_events',
  'tag_push_events',
  'merge_requests_events',
  'issues_events',
  'confidential_issues_events',
  'note_events',
  'job_events',
  'pipeline_events',
  'wiki_page_events',
] as const;

/** One hook switch by its API name. */
export type HookEventKey = (typeof hookEventKeys)[number];

/** GitLab's ProjectHook as the server presents it (the token is write-only and never shown). */
export type ProjectHook = {
  readonly id: number;
  readonly url: string;
  readonly project_id: number;
  readonly push_events_branch_filter: string | null;
  readonly enable_ssl_verification: boolean;
  readonly created_at: string;
} & Readonly<Record<HookEventKey, boolean>>;

/** What a person sets on a hook (the token only when they typed one). */
export type HookInput = {
  readonly url: string;
  readonly token?: string;
  readonly push_events_branch_filter?: string;
  readonly enable_ssl_verification: boolean;
} & Readonly<Record<HookEventKey, boolean>>;

/** The answer of POST /projects/:id/share. */
export interface ProjectShare {
  readonly id: number;
  readonly project_id: number;
  readonly group_id: number;
  readonly group_access: number;
  readonly expires_at: string | null;
}

/** Where a page sits in a paginated list, from GitLab's X-* headers (the Link header as fallback). */
export interface PageInfo {
  readonly page: number;
  readonly perPage: number;
  readonly total: number | null;
  readonly totalPages: number | null;
  readonly next: number | null;
  readonly prev: number | null;
}

/** One page of a list with its position. */
export interface Paged<T> {
  readonly items: readonly T[];
  readonly page: PageInfo;
}

function intOrNull(value: string | null | undefined): number | null {
  if (value === null || value === undefined || value.trim() === '') return null;
  const n = Number(value);
  return Number.isInteger(n) ? n : null;
}

/** The `page` of each relation in an RFC 8288 Link header: `<url?page=2>; rel="next", …`. */
export function parseLinkHeader(header: string | null): Readonly<Record<string, number>> {
  const out: Record<string, number> = {};
  if (!header) return out;
  for (const part of header.split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]*)>\s*;(.*)$/.exec(part);
    if (!match) continue;
    const [, url = '', params = ''] = match;
    const rel = /rel\s*=\s*"?([^";]+)"?/i.exec(params)?.[1];
    if (!rel) continue;
    let page: number | null = null;
    try {
      page = intOrNull(new URL(url, 'http://localhost').searchParams.get('page'));
    } catch {
      page = null;
    }
    if (page === null) continue;
    for (const name of rel.trim().split(/\s+/)) out[name.toLowerCase()] = page;
  }
  return out;
}

/**
 * The position of a page from GitLab's headers. X-Total and X-Total-Pages may be missing (GitLab
 * leaves them out of very large lists), so the Link header fills in next/prev/last.
 */
export function pageInfoOf(headers: Headers, requested: { readonly page: number; readonly perPage: number }): PageInfo {
  const links = parseLinkHeader(headers.get('link'));
  const page = intOrNull(headers.get('x-page')) ?? requested.page;
  const perPage = intOrNull(headers.get('x-per-page')) ?? requested.perPage;
  const nextHeader = headers.get('x-next-page');
  const prevHeader = headers.get('x-prev-page');
  return {
    page,
    perPage,
    total: intOrNull(headers.get('x-total')),
    totalPages: intOrNull(headers.get('x-total-pages')) ?? links.last ?? null,
    next: nextHeader !== null ? intOrNull(nextHeader) : (links.next ?? null),
    prev: prevHeader !== null ? intOrNull(prevHeader) : (links.prev ?? null),
  };
}

const auth = (token: string) => ({ token, tokenStyle: 'private-token' as const });
const enc = (id: number | string) => encodeURIComponent(String(id));

async function getPage<T>(
  token: string,
  path: string,
  query: Query & { page: number; per_page: number },
  signal?: AbortSignal,
): Promise<Paged<T>> {
  const response = await requestJson<T[]>(`${base}${path}`, { ...auth(token), query, signal });
  return { items: response.body ?? [], page: pageInfoOf(response.headers, { page: query.page, perPage: query.per_page }) };
}

/** The list filters the Projects screen offers (GitLab's `F`). */
export interface ProjectListQuery {
  readonly search?: string;
  readonly archived?: boolean;
  readonly visibility?: Project['visibility'];
  readonly starred?: boolean;
  readonly owned?: boolean;
  readonly order_by?: 'id' | 'name' | 'path' | 'created_at' | 'updated_at' | 'last_activity_at' | 'star_count';
  readonly sort?: 'asc' | 'desc';
  readonly page: number;
  readonly per_page: number;
}

/** GET /projects with filters, one page. */
export function listProjects(token: string, query: ProjectListQuery, signal?: AbortSignal): Promise<Paged<Project>> {
  return getPage<Project>(token, '/projects', { ...query }, signal);
}

/** GET /projects/:id. */
export function getProject(token: string, id: number | string, signal?: AbortSignal): Promise<Project> {
  return getJson<Project>(`${base}/projects/${enc(id)}`, { ...auth(token), signal });
}

/**
 * Whether the caller starred this project. GitLab has no per-project flag, so this asks for the
 * starred list narrowed to exactly this id (id_after/id_before), which answers one project or none.
 */
export async function isStarred(token: string, id: number, signal?: AbortSignal): Promise<boolean> {
  const page = await getPage<Project>(
    token,
    '/projects',
    { starred: true, simple: true, id_after: id - 1, id_before: id + 1, page: 1, per_page: 1 },
    signal,
  );
  return page.items.some((p) => p.id === id);
}

/** The body of POST and PUT /projects (attributes left out are not changed). */
export type ProjectPayload = Readonly<Record<string, string | number | boolean | readonly string[] | null>>;

/** POST /projects. */
export async function createProject(token: string, payload: ProjectPayload): Promise<Project> {
  return (await requestJson<Project>(`${base}/projects`, { ...auth(token), method: 'POST', json: payload })).body;
}

/** PUT /projects/:id. */
export async function updateProject(token: string, id: number, payload: ProjectPayload): Promise<Project> {
  return (await requestJson<Project>(`${base}/projects/${id}`, { ...auth(token), method: 'PUT', json: payload })).body;
}

/** DELETE /projects/:id (202: the removal is accepted). */
export async function deleteProject(token: string, id: number): Promise<void> {
  await requestJson(`${base}/projects/${id}`, { ...auth(token), method: 'DELETE' });
}

/** POST /projects/:id/star or /unstar; a 304 (nothing changed) is not an error. */
export async function setStarred(token: string, id: number, starred: boolean): Promise<void> {
  await requestJson(`${base}/projects/${id}/${starred ? 'star' : 'unstar'}`, { ...auth(token), method: 'POST' });
}

/** POST /projects/:id/archive or /unarchive. */
export async function setArchived(token: string, id: number, archived: boolean): Promise<Project> {
  return (await requestJson<Project>(`${base}/projects/${id}/${archived ? 'archive' : 'unarchive'}`, { ...auth(token), method: 'POST' }))
    .body;
}

/** What a fork is made as. */
export interface ForkInput {
  readonly namespace_id: number;
  readonly name?: string;
  readonly path?: string;
}

/** POST /projects/:id/fork: answers at once with the new project (import_status scheduled). */
export async function forkProject(token: string, id: number, input: ForkInput): Promise<Project> {
  return (await requestJson<Project>(`${base}/projects/${id}/fork`, { ...auth(token), method: 'POST', json: input })).body;
}

/** POST /projects/:id/share. */
export async function shareProject(
  token: string,
  id: number,
  input: { readonly group_id: number; readonly group_access: number; readonly expires_at?: string },
): Promise<ProjectShare> {
  return (await requestJson<ProjectShare>(`${base}/projects/${id}/share`, { ...auth(token), method: 'POST', json: input })).body;
}

/** DELETE /projects/:id/share/:group_id. */
export async function unshareProject(token: string, id: number, groupId: number): Promise<void> {
  await requestJson(`${base}/projects/${id}/share/${groupId}`, { ...auth(token), method: 'DELETE' });
}

/** GET /namespaces: where the caller may create or fork projects. */
export async function listNamespaces(token: string, signal?: AbortSignal): Promise<readonly Namespace[]> {
  return (await getPage<Namespace>(token, '/namespaces', { page: 1, per_page: 100 }, signal)).items;
}

/** GET /groups (first 100, by name). */
export async function listGroups(
  token: string,
  query: { readonly search?: string; readonly owned?: boolean } = {},
  signal?: AbortSignal,
): Promise<readonly Group[]> {
  return (await getPage<Group>(token, '/groups', { ...query, page: 1, per_page: 100 }, signal)).items;
}

/** POST /groups: a top-level group the caller owns. */
export async function createGroup(
  token: string,
  input: { readonly name: string; readonly path: string; readonly visibility: 'private' | 'internal' | 'public' },
): Promise<Group> {
  return getJson<Group>(`${base}/groups`, { ...auth(token), method: 'POST', json: input });
}

/** GET /projects/:id/hooks (first 100). */
export async function listHooks(token: string, projectId: number, signal?: AbortSignal): Promise<readonly ProjectHook[]> {
  return (await getPage<ProjectHook>(token, `/projects/${projectId}/hooks`, { page: 1, per_page: 100 }, signal)).items;
}

/** POST /projects/:id/hooks. */
export async function createHook(token: string, projectId: number, input: HookInput): Promise<ProjectHook> {
  return (await requestJson<ProjectHook>(`${base}/projects/${projectId}/hooks`, { ...auth(token), method: 'POST', json: input })).body;
}

/** PUT /projects/:id/hooks/:hook_id; the spec spells the wiki switch `wiki_events` here. */
export async function updateHook(token: string, projectId: number, hookId: number, input: HookInput): Promise<ProjectHook> {
  const { wiki_page_events, ...rest } = input;
  return (
    await requestJson<ProjectHook>(`${base}/projects/${projectId}/hooks/${hookId}`, {
      ...auth(token),
      method: 'PUT',
      json: { ...rest, wiki_events: wiki_page_events },
    })
  ).body;
}

/** DELETE /projects/:id/hooks/:hook_id. */
export async function deleteHook(token: string, projectId: number, hookId: number): Promise<void> {
  await requestJson(`${base}/projects/${projectId}/hooks/${hookId}`, { ...auth(token), method: 'DELETE' });
}

/** POST /projects/:id/hooks/:hook_id/test/:trigger: one delivery now; a failing receiver is a 422 with why. */
export async function testHook(
  token: string,
  projectId: number,
  hookId: number,
  trigger: 'push_events' | 'tag_push_events',
): Promise<void> {
  await requestJson(`${base}/projects/${projectId}/hooks/${hookId}/test/${trigger}`, { ...auth(token), method: 'POST' });
}

/** POST /projects/:id/export (202). */
export async function scheduleExport(token: string, projectId: number, description?: string): Promise<void> {
  await requestJson(`${base}/projects/${projectId}/export`, { ...auth(token), method: 'POST', json: description ? { description } : {} });
}

/** GET /projects/:id/export. */
export function getExportStatus(token: string, projectId: number, signal?: AbortSignal): Promise<ProjectExportStatus> {
  return getJson<ProjectExportStatus>(`${base}/projects/${projectId}/export`, { ...auth(token), signal });
}

/** The file name in a Content-Disposition header (filename* first, as RFC 6266 says). */
export function fileNameOf(disposition: string | null): string | null {
  if (!disposition) return null;
  const extended = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(disposition);
  if (extended?.[2]) {
    try {
      return decodeURIComponent(extended[2].trim());
    } catch {
      // A malformed filename* falls back to the plain filename.
    }
  }
  const plain = /filename\s*=\s*("([^"]*)"|[^;]+)/i.exec(disposition);
  const name = plain?.[2] ?? plain?.[1];
  return name ? name.trim() : null;
}

/** GET /projects/:id/export/download: the archive and the name the server gives it. */
export async function downloadExport(token: string, projectId: number): Promise<{ readonly blob: Blob; readonly fileName: string }> {
  const response = await send(`${base}/projects/${projectId}/export/download`, auth(token));
  if (!response.ok) throw await failureOf(response);
  return {
    blob: await response.blob(),
    fileName: fileNameOf(response.headers.get('content-disposition')) ?? `project-${projectId}_export.tar.gz`,
  };
}

/** POST /projects/import: a multipart upload with progress; answers the import result (scheduled). */
export async function importProject(
  token: string,
  file: Blob,
  fileName: string,
  fields: { readonly path: string; readonly name?: string; readonly namespace?: string; readonly overwrite?: boolean },
  onProgress?: (progress: UploadProgress) => void,
  signal?: AbortSignal,
): Promise<ProjectImportStatus> {
  const sent: Record<string, string> = { path: fields.path };
  if (fields.name) sent.name = fields.name;
  if (fields.namespace) sent.namespace = fields.namespace;
  if (fields.overwrite) sent.overwrite = 'true';
  return (
    await uploadFile<ProjectImportStatus>(`${base}/projects/import`, file, fileName, { ...auth(token), fields: sent, onProgress, signal })
  ).body;
}

/** GET /projects/:id/import. */
export function getImportStatus(token: string, projectId: number, signal?: AbortSignal): Promise<ProjectImportStatus> {
  return getJson<ProjectImportStatus>(`${base}/projects/${projectId}/import`, { ...auth(token), signal });
}

/** GET /groups/:id/badges (first 100). */
export async function listGroupBadges(token: string, groupId: number, signal?: AbortSignal): Promise<readonly GroupBadge[]> {
  return (await getPage<GroupBadge>(token, `/groups/${groupId}/badges`, { page: 1, per_page: 100 }, signal)).items;
}

/** What a person sets on a group badge. */
export interface BadgeInput {
  readonly name?: string;
  readonly link_url: string;
  readonly image_url: string;
}

/** POST /groups/:id/badges. */
export async function createGroupBadge(token: string, groupId: number, input: BadgeInput): Promise<GroupBadge> {
  return (await requestJson<GroupBadge>(`${base}/groups/${groupId}/badges`, { ...auth(token), method: 'POST', json: input })).body;
}

/** PUT /groups/:id/badges/:badge_id. */
export async function updateGroupBadge(token: string, groupId: number, badgeId: number, input: BadgeInput): Promise<GroupBadge> {
  return (await requestJson<GroupBadge>(`${base}/groups/${groupId}/badges/${badgeId}`, { ...auth(token), method: 'PUT', json: input }))
    .body;
}

/** DELETE /groups/:id/badges/:badge_id. */
export async function deleteGroupBadge(token: string, groupId: number, badgeId: number): Promise<void> {
  await requestJson(`${base}/groups/${groupId}/badges/${badgeId}`, { ...auth(token), method: 'DELETE' });
}

/** GET /groups/:id/badges/render: the URLs with the placeholders replaced. */
export function renderGroupBadge(
  token: string,
  groupId: number,
  input: { readonly link_url: string; readonly image_url: string },
  signal?: AbortSignal,
): Promise<BadgeRender> {
  return getJson<BadgeRender>(`${base}/groups/${groupId}/badges/render`, { ...auth(token), query: input, signal });
}

/** GET /notification_settings. */
export function getGlobalNotifications(token: string, signal?: AbortSignal): Promise<GlobalNotificationSetting> {
  return getJson<GlobalNotificationSetting>(`${base}/notification_settings`, { ...auth(token), signal });
}

/** PUT /notification_settings. */
export async function setGlobalNotifications(token: string, level: NotificationLevelName): Promise<GlobalNotificationSetting> {
  return (await requestJson<GlobalNotificationSetting>(`${base}/notification_settings`, { ...auth(token), method: 'PUT', json: { level } }))
    .body;
}

/** GET /projects/:id/notification_settings. */
export function getProjectNotifications(token: string, projectId: number, signal?: AbortSignal): Promise<NotificationSetting> {
  return getJson<NotificationSetting>(`${base}/projects/${projectId}/notification_settings`, { ...auth(token), signal });
}

/** PUT /projects/:id/notification_settings. */
export async function setProjectNotifications(
  token: string,
  projectId: number,
  level: NotificationLevelName,
): Promise<NotificationSetting> {
  return (
    await requestJson<NotificationSetting>(`${base}/projects/${projectId}/notification_settings`, {
      ...auth(token),
      method: 'PUT',
      json: { level },
    })
  ).body;
}
