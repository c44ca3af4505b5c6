import type { MigrationBuilder } from 'node-pg-migrate';

/**
 * The change log several application nodes keep their in-memory mirrors coherent by. Every commit
 * takes `change_log_head`'s one row (UPDATE … RETURNING: a row lock held to COMMIT, so commits of
 * all nodes are serialized and numbered without gaps), writes its rows, and records which keys of
 * which tables it wrote in `change_log` under that number; NOTIFY carries only the number.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE TABLE change_log_head (
      one boolean PRIMARY KEY DEFAULT true CHECK (one),
      seq bigint NOT NULL
    );
    INSERT INTO change_log_head (seq) VALUES (0);
    CREATE TABLE change_log (
      seq bigint PRIMARY KEY,
      keys jsonb NOT NULL,
      committed_at timestamptz NOT NULL DEFAULT now()
    );
  `);
}

export function down(pgm: MigrationBuilder): void {
  pgm.sql('DROP TABLE change_log; DROP TABLE change_log_head;');
}
