/**
 * Opens the database: embedded PGlite (file-backed under DATA_DIR) by default, PostgreSQL when DATABASE_URL is set.
 * Same Prisma client, same migrations, same SQL on both.
 */
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import pg from 'pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaClient } from '../generated/prisma/client.ts';
import { QueryCounter, countingFactory } from './query-counter.ts';

/** Plain SQL outside Prisma (migrations, health checks, benchmarks). */
export interface QueryOptions {
  /**
   * Keep the statement prepared on each connection (PostgreSQL parses and plans it once per connection, not once per
   * call). Only for statements whose text is one of a few fixed variants (hot paths), never for text built per request.
   */
  prepare?: boolean;
}

export interface SqlExecutor {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[], opts?: QueryOptions): Promise<T[]>;
  /** Runs a multi-statement script without parameters. */
  exec(script: string): Promise<void>;
  /** Runs `fn` in one transaction on one connection. */
  transaction<T>(fn: (sql: Omit<SqlExecutor, 'transaction'>) => Promise<T>): Promise<T>;
}

export interface Database {
  kind: 'pglite' | 'postgres';
  /** The PGlite instance on the embedded database (tests dump it as a template). */
  pglite?: PGlite;
  prisma: PrismaClient;
  sql: SqlExecutor;
  /** The adapter factory, for the schema engine (tooling and tests). */
  adapterFactory: SqlMigrationAwareDriverAdapterFactory;
  /** Counts statements sent through Prisma (tests of N+1 behaviour). */
  queryCounter: QueryCounter;
  /** Takes a session-level lock for the whole migration run (PostgreSQL: several instances may start at once). */
  withMigrationLock<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * Re-reads what the driver learnt of the schema at connect, after migrations changed it: PGlite caches array types
   * at open, so an enum's array added later by a migration is sent as a scalar (`malformed array literal`).
   */
  schemaChanged(): Promise<void>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** PostgreSQL connection string; absent = embedded PGlite. */
  databaseUrl?: string;
  /** PGlite data directory (`memory://` for in-memory). */
  pgliteDataDir?: string;
  /** Start PGlite from this dump (dumpDataDir) instead of an empty cluster (tests: skips initdb). */
  pgliteLoadDataDir?: Blob;
  poolSize?: number;
}

/** Interactive transactions wait for PGlite's single connection; give them room under concurrency. */
const TRANSACTION_OPTIONS = { maxWait: 60_000, timeout: 60_000 };

/** Opens the database described by the options. */
export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  return opts.databaseUrl ? openPostgres(opts.databaseUrl, opts.poolSize ?? 10) : openPGlite(opts.pgliteDataDir ?? 'memory://', opts.pgliteLoadDataDir);
}

/** Where the embedded database lives under DATA_DIR. */
export function pgliteDirFor(dataDir: string): string {
  const dir = resolve(dataDir, 'pglite');
  mkdirSync(resolve(dataDir), { recursive: true });
  return dir;
}

async function openPGlite(dataDir: string, loadDataDir?: Blob): Promise<Database> {
  const db = await PGlite.create({ dataDir, extensions: { pg_trgm }, ...(loadDataDir ? { loadDataDir } : {}) });
  const queryCounter = new QueryCounter();
  const factory = countingFactory(new PrismaPGlite(db) as unknown as SqlMigrationAwareDriverAdapterFactory, queryCounter);
  const prisma = new PrismaClient({ adapter: factory, transactionOptions: TRANSACTION_OPTIONS });
  const executor = (q: Pick<PGlite, 'query' | 'exec'>): Omit<SqlExecutor, 'transaction'> => ({
    async query<T>(text: string, params: unknown[] = []) {
      return (await q.query<T>(text, params as never[])).rows;
    },
    async exec(script: string) {
      await q.exec(script);
    },
  });
  return {
    kind: 'pglite',
    pglite: db,
    prisma,
    adapterFactory: factory,
    queryCounter,
    sql: {
      ...executor(db),
      transaction: (fn) => db.transaction((tx) => fn(executor(tx))),
    },
    withMigrationLock: (fn) => fn(),
    schemaChanged: () => db.refreshArrayTypes(),
    async close() {
      await prisma.$disconnect();
      await db.close();
    },
  };
}

const preparedNames = new Map<string, string>();

/** A stable name per statement text (the driver prepares a name once per connection). */
function preparedName(text: string): string {
  let name = preparedNames.get(text);
  if (!name) {
    name = 'p' + createHash('sha1').update(text).digest('hex').slice(0, 20);
    preparedNames.set(text, name);
  }
  return name;
}

async function openPostgres(url: string, poolSize: number): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max: poolSize, connectionTimeoutMillis: 10_000 });
  pool.on('error', () => {
    /* idle client errors are reported by the next query; never crash the process */
  });
  const queryCounter = new QueryCounter();
  const factory = countingFactory(new PrismaPg(pool), queryCounter);
  const prisma = new PrismaClient({ adapter: factory, transactionOptions: { maxWait: 10_000, timeout: 30_000 } });
  const executor = (c: pg.Pool | pg.PoolClient): Omit<SqlExecutor, 'transaction'> => ({
    async query<T>(text: string, params: unknown[] = [], opts?: QueryOptions) {
      if (opts?.prepare) return (await c.query({ name: preparedName(text), text, values: params })).rows as T[];
      return (await c.query(text, params)).rows as T[];
    },
    async exec(script: string) {
      await c.query(script);
    },
  });
  return {
    kind: 'postgres',
    prisma,
    adapterFactory: factory,
    queryCounter,
    sql: {
      ...executor(pool),
      async transaction(fn) {
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          const out = await fn(executor(client));
          await client.query('COMMIT');
          return out;
        } catch (e) {
          await client.query('ROLLBACK').catch(() => {});
          throw e;
        } finally {
          client.release();
        }
      },
    },
    async withMigrationLock(fn) {
      // The same lock id `prisma migrate deploy` takes, so our runner and Prisma's never run at once.
      const client = await pool.connect();
      try {
        await client.query('SELECT pg_advisory_lock(72707369)');
        return await fn();
      } finally {
        await client.query('SELECT pg_advisory_unlock(72707369)').catch(() => {});
        client.release();
      }
    },
    schemaChanged: async () => {},
    async close() {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

