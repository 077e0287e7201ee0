/**
 * The invariant checker (test/helpers/invariants.ts) can fail: a healthy database built through the API — deposits,
 * mark-as-paid, v1 delete, v2 cancel, PATCH, un-match and re-match, cash receipts with partial cancels — has no
 * violation, and each deliberate corruption of it (inside a transaction that is rolled back) is reported by its rule.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { checkInvariants, type QueryLike } from '../helpers/invariants.ts';
import { dbLabel, startTestApp, type TestApp } from '../helpers/app.ts';
import { until } from '../helpers/wait.ts';


class Rollback extends Error {}

describe(`the invariant checker on ${dbLabel}`, () => {
  let t: TestApp;
  let m: Bootstrapped;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    t = await startTestApp({ env: { RATE_LIMIT_PER_SECOND: '0' } });
    m = await bootstrap(t.client);
    const key = m.apiKey.secret;
    const create = async (name: string, amount: number, extra: Record<string, unknown> = {}) => {
      const r = await t.client.request('POST', '/v1/invoices', { token: key, body: { bankAccountIds: [], customer: { name }, amount, ...extra } });
      expect(r.status).toBe(201);
      return r.body.data.id as string;
    };
    ids.byDeposit = await create('입금자', 10_000, { cashReceipt: { type: 'PERSONAL', identifier: '01011112222' } });
    const dep = await t.client.deposit(m.bankAccount.notificationToken, { depositorName: '입금자', amount: 10_000 });
    ids.deposit = dep.body.transactionId;
    ids.byApi = await create('수동', 20_000);
    expect((await t.client.request('POST', `/v1/invoices/${ids.byApi}/mark-as-paid`, { token: key })).status).toBe(200);
    ids.deleted = await create('삭제', 30_000);
    expect((await t.client.request('DELETE', `/v1/invoices/${ids.deleted}`, { token: key })).status).toBe(200);
    ids.canceled = await create('취소', 40_000);
    expect((await t.client.request('POST', `/v2/invoices/${ids.canceled}/cancel`, { token: key, body: { reason: 'r' } })).status).toBe(200);
    ids.patched = await create('수정', 50_000);
    expect((await t.client.request('PATCH', `/v2/invoices/${ids.patched}`, { token: key, body: { amount: 55_000 } })).status).toBe(200);
    // Un-match and re-match: two invoice.paid events, one invoice.unpaid — still paid once on balance.
    ids.rematched = await create('재매칭', 60_000);
    const dep2 = await t.client.deposit(m.bankAccount.notificationToken, { depositorName: '재매칭', amount: 60_000 });
    await t.client.gql(`mutation($id: ID!) { unmatchTransaction(id: $id) { transaction { id } } }`, { id: dep2.body.transactionId }, m.sessionToken);
    await t.client.gql(`mutation($i: MatchTransactionInput!) { matchTransaction(input: $i) { transaction { id } } }`, { i: { transactionId: dep2.body.transactionId, invoiceId: ids.rematched } }, m.sessionToken);
    const r = await t.client.request('POST', '/v1/cash-receipts', { token: key, body: { type: 'PERSONAL', identifier: '01012345678', amount: 10_000 } });
    ids.receipt = r.body.data.id;
    await until(() => t.client.request('GET', `/v2/cash-receipts/${ids.receipt}`, { token: key }), (x) => x.body.data?.status === 'ISSUED');
    for (const amount of [3000, 2000]) {
      expect((await t.client.request('POST', `/v2/cash-receipts/${ids.receipt}/cancel`, { token: key, body: { reason: 'part', amount } })).status).toBe(200);
    }
    // Every receipt (auto-issued, cancellations) settled.
    await until(() => t.app.db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM "CashReceipt" WHERE status = 'PENDING'`), (x) => x[0].n === 0);
  });
  afterAll(() => t?.stop());

  /** Corrupts the database inside a transaction, runs the checker there, rolls back. */
  async function violationsAfter(corrupt: (q: QueryLike) => Promise<unknown>): Promise<string[]> {
    let out: string[] = [];
    await t.app.db.sql
      .transaction(async (q) => {
        await corrupt(q);
        out = await checkInvariants(q);
        throw new Rollback();
      })
      .catch((e) => {
        if (!(e instanceof Rollback)) throw e;
      });
    return out;
  }

  /** An extra outbox event, with its sequence taken properly (so only the rule under test can object). */
  const addEvent = (q: QueryLike, type: string, invoiceId: string) =>
    q.query(
      `WITH s AS (UPDATE "Workspace" SET "eventSeq" = "eventSeq" + 1 WHERE id = $1 RETURNING "eventSeq")
       INSERT INTO "Event" (id, "workspaceId", sequence, type, "invoiceId", data) SELECT 'evt_corrupt' || s."eventSeq", $1, s."eventSeq", $2, $3, '{}'::jsonb FROM s`,
      [m.workspaceId, type, invoiceId],
    );

  it('a healthy database has no violation', async () => {
    expect(await checkInvariants(t.app.db.sql)).toEqual([]);
    expect(await checkInvariants(t.app.db.sql, { workspaceId: m.workspaceId })).toEqual([]);
  });

  it.each<[string, (q: QueryLike) => Promise<unknown>, string]>([
    ['an invoice paid twice (a second invoice.paid and paid line)', async (q) => {
      await addEvent(q, 'invoice.paid', ids.byApi);
      await q.query(`INSERT INTO "InvoiceHistoryEntry" (id, "invoiceId", type) VALUES ('hst_corrupt', $1, 'paid')`, [ids.byApi]);
    }, 'invoice paid once'],
    ['a PAID invoice without its invoice.paid event', (q) => q.query(`DELETE FROM "Event" WHERE "invoiceId" = $1 AND type = 'invoice.paid'`, [ids.byApi]), 'invoice paid once'],
    ['a deposit matched to an invoice that is not paid', (q) => q.query(`UPDATE "Invoice" SET status = 'PENDING', "paidAt" = NULL, "paidTrigger" = NULL WHERE id = $1`, [ids.byDeposit]), 'deposit ↔ invoice'],
    ['a deposit of another amount than its invoice', (q) => q.query(`UPDATE "Transaction" SET amount = amount + 1 WHERE id = $1`, [ids.deposit]), 'deposit ↔ invoice'],
    ['an invoice paid by deposit with no deposit', (q) => q.query(`UPDATE "Invoice" SET "paidTrigger" = 'DEPOSIT' WHERE id = $1`, [ids.byApi]), 'deposit ↔ invoice'],
    ['a receipt whose canceledAmount disagrees with its cancellations', (q) => q.query(`UPDATE "CashReceipt" SET "canceledAmount" = "canceledAmount" + 1, "remainingAmount" = "remainingAmount" - 1 WHERE id = $1`, [ids.receipt]), 'receipt amounts conserved'],
    ['a receipt whose remainingAmount is off', (q) => q.query(`UPDATE "CashReceipt" SET "remainingAmount" = "remainingAmount" + 500 WHERE id = $1`, [ids.receipt]), 'receipt amounts conserved'],
    ['a lost cancellation receipt', (q) => q.query(`DELETE FROM "CashReceipt" WHERE id = (SELECT id FROM "CashReceipt" WHERE "originalId" = $1 LIMIT 1)`, [ids.receipt]), 'receipt amounts conserved'],
    ['a state change without its event (deleted line, no invoice.deleted)', (q) => q.query(`DELETE FROM "Event" WHERE "invoiceId" = $1 AND type = 'invoice.deleted'`, [ids.deleted]), 'one event per state change'],
    ['an event without its state change (a second invoice.updated)', (q) => addEvent(q, 'invoice.updated', ids.patched), 'one event per state change'],
    ['an invoice with two invoice.created events', (q) => addEvent(q, 'invoice.created', ids.patched), 'one invoice.created event per invoice'],
    ['a canceled invoice canceled twice', async (q) => {
      await addEvent(q, 'invoice.canceled', ids.canceled);
      await q.query(`INSERT INTO "InvoiceHistoryEntry" (id, "invoiceId", type) VALUES ('hst_corrupt', $1, 'canceled')`, [ids.canceled]);
    }, 'invoice canceled once'],
    ['a gap in the event sequence', (q) => q.query(`UPDATE "Workspace" SET "eventSeq" = "eventSeq" + 1 WHERE id = $1`, [m.workspaceId]), 'event sequence gap-free'],
    ['a PENDING receipt with no job to settle it', async (q) => {
      await q.query(`UPDATE "CashReceipt" SET status = 'PENDING', "ntsResultCode" = NULL, "ntsConfirmNum" = NULL WHERE id = $1`, [ids.receipt]);
      await q.query(`DELETE FROM "Event" WHERE "cashReceiptId" = $1`, [ids.receipt]);
    }, 'no stuck receipt'],
    ['a receipt settled twice (two receipt.issued events)', (q) => q.query(
      `WITH s AS (UPDATE "Workspace" SET "eventSeq" = "eventSeq" + 1 WHERE id = $1 RETURNING "eventSeq")
       INSERT INTO "Event" (id, "workspaceId", sequence, type, "cashReceiptId", data) SELECT 'evt_corrupt', $1, s."eventSeq", 'receipt.issued', $2, '{}'::jsonb FROM s`,
      [m.workspaceId, ids.receipt],
    ), 'one event per receipt outcome'],
    ['an invoice whose stored comparison name is not the rule\'s (not normalised)', (q) => q.query(`UPDATE "Invoice" SET "customerNameKey" = "customerName" || 'X' WHERE id = $1`, [ids.patched]), 'invoice name columns'],
    ['an invoice whose stored bracket-free name is stale', (q) => q.query(`UPDATE "Invoice" SET "customerNameBare" = 'stale' WHERE id = $1`, [ids.patched]), 'invoice name columns'],
    ['a visible 1-won deposit named with the account\'s verification code', (q) => q.query(
      `INSERT INTO "Transaction" (id, "workspaceId", "bankAccountId", "bankAccountSnapshot", "notificationId", amount, description, "searchText", hidden, verification, "receivedAt")
       SELECT 'trx_corrupt', a."workspaceId", a.id, '{}'::jsonb, 'corrupt', 1, a."verificationCode", '', false, false, now() FROM "BankAccount" a WHERE a.id = $1`,
      [m.bankAccount.id],
    ), 'verification deposits'],
  ])('reports %s', async (_name, corrupt, rule) => {
    const v = await violationsAfter(corrupt);
    expect(v.some((line) => line.startsWith(rule + ':')), `expected a "${rule}" violation, got ${JSON.stringify(v)}`).toBe(true);
    // And the rollback left the database healthy.
    expect(await checkInvariants(t.app.db.sql)).toEqual([]);
  });
});
