/**
 * The embedded server's lifetime on one cluster: a start while an earlier server still holds the cluster (a service
 * restarted right after a kill) waits for it and then starts; a server that exits on its own is seen at once.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres, type EmbeddedServer } from '../../src/db/embedded-postgres.ts';

const settings = { fsync: 'off', shared_buffers: '16MB', max_connections: '10' };

describe('embedded PostgreSQL on one cluster', () => {
  const dir = mkdtempSync(join(tmpdir(), 'btp-embedded-'));
  const servers: EmbeddedServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.stop().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  });

  it('a start while another server holds the cluster waits for it, past its own start deadline, and then serves the same data', { timeout: 120_000 }, async () => {
    const first = await startEmbeddedPostgres(dir, { settings });
    servers.push(first);
    const c = new pg.Client({ connectionString: first.url });
    await c.connect();
    await c.query('CREATE TABLE kept (v text)');
    await c.query('INSERT INTO kept VALUES ($1)', ['첫 서버']);
    await c.end();

    // Each attempt of the second start has 3 s; the first server keeps the cluster for 6 s.
    let settled = false;
    const second = startEmbeddedPostgres(dir, { settings, timeoutMs: 3_000 }).finally(() => (settled = true));
    second.catch(() => {});
    await new Promise((r) => setTimeout(r, 6_000));
    expect(settled).toBe(false);
    await first.stop();
    servers.splice(servers.indexOf(first), 1);

    const next = await second;
    servers.push(next);
    const d = new pg.Client({ connectionString: next.url });
    await d.connect();
    expect((await d.query('SELECT v FROM kept')).rows).toEqual([{ v: '첫 서버' }]);
    await d.end();
  });

  it('a server that dies on its own is seen: stop() returns at once and the next start recovers the cluster', { timeout: 60_000 }, async () => {
    const server = servers.pop() ?? (await startEmbeddedPostgres(dir, { settings }));
    const pid = Number(readFileSync(join(server.dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(pid, 'SIGQUIT'); // immediate shutdown, as a crash: recovery on the next start
    const t0 = Date.now();
    await server.stop();
    expect(Date.now() - t0).toBeLessThan(10_000);
    const again = await startEmbeddedPostgres(dir, { settings });
    servers.push(again);
    const c = new pg.Client({ connectionString: again.url });
    await c.connect();
    expect((await c.query('SELECT v FROM kept')).rows).toEqual([{ v: '첫 서버' }]);
    await c.end();
  });
});
