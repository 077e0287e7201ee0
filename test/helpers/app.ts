/**
 * Starts the real app on port 0 against a real PostgreSQL: a fresh database (created and dropped here) on the run's
 * embedded server (test/helpers/global-setup.ts), or on the server at TEST_DATABASE_URL when it is set.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { migrate, readMigrations } from '../../src/db/migrate.ts';
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
import { expect } from 'vitest';
import { checkResponse, reportOpenApiCheckCounts } from './openapi-check.ts';

/** True when the tests run against an external PostgreSQL (TEST_DATABASE_URL), false on the embedded server. */
export const onPostgres = !!process.env.TEST_DATABASE_URL;
export const dbLabel = onPostgres ? 'PostgreSQL' : 'embedded PostgreSQL';

/** The server the tests' databases are made on. */
function serverUrl(): string {
  const url = process.env.TEST_DATABASE_URL ?? process.env.TEST_EMBEDDED_URL;
  if (!url) throw new Error('No test database server: run through vitest (test/helpers/global-setup.ts starts one) or set TEST_DATABASE_URL');
  return url;
}

export interface TestDatabase {
  database: Database;
  /** Connection string of the fresh database. */
  url: string;
  drop(): Promise<void>;
}

/** The URL of database `name` on the server at `base`. */
function urlOf(base: string, name: string): string {
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: serverUrl() });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/**
 * A migrated database to copy, made once per set of migrations on the server (CREATE DATABASE ... TEMPLATE copies it
 * in a fraction of the time the migrations take). Named by the migrations' checksums; made under an advisory lock so
 * the run's workers make it once.
 */
let templateName: Promise<string> | undefined;
function migratedTemplate(): Promise<string> {
  templateName ??= (async () => {
    const key = createHash('sha256').update(readMigrations().map((m) => m.name + m.checksum).join()).digest('hex').slice(0, 16);
    const name = `btp_template_${key}`;
    await admin(async (c) => {
      await c.query('SELECT pg_advisory_lock(72707370)');
      try {
        const found = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
        if (found.rowCount) return;
        const building = `${name}_building`;
        await c.query(`DROP DATABASE IF EXISTS "${building}" WITH (FORCE)`);
        await c.query(`CREATE DATABASE "${building}"`);
        const db = await openDatabase({ databaseUrl: urlOf(serverUrl(), building), poolSize: 2 });
        try {
          await migrate(db);
        } finally {
          await db.close();
        }
        await c.query(`ALTER DATABASE "${building}" RENAME TO "${name}"`);
      } finally {
        await c.query('SELECT pg_advisory_unlock(72707370)');
      }
    });
    return name;
  })();
  return templateName;
}

/** A fresh database on the test server: migrated (a copy of the template), or empty (`migrated: false`). */
export async function freshDatabase(opts: { migrated?: boolean } = {}): Promise<TestDatabase> {
  const name = `t_${randomAlnum(16)}`;
  const template = opts.migrated === false ? null : await migratedTemplate();
  await admin((c) => c.query(template ? `CREATE DATABASE "${name}" TEMPLATE "${template}"` : `CREATE DATABASE "${name}"`));
  const url = urlOf(serverUrl(), name);
  const database = await openDatabase({ databaseUrl: url, poolSize: 20 });
  return {
    database,
    url,
    async drop() {
      await admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}

/** The running test file, for the OpenAPI check report (none outside vitest). */
function testFile(): string {
  try {
    return expect.getState().testPath ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

export interface TestApp {
  app: App;
  /** The app's origin: its socket's, or a placeholder that `fetch` and `client` route to `app.fetch` (socket: false). */
  url: string;
  client: ServiceClient;
  config: Config;
  /** fetch against the app, over its socket or in process, whichever it was started with. */
  fetch(input: string, init?: RequestInit): Promise<Response>;
  stop(): Promise<void>;
}

/** The origin of an app started without a socket: requests to it go to `app.fetch`. */
const IN_PROCESS_ORIGIN = 'http://in-process.test';

/**
 * Starts the app: on port 0, or with `socket: false` without one — requests go straight to `app.fetch` (faster, and
 * all a test of routes, envelopes and rules needs; keep the socket where it is what is tested: WebSocket, SSE, slow
 * clients, headers Node's HTTP server writes). The workers run either way. Every response its client's `request`
 * receives is checked against /openapi.json (test/helpers/openapi-check.ts): one the document does not allow fails.
 */
export async function startTestApp(opts: { clock?: Clock; env?: Record<string, string>; checkOpenApi?: boolean; socket?: boolean } = {}): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'btp-test-'));
  const { database, drop } = await freshDatabase();
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'silent', AGENCY_SIM_DELAY_MS: '0', ...(opts.env ?? {}) });
  const app = await buildApp(config, { database, clock: opts.clock, logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }) });
  let url = IN_PROCESS_ORIGIN;
  let fetchApp: (input: string, init?: RequestInit) => Promise<Response> = fetch;
  if (opts.socket === false) {
    fetchApp = (input, init) => app.fetch(new Request(input, init));
    app.startWorkers();
  } else ({ url } = await app.start());
  const client = new ServiceClient(url, fetchApp as typeof fetch);
  if (opts.checkOpenApi !== false) client.onResponse = (r) => void checkResponse(r.method, r.path, r.status, r.body);
  return {
    app,
    url,
    config,
    client,
    fetch: fetchApp,
    async stop() {
      reportOpenApiCheckCounts(testFile());
      await app.stop();
      await drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
