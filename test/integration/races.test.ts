/**
 * Concurrency is real: simultaneous identical creates give one invoice; simultaneous deposits pay an invoice once;
 * one deposit never pays two invoices. Run on PGlite and on PostgreSQL (TEST_DATABASE_URL).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addVerifiedBankAccount, bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { dbLabel, startTestApp, type TestApp } from '../helpers/app.ts';

const N = 32;

describe(`races on ${dbLabel}`, () => {
  let t: TestApp;
  let m: Bootstrapped;
  beforeAll(async () => {
    t = await startTestApp();
    m = await bootstrap(t.client);
  });
  afterAll(() => t?.stop());

  const create = (body: unknown) => t.client.request('POST', '/v1/invoices', { token: m.apiKey.secret, body });

  it(`${N} simultaneous identical creates: exactly one 201 and ${N - 1} × 409 INVOICE_ALREADY_EXISTS`, async () => {
    const body = { bankAccountIds: [m.bankAccount.id], customer: { name: '동시생성' }, amount: 77_000 };
    const rs = await Promise.all(Array.from({ length: N }, () => create(body)));
    const statuses = rs.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(N - 1);
    for (const r of rs.filter((x) => x.status === 409)) expect(r.body).toEqual({ code: 'INVOICE_ALREADY_EXISTS', data: null });
    const rows = await t.app.db.sql.query<{ n: string }>(`SELECT count(*)::text AS n FROM "Invoice" WHERE "customerName" = '동시생성'`);
    expect(rows[0].n).toBe('1');
    const events = await t.app.db.sql.query<{ n: string }>(`SELECT count(*)::text AS n FROM "Event" WHERE type = 'invoice.created' AND "invoiceId" = $1`, [rs.find((r) => r.status === 201)!.body.data.id]);
    expect(events[0].n).toBe('1');
  });

  it(`${N} simultaneous creates with overlapping accounts ([a], [a,b], [] ...) also give exactly one invoice`, async () => {
    const second = await addVerifiedBankAccount(t.client, m.sessionToken);
    const variants = [[m.bankAccount.id], [m.bankAccount.id, second.id], [], [second.id, m.bankAccount.id]];
    const rs = await Promise.all(Array.from({ length: N }, (_, i) => create({ bankAccountIds: variants[i % variants.length], customer: { name: '겹침' }, amount: 55_000 })));
    expect(rs.filter((r) => r.status === 201)).toHaveLength(1);
    expect(rs.filter((r) => r.status === 409)).toHaveLength(N - 1);
  });

  it(`${N} simultaneous identical deposits for one invoice: exactly one matches, the others stay unmatched`, async () => {
    const inv = await create({ bankAccountIds: [m.bankAccount.id], customer: { name: '동시입금' }, amount: 33_000 });
    expect(inv.status).toBe(201);
    const rs = await Promise.all(
      Array.from({ length: N }, (_, i) => t.client.deposit(m.bankAccount.notificationToken, { depositorName: '동시입금', amount: 33_000, notificationId: `race-dep-${i}` })),
    );
    expect(rs.every((r) => r.status === 201)).toBe(true);
    const ids = rs.map((r) => r.body.transactionId);
    const rows = await t.app.db.sql.query<{ id: string; matchedInvoiceId: string | null }>(`SELECT id, "matchedInvoiceId" FROM "Transaction" WHERE id = ANY($1::text[])`, [ids]);
    expect(rows).toHaveLength(N);
    expect(rows.filter((r) => r.matchedInvoiceId === inv.body.data.id)).toHaveLength(1);
    expect(rows.filter((r) => r.matchedInvoiceId === null)).toHaveLength(N - 1);
    const paid = await t.app.db.sql.query<{ n: string }>(`SELECT count(*)::text AS n FROM "Event" WHERE type = 'invoice.paid' AND "invoiceId" = $1`, [inv.body.data.id]);
    expect(paid[0].n).toBe('1');
    const read = await t.client.request('GET', `/v1/invoices/${inv.body.data.id}`, { token: m.apiKey.secret });
    expect(read.body.data.paid).toBe(true);
  });

  it('deposits racing mark-as-paid and delete on one invoice: it ends in exactly one state, with one event for it', async () => {
    const inv = await create({ bankAccountIds: [], customer: { name: '삼파전' }, amount: 44_000 });
    const id = inv.body.data.id;
    const rs = await Promise.all([
      ...Array.from({ length: 8 }, (_, i) => t.client.deposit(m.bankAccount.notificationToken, { depositorName: '삼파전', amount: 44_000, notificationId: `tri-${i}` })),
      ...Array.from({ length: 4 }, () => t.client.request('POST', `/v1/invoices/${id}/mark-as-paid`, { token: m.apiKey.secret })),
      ...Array.from({ length: 4 }, () => t.client.request('DELETE', `/v1/invoices/${id}`, { token: m.apiKey.secret })),
    ]);
    expect(rs.every((r) => r.status < 500)).toBe(true);
    const events = await t.app.db.sql.query<{ type: string }>(`SELECT type FROM "Event" WHERE "invoiceId" = $1 AND type <> 'invoice.created'`, [id]);
    expect(events).toHaveLength(1);
    const matched = await t.app.db.sql.query<{ n: string }>(`SELECT count(*)::text AS n FROM "Transaction" WHERE "matchedInvoiceId" = $1`, [id]);
    const inv2 = await t.app.db.sql.query<{ status: string; paidTrigger: string | null }>(`SELECT status::text, "paidTrigger"::text FROM "Invoice" WHERE id = $1`, [id]);
    if (events[0].type === 'invoice.deleted') {
      expect(inv2[0].status).toBe('CANCELED');
      expect(matched[0].n).toBe('0');
    } else {
      expect(events[0].type).toBe('invoice.paid');
      expect(inv2[0].status).toBe('PAID');
      expect(matched[0].n).toBe(inv2[0].paidTrigger === 'DEPOSIT' ? '1' : '0');
    }
  });
});
