/**
 * Starts the real app on port 0 against a real database: an in-memory PGlite by default, or a fresh PostgreSQL
 * database (created and dropped here) when TEST_DATABASE_URL is set.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
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

export const onPostgres = !!process.env.TEST_DATABASE_URL;
export const dbLabel = onPostgres ? 'PostgreSQL' : 'PGlite';

export interface TestDatabase {
  database: Database;
  /** Connection string of the fresh PostgreSQL database (absent on PGlite). */
  url?: string;
  drop(): Promise<void>;
}

/**
 * A migrated PGlite cluster, dumped once per set of migrations and shared by every test file (initdb costs seconds;
 * loading a dump a fraction of that). Kept in the OS temp directory, keyed by the migrations' checksums.
 */
async function pgliteTemplate(): Promise<Blob> {
  const key = createHash('sha256').update(readMigrations().map((m) => m.name + m.checksum).join()).digest('hex').slice(0, 16);
  const path = join(tmpdir(), `btp-pglite-template-${key}.tar`);
  if (!existsSync(path)) {
    const db = await openDatabase({ pgliteDataDir: 'memory://' });
    await migrate(db);
    await db.sql.query('CHECKPOINT');
    const dump = await db.pglite!.dumpDataDir('none');
    await db.close();
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, Buffer.from(await dump.arrayBuffer()));
    renameSync(tmp, path);
  }
  return new Blob([readFileSync(path)]);
}

/** A fresh, empty database of the kind under test (already migrated on PGlite, from the shared template). */
export async function freshDatabase(opts: { migrated?: boolean } = {}): Promise<TestDatabase> {
  const base = process.env.TEST_DATABASE_URL;
  if (!base) {
    const database = opts.migrated === false ? await openDatabase({ pgliteDataDir: 'memory://' }) : await openDatabase({ pgliteDataDir: 'memory://', pgliteLoadDataDir: await pgliteTemplate() });
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
