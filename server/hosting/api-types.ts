/** Response bodies of the hosting API (GitLab shapes), for clients; the renderer imports these as types only. */

export interface UserBasic {
  readonly id: number;
  readonly username: string;
  readonly name: string;
  readonly state: 'active' | 'blocked';
  readonly locked: boolean;
  readonly avatar_url: string | null;
  readonly web_url: string;
}

export interface UserDetail extends UserBasic {
  readonly created_at: string;
  readonly bio: string;
  readonly public_email: string | null;
  readonly email?: string;
  readonly is_admin?: boolean;
  readonly can_create_group?: boolean;
  readonly can_create_project?: boolean;
  readonly two_factor_enabled?: boolean;
  readonly external?: boolean;
  readonly private_profile?: boolean;
  readonly namespace_id?: number;
  readonly tenant?: string;
}

export interface Group {
  readonly id: number;
  readonly web_url: string;
  readonly name: string;
  readonly path: string;
  readonly description: string;
  readonly visibility: 'private' | 'internal' | 'public';
  readonly full_name: string;
  readonly full_path: string;
  readonly parent_id: number | null;
  readonly created_at: string;
  readonly avatar_url: string | null;
}

export interface Namespace {
  readonly id: number;
  readonly name: string;
  readonly path: string;
  readonly kind: 'user' | 'group';
  readonly full_path: string;
  readonly parent_id: number | null;
  readonly avatar_url: string | null;
  readonly web_url: string;
}

export interface GroupMember extends UserBasic {
  readonly access_level: number;
  readonly expires_at: string | null;
  readonly created_at: string;
}

export interface PersonalAccessToken {
  readonly id: number;
  readonly name: string;
  readonly revoked: boolean;
  readonly created_at: string;
  readonly scopes: readonly string[];
  readonly user_id: number;
  readonly last_used_at: string | null;
  readonly active: boolean;
  readonly expires_at: string | null;
  /** Only in the response that created it. */
  readonly token?: string;
}

export interface Version {
  readonly version: string;
  readonly revision: string;
}
