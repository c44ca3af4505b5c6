import type { MigrationBuilder } from 'node-pg-migrate';

/** Project badges (document schema 6): a project's own badges; their ids share the group badges' sequence. */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE TABLE project_badges (
      id integer PRIMARY KEY,
      project_id integer NOT NULL REFERENCES projects (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
      name text,
      link_url text NOT NULL,
      image_url text NOT NULL,
      created_at timestamptz NOT NULL,
      ord bigint GENERATED ALWAYS AS IDENTITY
    );
    CREATE INDEX project_badges_project_idx ON project_badges (project_id);
  `);
}

export function down(pgm: MigrationBuilder): void {
  pgm.sql('DROP TABLE project_badges;');
}
