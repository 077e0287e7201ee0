/**
 * Two instances over one PostgreSQL database and Redis: a deposit ingested on instance A reaches a graphql-ws
 * subscriber on instance B, and webhook work is shared without double delivery. PostgreSQL and Redis only.
 */
import { Redis } from 'ioredis';
import pino from 'pino';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, ServiceClient } from '../../src/cli/client.ts';
import { loadConfig } from '../../src/config/config.ts';
import { openDatabase } from '../../src/db/database.ts';
import { buildApp, type App } from '../../src/http/app.ts';
import { freshDatabase, onPostgres } from '../helpers/app.ts';
import { Receiver } from '../helpers/receiver.ts';
import { asDelivered, createPaidInvoices, deliveredEvents, lastEventSequence, recordInvoiceUpdates, storedEventsAfter, subscribeWs, wsClient } from '../helpers/subscriptions.ts';
import type { Client } from 'graphql-ws';
import { randomBytes } from 'node:crypto';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

describe.runIf(onPostgres)('several instances over PostgreSQL and Redis', () => {
  const apps: App[] = [];
  const urls: string[] = [];
  let drop: () => Promise<void>;
  const clients: Client[] = [];
  const rx = new Receiver();

  beforeAll(async () => {
    await rx.start();
    const fresh = await freshDatabase();
    drop = fresh.drop;
    await fresh.database.close();
    const dbUrl = fresh.url!;
    const key = randomBytes(32).toString('hex');
    // A and B run workers; C runs none, so what its subscribers get can only come through Redis.
    for (let i = 0; i < 3; i++) {
      const config = loadConfig({
        PORT: '0', HOST: '127.0.0.1', DATA_DIR: mkdtempSync(join(tmpdir(), 'mi-')), LOG_LEVEL: 'silent', DATABASE_URL: dbUrl,
        REDIS_URL, ENCRYPTION_KEY: key, WEBHOOK_ALLOW_PRIVATE: 'true', WORKERS: i < 2 ? 'true' : 'false',
      });
      const app = await buildApp(config, { database: await openDatabase({ databaseUrl: dbUrl, poolSize: 10 }), logger: pino({ level: 'silent' }) });
      apps.push(app);
      urls.push((await app.start()).url);
    }
  });
  afterAll(async () => {
    for (const c of clients) await c.dispose();
    for (const a of apps) await a.stop();
    await drop?.();
    await rx.stop();
  });

  it('Redis is reachable', async () => {
    const r = new Redis(REDIS_URL);
    expect(await r.ping()).toBe('PONG');
    r.disconnect();
  });

  it('a deposit ingested on A reaches an invoicePaid subscriber on C (which dispatches nothing itself)', async () => {
    const a = new ServiceClient(urls[0]);
    const m = await bootstrap(a);
    const c = wsClient(urls[2], m.apiKey.secret);
    clients.push(c);
    // From the workspace's last sequence: on C the subscription also waits for Redis, and must not miss the payment.
    const sub = await subscribeWs(c, `subscription($since: String) { invoicePaid(sinceSequence: $since) { id status } }`, { since: await lastEventSequence(apps[0]!.db.sql, m.workspaceId) });
    const inv = await a.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds: [], customer: { name: '두인스턴스' }, amount: 31_000 } });
    await a.deposit(m.bankAccount.notificationToken, { depositorName: '두인스턴스', amount: 31_000 });
    const [msg] = await sub.waitFor(1);
    expect(msg.invoicePaid).toEqual({ id: inv.body.data.id, status: 'PAID' });
  });

  it('a subscriber away while A committed more than a page of events reconnects to B (invoiceEvents) and C (invoicePaid) with sinceSequence: every event, in order, once, with those committed during the catch-up', async () => {
    const a = new ServiceClient(urls[0]);
    const m = await bootstrap(a);
    const ws = (i: number) => {
      const c = wsClient(urls[i], m.apiKey.secret);
      clients.push(c);
      return c;
    };
    const PAID = `subscription($since: String) { invoicePaid(sinceSequence: $since) { id status eventSequence } }`;
    const EVENTS = `subscription($since: String) { invoiceEvents(sinceSequence: $since) { sequence type invoice { id } } }`;
    // Before going away the client saw one payment, on B: it keeps that delivery's sequence.
    const before = await subscribeWs(ws(1), PAID, { since: await lastEventSequence(apps[0]!.db.sql, m.workspaceId) });
    const [seen] = await createPaidInvoices(apps[0], m.apiKey.secret, '떠나기전', 1);
    const [last] = await before.waitFor(1);
    expect(last.invoicePaid).toEqual({ id: seen, status: 'PAID', eventSequence: expect.stringMatching(/^\d+$/) });
    before.close();
    const since = last.invoicePaid.eventSequence as string;
    // Away: A commits 1,200 events (the catch-up reads 500 at a time).
    const missed = await createPaidInvoices(apps[0], m.apiKey.secret, '없는동안', 10);
    await recordInvoiceUpdates(apps[0], missed, 1_180);
    // Back, on B and on C (no workers: what it hears live comes through Redis), while A keeps committing.
    const [events, paid] = await Promise.all([
      subscribeWs(ws(1), EVENTS, { since }),
      subscribeWs(ws(2), PAID, { since }),
      createPaidInvoices(apps[0], m.apiKey.secret, '따라잡는중', 10),
    ]);
    const inv = await a.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds: [], customer: { name: '돌아온뒤' }, amount: 32_000 } });
    expect((await a.deposit(m.bankAccount.notificationToken, { depositorName: '돌아온뒤', amount: 32_000 })).status).toBe(201);
    // invoiceEvents carries the invoices' events (the deposit's own transaction.received is transactionReceived's).
    const stored = (await storedEventsAfter(apps[0].db.sql, m.workspaceId, since)).filter((e) => e.type.startsWith('invoice.'));
    expect(stored).toHaveLength(1_200 + 20 + 2);
    expect(stored.at(-1)).toEqual({ sequence: expect.any(String), type: 'invoice.paid', invoiceId: inv.body.data.id });
    const storedPaid = stored.filter((e) => e.type === 'invoice.paid').map((e) => ({ id: e.invoiceId, status: 'PAID', eventSequence: e.sequence }));
    expect(deliveredEvents(await events.waitFor(stored.length, 60_000))).toEqual(stored.map(asDelivered));
    expect((await paid.waitFor(storedPaid.length, 60_000)).map((x) => x.invoicePaid)).toEqual(storedPaid);
    // One more paid invoice is the marker: a repeat of anything before it would have arrived first.
    const [marker] = await createPaidInvoices(apps[0], m.apiKey.secret, '표시', 1);
    await events.waitFor(stored.length + 2);
    await paid.waitFor(storedPaid.length + 1);
    expect(events.items.slice(stored.length).map((x) => [x.invoiceEvents.type, x.invoiceEvents.invoice.id])).toEqual([
      ['created', marker],
      ['paid', marker],
    ]);
    expect(paid.items.slice(storedPaid.length).map((x) => x.invoicePaid.id)).toEqual([marker]);
    expect([...events.errors, ...paid.errors]).toEqual([]);
  });

  it('both instances deliver webhooks, and each event reaches the endpoint once', async () => {
    const a = new ServiceClient(urls[0]);
    const b = new ServiceClient(urls[1]);
    const m = await bootstrap(a);
    await a.gql(`mutation($i: CreateWebhookInput!) { createWebhook(input: $i) { webhook { id } } }`, { i: { url: rx.url, version: 'V1' } }, m.sessionToken);
    const n = 40;
    await Promise.all(Array.from({ length: n }, (_, i) => (i % 2 ? a : b).request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds: [], customer: { name: `분산${i}` }, amount: 100 + i } })));
    await rx.waitFor((all) => all.filter((r) => r.json?.workspaceId === m.workspaceId).length >= n, 20_000);
    // One more invoice is the marker: once it arrives, the instances have dispatched again since the n did.
    const marker = await a.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds: [], customer: { name: '분산표시' }, amount: 99 } });
    await rx.waitFor((all) => all.some((r) => r.body.includes(marker.body.data.id)), 20_000);
    const ids = rx.received.filter((r) => r.json?.workspaceId === m.workspaceId && !r.body.includes(marker.body.data.id)).map((r) => r.headers['webhook-id']);
    expect(ids).toHaveLength(n);
    expect(new Set(ids).size).toBe(n);
  });
});
