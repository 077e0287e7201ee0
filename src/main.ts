/** Entry point: read the configuration, build the app, listen; SIGTERM/SIGINT stop it gracefully. */
import { ConfigError, loadConfig } from './config/config.ts';
import { prestartEmbeddedPostgres } from './db/embedded-postgres.ts';

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

// The embedded database starts while the rest of the service loads.
if (!config.DATABASE_URL) prestartEmbeddedPostgres(config.DATA_DIR);
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
