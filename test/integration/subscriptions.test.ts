/**
 * Live events: invoicePaid and invoiceEvents over graphql-ws and SSE, after commit, only the subscriber's workspace
 * and (for an account-limited key) only its accounts; sinceSequence replays what a reconnecting client missed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addVerifiedBankAccount, bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { dbLabel, startTestApp, type TestApp } from '../helpers/app.ts';
import { subscribeSse, subscribeWs, wsClient } from '../helpers/subscriptions.ts';
import type { Client } from 'graphql-ws';
import { invoiceFromJson } from '../../src/domain/invoices/invoices.ts';
import type { BusEvent } from '../../src/events/event-bus.ts';
import { busEventOf } from '../../src/events/outbox-dispatcher.ts';

const PAID = `subscription { invoicePaid { id status amount paidAt } }`;
const EVENTS = `subscription($id: ID, $since: String) { invoiceEvents(invoiceId: $id, sinceSequence: $since) { type sequence invoice { id status } } }`;

describe(`subscriptions on ${dbLabel}`, () => {
  let t: TestApp;
  let a: Bootstrapped;
  let b: Bootstrapped;
  const clients: Client[] = [];
  beforeAll(async () => {
    t = await startTestApp();
    [a, b] = await Promise.all([bootstrap(t.client), bootstrap(t.client)]);
  });
  afterAll(async () => {
    for (const c of clients) await c.dispose();
    await t?.stop();
  });
  const ws = (token: string) => {
    const c = wsClient(t.url, token);
    clients.push(c);
    return c;
  };
  const invoice = async (m: Bootstrapped, name: string, amount: number, bankAccountIds: string[] = []) => {
    const r = await t.client.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds, customer: { name }, amount } });
    expect(r.status).toBe(201);
    return r.body.data.id as string;
  };

  it('invoicePaid over graphql-ws: a deposit match reaches the subscriber with the contract fields', async () => {
    const sub = await subscribeWs(ws(a.apiKey.secret), PAID);
    const id = await invoice(a, '구독자', 21_000);
    await t.client.deposit(a.bankAccount.notificationToken, { depositorName: '구독자', amount: 21_000 });
    const [msg] = await sub.waitFor(1);
    expect(msg.invoicePaid).toEqual({ id, status: 'PAID', amount: 21_000, paidAt: expect.stringMatching(/^\d{4}-/) });
    sub.close();
  });

  it('invoicePaid over SSE with the Authorization header; mark-as-paid is an event too', async () => {
    const sub = await subscribeSse(t.url, a.apiKey.secret, PAID);
    const id = await invoice(a, '에스에스이', 22_000);
    await t.client.request('POST', `/v1/invoices/${id}/mark-as-paid`, { token: a.apiKey.secret });
    const [msg] = await sub.waitFor(1);
    expect(msg.invoicePaid).toMatchObject({ id, status: 'PAID', amount: 22_000 });
    sub.close();
  });

  it('a subscriber sees only its own workspace', async () => {
    const subB = await subscribeWs(ws(b.apiKey.secret), PAID);
    const subA = await subscribeWs(ws(a.apiKey.secret), PAID);
    const id = await invoice(a, '격리구독', 23_000);
    await t.client.deposit(a.bankAccount.notificationToken, { depositorName: '격리구독', amount: 23_000 });
    await subA.waitFor(1);
    await new Promise((r) => setTimeout(r, 300));
    expect(subA.items.map((x) => x.invoicePaid.id)).toEqual([id]);
    expect(subB.items).toEqual([]);
    subA.close();
    subB.close();
  });

  it('an account-limited key sees only invoices within its accounts', async () => {
    const second = await addVerifiedBankAccount(t.client, a.sessionToken);
    const key = await t.client.gql(`mutation($i: CreateApiKeyInput!) { createApiKey(input: $i) { secret } }`, { i: { name: 'limited', bankAccountIds: [second.id] } }, a.sessionToken);
    const sub = await subscribeWs(ws(key.createApiKey.secret), PAID);
    const outside = await invoice(a, '범위밖', 24_000, [a.bankAccount.id]);
    const allAccounts = await invoice(a, '전체계좌', 24_001);
    const inside = await invoice(a, '범위안', 24_002, [second.id]);
    for (const id of [outside, allAccounts, inside]) await t.client.request('POST', `/v1/invoices/${id}/mark-as-paid`, { token: a.apiKey.secret });
    await sub.waitFor(1);
    await new Promise((r) => setTimeout(r, 300));
    expect(sub.items.map((x) => x.invoicePaid.id)).toEqual([inside]);
    sub.close();
  });

  it('invoiceEvents(invoiceId) follows one invoice: created is past, then paid; types are the contract names', async () => {
    const id = await invoice(a, '이벤트', 25_000);
    const sub = await subscribeWs(ws(a.sessionToken), EVENTS, { id });
    const other = await invoice(a, '다른것', 25_001);
    await t.client.request('DELETE', `/v1/invoices/${other}`, { token: a.apiKey.secret });
    await t.client.request('POST', `/v1/invoices/${id}/mark-as-paid`, { token: a.apiKey.secret });
    const [msg] = await sub.waitFor(1);
    expect(msg.invoiceEvents).toMatchObject({ type: 'paid', invoice: { id, status: 'PAID' }, sequence: expect.stringMatching(/^\d+$/) });
    await new Promise((r) => setTimeout(r, 200));
    expect(sub.items).toHaveLength(1);
    sub.close();
  });

  it('sinceSequence replays what a reconnecting client missed, then continues live, without duplicates', async () => {
    const events = await t.client.gql(`{ events(first: 100) { sequence type invoiceId } }`, {}, b.apiKey.secret);
    const before = events.events.at(-1)?.sequence ?? '0';
    const i1 = await invoice(b, '놓친것', 26_000);
    await t.client.request('POST', `/v1/invoices/${i1}/mark-as-paid`, { token: b.apiKey.secret });
    await t.app.workers.dispatcher.loop.drain();
    const sub = await subscribeWs(ws(b.apiKey.secret), EVENTS, { since: before });
    const i2 = await invoice(b, '실시간', 26_001);
    const got = await sub.waitFor(3);
    expect(got.map((x) => [x.invoiceEvents.type, x.invoiceEvents.invoice.id])).toEqual([
      ['created', i1],
      ['paid', i1],
      ['created', i2],
    ]);
    const seqs = got.map((x) => BigInt(x.invoiceEvents.sequence));
    expect([...seqs].sort((p, q) => (p < q ? -1 : 1))).toEqual(seqs);
    const caught = await t.client.gql(`query($s: String) { events(sinceSequence: $s) { type invoiceId } }`, { s: before }, b.apiKey.secret);
    expect(caught.events.map((e: { type: string }) => e.type)).toEqual(['invoice.created', 'invoice.paid', 'invoice.created']);
    sub.close();
  });

  it('an unauthenticated subscription is refused', async () => {
    const sub = await subscribeWs(ws('sk_live_nope'), PAID);
    await new Promise((r) => setTimeout(r, 300));
    expect(sub.items).toEqual([]);
    expect(JSON.stringify(sub.errors)).toContain('UNAUTHENTICATED');
  });

  it('nothing is published for a change that rolled back (a conflicting create)', async () => {
    const sub = await subscribeWs(ws(a.apiKey.secret), EVENTS);
    await invoice(a, '롤백', 27_000);
    const dup = await t.client.request('POST', '/v1/invoices', { token: a.apiKey.secret, body: { bankAccountIds: [], customer: { name: '롤백' }, amount: 27_000 } });
    expect(dup.status).toBe(409);
    await sub.waitFor(1);
    await new Promise((r) => setTimeout(r, 300));
    expect(sub.items).toHaveLength(1);
    sub.close();
  });

  /** The first invoice.paid of `invoiceId` on the event bus while `act` runs (null after 5 s). */
  const firstPaidOnBus = async (invoiceId: string, act: () => Promise<void>): Promise<BusEvent | null> => {
    const live = t.app.workers.bus.subscribe(a.workspaceId);
    const first = (async () => {
      for await (const e of live) if (e.type === 'invoice.paid' && e.invoiceId === invoiceId) return e;
      return null;
    })();
    try {
      await act();
      return await Promise.race([first, new Promise<null>((r) => setTimeout(() => r(null), 5_000))]);
    } finally {
      await live.return?.();
    }
  };

  it('a live event carries the invoice row as the database has it (no lookup per subscriber): every field, timestamps as Dates', async () => {
    const created = await t.client.request('POST', '/v1/invoices', {
      token: a.apiKey.secret,
      body: { bankAccountIds: [a.bankAccount.id], customer: { name: '행그대로', email: 'row@example.com' }, amount: 28_000, metadata: { orderId: 'o-28' }, expireAfter: 'P3D' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.data.id as string;
    const e = await firstPaidOnBus(id, async () => {
      const paid = await t.client.request('POST', `/v1/invoices/${id}/mark-as-paid`, { token: a.apiKey.secret });
      expect(paid.status).toBe(200);
    });
    expect(e?.invoice).toBeDefined();
    const stored = await t.app.db.prisma.invoice.findUniqueOrThrow({ where: { id } });
    expect(stored.paidAt).toBeInstanceOf(Date);
    expect(stored.expiresAt).toBeInstanceOf(Date);
    expect(invoiceFromJson(e!.invoice!)).toEqual(stored);
  });

  it('a deposit published at commit carries the paid invoice exactly as stored (every field, timestamps as Dates)', async () => {
    const created = await t.client.request('POST', '/v1/invoices', {
      token: a.apiKey.secret,
      body: { bankAccountIds: [a.bankAccount.id], customer: { name: '커밋때행', email: 'commit@example.com', phoneNumber: '01012345678' }, amount: 28_500, metadata: { orderId: 'o-285' }, expireAfter: 'P3D' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.data.id as string;
    const e = await firstPaidOnBus(id, async () => {
      const dep = await t.client.deposit(a.bankAccount.notificationToken, { depositorName: '커밋때행', amount: 28_500 });
      expect(dep.status).toBe(201);
    });
    expect(e?.invoice).toBeDefined();
    const stored = await t.app.db.prisma.invoice.findUniqueOrThrow({ where: { id } });
    expect(stored.status).toBe('PAID');
    expect(stored.paidTrigger).toBe('DEPOSIT');
    expect(invoiceFromJson(e!.invoice!)).toEqual(stored);
    // and the event's sequence is the one stored with it
    const [row] = await t.app.db.sql.query<{ sequence: string | bigint }>(`SELECT sequence FROM "Event" WHERE id = $1`, [e!.eventId]);
    expect(String(row!.sequence)).toBe(e!.sequence);
  });

  it('deposits are told to live subscribers at commit, once each: the dispatcher running after them (or a second publication) repeats nothing', async () => {
    const sub = await subscribeWs(ws(a.apiKey.secret), PAID);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await invoice(a, `한번씩${i}`, 29_000 + i));
    await Promise.all(ids.map((_, i) => t.client.deposit(a.bankAccount.notificationToken, { depositorName: `한번씩${i}`, amount: 29_000 + i })));
    await sub.waitFor(5);
    // Every event of the workspace is taken off the outbox queue by the dispatcher (that inserting an event queues it is
    // checked in query-plans.test.ts), which publishes none of them again…
    const queued = async () =>
      (await t.app.db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM "OutboxEntry" q JOIN "Event" e ON e.id = q."eventId" WHERE e."workspaceId" = $1`, [a.workspaceId]))[0]!.n;
    await t.app.workers.dispatcher.loop.drain();
    expect(await queued()).toBe(0);
    // …and a repeat on the bus (another instance dispatching the same event) is dropped by the subscriber.
    const [row] = await t.app.db.sql.query<{ id: string; workspaceId: string; sequence: string; type: string; invoiceId: string; cashReceiptId: null; bankAccountIds: string[]; createdAt: Date }>(
      `SELECT id, "workspaceId", sequence, type, "invoiceId", "cashReceiptId", "bankAccountIds", "createdAt" FROM "Event" WHERE "invoiceId" = $1 AND type = 'invoice.paid'`,
      [ids[0]],
    );
    t.app.workers.bus.publish(busEventOf(row!, null));
    await new Promise((r) => setTimeout(r, 300));
    expect(sub.items.map((m) => (m as { invoicePaid: { id: string } }).invoicePaid.id).sort()).toEqual([...ids].sort());
    sub.close();
  });
});
