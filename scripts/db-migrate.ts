/** `npm run db:migrate`: applies pending migrations to the configured database (the service also does this at start). */
import { loadConfig } from '../src/config/config.ts';
import { openDatabase, serviceDatabaseOptions } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';

const config = loadConfig();
const db = await openDatabase(serviceDatabaseOptions(config));
try {
  const applied = await migrate(db);
  console.log(applied.length ? `Applied: ${applied.join(', ')}` : 'Nothing to apply: the database is up to date.');
} finally {
  await db.close();
}
