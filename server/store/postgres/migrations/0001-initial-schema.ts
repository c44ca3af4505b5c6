import type { MigrationBuilder } from 'node-pg-migrate';

/**
 * The metadata schema: one table per document table (server/store/schema.ts), with the keys and
 * unique indexes that hold the rules the code relies on. Every row table has `ord`, the order the
 * document keeps its rows in. Foreign keys are deferred to COMMIT: one write may add a user and
 * its namespace in either order.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE TABLE sequences (
      name text PRIMARY KEY,
      value bigint NOT NULL,
      ord bigint GENERATED ALWAYS AS IDENTITY
    );
    CREATE TABLE tenants (
      id text PRIMARY KEY,
      webhook_secret text NOT NULL,
      created_at timestamptz NOT NULL,
      ord bigint GENERATED ALWAYS AS IDENTITY
    );
    CREATE TABLE namespaces (
      id integer PRIMARY KEY,
      kind text NOT NULL CHECK (kind IN ('user', 'group')),
      name text NOT NULL,
      path text NOT NULL,
      owner_id integer NOT NULL,
      parent_id integer REFERENCES namespaces (id) DEFERRABLE INITIALLY DEFERRED,
      created_at timestamptz NOT NULL,
      ord bigint GENERATED ALWAYS AS IDENTITY
    );
    -- Namespace paths are unique among siblings ignoring case (top-level: users and groups alike).
    CREATE UNIQUE INDEX namespaces_path_key ON namespaces (coalesce(parent_id, 0), lower(path));
    CREATE TABLE users (
      id integer PRIMARY KEY,
      username text NOT NULL,
      name text NOT NULL,
      email text NOT NULL,
      admin boolean NOT NULL,
      state text NOT NULL CHECK (state IN ('active', 'blocked')),
      tenant text NOT NULL REFERENCES tenants (id) DEFERRABLE INITIALLY DEFERRED,
      namespace_id integer NOT NULL REFERENCES namespaces (id) DEFERRABLE INITIALLY DEFERRED,
      password_hash text,
      created_at timestamptz NOT NULL,
      ord bigint GENERATED ALWAYS AS IDENTITY
    );
    CREATE UNIQUE INDEX users_username_key ON users (lower(username));
    CREATE UNIQUE INDEX users_email_key ON users (lower(email));
    CREATE TABLE groups (
      id integer PRIMARY KEY REFERENCES namespaces (id) DEFERRABLE INITIALLY DEFERRED,
      name text NOT NULL,
      path text NOT NULL,
      description text NOT NULL,
      visibility text NOT NULL CHECK (visibility IN ('private', 'internal', 'public')),
      parent_id integer REFERENCES groups (id) DEFERRABLE INITIALLY DEFERRED,
      created_at timestamptz NOT NULL,
      ord bigint GENERATED ALWAYS AS IDENTITY
    );
    CREATE TABLE group_members (
      group_id integer NOT NULL REFERENCES groups (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
      user_id integer NOT NULL REFERENCES users (id) DEFERRABLE INITIALLY DEFERRED,
      access_level integer NOT NULL,
      expires_at text,
      created_at timestamptz NOT NULL,
      ord bigint GENERATED ALWAYS AS IDENTITY,
      PRIMARY KEY (group_id, user_id)
    );
    CREATE INDEX group_members_user_idx ON group_members (user_id);
    CREATE TABLE tokens (
      id integer PRIMARY KEY,
      user_id integer NOT NULL REFERENCES users (id) DEFERRABLE INITIALLY DEFERRED,
      name text NOT NULL,
      digest text NOT NULL UNIQUE,
      scopes text[] NOT NULL,
      created_at timestamptz NOT NULL,
      expires_at text,
      revoked boolean NOT NULL,
      last_used_at timestamptz,
      ord bigint GENERATED ALWAYS AS IDENTITY
    );
    CREATE TABLE jobs (
      job_id text PRIMARY KEY,
      type text NOT NULL,
      tenant text NOT NULL,
      status text NOT NULL CHECK (status IN ('pending', 'running', 'done', 'error')),
      progress double precision NOT NULL,
      priority integer NOT NULL,
      params json,
      result json,
      result_ref text,
      error text,
      created double precision NOT NULL,
      started double precision,
      finished double precision,
      cancel_requested boolean NOT NULL,
      webhook_url text,
      webhook json,
      ord bigint GENERATED ALWAYS AS IDENTITY
    );
    CREATE INDEX jobs_tenant_idx ON jobs (tenant);
    CREATE INDEX jobs_open_idx ON jobs (status) WHERE status IN ('pending', 'running');
    CREATE TABLE sources (
      url text PRIMARY KEY,
      content_id text NOT NULL,
      name text NOT NULL,
      descriptor json NOT NULL,
      fetched_at timestamptz NOT NULL,
      ord bigint GENERATED ALWAYS AS IDENTITY
    );
    CREATE TABLE projects (
      id integer PRIMARY KEY,
      name text NOT NULL,
      path text NOT NULL,
      namespace_id integer NOT NULL REFERENCES namespaces (id) DEFERRABLE INITIALLY DEFERRED,
      description text,
      visibility text NOT NULL CHECK (visibility IN ('private', 'internal', 'public')),
      default_branch text NOT NULL,
      creator_id integer NOT NULL,
      settings json NOT NULL,
      merge_method text NOT NULL,
      tag_list text[] NOT NULL,
      ci_config_path text,
      archived boolean NOT NULL,
      import_url text,
      import_status text NOT NULL,
      import_error text,
      forked_from_id integer REFERENCES projects (id) ON DELETE SET NULL DEFERRABLE INITIALLY DEFERRED,
      empty_repo boolean NOT NULL,
      readme_path text,
      runners_token text NOT NULL,
      custom_attributes json NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      last_activity_at timestamptz NOT NULL,
      ord bigint GENERATED ALWAYS AS IDENTITY
    );
    -- A project's path and name are unique in its namespace ignoring case (ProjectsRepo.insert checks the same).
    CREATE UNIQUE INDEX projects_path_key ON projects (namespace_id, lower(path));
    CREATE UNIQUE INDEX projects_name_key ON projects (namespace_id, lower(name));
    CREATE INDEX projects_forked_from_idx ON projects (forked_from_id) WHERE forked_from_id IS NOT NULL;
    CREATE TABLE stars (
      project_id integer NOT NULL REFERENCES projects (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
      user_id integer NOT NULL REFERENCES users (id) DEFERRABLE INITIALLY DEFERRED,
      created_at timestamptz NOT NULL,
      ord bigint GENERATED ALWAYS AS IDENTITY,
      PRIMARY KEY (project_id, user_id)
    );
    CREATE INDEX stars_user_idx ON stars (user_id);
    CREATE TABLE project_shares (
      id integer PRIMARY KEY,
      project_id integer NOT NULL REFERENCES projects (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
      group_id integer NOT NULL REFERENCES groups (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
      group_access integer NOT NULL,
      expires_at text,
      created_at timestamptz NOT NULL,
      ord bigint GENERATED ALWAYS AS IDENTITY,
      UNIQUE (project_id, group_id)
    );
    CREATE TABLE uploads (
      id integer PRIMARY KEY,
      project_id integer NOT NULL REFERENCES projects (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
      secret text NOT NULL,
      filename text NOT NULL,
      size bigint NOT NULL,
      uploader_id integer NOT NULL,
      created_at timestamptz NOT NULL,
      ord bigint GENERATED ALWAYS AS IDENTITY
    );
    CREATE INDEX uploads_project_idx ON uploads (project_id);
    CREATE TABLE hooks (
      id integer PRIMARY KEY,
      project_id integer NOT NULL REFERENCES projects (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
      url text NOT NULL,
      token text,
      events json NOT NULL,
      push_events_branch_filter text,
      enable_ssl_verification boolean NOT NULL,
      created_at timestamptz NOT NULL,
      ord bigint GENERATED ALWAYS AS IDENTITY
    );
    CREATE INDEX hooks_project_idx ON hooks (project_id);
    CREATE TABLE group_badges (
      id integer PRIMARY KEY,
      group_id integer NOT NULL REFERENCES groups (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
      name text,
      link_url text NOT NULL,
      image_url text NOT NULL,
      created_at timestamptz NOT NULL,
      ord bigint GENERATED ALWAYS AS IDENTITY
    );
    CREATE TABLE notification_settings (
      user_id integer NOT NULL REFERENCES users (id) DEFERRABLE INITIALLY DEFERRED,
      source text NOT NULL CHECK (source IN ('global', 'group', 'project')),
      source_id integer,
      -- A primary key cannot hold null: a global setting's key is 0.
      source_key integer GENERATED ALWAYS AS (coalesce(source_id, 0)) STORED,
      level text NOT NULL,
      notification_email text,
      events json NOT NULL,
      ord bigint GENERATED ALWAYS AS IDENTITY,
      PRIMARY KEY (user_id, source, source_key)
    );
    CREATE TABLE project_exports (
      project_id integer PRIMARY KEY REFERENCES projects (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
      status text NOT NULL,
      file text,
      file_name text,
      upload json,
      description text,
      error text,
      requested_by integer NOT NULL,
      started_at timestamptz NOT NULL,
      finished_at timestamptz,
      ord bigint GENERATED ALWAYS AS IDENTITY
    );
    CREATE TABLE lfs_links (
      project_id integer NOT NULL REFERENCES projects (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
      oid text NOT NULL CHECK (oid ~ '^[0-9a-f]{64}$'),
      size bigint NOT NULL,
      created_at timestamptz NOT NULL,
      ord bigint GENERATED ALWAYS AS IDENTITY,
      PRIMARY KEY (project_id, oid)
    );
    CREATE INDEX lfs_links_oid_idx ON lfs_links (oid);
    CREATE TABLE lfs_locks (
      id integer PRIMARY KEY,
      project_id integer NOT NULL REFERENCES projects (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
      path text NOT NULL,
      owner_id integer NOT NULL,
      ref_name text,
      locked_at timestamptz NOT NULL,
      ord bigint GENERATED ALWAYS AS IDENTITY,
      UNIQUE (project_id, path)
    );
    CREATE TABLE usage (
      tenant text PRIMARY KEY,
      requests json NOT NULL,
      bytes_uploaded bigint NOT NULL,
      audio_seconds double precision NOT NULL,
      updated_at timestamptz NOT NULL,
      ord bigint GENERATED ALWAYS AS IDENTITY
    );
  `);
}

/** Back to an empty database (development only: the data is gone). */
export function down(pgm: MigrationBuilder): void {
  pgm.sql(`
    DROP TABLE usage, lfs_locks, lfs_links, project_exports, notification_settings, group_badges, hooks, uploads,
      project_shares, stars, projects, sources, jobs, tokens, group_members, groups, users, namespaces, tenants, sequences;
  `);
}
