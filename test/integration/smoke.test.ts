import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap } from '../../src/cli/client.ts';
import { dbLabel, startTestApp, type TestApp } from '../helpers/app.ts';

describe(`end to end on ${dbLabel}`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.stop());

  it('an invoice is paid by a matching deposit and v1 shows it paid', async () => {
    const b = await bootstrap(t.client);
    const created = await t.client.request('POST', '/v1/invoices', {
      token: b.apiKey.secret,
      body: { bankAccountIds: [b.bankAccount.id], customer: { name: '홍길동' }, amount: 10000 },
    });
    expect(created.status).toBe(201);
    expect(created.body.code).toBe('CREATED');
    const dep = await t.client.deposit(b.bankAccount.notificationToken, { depositorName: '홍길동', amount: 10000 });
    expect(dep.status).toBe(201);
    const read = await t.client.request('GET', `/v1/invoices/${created.body.data.id}`, { token: b.apiKey.secret });
    expect(read.status).toBe(200);
    expect(read.body.data.paid).toBe(true);
    const trx = await t.client.request('GET', `/v1/transactions/${dep.body.transactionId}`, { token: b.apiKey.secret });
    expect(trx.body.data).toMatchObject({ matchedInvoiceId: created.body.data.id, matchMethod: 'EXACT', amount: 10000, description: '홍길동', deletedAt: null });
  });
});
