/**
 * transaction.received: every stored deposit — bank notification, forwarded text — emits one event, written with the
 * deposit (the outbox), carrying the deposit and its match outcome (matched: the invoice and method; unmatched: the
 * reason and candidates of its match note). V2 webhooks get it, V1 webhooks never; the `transactionReceived`
 * subscription delivers it as the subscriber may see it (an account-limited key: its accounts' deposits, and only the
 * candidates within them). Verification deposits and repeated announcements of a stored deposit emit nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from 'graphql-ws';
import { addVerifiedBankAccount, bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { dbLabel, startTestApp, type TestApp } from '../helpers/app.ts';
import { createApiKey } from '../helpers/credentials.ts';
import { checkInvariants } from '../helpers/invariants.ts';
import { checkWebhookPayload } from '../helpers/openapi-check.ts';
import { Receiver } from '../helpers/receiver.ts';
import { lastEventSequence, subscribeSse, subscribeWs, wsClient } from '../helpers/subscriptions.ts';

const CREATE_WEBHOOK = `mutation($input: CreateWebhookInput!) { createWebhook(input: $input) { webhook { id } signingSecret } }`;
const RECEIVED = `subscription($since: String) { transactionReceived(sinceSequence: $since) {
  eventId sequence createdAt
  match { status invoiceId method reason candidateInvoiceIds }
  transaction { id bankAccountId amount description matchedInvoiceId matchMethod hidden }
} }`;

/** A Shinhan deposit SMS for `account` at the current KST minute (as test/integration/bank-texts.test.ts writes it). */
function shinhanText(account: string, name: string, amount: number, balance: number, now = new Date()) {
  const kst = new Date(now.getTime() + 9 * 3600_000);
  const p = (n: number) => String(n).padStart(2, '0');
  const money = (n: number) => n.toLocaleString('en-US');
  return `[Web발신]\n신한${p(kst.getUTCMonth() + 1)}/${p(kst.getUTCDate())} ${p(kst.getUTCHours())}:${p(kst.getUTCMinutes())}\n${account}\n입금 ${money(amount)}\n잔액 ${money(balance)}\n ${name}`;
}

interface StoredEvent {
  id: string;
  sequence: string;
  type: string;
  invoiceId: string | null;
  bankAccountIds: string[];
  data: any;
}

describe(`transaction.received on ${dbLabel}`, () => {
  let t: TestApp;
  let m: Bootstrapped;
  const v1 = new Receiver();
  const v2 = new Receiver();
  const clients: Client[] = [];

  beforeAll(async () => {
    await Promise.all([v1.start(), v2.start()]);
    t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_DELAYS_MS: '30,30,30,30,30,30' } });
    m = await bootstrap(t.client);
    await t.client.gql(CREATE_WEBHOOK, { input: { url: v1.url, version: 'V1' } }, m.sessionToken);
    await t.client.gql(CREATE_WEBHOOK, { input: { url: v2.url, version: 'V2' } }, m.sessionToken);
  });
  afterAll(async () => {
    for (const c of clients) await c.dispose();
    await t?.stop();
    await Promise.all([v1.stop(), v2.stop()]);
  });

  const ws = (token: string) => {
    const c = wsClient(t.url, token);
    clients.push(c);
    return c;
  };
  const invoice = async (name: string, amount: number, bankAccountIds: string[] = [], token = m.apiKey.secret) => {
    const r = await t.client.request('POST', '/v1/invoices', { token, body: { bankAccountIds, customer: { name }, amount } });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body.data.id as string;
  };
  const deposit = async (depositorName: string, amount: number, opts: { token?: string; notificationId?: string } = {}) => {
    const r = await t.client.deposit(opts.token ?? m.bankAccount.notificationToken, { depositorName, amount, notificationId: opts.notificationId });
    expect([200, 201], JSON.stringify(r.body)).toContain(r.status);
    return r.body.transactionId as string;
  };
  /** The stored transaction.received events of a deposit. */
  const receivedEventsOf = (transactionId: string) =>
    t.app.db.sql.query<StoredEvent>(
      `SELECT id, sequence::text AS sequence, type, "invoiceId", "bankAccountIds", data FROM "Event" e WHERE type = 'transaction.received' AND data->'transaction'->>'id' = $1 ORDER BY e.sequence`,
      [transactionId],
    );
  const storedEvents = (workspaceId: string, since: string) =>
    t.app.db.sql.query<StoredEvent>(
      `SELECT id, sequence::text AS sequence, type, "invoiceId", "bankAccountIds", data FROM "Event" e WHERE "workspaceId" = $1 AND e.sequence > $2::bigint ORDER BY e.sequence`,
      [workspaceId, since],
    );
  /** The V2 webhook's transaction.received delivery of a deposit (waits for it). */
  const v2Delivery = async (transactionId: string) => {
    await v2.waitFor((all) => all.some((r) => r.json?.type === 'transaction.received' && r.json.data.transaction.id === transactionId), 20_000);
    return v2.ofType('transaction.received').filter((r) => r.json.data.transaction.id === transactionId);
  };

  it('an unmatched deposit (AMBIGUOUS between two invoices): the V2 webhook gets transaction.received with the reason and both candidates; the V1 webhook nothing', async () => {
    const first = await invoice('모호한(101호)', 41_000);
    const second = await invoice('모호한(102호)', 41_000);
    const trx = await deposit('모호한', 41_000);
    const [delivery, ...more] = await v2Delivery(trx);
    expect(more).toEqual([]);
    checkWebhookPayload(delivery!.json);
    const [stored] = await receivedEventsOf(trx);
    expect(delivery!.headers['webhook-id']).toBe(stored!.id);
    expect(delivery!.json).toEqual({
      id: stored!.id,
      type: 'transaction.received',
      createdAt: expect.any(Number),
      workspaceId: m.workspaceId,
      data: {
        transaction: {
          id: trx,
          bankAccount: expect.objectContaining({ id: m.bankAccount.id, number: m.bankAccount.number }),
          matchedInvoiceId: null,
          matchMethod: null,
          amount: 41_000,
          description: '모호한',
          receivedAt: expect.any(Number),
          matchedAt: null,
          createdAt: expect.any(Number),
          source: 'NOTIFICATION',
        },
        match: { status: 'UNMATCHED', reason: 'AMBIGUOUS', candidateInvoiceIds: [first, second] },
      },
    });
    expect(Math.abs(delivery!.json.createdAt - Date.now() / 1000)).toBeLessThan(600);
    // Recorded with the deposit's account and no invoice.
    expect(stored).toMatchObject({ invoiceId: null, bankAccountIds: [m.bankAccount.id] });
    // The V1 webhook got the invoices' invoice.created (the marker that its deliveries went out) and nothing else.
    await v1.waitFor((all) => all.filter((r) => r.json?.data?.invoice?.id === second).length === 1);
    expect(v1.ofType('transaction.received')).toEqual([]);
  });

  it('a matched deposit: transaction.received (MATCHED, the invoice and method), then invoice.paid, in sequence; each to the V2 webhook once', async () => {
    const since = await lastEventSequence(t.app.db.sql, m.workspaceId);
    const id = await invoice('정확한이', 42_000);
    const trx = await deposit('정확한이', 42_000);
    const events = await storedEvents(m.workspaceId, since);
    expect(events.map((e) => [e.type, e.invoiceId])).toEqual([
      ['invoice.created', id],
      ['transaction.received', id],
      ['invoice.paid', id],
    ]);
    expect(BigInt(events[2]!.sequence)).toBe(BigInt(events[1]!.sequence) + 1n);
    expect(events[1]!.data.match).toEqual({ status: 'MATCHED', invoiceId: id, method: 'EXACT' });
    expect(events[1]!.data.transaction).toMatchObject({ id: trx, matchedInvoiceId: id, matchMethod: 'EXACT', source: 'NOTIFICATION' });
    const [delivery] = await v2Delivery(trx);
    checkWebhookPayload(delivery!.json);
    expect(delivery!.json.data.match).toEqual({ status: 'MATCHED', invoiceId: id, method: 'EXACT' });
    await v2.waitFor((all) => all.some((r) => r.json?.type === 'invoice.paid' && r.json.data.invoice.id === id));
    expect(v2.ofType('invoice.paid').filter((r) => r.json.data.invoice.id === id).map((r) => r.json.id)).toEqual([events[2]!.id]);
  });

  it('the transactionReceived subscription (graphql-ws and SSE) delivers every stored deposit with its match outcome, live and caught up by sinceSequence', async () => {
    const since = await lastEventSequence(t.app.db.sql, m.workspaceId);
    const live = await subscribeWs(ws(m.apiKey.secret), RECEIVED, { since });
    const sse = await subscribeSse(t.url, m.apiKey.secret, RECEIVED);
    const paid = await invoice('구독입금', 43_000);
    const matched = await deposit('구독입금', 43_000);
    const unmatched = await deposit('아무개', 43_001);
    const expected = [
      {
        match: { status: 'MATCHED', invoiceId: paid, method: 'EXACT', reason: null, candidateInvoiceIds: [] },
        transaction: { id: matched, bankAccountId: m.bankAccount.id, amount: 43_000, description: '구독입금', matchedInvoiceId: paid, matchMethod: 'EXACT', hidden: false },
      },
      {
        match: { status: 'UNMATCHED', invoiceId: null, method: null, reason: 'NO_CANDIDATE', candidateInvoiceIds: [] },
        transaction: { id: unmatched, bankAccountId: m.bankAccount.id, amount: 43_001, description: '아무개', matchedInvoiceId: null, matchMethod: null, hidden: false },
      },
    ];
    const stored = (await storedEvents(m.workspaceId, since)).filter((e) => e.type === 'transaction.received');
    for (const sub of [live, sse]) {
      const got = (await sub.waitFor(2)).map((x) => x.transactionReceived);
      expect(got.map(({ eventId, sequence, match, transaction }) => ({ eventId, sequence, match, transaction }))).toEqual(
        expected.map((x, i) => ({ eventId: stored[i]!.id, sequence: stored[i]!.sequence, ...x })),
      );
      expect(sub.errors).toEqual([]);
      sub.close();
    }
    // A reconnecting subscriber catches up from the sequence before them: the same two, from the database.
    const caughtUp = await subscribeWs(ws(m.apiKey.secret), RECEIVED, { since });
    expect((await caughtUp.waitFor(2)).map((x) => [x.transactionReceived.sequence, x.transactionReceived.transaction.id, x.transactionReceived.match.status])).toEqual([
      [stored[0]!.sequence, matched, 'MATCHED'],
      [stored[1]!.sequence, unmatched, 'UNMATCHED'],
    ]);
    caughtUp.close();
    // invoiceEvents leaves deposits out: its subscriber of the paid invoice gets created and paid only.
    const perInvoice = await subscribeWs(ws(m.apiKey.secret), `subscription($id: ID, $since: String) { invoiceEvents(invoiceId: $id, sinceSequence: $since) { type invoice { id } } }`, { id: paid, since });
    expect((await perInvoice.waitFor(2)).map((x) => x.invoiceEvents.type)).toEqual(['created', 'paid']);
    await new Promise((r) => setTimeout(r, 200));
    expect(perInvoice.items).toHaveLength(2);
    perInvoice.close();
  });

  it('an account-limited key sees only deposits to its accounts, and no candidate outside them (subscription and events query); a full key sees all', async () => {
    const w = await bootstrap(t.client);
    const accountB = await addVerifiedBankAccount(t.client, w.sessionToken);
    const limited = (await createApiKey(t.client, w.sessionToken, { name: 'only B', bankAccountIds: [accountB.id] })).secret;
    const since = await lastEventSequence(t.app.db.sql, w.workspaceId);
    const limitedSub = await subscribeWs(ws(limited), RECEIVED, { since });
    const fullSub = await subscribeSse(t.url, w.apiKey.secret, RECEIVED);
    const otherWorkspace = await subscribeWs(ws(m.apiKey.secret), RECEIVED, { since: await lastEventSequence(t.app.db.sql, m.workspaceId) });
    // Two invoices the deposit to B could pay: one on B (the key's), one on all accounts (never a limited key's).
    const onB = await invoice('후보자(B)', 44_000, [accountB.id], w.apiKey.secret);
    const everywhere = await invoice('후보자(전체)', 44_000, [], w.apiKey.secret);
    const toA = await deposit('다른계좌', 44_001, { token: w.bankAccount.notificationToken });
    const toB = await deposit('후보자', 44_000, { token: accountB.notificationToken });
    // A deposit to A that pays an invoice on A, and one to B that pays an all-accounts invoice: neither is the key's.
    await invoice('에이결제', 44_002, [w.bankAccount.id], w.apiKey.secret);
    await deposit('에이결제', 44_002, { token: w.bankAccount.notificationToken });
    const allAccounts = await invoice('전체결제', 44_003, [], w.apiKey.secret);
    const paysAll = await deposit('전체결제', 44_003, { token: accountB.notificationToken });
    // The marker: a deposit to B, last.
    const marker = await deposit('표시', 44_004, { token: accountB.notificationToken });

    const full = (await fullSub.waitFor(5)).map((x) => x.transactionReceived);
    expect(full.map((x) => x.transaction.id)).toEqual([toA, toB, expect.any(String), paysAll, marker]);
    expect(full[1]!.match).toEqual({ status: 'UNMATCHED', invoiceId: null, method: null, reason: 'AMBIGUOUS', candidateInvoiceIds: [onB, everywhere] });
    expect(full[3]!.match).toMatchObject({ status: 'MATCHED', invoiceId: allAccounts });
    const mine = (await limitedSub.waitFor(2)).map((x) => x.transactionReceived);
    expect(mine.map((x) => x.transaction.id)).toEqual([toB, marker]);
    expect(mine[0]!.match).toEqual({ status: 'UNMATCHED', invoiceId: null, method: null, reason: 'AMBIGUOUS', candidateInvoiceIds: [onB] });
    expect(JSON.stringify(mine)).not.toContain(everywhere);
    expect(JSON.stringify(mine)).not.toContain(w.bankAccount.id);
    expect(limitedSub.errors).toEqual([]);
    limitedSub.close();
    fullSub.close();
    // Another workspace's subscriber got none of them: its own deposit, after them, is the first it gets.
    const own = await deposit('다른작업공간', 44_005);
    expect((await otherWorkspace.waitFor(1)).map((x) => x.transactionReceived.transaction.id)).toEqual([own]);
    otherWorkspace.close();
    // The events query: the same deposits, the same candidates.
    const query = `query($s: String) { events(sinceSequence: $s) { type data } }`;
    const listed = (await t.client.gql(query, { s: since }, limited)).events.filter((e: { type: string }) => e.type === 'transaction.received');
    expect(listed.map((e: any) => [e.data.transaction.id, e.data.match])).toEqual([
      [toB, { status: 'UNMATCHED', reason: 'AMBIGUOUS', candidateInvoiceIds: [onB] }],
      [marker, { status: 'UNMATCHED', reason: 'NO_CANDIDATE', candidateInvoiceIds: [] }],
    ]);
    const all = (await t.client.gql(query, { s: since }, w.apiKey.secret)).events.filter((e: { type: string }) => e.type === 'transaction.received');
    expect(all).toHaveLength(5);
    expect(all[1].data.match.candidateInvoiceIds).toEqual([onB, everywhere]);
    // The limited key's catch-up sees the same as it did live.
    const caughtUp = await subscribeWs(ws(limited), RECEIVED, { since });
    expect((await caughtUp.waitFor(2)).map((x) => [x.transactionReceived.transaction.id, x.transactionReceived.match.candidateInvoiceIds])).toEqual([
      [toB, [onB]],
      [marker, []],
    ]);
    caughtUp.close();
  });

  it('a deposit announced again (the same notification, sequentially and at once) emits nothing more', async () => {
    const notificationId = `dup-${Date.now()}`;
    const first = await deposit('두번온돈', 45_000, { notificationId });
    const again = await deposit('두번온돈', 45_000, { notificationId });
    expect(again).toBe(first);
    const raced = `race-${Date.now()}`;
    const ids = await Promise.all(Array.from({ length: 6 }, () => deposit('동시에', 45_001, { notificationId: raced })));
    expect(new Set(ids).size).toBe(1);
    expect(await receivedEventsOf(first)).toHaveLength(1);
    expect(await receivedEventsOf(ids[0]!)).toHaveLength(1);
  });

  it('1-won verification deposits emit nothing (on registration, and again after it); a deposit to an account not yet verified is ACCOUNT_NOT_RECEIVING', async () => {
    const w = await bootstrap(t.client);
    const unverified = await addVerifiedBankAccount(t.client, w.sessionToken, { verify: false });
    const since = await lastEventSequence(t.app.db.sql, w.workspaceId);
    const early = await deposit('미인증입금', 46_000, { token: unverified.notificationToken });
    const verification = await deposit(unverified.verificationCode, 1, { token: unverified.notificationToken });
    const repeatCode = await deposit(unverified.verificationCode, 1, { token: w.bankAccount.notificationToken });
    const repeatOwn = await deposit(w.bankAccount.verificationCode, 1, { token: w.bankAccount.notificationToken });
    const events = await storedEvents(w.workspaceId, since);
    // The deposit to the unverified account, and the other account's code deposited here (a plain 1-won deposit on
    // this account); the verification deposits (hidden, verification: true) have none.
    expect(events.map((e) => [e.type, e.data.transaction?.id])).toEqual([
      ['transaction.received', early],
      ['transaction.received', repeatCode],
    ]);
    expect(events[0]!.data.match).toEqual({ status: 'UNMATCHED', reason: 'ACCOUNT_NOT_RECEIVING', candidateInvoiceIds: [] });
    const hidden = await t.app.deps.prisma.transaction.findMany({ where: { id: { in: [verification, repeatOwn] } }, select: { verification: true, hidden: true } });
    expect(hidden).toEqual([
      { verification: true, hidden: true },
      { verification: true, hidden: true },
    ]);
    // The bootstrap's own verification deposit has none either.
    const [bootstrapVerification] = await t.app.db.sql.query<{ id: string }>(`SELECT id FROM "Transaction" WHERE "bankAccountId" = $1 AND "notificationId" = $2`, [
      w.bankAccount.id,
      `verify-${w.bankAccount.id}`,
    ]);
    expect(await receivedEventsOf(bootstrapVerification!.id)).toEqual([]);
  });

  it('a deposit by forwarded text emits it with source TEXT (matched: before its invoice.paid); the same deposit by push emits nothing more', async () => {
    const since = await lastEventSequence(t.app.db.sql, m.workspaceId);
    const id = await invoice('문자입금', 47_000);
    const now = new Date();
    const sms = shinhanText(m.bankAccount.number, '문자입금', 47_000, 1_047_000, now);
    const r = await t.client.request('POST', '/bank-texts', { token: m.bankAccount.notificationToken, body: { text: sms, receivedAt: now.toISOString(), channel: 'SMS' } });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const trx = r.body.transactionId as string;
    const push = sms.replace('[Web발신]\n', '').replace(/\n/g, ' ');
    const dup = await t.client.request('POST', '/bank-texts', { token: m.bankAccount.notificationToken, body: { text: push, receivedAt: now.toISOString(), channel: 'PUSH' } });
    expect(dup.body).toMatchObject({ outcome: 'DUPLICATE', transactionId: trx });
    const unmatchedText = await t.client.request('POST', '/bank-texts', {
      token: m.bankAccount.notificationToken,
      body: { text: shinhanText(m.bankAccount.number, '모르는분', 47_001, 1_094_001, now), receivedAt: now.toISOString(), channel: 'SMS' },
    });
    expect(unmatchedText.status).toBe(201);
    const events = await storedEvents(m.workspaceId, since);
    expect(events.map((e) => [e.type, e.invoiceId, e.data.transaction?.id ?? null])).toEqual([
      ['invoice.created', id, null],
      ['transaction.received', id, trx],
      ['invoice.paid', id, trx],
      ['transaction.received', null, unmatchedText.body.transactionId],
    ]);
    expect(events[1]!.data).toMatchObject({ transaction: { source: 'TEXT', amount: 47_000, matchedInvoiceId: id }, match: { status: 'MATCHED', invoiceId: id, method: 'EXACT' } });
    expect(events[3]!.data).toMatchObject({ transaction: { source: 'TEXT' }, match: { status: 'UNMATCHED', reason: 'NO_CANDIDATE' } });
    const [delivery] = await v2Delivery(trx);
    checkWebhookPayload(delivery!.json);
    expect(delivery!.json.data.transaction.source).toBe('TEXT');
  });

  it('the deposit and its event commit together: an event that cannot be written leaves no deposit, a deposit that cannot be written leaves no event (one statement, the matched batch and the text path)', async () => {
    const sql = t.app.db.sql;
    const w = await bootstrap(t.client);
    const post = (path: string, token: string, body: unknown) =>
      t.fetch(`${t.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
    const notification = (notificationId: string, depositorName: string, amount: number) => ({ notificationId, depositorName, amount, receivedAt: new Date().toISOString() });
    // Triggers refuse the event of deposits named 이벤트거부…, and the deposits named 입금거부….
    await sql.query(`CREATE FUNCTION test_refuse_write() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$`);
    await sql.query(
      `CREATE TRIGGER test_refuse_event BEFORE INSERT ON "Event" FOR EACH ROW
         WHEN (NEW.type = 'transaction.received' AND NEW.data->'transaction'->>'description' LIKE '이벤트거부%') EXECUTE FUNCTION test_refuse_write()`,
    );
    await sql.query(`CREATE TRIGGER test_refuse_deposit BEFORE INSERT ON "Transaction" FOR EACH ROW WHEN (NEW.description LIKE '입금거부%') EXECUTE FUNCTION test_refuse_write()`);
    const paidLater = await invoice('이벤트거부매칭', 48_000, [], w.apiKey.secret);
    const seqBefore = await lastEventSequence(sql, w.workspaceId);
    try {
      const refused = [
        await post('/bank-notifications', w.bankAccount.notificationToken, notification('ev-unmatched', '이벤트거부', 48_001)),
        await post('/bank-notifications', w.bankAccount.notificationToken, notification('ev-matched', '이벤트거부매칭', 48_000)),
        await post('/bank-texts', w.bankAccount.notificationToken, { text: shinhanText(w.bankAccount.number, '이벤트거부문자', 48_002, 1_048_002), receivedAt: new Date().toISOString(), channel: 'SMS' }),
        await post('/bank-notifications', w.bankAccount.notificationToken, notification('dep-unmatched', '입금거부', 48_003)),
      ];
      for (const r of refused) expect(r.status).toBeGreaterThanOrEqual(500);
      // Nothing of any of them: no deposit, no event, no sequence taken; the invoice still waits.
      const deposits = await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM "Transaction" WHERE "workspaceId" = $1 AND NOT verification`, [w.workspaceId]);
      expect(deposits[0]!.n).toBe(0);
      expect(await lastEventSequence(sql, w.workspaceId)).toBe(seqBefore);
      expect(await storedEvents(w.workspaceId, seqBefore)).toEqual([]);
      expect((await t.client.request('GET', `/v1/invoices/${paidLater}`, { token: w.apiKey.secret })).body.data.paid).toBe(false);
    } finally {
      await sql.query(`DROP TRIGGER test_refuse_event ON "Event"`);
      await sql.query(`DROP TRIGGER test_refuse_deposit ON "Transaction"`);
      await sql.query(`DROP FUNCTION test_refuse_write()`);
    }
    // The bank sends them again: stored now, each with its one event.
    const matched = await post('/bank-notifications', w.bankAccount.notificationToken, notification('ev-matched', '이벤트거부매칭', 48_000));
    expect(matched.status).toBe(201);
    const events = await storedEvents(w.workspaceId, seqBefore);
    expect(events.map((e) => [e.type, e.invoiceId])).toEqual([
      ['transaction.received', paidLater],
      ['invoice.paid', paidLater],
    ]);
  });

  it('deposits of one workspace arriving at once share statements (matched and unmatched together): each stored once with its events, numbered without gaps, told once', async () => {
    const w = await bootstrap(t.client);
    const paid: string[] = [];
    for (let i = 0; i < 6; i++) paid.push(await invoice(`동시결제${i}`, 49_000 + i, [], w.apiKey.secret));
    const afterInvoices = await lastEventSequence(t.app.db.sql, w.workspaceId);
    const sub = await subscribeWs(ws(w.apiKey.secret), RECEIVED, { since: afterInvoices });
    const ids = await Promise.all([
      ...paid.map((_, i) => deposit(`동시결제${i}`, 49_000 + i, { token: w.bankAccount.notificationToken })),
      ...Array.from({ length: 10 }, (_, i) => deposit(`동시미결${i}`, 49_100 + i, { token: w.bankAccount.notificationToken })),
    ]);
    const events = await storedEvents(w.workspaceId, afterInvoices);
    // 6 × (transaction.received, invoice.paid) + 10 × transaction.received, gap-free, each deposit once.
    expect(events).toHaveLength(22);
    expect(events.map((e) => Number(e.sequence))).toEqual(events.map((_, i) => Number(afterInvoices) + 1 + i));
    const received = events.filter((e) => e.type === 'transaction.received');
    expect(received.map((e) => e.data.transaction.id).sort()).toEqual([...ids].sort());
    for (const [i, e] of events.entries()) if (e.type === 'invoice.paid') expect([events[i - 1]!.type, events[i - 1]!.invoiceId]).toEqual(['transaction.received', e.invoiceId]);
    const got = await sub.waitFor(16);
    expect(got.map((x) => x.transactionReceived.sequence)).toEqual(received.map((e) => e.sequence));
    await new Promise((r) => setTimeout(r, 200));
    expect(sub.items).toHaveLength(16);
    sub.close();
  });

  it('the invariants hold: every deposit but a verification deposit has exactly one transaction.received, recorded with its account', async () => {
    await t.app.workers.dispatcher.loop.drain();
    expect(await checkInvariants(t.app.db.sql)).toEqual([]);
    // And V1 webhooks never got one.
    expect(v1.ofType('transaction.received')).toEqual([]);
  });
});
