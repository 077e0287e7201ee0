/**
 * updateBankAccount (GraphQL, dashboard): an account renamed (the alias rule of registration) and taken out of use and
 * back. Out of use, its deposits are recorded but not matched, new invoices may not name it (v1, v2, GraphQL:
 * BANK_ACCOUNT_INACTIVE), and deposits keep the snapshot of the account as it was when they arrived. Another
 * workspace's account reads as a missing one; an API key may not call it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addVerifiedBankAccount, bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { dbLabel, startTestApp, type TestApp } from '../helpers/app.ts';

const UPDATE = `mutation($i: UpdateBankAccountInput!) {
  updateBankAccount(input: $i) {
    __typename
    ... on DomainError { code message field }
    ... on BankAccountPayload { bankAccount { id alias active verifiedAt } }
  }
}`;

let t: TestApp;
let owner: Bootstrapped;
let other: Bootstrapped;

beforeAll(async () => {
  t = await startTestApp();
  [owner, other] = await Promise.all([bootstrap(t.client, { name: 'UpdOwner' }), bootstrap(t.client, { name: 'UpdOther' })]);
}, 120_000);
afterAll(() => t?.stop());

const update = async (i: Record<string, unknown>, token = owner.sessionToken) => (await t.client.gql(UPDATE, { i }, token)).updateBankAccount;
const accounts = async (token = owner.sessionToken) =>
  (await t.client.gql<{ bankAccounts: { id: string; alias: string; active: boolean }[] }>(`{ bankAccounts { id alias active } }`, {}, token)).bankAccounts;
const v1Deposit = async (id: string) => (await t.client.request('GET', `/v1/transactions/${id}`, { token: owner.apiKey.secret })).body.data;

describe(`updateBankAccount (${dbLabel})`, () => {
  it('renames an account (trimmed); a bad alias, or no change at all, is refused and changes nothing', async () => {
    const a = await addVerifiedBankAccount(t.client, owner.sessionToken, { alias: 'Before' });
    expect(await update({ bankAccountId: a.id, alias: '  매장 입금 통장  ' })).toMatchObject({ __typename: 'BankAccountPayload', bankAccount: { id: a.id, alias: '매장 입금 통장', active: true } });
    expect(await update({ bankAccountId: a.id, alias: '   ' })).toMatchObject({ code: 'VALIDATION_FAILED', message: 'alias must be 1-50 characters.', field: ['alias'] });
    expect(await update({ bankAccountId: a.id, alias: 'x'.repeat(51) })).toMatchObject({ code: 'VALIDATION_FAILED', field: ['alias'] });
    expect(await update({ bankAccountId: a.id })).toMatchObject({ code: 'NO_FIELD_TO_CHANGE' });
    expect((await accounts()).find((x) => x.id === a.id)).toEqual({ id: a.id, alias: '매장 입금 통장', active: true });
  });

  it("another workspace's account is not found (and unchanged), an unknown one too; an API key is refused", async () => {
    expect(await update({ bankAccountId: owner.bankAccount.id, alias: 'Hijacked', active: false }, other.sessionToken)).toMatchObject({ code: 'BANK_ACCOUNT_NOT_FOUND', field: ['bankAccountId'] });
    expect(await update({ bankAccountId: 'bac_000000000000000000000000', active: false })).toMatchObject({ code: 'BANK_ACCOUNT_NOT_FOUND' });
    const byKey = await t.client.graphql(UPDATE, { i: { bankAccountId: owner.bankAccount.id, active: false } }, owner.apiKey.secret);
    expect(byKey.errors?.[0]?.extensions?.code).toBe('DASHBOARD_ONLY');
    const mine = (await accounts()).find((x) => x.id === owner.bankAccount.id);
    expect(mine).toMatchObject({ active: true });
    expect(mine!.alias).not.toBe('Hijacked');
  });

  it('out of use: its deposits are recorded but not matched, no new invoice may name it; back in use: matched again', async () => {
    const a = await addVerifiedBankAccount(t.client, owner.sessionToken, { alias: 'Counter' });
    const key = owner.apiKey.secret;
    const before = await t.client.deposit(a.notificationToken, { depositorName: 'Unrelated', amount: 70_001 });
    expect(before.status).toBe(201);

    expect(await update({ bankAccountId: a.id, alias: 'Counter closed', active: false })).toMatchObject({ bankAccount: { alias: 'Counter closed', active: false } });
    // A pending invoice this deposit would pay, named to every account: not matched on an account out of use.
    const invoice = await t.client.request('POST', '/v1/invoices', { token: key, body: { bankAccountIds: [], customer: { name: 'Inactive' }, amount: 70_002 } });
    expect(invoice.status).toBe(201);
    const during = await t.client.deposit(a.notificationToken, { depositorName: 'Inactive', amount: 70_002 });
    expect(during.status).toBe(201);
    const stored = await v1Deposit(during.body.transactionId);
    expect(stored).toMatchObject({ matchedInvoiceId: null, bankAccount: { id: a.id, alias: 'Counter closed', active: false } });
    // The earlier deposit keeps the account as it was.
    expect((await v1Deposit(before.body.transactionId)).bankAccount).toMatchObject({ alias: 'Counter', active: true });
    expect((await t.client.request('GET', `/v1/invoices/${invoice.body.data.id}`, { token: key })).body.data.paid).toBe(false);

    // New invoices naming it: refused on every face.
    const v1 = await t.client.request('POST', '/v1/invoices', { token: key, body: { bankAccountIds: [a.id], customer: { name: 'Named' }, amount: 70_003 } });
    expect([v1.status, v1.body]).toEqual([403, { code: 'BANK_ACCOUNT_INACTIVE', data: null }]);
    const patch = await t.client.request('PATCH', `/v2/invoices/${invoice.body.data.id}`, { token: key, body: { bankAccountIds: [a.id] } });
    expect([patch.status, patch.body.code]).toEqual([422, '220019']);
    const gqlCreate = await t.client.gql(
      `mutation($i: CreateInvoiceInput!) { createInvoice(input: $i) { __typename ... on DomainError { code data } } }`,
      { i: { bankAccountIds: [a.id], customer: { name: 'NamedGql' }, amount: 70_004 } },
      owner.sessionToken,
    );
    expect(gqlCreate.createInvoice).toEqual({ __typename: 'DomainError', code: 'BANK_ACCOUNT_INACTIVE', data: { bankAccountId: a.id } });

    // Back in use: the next deposit pays a pending invoice again; the one that arrived meanwhile stays unmatched.
    expect(await update({ bankAccountId: a.id, active: true })).toMatchObject({ bankAccount: { active: true } });
    const after = await t.client.deposit(a.notificationToken, { depositorName: 'Inactive', amount: 70_002 });
    expect((await v1Deposit(after.body.transactionId)).matchedInvoiceId).toBe(invoice.body.data.id);
    expect((await v1Deposit(during.body.transactionId)).matchedInvoiceId).toBeNull();
  });

  it('racing a deactivation: no invoice naming the account is written after it is out of use (creates and edits, 3 rounds)', async () => {
    const key = owner.apiKey.secret;
    const spare = await addVerifiedBankAccount(t.client, owner.sessionToken, { alias: 'Spare' });
    const tag = (round: number, i: number) => String.fromCharCode(65 + round) + String.fromCharCode(65 + i);
    const named = (id: string) => t.app.deps.prisma.invoice.count({ where: { bankAccountIds: { has: id } } });
    for (let round = 0; round < 3; round++) {
      const a = await addVerifiedBankAccount(t.client, owner.sessionToken, { alias: `Racing ${round}` });
      // Edits that move an invoice onto the account, from invoices made beforehand on another.
      const moved = await Promise.all(
        Array.from({ length: 8 }, async (_, i) => {
          const r = await t.client.request('POST', '/v1/invoices', { token: key, body: { bankAccountIds: [spare.id], customer: { name: `Moved${tag(round, i)}` }, amount: 71_000 + i } });
          expect(r.status, JSON.stringify(r.body)).toBe(201);
          return r.body.data.id as string;
        }),
      );
      const creates = Array.from({ length: 24 }, (_, i) =>
        t.client.request('POST', '/v1/invoices', { token: key, body: { bankAccountIds: [a.id], customer: { name: `Race${tag(round, i)}` }, amount: 72_000 + i } }),
      );
      const edits = moved.map((id) => t.client.request('PATCH', `/v2/invoices/${id}`, { token: key, body: { bankAccountIds: [a.id] } }));
      const off = update({ bankAccountId: a.id, active: false });
      expect(await off).toMatchObject({ bankAccount: { active: false } });
      // Whatever names the account now was written before it went out of use: nothing is added after.
      const atDeactivation = await named(a.id);
      const created = await Promise.all(creates);
      const edited = await Promise.all(edits);
      expect(await named(a.id)).toBe(atDeactivation);
      for (const r of created) expect(r.status === 201 || (r.status === 403 && r.body.code === 'BANK_ACCOUNT_INACTIVE'), JSON.stringify(r.body)).toBe(true);
      for (const r of edited) expect(r.status === 200 || (r.status === 422 && r.body.code === '220019'), JSON.stringify(r.body)).toBe(true);
      const accepted = created.filter((r) => r.status === 201).length + edited.filter((r) => r.status === 200).length;
      expect(accepted).toBe(atDeactivation);
    }
  });
});
