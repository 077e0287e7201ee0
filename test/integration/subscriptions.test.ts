/**
 * Live events: invoicePaid and invoiceEvents over graphql-ws and SSE, after commit, only the subscriber's workspace
 * and (for an account-limited key) only its accounts; sinceSequence replays what a reconnecting client missed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addVerifiedBankAccount, bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { dbLabel, startTestApp, type TestApp } from '../helpers/app.ts';
import {
  asDelivered,
  type Collected,
  createPaidInvoices,
  deliveredEvents,
  lastEventSequence,
  recordInvoiceUpdates,
  storedEventsAfter,
  subscribeSse,
  subscribeWs,
  wsClient,
} from '../helpers/subscriptions.ts';
import type { Client } from 'graphql-ws';
import { invoiceFromJson } from '../../src/domain/invoices/invoices.ts';
import type { BusEvent } from '../../src/events/event-bus.ts';
import { busEventOf } from '../../src/events/outbox-dispatcher.ts';
import { resolvePrincipal } from '../../src/domain/auth/principal.ts';
import { createInvoice } from '../../src/domain/invoices/invoices.ts';
import { ingestBankNotification } from '../../src/domain/deposits/intake.ts';
import { jsonRow } from '../../src/domain/events/outbox.ts';
import { catchUpLimits } from '../../src/domain/events/catch-up.ts';
import { feedSettings } from '../../src/events/ordered-feed.ts';

const PAID = `subscription($since: String) { invoicePaid(sinceSequence: $since) { id status amount paidAt } }`;
const EVENTS = `subscription($id: ID, $since: String) { invoiceEvents(invoiceId: $id, sinceSequence: $since) { type sequence invoice { id status } } }`;
const PAID_SINCE = `subscription($since: String) { invoicePaid(sinceSequence: $since) { id status eventSequence } }`;

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
  /**
   * From the workspace's last sequence: a subscription without one starts whenever the service starts it, and an event
   * committed just before (on a loaded machine) would not be delivered.
   */
  const from = async (m: Bootstrapped) => ({ since: await lastEventSequence(t.app.db.sql, m.workspaceId) });
  const invoice = async (m: Bootstrapped, name: string, amount: number, bankAccountIds: string[] = []) => {
    const r = await t.client.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds, customer: { name }, amount } });
    expect(r.status).toBe(201);
    return r.body.data.id as string;
  };

  it('invoicePaid over graphql-ws: a deposit match reaches the subscriber with the contract fields', async () => {
    const sub = await subscribeWs(ws(a.apiKey.secret), PAID, await from(a));
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
    const subB = await subscribeWs(ws(b.apiKey.secret), PAID, await from(b));
    const subA = await subscribeWs(ws(a.apiKey.secret), PAID, await from(a));
    const id = await invoice(a, '격리구독', 23_000);
    await t.client.deposit(a.bankAccount.notificationToken, { depositorName: '격리구독', amount: 23_000 });
    await subA.waitFor(1);
    // B's own payment afterwards is the marker: had A's reached B's subscriber, it would have come before it.
    const markerB = await invoice(b, '격리표시', 23_001);
    await t.client.request('POST', `/v1/invoices/${markerB}/mark-as-paid`, { token: b.apiKey.secret });
    await subB.waitFor(1);
    expect(subA.items.map((x) => x.invoicePaid.id)).toEqual([id]);
    expect(subB.items.map((x) => x.invoicePaid.id)).toEqual([markerB]);
    subA.close();
    subB.close();
  });

  it('an account-limited key sees only invoices within its accounts', async () => {
    const second = await addVerifiedBankAccount(t.client, a.sessionToken);
    const key = await t.client.gql(`mutation($i: CreateApiKeyInput!) { createApiKey(input: $i) { secret } }`, { i: { name: 'limited', bankAccountIds: [second.id] } }, a.sessionToken);
    const sub = await subscribeWs(ws(key.createApiKey.secret), PAID, await from(a));
    const outside = await invoice(a, '범위밖', 24_000, [a.bankAccount.id]);
    const allAccounts = await invoice(a, '전체계좌', 24_001);
    const inside = await invoice(a, '범위안', 24_002, [second.id]);
    // A second invoice inside, paid last, is the marker: events arrive in sequence order, so nothing paid before it is late.
    const marker = await invoice(a, '범위안표시', 24_003, [second.id]);
    for (const id of [outside, allAccounts, inside, marker]) await t.client.request('POST', `/v1/invoices/${id}/mark-as-paid`, { token: a.apiKey.secret });
    await sub.waitFor(2);
    expect(sub.items.map((x) => x.invoicePaid.id)).toEqual([inside, marker]);
    sub.close();
  });

  it('invoiceEvents(invoiceId) follows one invoice: created is past, then paid; types are the contract names', async () => {
    const id = await invoice(a, '이벤트', 25_000);
    const sub = await subscribeWs(ws(a.sessionToken), EVENTS, { id, ...(await from(a)) });
    const other = await invoice(a, '다른것', 25_001);
    await t.client.request('DELETE', `/v1/invoices/${other}`, { token: a.apiKey.secret });
    await t.client.request('POST', `/v1/invoices/${id}/mark-as-paid`, { token: a.apiKey.secret });
    // The other invoice's events come first in sequence order: had they reached this subscriber, they would be first.
    const [msg] = await sub.waitFor(1);
    expect(msg.invoiceEvents).toMatchObject({ type: 'paid', invoice: { id, status: 'PAID' }, sequence: expect.stringMatching(/^\d+$/) });
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

  it('lastEventSequence is the last event\'s sequence; a subscription from it delivers an invoice made after the read and before the subscription started', async () => {
    const read = async () => (await t.client.gql(`{ lastEventSequence }`, {}, b.apiKey.secret)).lastEventSequence as string;
    // The last event committed before the read is the one it names.
    const before = await invoice(b, '읽기전', 26_499);
    const head = await read();
    const events = await t.client.gql(`query($s: String) { events(sinceSequence: $s) { sequence type invoiceId } }`, { s: String(BigInt(head) - 1n) }, b.apiKey.secret);
    expect(events.events).toEqual([{ sequence: head, type: 'invoice.created', invoiceId: before }]);
    // What the reader shows was read after `head`; this invoice comes between its read and its subscription.
    const between = await invoice(b, '읽은뒤', 26_500);
    expect(BigInt(await read())).toBe(BigInt(head) + 1n);
    const sub = await subscribeWs(ws(b.apiKey.secret), EVENTS, { since: head });
    const after = await invoice(b, '구독뒤', 26_501);
    const got = await sub.waitFor(2);
    expect(got.map((x) => [x.invoiceEvents.type, x.invoiceEvents.invoice.id])).toEqual([
      ['created', between],
      ['created', after],
    ]);
    // Each workspace reads its own.
    expect((await t.client.gql(`{ lastEventSequence }`, {}, a.apiKey.secret)).lastEventSequence).toBe(await lastEventSequence(t.app.db.sql, a.workspaceId));
    sub.close();
  });

  it('sinceSequence catches up on more missed events than one page (1,300 events, the internal page is 500): every one, in order, once, with those committed during the catch-up, then live', async () => {
    const m = await bootstrap(t.client);
    const since = await lastEventSequence(t.app.db.sql, m.workspaceId);
    const ids = await createPaidInvoices(t.app, m.apiKey.secret, '놓친결제', 10);
    await recordInvoiceUpdates(t.app, ids, 1_280);
    const sub = await subscribeWs(ws(m.apiKey.secret), EVENTS, { since });
    // committed while the subscriber is catching up
    await createPaidInvoices(t.app, m.apiKey.secret, '따라잡는중', 5);
    const stored = await storedEventsAfter(t.app.db.sql, m.workspaceId, since);
    expect(stored).toHaveLength(1_310);
    const got = await sub.waitFor(stored.length, 60_000);
    expect(deliveredEvents(got)).toEqual(stored.map(asDelivered));
    // then live, still in order and once
    const live = await invoice(m, '이어서실시간', 30_100);
    await sub.waitFor(stored.length + 1);
    expect(sub.items.at(-1).invoiceEvents).toMatchObject({ type: 'created', invoice: { id: live } });
    // A second live invoice is the marker: a repeat of anything before it would have arrived first.
    const marker = await invoice(m, '이어서표시', 30_101);
    await sub.waitFor(stored.length + 2);
    expect(deliveredEvents(sub.items)).toEqual((await storedEventsAfter(t.app.db.sql, m.workspaceId, since)).map(asDelivered));
    expect(sub.items.at(-1).invoiceEvents).toMatchObject({ type: 'created', invoice: { id: marker } });
    expect(sub.errors).toEqual([]);
    sub.close();
  });

  it('invoicePaid carries the sequence of its invoice.paid event; resuming from it (over SSE) delivers exactly the later paid invoices', async () => {
    const m = await bootstrap(t.client);
    const since = await lastEventSequence(t.app.db.sql, m.workspaceId);
    // 30 paid invoices among 1,160 events (more than the 1,000 a catch-up used to stop at)
    const early = await createPaidInvoices(t.app, m.apiKey.secret, '재개', 15);
    await recordInvoiceUpdates(t.app, early, 1_100);
    await createPaidInvoices(t.app, m.apiKey.secret, '재개뒤', 15);
    const paid = (await storedEventsAfter(t.app.db.sql, m.workspaceId, since)).filter((e) => e.type === 'invoice.paid');
    expect(paid).toHaveLength(30);
    const first = await subscribeWs(ws(m.apiKey.secret), PAID_SINCE, { since });
    const got = await first.waitFor(30);
    expect(got.map((x) => x.invoicePaid)).toEqual(paid.map((e) => ({ id: e.invoiceId, status: 'PAID', eventSequence: e.sequence })));
    first.close();
    // The client saw 20 and went away: it resumes from the last sequence it received.
    const resumeFrom = got[19].invoicePaid.eventSequence;
    const resumed = await subscribeSse(t.url, m.apiKey.secret, PAID_SINCE, { since: resumeFrom });
    await resumed.waitFor(10);
    const later = await invoice(m, '재개후', 30_200);
    await t.client.deposit(m.bankAccount.notificationToken, { depositorName: '재개후', amount: 30_200 });
    await resumed.waitFor(11);
    // One more paid invoice is the marker: a repeat of anything before it would have arrived first.
    const marker = await invoice(m, '재개표시', 30_201);
    await t.client.request('POST', `/v1/invoices/${marker}/mark-as-paid`, { token: m.apiKey.secret });
    await resumed.waitFor(12);
    const [laterPaid, markerPaid] = (await storedEventsAfter(t.app.db.sql, m.workspaceId, paid.at(-1)!.sequence)).filter((e) => e.type === 'invoice.paid');
    expect(resumed.items.map((x) => x.invoicePaid)).toEqual([
      ...paid.slice(20).map((e) => ({ id: e.invoiceId, status: 'PAID', eventSequence: e.sequence })),
      { id: later, status: 'PAID', eventSequence: laterPaid!.sequence },
      { id: marker, status: 'PAID', eventSequence: markerPaid!.sequence },
    ]);
    expect(resumed.errors).toEqual([]);
    resumed.close();
  });

  it('live events are delivered in sequence order: one published out of order waits for the earlier one, and one never published is read from the database', async () => {
    const m = await bootstrap(t.client);
    const p = await resolvePrincipal(t.app.deps, m.apiKey.secret);
    // Commits whose events reach the bus only when this test publishes them (no publication at commit, no dispatcher).
    const quiet = { ...t.app.deps, onEventsCommitted: () => {} };
    await t.app.workers.dispatcher.stop();
    try {
      const sub = await subscribeWs(ws(m.apiKey.secret), EVENTS, await from(m));
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await createInvoice(quiet, p, { bankAccountIds: [], customer: { name: `순서${i}` }, amount: 30_300 + i })).id);
      const rows = await t.app.db.sql.query<Parameters<typeof busEventOf>[0]>(
        `SELECT id, "workspaceId", sequence, type, "invoiceId", "cashReceiptId", "bankAccountIds", "createdAt" FROM "Event" WHERE "invoiceId" = ANY($1::text[]) ORDER BY sequence`,
        [ids],
      );
      const publish = (i: number) => t.app.workers.bus.publish(busEventOf(rows[i]!, null));
      // The first two are never published (lost), the third is; the fifth comes before the fourth.
      publish(2);
      publish(4);
      await new Promise((r) => setTimeout(r, 20));
      publish(3);
      const got = await sub.waitFor(5);
      expect(got.map((x) => [x.invoiceEvents.sequence, x.invoiceEvents.invoice.id])).toEqual(rows.map((r) => [String(r.sequence), r.invoiceId]));
      // A repeat (another instance dispatching them again) is dropped: the next invoice's event, published after the
      // repeats, is the marker that they would have come before.
      for (let i = 0; i < 5; i++) publish(i);
      const marker = await createInvoice(quiet, p, { bankAccountIds: [], customer: { name: '순서표시' }, amount: 30_305 });
      const [markerRow] = await t.app.db.sql.query<Parameters<typeof busEventOf>[0]>(
        `SELECT id, "workspaceId", sequence, type, "invoiceId", "cashReceiptId", "bankAccountIds", "createdAt" FROM "Event" WHERE "invoiceId" = $1`,
        [marker.id],
      );
      t.app.workers.bus.publish(busEventOf(markerRow!, null));
      await sub.waitFor(6);
      expect(sub.items.map((x) => x.invoiceEvents.invoice.id)).toEqual([...ids, marker.id]);
      sub.close();
    } finally {
      t.app.workers.dispatcher.start();
    }
  });

  it('a catch-up beyond the limit ends with CATCH_UP_TOO_LARGE (page with the events query instead); a sequence the workspace never reached, and events no longer stored, are refused too', async () => {
    const m = await bootstrap(t.client);
    const since = await lastEventSequence(t.app.db.sql, m.workspaceId);
    await createPaidInvoices(t.app, m.apiKey.secret, '한도', 3);
    const saved = catchUpLimits.maxEvents;
    catchUpLimits.maxEvents = 5;
    try {
      const overWs = await subscribeWs(ws(m.apiKey.secret), EVENTS, { since });
      const overSse = await subscribeSse(t.url, m.apiKey.secret, PAID_SINCE, { since });
      for (const sub of [overWs, overSse]) {
        await sub.waitForErrors(1);
        expect(sub.items).toEqual([]);
        expect(sub.errors).toEqual([
          [
            expect.objectContaining({
              message: `6 events were committed after sequence ${since}, more than a subscription catches up on (5): page through them with the events query, then subscribe with the last sequence it returned.`,
              extensions: expect.objectContaining({ code: 'CATCH_UP_TOO_LARGE', data: { sinceSequence: since, lastSequence: String(BigInt(since) + 6n), maxEvents: 5 } }),
            }),
          ],
        ]);
      }
      // Within the limit it catches up as usual.
      const within = await subscribeWs(ws(m.apiKey.secret), EVENTS, { since: String(BigInt(since) + 1n) });
      expect((await within.waitFor(5)).map((x) => x.invoiceEvents.sequence)).toEqual([2n, 3n, 4n, 5n, 6n].map((d) => String(BigInt(since) + d)));
      within.close();
    } finally {
      catchUpLimits.maxEvents = saved;
    }
    const ahead = await subscribeWs(ws(m.apiKey.secret), EVENTS, { since: String(BigInt(since) + 7n) });
    expect(await ahead.waitForErrors(1)).toEqual([
      [expect.objectContaining({ message: `sinceSequence ${BigInt(since) + 7n} is after the workspace's last event (${BigInt(since) + 6n}).`, extensions: expect.objectContaining({ code: 'VALIDATION_FAILED', field: ['sinceSequence'] }) })],
    ]);
    // Were events ever pruned, a subscriber from before the oldest one kept could not catch up by any means.
    await t.app.workers.dispatcher.loop.drain();
    await t.app.db.sql.query(`DELETE FROM "Event" WHERE "workspaceId" = $1 AND sequence = $2::bigint + 1`, [m.workspaceId, since]);
    const pruned = await subscribeWs(ws(m.apiKey.secret), EVENTS, { since });
    expect(await pruned.waitForErrors(1)).toEqual(pruned.errors);
    expect(pruned.items).toEqual([]);
    expect(pruned.errors).toEqual([[expect.objectContaining({ extensions: expect.objectContaining({ code: 'EVENTS_NOT_RETAINED' }) })]]);
  });

  it('the events query pages past events an account-limited key may not see (a page never ends early while visible ones remain)', async () => {
    const m = await bootstrap(t.client);
    const second = await addVerifiedBankAccount(t.client, m.sessionToken);
    const key = await t.client.gql(`mutation($i: CreateApiKeyInput!) { createApiKey(input: $i) { secret } }`, { i: { name: 'limited', bankAccountIds: [second.id] } }, m.sessionToken);
    const since = await lastEventSequence(t.app.db.sql, m.workspaceId);
    const hidden = await createPaidInvoices(t.app, m.apiKey.secret, '안보임', 2);
    await recordInvoiceUpdates(t.app, hidden, 300); // events of invoices on all accounts: not the key's
    const inside = await invoice(m, '보임', 30_400, [second.id]);
    const page = await t.client.gql(`query($s: String) { events(sinceSequence: $s, first: 10) { type invoiceId } }`, { s: since }, key.createApiKey.secret);
    expect(page.events).toEqual([{ type: 'invoice.created', invoiceId: inside }]);
  });

  /*
   * An invoice that left an account-limited key's accounts (security review): the key (LA, limited to account A)
   * created X on A; X was paid by a deposit to A, un-matched in the dashboard, and moved by a full key to account B with
   * a new, secret buyer e-mail and phone. `invoice(id: X)` answers LA OUT_OF_SCOPE, so no subscription, catch-up or
   * live, may deliver X to LA — neither its row nor its history — while a full key still gets every event of it.
   */
  const SECRET = { email: 'secret-buyer@example.com', phoneNumber: '01099998888' };
  const MOVED_EVENTS = (history: boolean) =>
    `subscription($since: String) { invoiceEvents(sinceSequence: $since) { type sequence invoice { id bankAccountIds customer { email phoneNumber }${history ? ' history { type data }' : ''} } } }`;
  const MOVED_PAID = (history: boolean) =>
    `subscription($since: String) { invoicePaid(sinceSequence: $since) { id bankAccountIds customer { email phoneNumber }${history ? ' history { type data }' : ''} eventSequence } }`;

  /** A workspace with accounts A (the bootstrapped one) and B, and a key limited to A. */
  const limitedToA = async () => {
    const m = await bootstrap(t.client);
    const accountB = await addVerifiedBankAccount(t.client, m.sessionToken);
    const key = await t.client.gql(`mutation($i: CreateApiKeyInput!) { createApiKey(input: $i) { secret } }`, { i: { name: 'limited to A', bankAccountIds: [m.bankAccount.id] } }, m.sessionToken);
    return { m, accountB, limited: key.createApiKey.secret as string };
  };

  /**
   * LA creates X on A; a deposit to A pays it (through `deps`: a test's quiet deps publish nothing at commit), the
   * dashboard un-matches it, the full key moves it to B with the secret contact. Then LA's own Y on A, created and
   * paid: what LA does get. Returns both ids.
   */
  const moveOutOfLimitedKey = async (s: Awaited<ReturnType<typeof limitedToA>>, amount: number, deps = t.app.deps) => {
    const create = async (name: string, amt: number) => {
      const r = await t.client.request('POST', '/v1/invoices', { token: s.limited, body: { bankAccountIds: [s.m.bankAccount.id], customer: { name }, amount: amt } });
      expect(r.status).toBe(201);
      return r.body.data.id as string;
    };
    const x = await create('옮겨진', amount);
    const dep = await ingestBankNotification(deps, s.m.bankAccount.notificationToken, { notificationId: `moved-${x}`, depositorName: '옮겨진', amount, receivedAt: new Date().toISOString() });
    expect(dep.transaction.matchedInvoiceId).toBe(x);
    const unmatched = await t.client.gql(`mutation($id: ID!) { unmatchTransaction(id: $id) { transaction { matchedInvoiceId } } }`, { id: dep.transaction.id }, s.m.sessionToken);
    expect(unmatched.unmatchTransaction.transaction.matchedInvoiceId).toBeNull();
    const moved = await t.client.request('PATCH', `/v2/invoices/${x}`, { token: s.m.apiKey.secret, body: { bankAccountIds: [s.accountB.id], customer: SECRET } });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    const refused = await t.client.graphql(`query($id: ID!) { invoice(id: $id) { id } }`, { id: x }, s.limited);
    expect(refused.errors?.map((e) => e.extensions?.code)).toEqual(['OUT_OF_SCOPE']);
    const y = await create('그대로', amount + 1);
    expect((await t.client.request('POST', `/v1/invoices/${y}/mark-as-paid`, { token: s.limited })).status).toBe(200);
    return { x, y };
  };

  /** LA's subscriptions: invoiceEvents and invoicePaid, with and without the invoice's history, over graphql-ws and SSE. */
  const limitedSubscriptions = async (limited: string, since: string | null) => {
    const subs: { name: string; paid: boolean; sub: Collected }[] = [];
    for (const paid of [false, true]) {
      for (const history of [false, true]) {
        const query = paid ? MOVED_PAID(history) : MOVED_EVENTS(history);
        const vars = since === null ? {} : { since };
        subs.push({ name: `ws ${paid ? 'invoicePaid' : 'invoiceEvents'}${history ? ' with history' : ''}`, paid, sub: await subscribeWs(ws(limited), query, vars) });
        subs.push({ name: `SSE ${paid ? 'invoicePaid' : 'invoiceEvents'}${history ? ' with history' : ''}`, paid, sub: await subscribeSse(t.url, limited, query, vars) });
      }
    }
    return subs;
  };

  /** LA got Y's events (created and paid; invoicePaid: Y paid) and then a marker's, nothing of X, and no error; the full key got X's. */
  const expectNothingOfTheMovedInvoice = async (
    subs: Awaited<ReturnType<typeof limitedSubscriptions>>,
    full: { events: Collected; paid: Collected },
    ids: { x: string; y: string },
    s: Awaited<ReturnType<typeof limitedToA>>,
  ) => {
    const accountB = s.accountB.id;
    const fullEvents = await full.events.waitFor(6);
    expect(fullEvents.map((e) => [e.invoiceEvents.type, e.invoiceEvents.invoice.id])).toEqual([
      ['created', ids.x],
      ['paid', ids.x],
      ['unpaid', ids.x],
      ['updated', ids.x],
      ['created', ids.y],
      ['paid', ids.y],
    ]);
    // the full key sees X as it is now (or as the change left it), on B with the secret contact
    expect(fullEvents[3].invoiceEvents.invoice).toMatchObject({ bankAccountIds: [accountB], customer: SECRET });
    expect((await full.paid.waitFor(2)).map((p) => p.invoicePaid.id)).toEqual([ids.x, ids.y]);
    for (const { sub, paid } of subs) await sub.waitFor(paid ? 1 : 2);
    // LA's next invoice, created and paid, is the marker: anything of X still to come would have arrived before it.
    const marker = await t.client.request('POST', '/v1/invoices', { token: s.limited, body: { bankAccountIds: [s.m.bankAccount.id], customer: { name: '표시' }, amount: 31_999 } });
    expect(marker.status).toBe(201);
    const z = marker.body.data.id as string;
    expect((await t.client.request('POST', `/v1/invoices/${z}/mark-as-paid`, { token: s.limited })).status).toBe(200);
    for (const { sub, paid } of subs) await sub.waitFor(paid ? 2 : 4);
    for (const { name, sub, paid } of subs) {
      const text = JSON.stringify(sub.items);
      expect(text, name).not.toContain(ids.x);
      expect(text, name).not.toContain(SECRET.email);
      expect(text, name).not.toContain(SECRET.phoneNumber);
      expect(text, name).not.toContain(accountB);
      if (paid) expect(sub.items.map((p) => p.invoicePaid.id), name).toEqual([ids.y, z]);
      else
        expect(sub.items.map((e) => [e.invoiceEvents.type, e.invoiceEvents.invoice.id]), name).toEqual([
          ['created', ids.y],
          ['paid', ids.y],
          ['created', z],
          ['paid', z],
        ]);
      expect(sub.errors, name).toEqual([]);
      sub.close();
    }
    full.events.close();
    full.paid.close();
    return z;
  };

  it('catch-up (sinceSequence) shows an account-limited key nothing of an invoice moved out of its accounts (invoiceEvents and invoicePaid, graphql-ws and SSE, with and without history); a full key still gets it', async () => {
    const s = await limitedToA();
    const since = await lastEventSequence(t.app.db.sql, s.m.workspaceId);
    const ids = await moveOutOfLimitedKey(s, 31_000);
    await t.app.workers.dispatcher.loop.drain();
    const subs = await limitedSubscriptions(s.limited, since);
    const full = { events: await subscribeWs(ws(s.m.apiKey.secret), MOVED_EVENTS(true), { since }), paid: await subscribeSse(t.url, s.m.apiKey.secret, MOVED_PAID(true), { since }) };
    const z = await expectNothingOfTheMovedInvoice(subs, full, ids, s);
    // The events query and node(id:) (null) skip X's events for LA too (judged on X as it is now); the full key gets them.
    const query = `query($s: String) { events(sinceSequence: $s) { id type invoiceId data } }`;
    const mine = await t.client.gql(query, { s: since }, s.limited);
    expect(mine.events.map((e: { type: string; invoiceId: string }) => [e.type, e.invoiceId])).toEqual([
      ['invoice.created', ids.y],
      ['invoice.paid', ids.y],
      ['invoice.created', z],
      ['invoice.paid', z],
    ]);
    // (The deposit that paid X is a deposit to A, but its transaction.received names X: LA does not get it either.)
    const all = await t.client.gql(query, { s: since }, s.m.apiKey.secret);
    expect(all.events.map((e: { type: string; invoiceId: string }) => [e.type, e.invoiceId])).toEqual([
      ['invoice.created', ids.x],
      ['transaction.received', ids.x],
      ['invoice.paid', ids.x],
      ['invoice.unpaid', ids.x],
      ['invoice.updated', ids.x],
      ['invoice.created', ids.y],
      ['invoice.paid', ids.y],
      ['invoice.created', z],
      ['invoice.paid', z],
    ]);
    const createdX = all.events[0].id as string;
    expect((await t.client.gql(`query($id: ID!) { node(id: $id) { id } }`, { id: createdX }, s.limited)).node).toBeNull();
    expect((await t.client.gql(`query($id: ID!) { node(id: $id) { id } }`, { id: createdX }, s.m.apiKey.secret)).node).toEqual({ id: createdX });
  });

  it('live events published after the move (the dispatcher reads the invoice as it is now) show an account-limited key nothing of the moved invoice; a full key still gets it', async () => {
    const s = await limitedToA();
    // The events reach the bus only when the dispatcher runs, after the move: each with X as it is then (on B).
    const quiet = { ...t.app.deps, onEventsCommitted: () => {} };
    await t.app.workers.dispatcher.stop();
    const started = (async () => {
      const subs = await limitedSubscriptions(s.limited, null);
      const full = { events: await subscribeWs(ws(s.m.apiKey.secret), MOVED_EVENTS(true)), paid: await subscribeSse(t.url, s.m.apiKey.secret, MOVED_PAID(true)) };
      return { subs, full, ids: await moveOutOfLimitedKey(s, 31_100, quiet) };
    })();
    try {
      await started;
    } finally {
      t.app.workers.dispatcher.start();
    }
    const { subs, full, ids } = await started;
    await expectNothingOfTheMovedInvoice(subs, full, ids, s);
  });

  it("a live event carrying the invoice as it was on the key's accounts: its relations are read again, and judged again (moved since: OUT_OF_SCOPE, nothing of the row)", async () => {
    const s = await limitedToA();
    const quiet = { ...t.app.deps, onEventsCommitted: () => {} };
    const p = await resolvePrincipal(t.app.deps, s.limited);
    await t.app.workers.dispatcher.stop();
    try {
      const withHistory = await subscribeWs(ws(s.limited), MOVED_EVENTS(true));
      const plain = await subscribeSse(t.url, s.limited, MOVED_EVENTS(false));
      const created = await createInvoice(quiet, p, { bankAccountIds: [s.m.bankAccount.id], customer: { name: '경합' }, amount: 31_200 });
      const [row] = await t.app.db.sql.query<Parameters<typeof busEventOf>[0]>(
        `SELECT id, "workspaceId", sequence, type, "invoiceId", "cashReceiptId", "bankAccountIds", "createdAt" FROM "Event" WHERE "invoiceId" = $1`,
        [created.id],
      );
      const moved = await t.client.request('PATCH', `/v2/invoices/${created.id}`, { token: s.m.apiKey.secret, body: { bankAccountIds: [s.accountB.id], customer: SECRET } });
      expect(moved.status).toBe(200);
      // published at commit, before the move, and heard after it
      t.app.workers.bus.publish(busEventOf(row!, jsonRow(created)));
      await plain.waitFor(1);
      await withHistory.waitForErrors(1);
      expect(plain.items.map((x) => x.invoiceEvents.invoice)).toEqual([{ id: created.id, bankAccountIds: [s.m.bankAccount.id], customer: { email: null, phoneNumber: null } }]);
      expect(withHistory.items).toEqual([]);
      expect(withHistory.errors).toEqual([[expect.objectContaining({ extensions: expect.objectContaining({ code: 'OUT_OF_SCOPE' }) })]]);
      expect(JSON.stringify(withHistory.errors)).not.toContain(SECRET.email);
      withHistory.close();
      plain.close();
    } finally {
      t.app.workers.dispatcher.start();
    }
  });

  it('a sequence beyond 2^63-1 is VALIDATION_FAILED naming sinceSequence (events on /graphql and /api, invoiceEvents and invoicePaid over graphql-ws and SSE), never a 500', async () => {
    const tooLarge = '9223372036854775808';
    const refusal = expect.objectContaining({
      message: 'sinceSequence must be a decimal event sequence number from 0 to 9223372036854775807.',
      extensions: expect.objectContaining({ code: 'VALIDATION_FAILED', field: ['sinceSequence'] }),
    });
    for (const since of [tooLarge, '9999999999999999999', '-1', '1e3']) {
      const res = await fetch(`${t.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${a.apiKey.secret}` },
        body: JSON.stringify({ query: `query($s: String) { events(sinceSequence: $s, first: 1) { sequence } }`, variables: { s: since } }),
      });
      const body = await res.json();
      expect([res.status, body.errors], since).toEqual([422, [refusal]]);
      const api = await t.client.request('GET', `/api/events?sinceSequence=${since}`, { token: a.apiKey.secret });
      expect([api.status, api.body.errors], since).toEqual([422, [refusal]]);
    }
    // the largest sequence there can be is a sequence: no events after it
    expect((await t.client.gql(`{ events(sinceSequence: "9223372036854775807", first: 1) { sequence } }`, {}, a.apiKey.secret)).events).toEqual([]);
    const subs = [
      await subscribeWs(ws(a.apiKey.secret), EVENTS, { since: tooLarge }),
      await subscribeWs(ws(a.apiKey.secret), PAID_SINCE, { since: tooLarge }),
      await subscribeSse(t.url, a.apiKey.secret, EVENTS, { since: tooLarge }),
      await subscribeSse(t.url, a.apiKey.secret, PAID_SINCE, { since: tooLarge }),
    ];
    for (const sub of subs) {
      await sub.waitForErrors(1);
      expect(sub.items).toEqual([]);
      expect(sub.errors).toEqual([[refusal]]);
      sub.close();
    }
  });

  it('an unauthenticated subscription is refused', async () => {
    const sub = await subscribeWs(ws('sk_live_nope'), PAID);
    await sub.waitForErrors(1);
    expect(sub.items).toEqual([]);
    expect(JSON.stringify(sub.errors)).toContain('UNAUTHENTICATED');
  });

  it('nothing is published for a change that rolled back (a conflicting create)', async () => {
    const sub = await subscribeWs(ws(a.apiKey.secret), EVENTS, await from(a));
    const first = await invoice(a, '롤백', 27_000);
    const dup = await t.client.request('POST', '/v1/invoices', { token: a.apiKey.secret, body: { bankAccountIds: [], customer: { name: '롤백' }, amount: 27_000 } });
    expect(dup.status).toBe(409);
    // The next create is the marker: an event of the rolled-back one would have come before it.
    const marker = await invoice(a, '롤백뒤', 27_001);
    await sub.waitFor(2);
    expect(sub.items.map((x) => x.invoiceEvents.invoice.id)).toEqual([first, marker]);
    sub.close();
  });

  /** The first invoice.paid of `invoiceId` on the event bus while `act` runs (null after 15 s). */
  const firstPaidOnBus = async (invoiceId: string, act: () => Promise<void>): Promise<BusEvent | null> => {
    const live = t.app.workers.bus.subscribe(a.workspaceId);
    const first = (async () => {
      for await (const e of live) if (e.type === 'invoice.paid' && e.invoiceId === invoiceId) return e;
      return null;
    })();
    try {
      await act();
      return await Promise.race([first, new Promise<null>((r) => setTimeout(() => r(null), 15_000))]);
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
    // One more paid invoice is the marker: the repeat, published before it, would have arrived first.
    const marker = await invoice(a, '한번씩표시', 29_005);
    await t.client.request('POST', `/v1/invoices/${marker}/mark-as-paid`, { token: a.apiKey.secret });
    await sub.waitFor(6);
    expect(sub.items.slice(0, 5).map((m) => (m as { invoicePaid: { id: string } }).invoicePaid.id).sort()).toEqual([...ids].sort());
    expect(sub.items.map((m) => (m as { invoicePaid: { id: string } }).invoicePaid.id)).toEqual([...sub.items.slice(0, 5).map((m) => m.invoicePaid.id), marker]);
    sub.close();
  });
});
