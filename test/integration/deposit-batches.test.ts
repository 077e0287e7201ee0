/**
 * Matched deposits written together (src/domain/deposits/matched-deposit-statement.ts, storeMatchedDepositsInOneStatement): in a
 * statement of several, a deposit whose invoice changed since it was read is not stored (it falls back to a full
 * transaction) while the others are stored whole — payment, deposit, history line, event — with their events numbered
 * without gaps and told to live subscribers once each, with the paid invoice. Embedded PostgreSQL and TEST_DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { newDeposit } from '../../src/domain/deposits/deposit-row.ts';
import { storeMatchedDepositsInOneStatement, type MatchedDepositWrite } from '../../src/domain/deposits/matched-deposit-statement.ts';
import { storeMatchedDeposits } from '../../src/domain/deposits/matched-deposit-writer.ts';
import { isUniqueViolation } from '../../src/domain/prisma-errors.ts';
import type { CommittedEvent } from '../../src/domain/events/outbox.ts';
import type { BankAccount, Invoice } from '../../src/generated/prisma/client.ts';
import { dbLabel, startTestApp, type TestApp } from '../helpers/app.ts';
import { checkInvariants } from '../helpers/invariants.ts';

/** A deposit matched (EXACT) to `inv`, as storeDepositInOneStatement hands it to the writer. */
function matchedWrite(account: BankAccount, inv: Invoice, notificationId: string, now: Date): MatchedDepositWrite {
  const deposit = newDeposit(account, { notificationId, depositorName: inv.customerName, amount: inv.amount, receivedAt: now }, now, { verification: false });
  return { deposit, matched: { ...deposit, matchedInvoiceId: inv.id, matchMethod: 'EXACT', matchedAt: now }, candidate: inv, method: 'EXACT', now, mail: null };
}

describe(`matched deposits written together on ${dbLabel}`, () => {
  let t: TestApp;
  let m: Bootstrapped;
  beforeAll(async () => {
    t = await startTestApp({ env: { RATE_LIMIT_PER_SECOND: '0' } });
    m = await bootstrap(t.client);
  });
  afterAll(() => t?.stop());

  it('a statement of several: deposits whose invoice changed meanwhile fall back; the others are stored whole, numbered without gaps, told once', async () => {
    const names = ['묶음가', '묶음나', '묶음다', '묶음라'];
    const ids: string[] = [];
    for (const [i, name] of names.entries()) {
      const r = await t.client.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds: [], customer: { name }, amount: 31_000 + i } });
      expect(r.status).toBe(201);
      ids.push(r.body.data.id);
    }
    const prisma = t.app.db.prisma;
    const account = await prisma.bankAccount.findUniqueOrThrow({ where: { id: m.bankAccount.id } });
    const read = await prisma.invoice.findMany({ where: { id: { in: ids } } });
    const invoices = ids.map((id) => read.find((x) => x.id === id)!);
    // The second and fourth change after they were read (as a concurrent mark-as-paid would).
    for (const id of [ids[1], ids[3]]) expect((await t.client.request('POST', `/v1/invoices/${id}/mark-as-paid`, { token: m.apiKey.secret })).status).toBe(200);
    const [{ eventSeq: before }] = await t.app.db.sql.query<{ eventSeq: string }>(`SELECT "eventSeq"::text AS "eventSeq" FROM "Workspace" WHERE id = $1`, [m.workspaceId]);

    const told: CommittedEvent[] = [];
    let jobsWoken = 0;
    const deps = { ...t.app.deps, onEventsCommitted: (c?: CommittedEvent[]) => void told.push(...(c ?? [])), onJobsQueued: () => void jobsWoken++ };
    const now = new Date();
    const items = invoices.map((inv, i) => matchedWrite(account, inv, `together-${i}`, now));
    // Given in reverse id order: the statement locks (and numbers) them in id order, and answers in the order given.
    const results = await storeMatchedDepositsInOneStatement(deps, m.workspaceId, [...items].reverse());
    const byInvoice = new Map([...items].reverse().map((it, i) => [it.candidate.id, results[i]]));

    expect(byInvoice.get(ids[1])).toEqual({ fallBack: true, lostCandidateId: ids[1] });
    expect(byInvoice.get(ids[3])).toEqual({ fallBack: true, lostCandidateId: ids[3] });
    for (const i of [0, 2]) expect(byInvoice.get(ids[i])).toMatchObject({ id: items[i].deposit.id, matchedInvoiceId: ids[i], matchMethod: 'EXACT', notificationId: `together-${i}` });
    // What a stored deposit answers (built in the process, not read back) is the row as the database has it.
    for (const i of [0, 2]) expect(byInvoice.get(ids[i])).toEqual(await t.app.db.prisma.transaction.findUnique({ where: { id: items[i].deposit.id } }));

    const stored = await t.app.db.sql.query<{ notificationId: string; matchedInvoiceId: string }>(
      `SELECT "notificationId", "matchedInvoiceId" FROM "Transaction" WHERE "notificationId" LIKE 'together-%' ORDER BY "notificationId"`,
    );
    expect(stored).toEqual([
      { notificationId: 'together-0', matchedInvoiceId: ids[0] },
      { notificationId: 'together-2', matchedInvoiceId: ids[2] },
    ]);
    const history = await t.app.db.sql.query<{ invoiceId: string; trigger: string }>(
      `SELECT "invoiceId", data->>'trigger' AS trigger FROM "InvoiceHistoryEntry" WHERE type = 'paid' AND "invoiceId" = ANY($1::text[]) ORDER BY "invoiceId"`,
      [ids],
    );
    expect(history.filter((h) => h.trigger === 'DEPOSIT').map((h) => h.invoiceId).sort()).toEqual([ids[0], ids[2]].sort());
    const events = await t.app.db.sql.query<{ id: string; type: string; invoiceId: string; sequence: string }>(
      `SELECT id, type, "invoiceId", sequence::text FROM "Event" e WHERE "workspaceId" = $1 AND e.sequence > $2::bigint ORDER BY e.sequence`,
      [m.workspaceId, before],
    );
    const lower = [ids[0], ids[2]].sort();
    // Each stored deposit's transaction.received, then its invoice.paid.
    expect(events.map((e) => [e.type, e.invoiceId, Number(e.sequence) - Number(before)])).toEqual([
      ['transaction.received', lower[0], 1],
      ['invoice.paid', lower[0], 2],
      ['transaction.received', lower[1], 3],
      ['invoice.paid', lower[1], 4],
    ]);
    const [{ eventSeq: after }] = await t.app.db.sql.query<{ eventSeq: string }>(`SELECT "eventSeq"::text AS "eventSeq" FROM "Workspace" WHERE id = $1`, [m.workspaceId]);
    expect(Number(after) - Number(before)).toBe(4);

    expect(told.map((e) => [e.id, e.sequence, e.type, e.invoiceId, (e.invoice as { status?: string }).status])).toEqual(events.map((e) => [e.id, e.sequence, e.type, e.invoiceId, 'PAID']));
    expect(jobsWoken).toBe(0); // no e-mail was queued
    expect(await checkInvariants(t.app.db.sql)).toEqual([]);
  });

  it('a statement of several that one deposit makes fail (its notification twice) writes each alone: that error is only its own', async () => {
    const names = ['홀로가', '홀로나', '홀로다'];
    const ids: string[] = [];
    for (const [i, name] of names.entries()) {
      const r = await t.client.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds: [], customer: { name }, amount: 41_000 + i } });
      expect(r.status).toBe(201);
      ids.push(r.body.data.id);
    }
    const account = await t.app.db.prisma.bankAccount.findUniqueOrThrow({ where: { id: m.bankAccount.id } });
    const read = await t.app.db.prisma.invoice.findMany({ where: { id: { in: ids } } });
    const now = new Date();
    // The first two carry the same notification id (a bank feed sending one deposit twice, with different bodies).
    const items = ids.map((id, i) => matchedWrite(account, read.find((x) => x.id === id)!, i < 2 ? 'alone-same' : 'alone-other', now));
    const results = await storeMatchedDeposits(t.app.deps, m.workspaceId, items);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(isUniqueViolation((results[1] as PromiseRejectedResult).reason, 'notificationId')).toBe(true);
    const stored = await t.app.db.sql.query<{ notificationId: string; matchedInvoiceId: string }>(
      `SELECT "notificationId", "matchedInvoiceId" FROM "Transaction" WHERE "notificationId" LIKE 'alone-%' ORDER BY "notificationId"`,
    );
    expect(stored).toEqual([
      { notificationId: 'alone-other', matchedInvoiceId: ids[2] },
      { notificationId: 'alone-same', matchedInvoiceId: ids[0] },
    ]);
    const pending = await t.app.db.sql.query<{ status: string }>(`SELECT status::text FROM "Invoice" WHERE id = $1`, [ids[1]]);
    expect(pending[0].status).toBe('PENDING'); // nothing of the failed deposit was written
    expect(await checkInvariants(t.app.db.sql)).toEqual([]);
  });
});
