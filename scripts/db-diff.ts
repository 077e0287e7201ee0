/**
 * `npm run db:diff -- <name>`: authors a migration offline. Applies the existing migrations to an in-memory PGlite,
 * asks Prisma's schema engine (WebAssembly) for the SQL from that database to prisma/schema.prisma, and writes it to
 * prisma/migrations/<timestamp>_<name>/migration.sql. `--check` exits 1 when the schema and migrations differ.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { diffSchemaAgainstMigrations } from '../src/db/drift.ts';
import { MIGRATIONS_DIR } from '../src/db/migrate.ts';

const args = process.argv.slice(2);
const check = args.includes('--check');
const name = args.find((a) => !a.startsWith('--'));

const { sql, empty } = await diffSchemaAgainstMigrations();
if (check) {
  if (empty) {
    console.log('prisma/schema.prisma and prisma/migrations agree.');
    process.exit(0);
  }
  console.error('prisma/schema.prisma and prisma/migrations differ. Missing migration:\n' + sql);
  process.exit(1);
}
if (empty) {
  console.log('No changes: the migrations already match prisma/schema.prisma.');
  process.exit(0);
}
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error('Usage: npm run db:diff -- <name>   (lower-case letters, digits and underscores)');
  process.exit(2);
}
const stamp = new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14);
const dir = join(MIGRATIONS_DIR, `${stamp}_${name}`);
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, 'migration.sql'), sql);
console.log(`Wrote ${join(dir, 'migration.sql')}`);
