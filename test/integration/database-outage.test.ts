/**
 * Losing the PostgreSQL connection: while the database is unreachable every face answers 503 SERVICE_UNAVAILABLE in
 * its own envelope (never a 500 or a stack trace), nothing is half-written, and the service recovers by itself when
 * the database is back. PostgreSQL only (the embedded database cannot be cut off).
 */
import pino from 'pino';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, ServiceClient, type Bootstrapped } from '../../src/cli/client.ts';
import { loadConfig } from '../../src/config/config.ts';
import { openDatabase } from '../../src/db/database.ts';
import { buildApp, type App } from '../../src/http/app.ts';
import { freshDatabase, onPostgres } from '../helpers/app.ts';
import { TcpProxy } from '../helpers/tcp-proxy.ts';
import { until } from '../helpers/wait.ts';

describe.runIf(onPostgres)('database connection loss on PostgreSQL', () => {
  let app: App;
  let client: ServiceClient;
  let proxy: TcpProxy;
  let drop: () => Promise<void>;
  let m: Bootstrapped;

  beforeAll(async () => {
    const fresh = await freshDatabase();
    await fresh.database.close();
    drop = fresh.drop;
    const real = new URL(fresh.url!);
    proxy = await new TcpProxy(real.hostname, Number(real.port || 5432)).start();
    const viaProxy = new URL(fresh.url!);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: mkdtempSync(join(tmpdir(), 'outage-')), LOG_LEVEL: 'silent', DATABASE_URL: viaProxy.toString() });
    app = await buildApp(config, { database: await openDatabase({ databaseUrl: viaProxy.toString(), poolSize: 5 }), logger: pino({ level: 'silent' }) });
    client = new ServiceClient((await app.start()).url);
    m = await bootstrap(client);
  });
  afterAll(async () => {
    await proxy.restore().catch(() => {});
    await app?.stop({ graceMs: 100 });
    await drop?.();
  });

  it('answers 503 in each envelope while the database is gone, writes nothing, and recovers when it is back', async () => {
    const before = await client.request('GET', '/v1/invoices?offset=0&limit=1', { token: m.apiKey.secret });
    expect(before.status).toBe(200);
    await proxy.cut();

    const v1 = await client.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds: [], customer: { name: '장애' }, amount: 1234 } });
    expect(v1).toMatchObject({ status: 503, body: { code: 'SERVICE_UNAVAILABLE', data: null } });
    expect(v1.headers.get('retry-after')).toBe('5');
    const v2 = await client.request('GET', '/v2/invoices?limit=1', { token: m.apiKey.secret });
    expect(v2).toMatchObject({ status: 503, body: { code: '50003', data: null } });
    const g = await client.graphql(`{ invoicePage(offset: 0, limit: 1) { totalItems } }`, {}, m.apiKey.secret);
    expect(JSON.stringify(g)).toContain('SERVICE_UNAVAILABLE');
    const dep = await client.deposit(m.bankAccount.notificationToken, { depositorName: '장애', amount: 1234, notificationId: 'outage-1' });
    expect(dep).toMatchObject({ status: 503, body: { code: 'SERVICE_UNAVAILABLE' } });
    const ready = await client.request('GET', '/readyz');
    expect(ready.status).toBe(503);

    await proxy.restore();
    const after = await until(() => client.request('GET', '/v1/invoices?offset=0&limit=100&search=장애', { token: m.apiKey.secret }), (r) => r.status === 200, 5_000, 100);
    expect(after.status).toBe(200);
    expect(after.body.totalItems).toBe(0);
    const created = await client.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds: [], customer: { name: '장애' }, amount: 1234 } });
    expect(created.status).toBe(201);
    const paid = await client.deposit(m.bankAccount.notificationToken, { depositorName: '장애', amount: 1234, notificationId: 'outage-1' });
    expect(paid.status).toBe(201);
    expect((await client.request('GET', `/v1/invoices/${created.body.data.id}`, { token: m.apiKey.secret })).body.data.paid).toBe(true);
  });
});
