/**
 * Transaction.matchCandidates: the invoices an unmatched deposit's match note names, typed (what the dashboard shows
 * to match it by hand), in the note's order; a key limited to bank accounts sees only those within them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { createApiKey } from '../helpers/credentials.ts';
import { dbLabel, startTestApp, type TestApp } from '../helpers/app.ts';

describe(`Transaction.matchCandidates on ${dbLabel}`, () => {
  let t: TestApp;
  let m: Bootstrapped;
  beforeAll(async () => {
    t = await startTestApp({ socket: false });
    m = await bootstrap(t.client);
  });
  afterAll(() => t?.stop());

  it('names the candidates of an ambiguous deposit; a limited key only those within its accounts', async () => {
    const invoice = async (name: string, bankAccountIds: string[]) => {
      const r = await t.client.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds, customer: { name }, amount: 34_400 } });
      expect(r.status).toBe(201);
      return r.body.data.id as string;
    };
    const onA = await invoice('홍길동', [m.bankAccount.id]);
    const onAll = await invoice('[주문]홍길동님', []);
    const deposit = await t.client.deposit(m.bankAccount.notificationToken, { depositorName: '[주문]홍길동', amount: 34_400 });
    const query = `query($id: ID!) { transaction(id: $id) { matchNote matchCandidates { id status customer { name } } } }`;
    const full = await t.client.gql<{ transaction: { matchNote: { reason: string; candidateInvoiceIds: string[] }; matchCandidates: { id: string }[] } }>(query, { id: deposit.body.transactionId }, m.apiKey.secret);
    expect(full.transaction.matchNote.reason).toBe('AMBIGUOUS');
    expect(full.transaction.matchCandidates.map((c) => c.id)).toEqual(full.transaction.matchNote.candidateInvoiceIds);
    expect(full.transaction.matchCandidates.map((c) => c.id).sort()).toEqual([onA, onAll].sort());
    const limited = await createApiKey(t.client, m.sessionToken, { name: 'only A', bankAccountIds: [m.bankAccount.id] });
    const seen = await t.client.gql<{ transaction: { matchCandidates: { id: string }[] } }>(query, { id: deposit.body.transactionId }, limited.secret);
    // The all-accounts invoice is outside any limited key's scope (spec: account-limited keys).
    expect(seen.transaction.matchCandidates.map((c) => c.id)).toEqual([onA]);
    // A matched deposit, or one whose note names none, has none.
    const plain = await t.client.deposit(m.bankAccount.notificationToken, { depositorName: '아무도아님', amount: 34_401 });
    const none = await t.client.gql<{ transaction: { matchCandidates: unknown[] } }>(query, { id: plain.body.transactionId }, m.apiKey.secret);
    expect(none.transaction.matchCandidates).toEqual([]);
  });
});
