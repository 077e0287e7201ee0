/**
 * Prisma's schema engine (WebAssembly build) driven through a driver adapter, so migrations can be authored and
 * checked for drift without the native engine the Prisma CLI would download. Only used by tooling and tests
 * (`npm run db:diff`, the drift test); the service applies migrations with src/db/migrate.ts.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import type * as Engine from '@prisma/schema-engine-wasm';

const require = createRequire(import.meta.url);

let loaded: Promise<typeof Engine> | undefined;

/** Instantiates schema_engine_bg.wasm by hand (Node 20 cannot `import` a .wasm module). */
async function loadEngineModule(): Promise<typeof Engine> {
  loaded ??= (async () => {
    const bgPath = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg');
    const dir = dirname(bgPath);
    const bg = (await import(pathToFileURL(bgPath).href)) as typeof Engine & {
      __wbg_set_wasm(w: unknown): void;
    };
    const bytes = await readFile(join(dir, 'schema_engine_bg.wasm'));
    const module = await WebAssembly.compile(bytes);
    const instance = await WebAssembly.instantiate(module, { './schema_engine_bg.js': bg as never });
    bg.__wbg_set_wasm(instance.exports);
    (instance.exports as { __wbindgen_start?: () => void }).__wbindgen_start?.();
    return bg;
  })();
  return loaded;
}

export type SchemaEngine = Engine.SchemaEngine;

/** Opens a schema engine over a migration-aware adapter factory with the given Prisma schema. */
export async function openSchemaEngine(
  factory: SqlMigrationAwareDriverAdapterFactory,
  schemaPath: string,
  schemaSource: string,
  log: (line: string) => void = () => {},
): Promise<SchemaEngine> {
  const engine = await loadEngineModule();
  return engine.SchemaEngine.new(
    { datamodels: [[schemaPath, schemaSource]] },
    (line: string) => log(line),
    bindMigrationAwareSqlAdapterFactory(factory),
  );
}

export const emptyFilters = { externalTables: [], externalEnums: [] };
