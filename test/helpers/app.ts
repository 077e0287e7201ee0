/**
 * Starts the real app on port 0 against a real database: an in-memory PGlite by default, or a fresh PostgreSQL
 * database (created and dropped here) when TEST_DATABASE_URL is set.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { loadConfig, type Config } from '../../src/config/config.ts';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { randomAlnum } from '../../src/domain/ids.ts';
import type { Clock } from '../../src/domain/clock.ts';
import { buildApp, type App } from '../../src/http/app.ts';
import { ServiceClient } from '../../src/cli/client.ts';

export const onPostgres = !!process.env.TEST_DATABASE_URL;
export const dbLabel = onPostgres ? 'PostgreSQL' : 'PGlite';

export interface TestDatabase {
  database: Database;
  /** Connection string of the fresh PostgreSQL database (absent on PGlite). */
  url?: string;
  drop(): Promise<void>;
}

/** A fresh, empty database of the kind under test. */
export async function freshDatabase(): Promise<TestDatabase> {
  const base = process.env.TEST_DATABASE_URL;
  if (!base) {
    const database = await openDatabase({ pgliteDataDir: 'memory://' });
    return { database, drop: async () => {} };
  }
  const name = `t_${randomAlnum(16)}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  const database = await openDatabase({ databaseUrl: url.toString(), poolSize: 20 });
  return {
    database,
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    },
  };
}

export interface TestApp {
  app: App;
  url: string;
  client: ServiceClient;
  config: Config;
  stop(): Promise<void>;
}

export async function startTestApp(opts: { clock?: Clock; env?: Record<string, string> } = {}): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'btp-test-'));
  const { database, drop } = await freshDatabase();
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'silent', AGENCY_SIM_DELAY_MS: '0', ...(opts.env ?? {}) });
  const app = await buildApp(config, { database, clock: opts.clock, logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }) });
  const { url } = await app.start();
  return {
    app,
    url,
    config,
    client: new ServiceClient(url),
    async stop() {
      await app.stop();
      await drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
