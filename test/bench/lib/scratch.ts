/** A scratch PostgreSQL database per run (created here, dropped after), and the real app started on it on port 0. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { loadConfig } from '../../../src/config/config.ts';
import { openDatabase, type Database } from '../../../src/db/database.ts';
import { migrate } from '../../../src/db/migrate.ts';
import { randomAlnum } from '../../../src/domain/ids.ts';
import { buildApp, type App } from '../../../src/http/app.ts';

export interface Scratch {
  name: string;
  url: string;
  drop(): Promise<void>;
}

export async function createScratchDatabase(baseUrl: string, label: string): Promise<Scratch> {
  const name = `bench_${label}_${randomAlnum(10)}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: baseUrl });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

export interface RunningApp {
  app: App;
  url: string;
  stop(): Promise<void>;
}

/** The real app (buildApp, migrations at start) on the scratch database with the given pool size, on port 0. */
export async function startApp(databaseUrl: string, poolSize: number, env: Record<string, string> = {}): Promise<RunningApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'btp-bench-'));
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    DATABASE_POOL_SIZE: String(poolSize),
    LOG_LEVEL: 'silent',
    AGENCY_SIM_DELAY_MS: '0',
    // The limiter runs (its cost is measured) but never refuses: the bench's load is one credential at full speed.
    RATE_LIMIT_PER_SECOND: '1000000',
    RATE_LIMIT_BURST: '10000000',
    ...env,
  });
  const app = await buildApp(config, { logger: pino({ level: process.env.BENCH_LOG_LEVEL ?? 'silent' }) });
  const { url } = await app.start();
  return {
    app,
    url,
    async stop() {
      await app.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export type DatabaseKind = 'PostgreSQL' | 'embedded';

/**
 * Runs `fn` on a freshly migrated database of each kind in turn — a scratch PostgreSQL database next to
 * BENCH_DATABASE_URL (dropped after) and the embedded PostgreSQL 17 in a temporary DATA_DIR (removed after) — and closes it
 * whatever `fn` does (the check scripts).
 */
export async function onEachDatabase(kinds: readonly DatabaseKind[], fn: (kind: DatabaseKind, db: Database) => Promise<void>): Promise<void> {
  for (const kind of kinds) {
    const scratch = kind === 'PostgreSQL' ? await createScratchDatabase(process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test', 'check') : null;
    const dataDir = scratch ? null : mkdtempSync(join(tmpdir(), 'btp-check-'));
    const db = await openDatabase(scratch ? { databaseUrl: scratch.url } : { embeddedDataDir: dataDir! });
    try {
      await migrate(db);
      await fn(kind, db);
    } finally {
      await db.close();
      await scratch?.drop();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    }
  }
}
