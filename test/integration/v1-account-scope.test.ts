/**
 * REST v1 authentication and key scope over real HTTP (spec: Authentication, the account-limited key table, Errors
 * NOT_AUTHORIZED / INSUFFICIENT_PERMISSIONS). Keys are made, disabled and deleted with the dashboard's GraphQL
 * mutations and used on the v1 invoice and transaction endpoints.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addVerifiedBankAccount, bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { OffsetClock } from '../../src/domain/clock.ts';
import { dbLabel, startTestApp, type TestApp } from '../helpers/app.ts';
import { expectV1Error, expectOk, expectList } from '../helpers/v1-envelope.ts';

const MISSING_INVOICE = 'ivc_000000000000000000000000';
const MISSING_TRANSACTION = 'trx_000000000000000000000000';

let t: TestApp;
const clock = new OffsetClock();

function v1(method: string, path: string, token: string | undefined, body?: unknown, headers?: Record<string, string>) {
  return t.client.request(method, path, { token, body, headers });
}

/** createApiKey with the session token; returns the key id and its secret. */
async function createKey(w: Bootstrapped, input: { name?: string; readOnly?: boolean; bankAccountIds?: string[]; expiresAt?: string }) {
  const r = await t.client.gql<{ createApiKey: { apiKey: { id: string }; secret: string } }>(
    `mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { apiKey { id } secret } }`,
    { input: { name: 'test key', ...input } },
    w.sessionToken,
  );
  return { id: r.createApiKey.apiKey.id, secret: r.createApiKey.secret };
}

async function createInvoice(token: string, body: Record<string, unknown>) {
  const res = await v1('POST', '/v1/invoices', token, body);
  expect(res.status).toBe(201);
  expect(res.body.code).toBe('CREATED');
  return res.body.data;
}

let seq = 0;
const uniqueAmount = () => 70_000 + ++seq;

/** Every v1 invoice and transaction endpoint, with a valid body where it takes one. */
function endpoints(w: Bootstrapped, invoiceId: string, transactionId: string): [string, string, unknown][] {
  return [
    ['POST', '/v1/invoices', { bankAccountIds: [w.bankAccount.id], customer: { name: 'auth' }, amount: uniqueAmount() }],
    ['GET', '/v1/invoices?offset=0&limit=10', undefined],
    ['GET', `/v1/invoices/${invoiceId}`, undefined],
    ['POST', `/v1/invoices/${invoiceId}/mark-as-paid`, undefined],
    ['DELETE', `/v1/invoices/${invoiceId}`, undefined],
    ['GET', '/v1/transactions?offset=0&limit=10', undefined],
    ['GET', `/v1/transactions/${transactionId}`, undefined],
  ];
}

describe(`REST v1 authentication and account scope on ${dbLabel}`, () => {
  let w: Bootstrapped;
  let invoice: any;
  let transactionId: string;

  beforeAll(async () => {
    t = await startTestApp({ clock, socket: false });
    w = await bootstrap(t.client);
    invoice = await createInvoice(w.apiKey.secret, { bankAccountIds: [w.bankAccount.id], customer: { name: '인증' }, amount: 1000 });
    const dep = await t.client.deposit(w.bankAccount.notificationToken, { depositorName: '무관', amount: 999 });
    transactionId = dep.body.transactionId;
  });
  afterAll(() => t?.stop());

  /** The invoice and the deposit are untouched after refused calls. */
  async function expectUntouched() {
    expectOk(await v1('GET', `/v1/invoices/${invoice.id}`, w.apiKey.secret), invoice);
    const list = await v1('GET', '/v1/invoices?offset=0&limit=10', w.apiKey.secret);
    expectList(list, [invoice]);
  }

  describe('401 NOT_AUTHORIZED', () => {
    const cases: [string, () => Promise<Record<string, string>>][] = [
      ['no Authorization header', async () => ({})],
      ['an unknown sk_live_ key', async () => ({ authorization: 'Bearer sk_live_thisisnotakeyofthisservice0000' })],
      ['a token of no known kind', async () => ({ authorization: 'Bearer hello' })],
      ['a Basic header', async () => ({ authorization: `Basic ${Buffer.from('user:pass').toString('base64')}` })],
      ['Bearer without a token', async () => ({ authorization: 'Bearer ' })],
      ['the key without the Bearer scheme', async () => ({ authorization: w.apiKey.secret })],
      ['a bank notification token', async () => ({ authorization: `Bearer ${w.bankAccount.notificationToken}` })],
    ];
    it.each(cases)('%s on every invoice and transaction endpoint', async (_label, headers) => {
      const h = await headers();
      for (const [method, path, body] of endpoints(w, invoice.id, transactionId)) {
        const res = await v1(method, path, undefined, body, h);
        expect({ endpoint: `${method} ${path}`, status: res.status, body: res.body }).toEqual({ endpoint: `${method} ${path}`, status: 401, body: { code: 'NOT_AUTHORIZED', data: null } });
      }
      await expectUntouched();
    });

    it('a key disabled in the dashboard stops at once on every endpoint', async () => {
      const key = await createKey(w, { name: 'to disable' });
      expect((await v1('GET', '/v1/invoices?offset=0&limit=1', key.secret)).status).toBe(200);
      await t.client.gql(`mutation($id: ID!) { disableApiKey(id: $id) { apiKey { id } } }`, { id: key.id }, w.sessionToken);
      for (const [method, path, body] of endpoints(w, invoice.id, transactionId)) {
        expectV1Error(await v1(method, path, key.secret, body), 401, 'NOT_AUTHORIZED');
      }
      await expectUntouched();
    });

    it('a deleted key stops at once on every endpoint', async () => {
      const key = await createKey(w, { name: 'to delete' });
      expect((await v1('GET', '/v1/invoices?offset=0&limit=1', key.secret)).status).toBe(200);
      await t.client.gql(`mutation($id: ID!) { deleteApiKey(id: $id) { apiKey { id } } }`, { id: key.id }, w.sessionToken);
      for (const [method, path, body] of endpoints(w, invoice.id, transactionId)) {
        expectV1Error(await v1(method, path, key.secret, body), 401, 'NOT_AUTHORIZED');
      }
      await expectUntouched();
    });

    it('an expired key stops when the clock passes its expiry', async () => {
      const key = await createKey(w, { name: 'short-lived', expiresAt: new Date(clock.now().getTime() + 60_000).toISOString() });
      expectList(await v1('GET', '/v1/invoices?offset=0&limit=10', key.secret), [invoice]);
      clock.advance(2 * 60_000);
      for (const [method, path, body] of endpoints(w, invoice.id, transactionId)) {
        expectV1Error(await v1(method, path, key.secret, body), 401, 'NOT_AUTHORIZED');
      }
      await expectUntouched();
    });

    it('authentication comes before validation: no key and an unreadable body → 401, not 400', async () => {
      const res = await t.client.request('POST', '/v1/invoices', { rawBody: '{bad', headers: { 'content-type': 'application/json' } });
      expectV1Error(res, 401, 'NOT_AUTHORIZED');
    });
  });

  describe('403 INSUFFICIENT_PERMISSIONS: who may call v1 and write', () => {
    it('a dashboard login token cannot call v1, neither reads nor writes', async () => {
      for (const [method, path, body] of endpoints(w, invoice.id, transactionId)) {
        const res = await v1(method, path, w.sessionToken, body);
        expect({ endpoint: `${method} ${path}`, status: res.status, body: res.body }).toEqual({ endpoint: `${method} ${path}`, status: 403, body: { code: 'INSUFFICIENT_PERMISSIONS', data: null } });
      }
      await expectUntouched();
    });

    it('a read-only key is refused on POST, mark-as-paid and DELETE, and nothing changes', async () => {
      const ro = await createKey(w, { name: 'read only', readOnly: true });
      const writes: [string, string, unknown][] = [
        ['POST', '/v1/invoices', { bankAccountIds: [w.bankAccount.id], customer: { name: 'ro' }, amount: uniqueAmount() }],
        ['POST', `/v1/invoices/${invoice.id}/mark-as-paid`, undefined],
        ['DELETE', `/v1/invoices/${invoice.id}`, undefined],
        ['POST', '/v1/invoices', { not: 'even valid' }],
        ['POST', `/v1/invoices/${MISSING_INVOICE}/mark-as-paid`, undefined],
      ];
      for (const [method, path, body] of writes) {
        expectV1Error(await v1(method, path, ro.secret, body), 403, 'INSUFFICIENT_PERMISSIONS');
      }
      await expectUntouched();
    });

    it('a read-only key can read invoices and transactions', async () => {
      const ro = await createKey(w, { name: 'reader', readOnly: true });
      expectOk(await v1('GET', `/v1/invoices/${invoice.id}`, ro.secret), invoice);
      expectList(await v1('GET', '/v1/invoices?offset=0&limit=10', ro.secret), [invoice]);
      const trx = await v1('GET', `/v1/transactions/${transactionId}`, ro.secret);
      expect(trx.status).toBe(200);
      expect(trx.body.data.id).toBe(transactionId);
      const all = await v1('GET', '/v1/transactions?offset=0&limit=10', ro.secret);
      expect(all.status).toBe(200);
      expect(all.body.data.map((x: any) => x.id)).toContain(transactionId);
    });

    it("another workspace's bank account in bankAccountIds → 403, and no invoice is made", async () => {
      const other = await bootstrap(t.client);
      const body = { bankAccountIds: [other.bankAccount.id], customer: { name: '남의계좌' }, amount: uniqueAmount() };
      expectV1Error(await v1('POST', '/v1/invoices', w.apiKey.secret, body), 403, 'INSUFFICIENT_PERMISSIONS');
      expectV1Error(await v1('POST', '/v1/invoices', w.apiKey.secret, { ...body, bankAccountIds: [w.bankAccount.id, other.bankAccount.id] }), 403, 'INSUFFICIENT_PERMISSIONS');
      await expectUntouched();
      expectList(await v1('GET', '/v1/invoices?offset=0&limit=10', other.apiKey.secret), []);
    });
  });

  describe('account-limited keys', () => {
    let x: Bootstrapped;
    let A: { id: string; notificationToken: string };
    let B: { id: string; notificationToken: string };
    let keyA: { id: string; secret: string };
    let keyAB: { id: string; secret: string };
    let onA: any;
    let onB: any;
    let onAB: any;
    let onAll: any;
    let trxA: string;
    let trxB: string;

    beforeAll(async () => {
      x = await bootstrap(t.client);
      A = x.bankAccount;
      B = await addVerifiedBankAccount(t.client, x.sessionToken, { alias: 'second' });
      keyA = await createKey(x, { name: 'only A', bankAccountIds: [A.id] });
      keyAB = await createKey(x, { name: 'A and B', bankAccountIds: [A.id, B.id] });
      onA = await createInvoice(x.apiKey.secret, { bankAccountIds: [A.id], customer: { name: '에이' }, amount: 1000 });
      clock.advance(1000);
      onB = await createInvoice(x.apiKey.secret, { bankAccountIds: [B.id], customer: { name: '비' }, amount: 1000 });
      clock.advance(1000);
      onAB = await createInvoice(x.apiKey.secret, { bankAccountIds: [A.id, B.id], customer: { name: '에이비' }, amount: 1000 });
      clock.advance(1000);
      onAll = await createInvoice(x.apiKey.secret, { bankAccountIds: [], customer: { name: '전부' }, amount: 1000 });
      clock.advance(1000);
      trxA = (await t.client.deposit(A.notificationToken, { depositorName: '입금A', amount: 10 })).body.transactionId;
      clock.advance(1000);
      trxB = (await t.client.deposit(B.notificationToken, { depositorName: '입금B', amount: 20 })).body.transactionId;
    });

    it('create: only allowed accounts; the invoice is the full v1 object with issuerId = the workspace owner', async () => {
      const body = { bankAccountIds: [A.id], customer: { name: '한정키' }, amount: uniqueAmount() };
      const res = await v1('POST', '/v1/invoices', keyA.secret, body);
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        code: 'CREATED',
        data: {
          id: expect.stringMatching(/^ivc_[a-z0-9]{24}$/),
          issuerId: x.accountId,
          bankAccountIds: [A.id],
          customer: { name: '한정키', email: null, phoneNumber: null },
          cashReceipt: null,
          amount: body.amount,
          paid: false,
          metadata: null,
          issuedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000\+00:00$/),
          expiresAt: null,
          deletedAt: null,
        },
      });
      expectOk(await v1('GET', `/v1/invoices/${res.body.data.id}`, keyA.secret), res.body.data);
      const both = await v1('POST', '/v1/invoices', keyAB.secret, { ...body, bankAccountIds: [A.id, B.id], amount: uniqueAmount() });
      expect({ status: both.status, code: both.body.code, ids: both.body.data.bankAccountIds }).toEqual({ status: 201, code: 'CREATED', ids: [A.id, B.id] });
    });

    it.each<[string, () => string[]]>([
      ['an account outside the key', () => [B.id]],
      ['an allowed and an outside account', () => [A.id, B.id]],
      ['an empty array (all accounts)', () => []],
      ["another workspace's account", () => [w.bankAccount.id]],
      ['an unknown account id', () => ['bac_000000000000000000000000']],
    ])('create with %s → 403 INSUFFICIENT_PERMISSIONS, nothing stored', async (_label, ids) => {
      const name = `거절${++seq}`;
      const res = await v1('POST', '/v1/invoices', keyA.secret, { bankAccountIds: ids(), customer: { name }, amount: uniqueAmount() });
      expectV1Error(res, 403, 'INSUFFICIENT_PERMISSIONS');
      expectList(await v1('GET', `/v1/invoices?offset=0&limit=10&search=${encodeURIComponent(name)}`, x.apiKey.secret), []);
    });

    it('read: only invoices whose accounts are all allowed; all-accounts invoices cannot be read', async () => {
      expectOk(await v1('GET', `/v1/invoices/${onA.id}`, keyA.secret), onA);
      for (const inv of [onB, onAB, onAll]) {
        expectV1Error(await v1('GET', `/v1/invoices/${inv.id}`, keyA.secret), 403, 'INSUFFICIENT_PERMISSIONS');
      }
      expectOk(await v1('GET', `/v1/invoices/${onAB.id}`, keyAB.secret), onAB);
      expectOk(await v1('GET', `/v1/invoices/${onB.id}`, keyAB.secret), onB);
      expectV1Error(await v1('GET', `/v1/invoices/${onAll.id}`, keyAB.secret), 403, 'INSUFFICIENT_PERMISSIONS');
    });

    it('list: only invoices the key may handle, totalItems counting only those', async () => {
      const mine = await v1('GET', `/v1/invoices?offset=0&limit=100`, keyA.secret);
      expect(mine.status).toBe(200);
      expect(mine.body.data.every((i: any) => i.bankAccountIds.length > 0 && i.bankAccountIds.every((id: string) => id === A.id))).toBe(true);
      expect(mine.body.totalItems).toBe(mine.body.data.length);
      expect(mine.body.data.map((i: any) => i.id)).toContain(onA.id);
      expectList(await v1('GET', `/v1/invoices?offset=0&limit=10&search=${encodeURIComponent('에이')}`, keyA.secret), [onA]);
      expectList(await v1('GET', `/v1/invoices?offset=0&limit=10&search=${encodeURIComponent('에이')}`, keyAB.secret), [onAB, onA]);
      expectList(await v1('GET', `/v1/invoices?offset=0&limit=10&search=${onAll.id}`, keyAB.secret), []);
      expectList(await v1('GET', `/v1/invoices?offset=0&limit=10&search=${onB.id}`, keyA.secret), []);
      expectList(await v1('GET', `/v1/invoices?offset=0&limit=10&search=${onAll.id}`, x.apiKey.secret), [onAll]);
    });

    it('mark-as-paid and delete outside the key → 403 and the invoices stay unpaid and readable', async () => {
      for (const inv of [onB, onAB, onAll]) {
        expectV1Error(await v1('POST', `/v1/invoices/${inv.id}/mark-as-paid`, keyA.secret), 403, 'INSUFFICIENT_PERMISSIONS');
        expectV1Error(await v1('DELETE', `/v1/invoices/${inv.id}`, keyA.secret), 403, 'INSUFFICIENT_PERMISSIONS');
        expectOk(await v1('GET', `/v1/invoices/${inv.id}`, x.apiKey.secret), inv);
      }
      expectV1Error(await v1('POST', `/v1/invoices/${onAll.id}/mark-as-paid`, keyAB.secret), 403, 'INSUFFICIENT_PERMISSIONS');
      expectV1Error(await v1('DELETE', `/v1/invoices/${onAll.id}`, keyAB.secret), 403, 'INSUFFICIENT_PERMISSIONS');
    });

    it('mark-as-paid and delete inside the key succeed', async () => {
      const paid = await createInvoice(keyA.secret, { bankAccountIds: [A.id], customer: { name: '결제' }, amount: uniqueAmount() });
      expectOk(await v1('POST', `/v1/invoices/${paid.id}/mark-as-paid`, keyA.secret), { ...paid, paid: true });
      const gone = await createInvoice(keyA.secret, { bankAccountIds: [A.id], customer: { name: '삭제' }, amount: uniqueAmount() });
      const del = await v1('DELETE', `/v1/invoices/${gone.id}`, keyA.secret);
      expect({ status: del.status, body: del.body }).toEqual({ status: 200, body: { code: 'DELETED', data: null } });
      expectV1Error(await v1('GET', `/v1/invoices/${gone.id}`, x.apiKey.secret), 404, 'INVOICE_NOT_FOUND');
    });

    it('missing invoices stay 404 for a limited key', async () => {
      expectV1Error(await v1('GET', `/v1/invoices/${MISSING_INVOICE}`, keyA.secret), 404, 'INVOICE_NOT_FOUND');
      expectV1Error(await v1('GET', `/v1/transactions/${MISSING_TRANSACTION}`, keyA.secret), 404, 'TRANSACTION_NOT_FOUND');
    });

    it('transactions: read and list only deposits to allowed accounts', async () => {
      const full = await v1('GET', `/v1/transactions/${trxA}`, x.apiKey.secret);
      expectOk(await v1('GET', `/v1/transactions/${trxA}`, keyA.secret), full.body.data);
      expectV1Error(await v1('GET', `/v1/transactions/${trxB}`, keyA.secret), 403, 'INSUFFICIENT_PERMISSIONS');
      expect((await v1('GET', `/v1/transactions/${trxB}`, keyAB.secret)).status).toBe(200);

      const all = await v1('GET', '/v1/transactions?offset=0&limit=100', x.apiKey.secret);
      const onlyA = all.body.data.filter((d: any) => d.bankAccount.id === A.id);
      expect(onlyA.length).toBeGreaterThan(0);
      expect(onlyA.length).toBeLessThan(all.body.data.length);
      expectList(await v1('GET', '/v1/transactions?offset=0&limit=100', keyA.secret), onlyA);
      expectList(await v1('GET', '/v1/transactions?offset=0&limit=100', keyAB.secret), all.body.data);
      expectList(await v1('GET', `/v1/transactions?offset=0&limit=10&search=${trxB}`, keyA.secret), []);
      expectList(await v1('GET', `/v1/transactions?offset=0&limit=10&search=${B.id}`, keyA.secret), []);
    });

    it('transactions: a bankAccountId filter outside the key → 403; inside it filters', async () => {
      expectV1Error(await v1('GET', `/v1/transactions?offset=0&limit=10&bankAccountId=${B.id}`, keyA.secret), 403, 'INSUFFICIENT_PERMISSIONS');
      expectV1Error(await v1('GET', `/v1/transactions?offset=0&limit=10&bankAccountId=${w.bankAccount.id}`, keyA.secret), 403, 'INSUFFICIENT_PERMISSIONS');
      expectV1Error(await v1('GET', `/v1/transactions?offset=0&limit=10&bankAccountId=bac_000000000000000000000000`, keyA.secret), 403, 'INSUFFICIENT_PERMISSIONS');
      const res = await v1('GET', `/v1/transactions?offset=0&limit=10&bankAccountId=${A.id}`, keyA.secret);
      expect(res.status).toBe(200);
      expect(res.body.data.map((d: any) => d.bankAccount.id).every((id: string) => id === A.id)).toBe(true);
      expect(res.body.data.map((d: any) => d.id)).toContain(trxA);
    });

    it('a read-only limited key is refused on writes even inside its accounts', async () => {
      const roA = await createKey(x, { name: 'ro A', readOnly: true, bankAccountIds: [A.id] });
      expectV1Error(await v1('POST', '/v1/invoices', roA.secret, { bankAccountIds: [A.id], customer: { name: 'ro' }, amount: uniqueAmount() }), 403, 'INSUFFICIENT_PERMISSIONS');
      expectV1Error(await v1('POST', `/v1/invoices/${onA.id}/mark-as-paid`, roA.secret), 403, 'INSUFFICIENT_PERMISSIONS');
      expectV1Error(await v1('DELETE', `/v1/invoices/${onA.id}`, roA.secret), 403, 'INSUFFICIENT_PERMISSIONS');
      expectOk(await v1('GET', `/v1/invoices/${onA.id}`, roA.secret), onA);
    });
  });
});
