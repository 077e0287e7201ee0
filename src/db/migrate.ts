/**
 * Applies prisma/migrations at start-up (and `npm run db:migrate`), recorded in `_prisma_migrations` as Prisma records
 * them, so `prisma migrate deploy` agrees. Each migration and its record run in one transaction (the schema engine's
 * runner is slow to start and records a failed script as applied): a failed one leaves nothing and stops start-up.
 */
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from './database.ts';

export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

export const MIGRATIONS_DIR = new URL('../../prisma/migrations/', import.meta.url).pathname;

/** Reads `<dir>/<timestamp>_<name>/migration.sql` in name order. */
export function readMigrations(dir = MIGRATIONS_DIR): MigrationFile[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, 'migration.sql')))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

interface AppliedRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
}

export class MigrationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MigrationError';
  }
}

/** What migrating needs of a database (./pglite-import.ts migrates an earlier release's PGlite cluster with it). */
export type MigrationTarget = Pick<Database, 'sql' | 'withMigrationLock' | 'schemaChanged'>;

/** Applies every migration not yet applied; returns the names applied now. */
export async function migrate(db: MigrationTarget, migrations = readMigrations()): Promise<string[]> {
  return db.withMigrationLock(async () => {
    await db.sql.exec(CREATE_TABLE);
    const rows = await db.sql.query<AppliedRow>(
      `SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations"`,
    );
    const failed = rows.filter((r) => r.finished_at === null && r.rolled_back_at === null);
    if (failed.length > 0) {
      throw new MigrationError(
        `Migration ${failed.map((f) => f.migration_name).join(', ')} failed earlier and is not resolved; ` +
          'fix the database and mark it rolled back (prisma migrate resolve) before starting.',
      );
    }
    const applied = new Map(rows.filter((r) => r.finished_at !== null && r.rolled_back_at === null).map((r) => [r.migration_name, r]));
    const done: string[] = [];
    for (const m of migrations) {
      const prior = applied.get(m.name);
      if (prior) {
        if (prior.checksum !== m.checksum) {
          throw new MigrationError(`Migration ${m.name} was changed after it was applied (checksum differs).`);
        }
        continue;
      }
      const id = randomUUID();
      try {
        await db.sql.transaction(async (tx) => {
          await tx.exec(m.sql);
          await tx.query(
            `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
             VALUES ($1, $2, $3, now(), now(), 1)`,
            [id, m.checksum, m.name],
          );
        });
      } catch (e) {
        throw new MigrationError(`Migration ${m.name} failed and was rolled back: ${(e as Error).message}`);
      }
      done.push(m.name);
    }
    if (done.length) await db.schemaChanged();
    return done;
  });
}

/** Names of migrations on disk that are not applied (readiness check). */
export async function pendingMigrations(db: Database, migrations = readMigrations()): Promise<string[]> {
  const exists = await db.sql.query<{ t: string | null }>(`SELECT to_regclass('"_prisma_migrations"')::text AS t`);
  if (!exists[0]?.t) return migrations.map((m) => m.name);
  const rows = await db.sql.query<{ migration_name: string }>(
    `SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
  );
  const names = new Set(rows.map((r) => r.migration_name));
  return migrations.filter((m) => !names.has(m.name)).map((m) => m.name);
}
