/**
 * An in-memory PGlite with the same interface as the service's databases, for the schema tooling only (`npm run
 * db:diff` and the drift check run Prisma's WebAssembly schema engine against it, offline). The service never loads it.
 */
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaClient } from '../generated/prisma/client.ts';
import type { Database, SqlExecutor } from './database.ts';
import { QueryCounter, countingFactory } from './query-counter.ts';

/** Interactive transactions wait for PGlite's single connection; give them room. */
const PGLITE_TRANSACTION_OPTIONS = { maxWait: 60_000, timeout: 60_000 };

export async function openPGlite(): Promise<Database> {
  const db = await PGlite.create({ dataDir: 'memory://', extensions: { pg_trgm } });
  const queryCounter = new QueryCounter();
  const factory = countingFactory(new PrismaPGlite(db) as unknown as SqlMigrationAwareDriverAdapterFactory, queryCounter);
  const prisma = new PrismaClient({ adapter: factory, transactionOptions: PGLITE_TRANSACTION_OPTIONS });
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

