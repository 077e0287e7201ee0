/** Entry point: read the configuration, build the app, listen; SIGTERM/SIGINT stop it gracefully. */
import { embeddedDataDirOf } from './config/data-dir.ts';
import { prestartEmbeddedPostgres } from './db/embedded-postgres.ts';

// The embedded database starts first, while the rest of the service loads (the configuration's checks included: a
// bad value stops the service below, and the database with it).
const embedded = embeddedDataDirOf(process.env);
if (embedded) prestartEmbeddedPostgres(embedded);

const { ConfigError, loadConfig } = await import('./config/config.ts');
let config;
try {
  config = loadConfig();
} catch (e) {
  if (e instanceof ConfigError) {
    console.error(e.message);
    process.exit(1);
  }
  throw e;
}

const { buildApp } = await import('./http/app.ts');
const app = await buildApp(config);
await app.start();

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    app.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
