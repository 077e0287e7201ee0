/** Compares prisma/schema.prisma with what the migrations build, through Prisma's WebAssembly schema engine. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openPGlite } from './pglite-tooling.ts';
import { migrate, readMigrations } from './migrate.ts';
import { emptyFilters, openSchemaEngine } from './schema-engine.ts';

export const SCHEMA_PATH = new URL('../../prisma/schema.prisma', import.meta.url).pathname;

/** SQL that would bring a database built from the migrations to the schema; `empty` when there is none. */
export async function diffSchemaAgainstMigrations(): Promise<{ sql: string; empty: boolean }> {
  const source = readFileSync(SCHEMA_PATH, 'utf8');
  const db = await openPGlite();
  try {
    await migrate(db, readMigrations());
    const engine = await openSchemaEngine(db.adapterFactory, 'schema.prisma', source);
    const files = [{ path: 'schema.prisma', content: source }];
    const result = await engine.diff({
      from: { tag: 'schemaDatasource', files, configDir: join(SCHEMA_PATH, '..') },
      to: { tag: 'schemaDatamodel', files },
      script: true,
      exitCode: true,
      filters: emptyFilters,
    });
    const sql = result.stdout ?? '';
    return { sql, empty: result.exitCode === 0 };
  } finally {
    await db.close();
  }
}

