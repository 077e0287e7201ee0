/**
 * Opens the database: PostgreSQL at DATABASE_URL, or by default the embedded PostgreSQL server under DATA_DIR
 * (./embedded-postgres.ts), through the same driver, Prisma client, migrations and SQL. The schema tooling opens an
 * in-memory PGlite instead (./pglite-tooling.ts); the service never loads it.
 */
import { createHash } from 'node:crypto';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import pg from 'pg';
import { PrismaClient } from '../generated/prisma/client.ts';
import { startEmbeddedPostgres } from './embedded-postgres.ts';
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
  /** `embedded`: the server under DATA_DIR this process started; `postgres`: DATABASE_URL; `pglite`: schema tooling. */
  kind: 'embedded' | 'postgres' | 'pglite';
  /** The connection string (embedded: the server's Unix socket); absent on PGlite. */
  url?: string;
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

/** Connections to the embedded database when DATABASE_POOL_SIZE is not set (10 to an external one). */
export const EMBEDDED_POOL_SIZE = 6;

export type DatabaseOptions = { poolSize?: number } & (
  | /** PostgreSQL at this connection string. */ { databaseUrl: string }
  | /** The embedded server whose cluster is under this DATA_DIR (started here, stopped by close). */ { embeddedDataDir: string }
);

/** The service's database as its settings name it: DATABASE_URL, or the embedded server under DATA_DIR. */
export function serviceDatabaseOptions(env: { DATABASE_URL?: string; DATA_DIR: string; DATABASE_POOL_SIZE?: number }): DatabaseOptions {
  // The embedded database's connections are processes on the service's own machine, each ~8-10 MB under load: 6 keep
  // its two cores busy (test/bench/README.md) within the memory goal.
  if (!env.DATABASE_URL) return { embeddedDataDir: env.DATA_DIR, poolSize: env.DATABASE_POOL_SIZE ?? EMBEDDED_POOL_SIZE };
  return { databaseUrl: env.DATABASE_URL, poolSize: env.DATABASE_POOL_SIZE ?? 10 };
}

/** Opens the database described by the options. */
export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  if ('databaseUrl' in opts) return openPostgres(opts.databaseUrl, opts.poolSize ?? 10, 'postgres');
  if ('embeddedDataDir' in opts) {
    const server = await startEmbeddedPostgres(opts.embeddedDataDir);
    try {
      const db = await openPostgres(server.url, opts.poolSize ?? 10, 'embedded');
      return {
        ...db,
        async close() {
          await db.close();
          await server.stop();
        },
      };
    } catch (e) {
      await server.stop();
      throw e;
    }
  }
  throw new Error('openDatabase: databaseUrl or embeddedDataDir is required');
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

async function openPostgres(url: string, poolSize: number, kind: 'postgres' | 'embedded'): Promise<Database> {
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
    kind,
    url,
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

