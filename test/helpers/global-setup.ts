/**
 * vitest globalSetup: without TEST_DATABASE_URL, the run's tests use one embedded PostgreSQL server (the service's own
 * embedded database, src/db/embedded-postgres.ts) started here in a temporary directory, each test file its own
 * databases on it (test/helpers/app.ts). It runs without fsync: a test database never outlives the run.
 * With TEST_DATABASE_URL, the tests use that server instead.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedPostgres, type EmbeddedServer } from '../../src/db/embedded-postgres.ts';

let server: EmbeddedServer | undefined;
let dir: string | undefined;

export async function setup(): Promise<void> {
  if (process.env.TEST_DATABASE_URL || process.env.TEST_EMBEDDED_URL) return;
  dir = mkdtempSync(join(tmpdir(), 'btp-test-pg-'));
  server = await startEmbeddedPostgres(dir, {
    settings: { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off', max_connections: '300', shared_buffers: '256MB' },
  });
  // The test workers are forked after this: they inherit it.
  process.env.TEST_EMBEDDED_URL = server.url;
}

export async function teardown(): Promise<void> {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}
