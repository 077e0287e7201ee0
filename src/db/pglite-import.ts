/**
 * One-time import of an earlier release's data directory. Releases before the embedded PostgreSQL server kept the
 * embedded default's data in a file-backed PGlite under `DATA_DIR/pglite`; this release keeps it in `DATA_DIR/postgres`.
 * At start-up on the embedded database, when `DATA_DIR/pglite` holds a cluster and the new database has no data of its
 * own yet, everything is copied over before the service serves requests:
 *
 * 1. the old cluster is opened with PGlite (loaded only then) and brought to the same schema version with `migrate()`;
 * 2. every table of the public schema except `_prisma_migrations` is copied in ONE transaction on the new database,
 *    with `session_replication_role = replica` (no foreign-key checks, no triggers: "OutboxEntry" is copied as it is
 *    and the "Event" trigger does not queue the copied events a second time), in pages of JSON rows;
 * 3. the row counts are compared per table and the sequences of the public schema set as they were, still in that
 *    transaction; a difference rolls everything back;
 * 4. `DATA_DIR/pglite` is renamed `DATA_DIR/pglite.imported-<time>` (never deleted) and one info line logs the counts.
 *
 * A failure leaves the new database empty and `DATA_DIR/pglite` where it was, and stops start-up (PGliteImportError).
 */
import { existsSync, renameSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Database, SqlExecutor } from './database.ts';
import { migrate, type MigrationTarget } from './migrate.ts';

/** Rows per page read from PGlite and inserted into the new database. */
const PAGE_ROWS = 2000;

type Sql = Omit<SqlExecutor, 'transaction'>;

export interface ImportLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export class PGliteImportError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PGliteImportError';
  }
}

export interface PGliteImportResult {
  /** Where the old directory went. */
  movedTo: string;
  /** Rows copied per table. */
  tables: Record<string, number>;
}

/** The old release's PGlite data directory under DATA_DIR. */
export function legacyPGliteDir(dataDir: string): string {
  return resolve(dataDir, 'pglite');
}

/**
 * Imports `DATA_DIR/pglite` into `db` when it holds a cluster and `db` holds no account and no workspace; returns what
 * it did, or null when there was nothing to import. Call after `migrate(db)`.
 */
export async function importPGliteDataDir(db: Database, dataDir: string, log: ImportLog, opts: { pageRows?: number } = {}): Promise<PGliteImportResult | null> {
  const dir = legacyPGliteDir(dataDir);
  if (!existsSync(join(dir, 'PG_VERSION'))) return null;
  const [own] = await db.sql.query<{ has: boolean }>(`SELECT EXISTS (SELECT 1 FROM "Account") OR EXISTS (SELECT 1 FROM "Workspace") AS has`);
  if (own.has) {
    log.warn({ dir }, `${dir} holds the data directory of an earlier release (PGlite), but the database already has data of its own: it was not imported. Move it away once you no longer need it.`);
    return null;
  }

  const started = Date.now();
  let tables: Record<string, number>;
  let migrated: string[] = [];
  try {
    const old = await openPGliteDataDir(dir);
    try {
      migrated = await migrate(old);
      tables = await db.sql.transaction((tx) => copyTables(old.sql, tx, opts.pageRows ?? PAGE_ROWS));
    } finally {
      await old.close().catch(() => {});
    }
  } catch (e) {
    throw new PGliteImportError(
      `Importing the data of an earlier release from ${dir} (PGlite) into the embedded PostgreSQL database failed: ${(e as Error).message}. ` +
        `Nothing was lost: ${dir} is still there` +
        (migrated.length ? ` (its schema brought up to date by ${migrated.join(', ')})` : '') +
        `, and nothing was copied into the new database. Fix the cause and start again; to start without the old data instead, move ${dir} elsewhere.`,
      { cause: e },
    );
  }

  const movedTo = `${dir}.imported-${new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '')}`;
  try {
    renameSync(dir, movedTo);
  } catch (e) {
    // The data is in the new database; the next start will not import again (the database has data now).
    log.warn({ dir, err: (e as Error).message }, `the data of ${dir} was imported, but the directory could not be renamed; move it away yourself`);
    return { movedTo: dir, tables };
  }
  const rows = Object.values(tables).reduce((a, b) => a + b, 0);
  log.info({ from: dir, movedTo, rows, tables, ms: Date.now() - started }, `imported the data of an earlier release (PGlite, ${rows} rows); the old directory is kept as ${movedTo}`);
  return { movedTo, tables };
}

/**
 * The PGlite cluster in `dir`, for plain SQL and migrations (no Prisma client: ./pglite-tooling.ts has the tooling's).
 * PGlite is imported here, when there is a directory to read: the service never loads it otherwise (a static import
 * would also be hoisted to the top of the service's bundle).
 */
export async function openPGliteDataDir(dir: string): Promise<MigrationTarget & { sql: SqlExecutor; close(): Promise<void> }> {
  const [{ PGlite }, { pg_trgm }] = await Promise.all([import('@electric-sql/pglite'), import('@electric-sql/pglite/contrib/pg_trgm')]);
  const pglite = await PGlite.create({ dataDir: dir, extensions: { pg_trgm } });
  const executor = (q: Pick<typeof pglite, 'query' | 'exec'>): Sql => ({
    async query<T>(text: string, params: unknown[] = []) {
      return (await q.query<T>(text, params as never[])).rows;
    },
    async exec(script: string) {
      await q.exec(script);
    },
  });
  return {
    sql: { ...executor(pglite), transaction: (fn) => pglite.transaction((tx) => fn(executor(tx))) },
    withMigrationLock: (fn) => fn(),
    schemaChanged: () => pglite.refreshArrayTypes(),
    close: () => pglite.close(),
  };
}

const TABLES = `SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> '_prisma_migrations' ORDER BY tablename`;

function ident(name: string): string {
  return '"' + name.replace(/"/g, '""') + '"';
}

/** Copies every table of `from`'s public schema into `to` (inside `to`'s transaction); returns the rows per table. */
async function copyTables(from: Sql, to: Sql, pageRows: number): Promise<Record<string, number>> {
  await to.exec(`SET LOCAL session_replication_role = replica`);
  const names = (await to.query<{ name: string }>(TABLES)).map((t) => t.name);
  const oldNames = (await from.query<{ name: string }>(TABLES)).map((t) => t.name);
  const missing = names.filter((n) => !oldNames.includes(n));
  const extra = oldNames.filter((n) => !names.includes(n));
  if (missing.length || extra.length) {
    throw new Error(`the two schemas differ after migrating (tables only in the new database: ${missing.join(', ') || 'none'}; only in the old one: ${extra.join(', ') || 'none'})`);
  }
  const counts: Record<string, number> = {};
  for (const name of names) {
    const [{ n: before }] = await to.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${ident(name)}`);
    if (before !== '0') throw new Error(`table "${name}" of the new database is not empty (${before} rows)`);
    // Every stored column (generated ones are computed again), named: the two sides need not order them alike.
    const columns = (
      await to.query<{ c: string }>(
        `SELECT column_name AS c FROM information_schema.columns
          WHERE table_schema = 'public' AND table_name = $1 AND is_generated = 'NEVER' ORDER BY ordinal_position`,
        [name],
      )
    ).map((r) => ident(r.c));
    const list = columns.join(', ');
    const insert = `INSERT INTO ${ident(name)} (${list}) SELECT ${list} FROM json_populate_recordset(NULL::${ident(name)}, $1::json)`;
    let copied = 0;
    let after = '(0,0)';
    for (;;) {
      // Pages in physical order (nothing writes to the old cluster meanwhile); JSON kept as text so that no value goes
      // through a JavaScript number (bigint columns).
      const [page] = await from.query<{ rows: string | null; last: string | null; n: number }>(
        `SELECT json_agg(t)::text AS rows, max(t.ctid)::text AS last, count(*)::int AS n
           FROM (SELECT ctid, * FROM ${ident(name)} WHERE ctid > $1::tid ORDER BY ctid LIMIT ${pageRows}) t`,
        [after],
      );
      if (!page.rows || page.n === 0) break;
      await to.query(insert, [page.rows]);
      copied += page.n;
      after = page.last!;
    }
    const [{ n: oldCount }] = await from.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${ident(name)}`);
    const [{ n: newCount }] = await to.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${ident(name)}`);
    if (oldCount !== newCount || Number(newCount) !== copied) {
      throw new Error(`table "${name}": ${oldCount} rows in the old database, ${newCount} in the new one after copying ${copied}`);
    }
    counts[name] = copied;
  }
  // Sequences (none in the migrations so far; serial or identity columns would have one): as they were.
  const sequences = await from.query<{ name: string; last: string | null; called: boolean }>(
    `SELECT sequencename AS name, last_value::text AS last, last_value IS NOT NULL AS called FROM pg_sequences WHERE schemaname = 'public'`,
  );
  for (const s of sequences) {
    if (s.called) await to.query(`SELECT setval($1::regclass, $2::bigint, true)`, [ident(s.name), s.last]);
  }
  return counts;
}
