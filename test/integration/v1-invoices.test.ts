/**
 * REST v1 invoices over real HTTP (spec: POST/GET /v1/invoices, GET/DELETE /v1/invoices/{id}, mark-as-paid, Errors,
 * Limits, Versioning — current v1 behavior). Every test names the rule it checks and asserts status and whole body.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addVerifiedBankAccount, bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { OffsetClock } from '../../src/domain/clock.ts';
import { dbLabel, startTestApp, type TestApp } from '../helpers/app.ts';
import { expectV1Error, expectOk, expectList, v1Time } from '../helpers/v1-envelope.ts';

const V1_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000\+00:00$/;
const INVOICE_ID = /^ivc_[a-z0-9]{24}$/;
const INVOICE_KEYS = ['id', 'issuerId', 'bankAccountIds', 'customer', 'cashReceipt', 'amount', 'paid', 'metadata', 'issuedAt', 'expiresAt', 'deletedAt'];
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const MISSING_INVOICE = 'ivc_000000000000000000000000';

let t: TestApp;
const clock = new OffsetClock();

/** Places the service clock at `iso` (it then runs on with real time). */
function setNow(iso: string) {
  clock.offsetMs = Date.parse(iso) - Date.now();
}

function v1(method: string, path: string, token: string | undefined, body?: unknown) {
  return t.client.request(method, path, { token, body });
}

let seq = 0;
/** A depositor name of at most 16 characters, unique in this file. */
function uniqueName(prefix = 'n'): string {
  seq += 1;
  return `${prefix}${seq}`.slice(0, 16);
}
/** An amount unique in this file, so creations on a shared workspace never conflict by accident. */
function uniqueAmount(): number {
  seq += 1;
  return 10_000 + seq;
}

type Body = Record<string, any>;

/**
 * The invoice the spec says POST must return for `body`: every field in the spec's order, issuerId = workspace
 * owner, issuedAt within the request, expiresAt = issuedAt + expireAfter, deletedAt null.
 */
function expectCreated(res: { status: number; body: any }, body: Body, ownerId: string, window: { before: number; after: number }, expireMs: number | null = null) {
  expect(res.status).toBe(201);
  expect(Object.keys(res.body)).toEqual(['code', 'data']);
  expect(res.body.code).toBe('CREATED');
  const data = res.body.data;
  expect(Object.keys(data)).toEqual(INVOICE_KEYS);
  expect(Object.keys(data.customer)).toEqual(['name', 'email', 'phoneNumber']);
  expect(data.issuedAt).toMatch(V1_TIME);
  const issued = Date.parse(data.issuedAt);
  expect(issued).toBeGreaterThanOrEqual(Math.floor(window.before / 1000) * 1000);
  expect(issued).toBeLessThanOrEqual(window.after);
  expect(data).toEqual({
    id: expect.stringMatching(INVOICE_ID),
    issuerId: ownerId,
    bankAccountIds: body.bankAccountIds,
    customer: { name: body.customer.name, email: body.customer.email ?? null, phoneNumber: body.customer.phoneNumber ?? null },
    cashReceipt: body.cashReceipt ?? null,
    amount: body.amount,
    paid: false,
    metadata: body.metadata ?? null,
    issuedAt: data.issuedAt,
    expiresAt: expireMs === null ? null : v1Time(issued + expireMs),
    deletedAt: null,
  });
  return data;
}

/** POST /v1/invoices expecting 201; returns the invoice. */
async function create(m: Bootstrapped, body: Body, expireMs: number | null = null) {
  const before = clock.now().getTime();
  const res = await v1('POST', '/v1/invoices', m.apiKey.secret, body);
  const after = clock.now().getTime();
  return expectCreated(res, body, m.accountId, { before, after }, expireMs);
}

function simpleBody(m: Bootstrapped, over: Body = {}): Body {
  return { bankAccountIds: [m.bankAccount.id], customer: { name: uniqueName() }, amount: uniqueAmount(), ...over };
}

async function list(m: Bootstrapped, query: string) {
  return v1('GET', `/v1/invoices?${query}`, m.apiKey.secret);
}

describe(`REST v1 invoices on ${dbLabel}`, () => {
  let m: Bootstrapped;

  beforeAll(async () => {
    t = await startTestApp({ clock, socket: false });
    m = await bootstrap(t.client);
  });
  afterAll(() => t?.stop());

  describe('success envelopes and the Invoice (v1) object', () => {
    it('POST /v1/invoices: 201 {code: CREATED, data} with every field in the spec order, nulls for absent optionals', async () => {
      const body = { bankAccountIds: [m.bankAccount.id], customer: { name: '홍길동' }, amount: 10_000 };
      await create(m, body);
    });

    it('responses are JSON in UTF-8, Korean text intact', async () => {
      const body = simpleBody(m, { customer: { name: '김철수' } });
      const res = await v1('POST', '/v1/invoices', m.apiKey.secret, body);
      expect(res.status).toBe(201);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.body.data.customer.name).toBe('김철수');
      const read = await v1('GET', `/v1/invoices/${res.body.data.id}`, m.apiKey.secret);
      expect(read.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const error = await v1('GET', `/v1/invoices/${MISSING_INVOICE}`, m.apiKey.secret);
      expect(error.headers.get('content-type')).toBe('application/json; charset=utf-8');
    });

    it('POST /v1/invoices with every optional field: values echoed, expiresAt = issuedAt + expireAfter', async () => {
      const body = {
        bankAccountIds: [m.bankAccount.id],
        customer: { name: uniqueName('full'), email: 'buyer@example.com', phoneNumber: '01012345678' },
        amount: uniqueAmount(),
        cashReceipt: { type: 'PERSONAL', identifier: '01012345678' },
        expireAfter: 'PT30M',
        metadata: { orderNo: 'A-1', channel: 'web' },
      };
      await create(m, body, 30 * MINUTE);
    });

    it('POST /v1/invoices with an empty bankAccountIds (= all registered accounts) keeps the empty array', async () => {
      await create(m, simpleBody(m, { bankAccountIds: [] }));
    });

    it('GET /v1/invoices/{id}: 200 {code: OK, data} equal to the created invoice', async () => {
      const inv = await create(m, simpleBody(m, { customer: { name: uniqueName('get'), email: 'a@b.co' }, expireAfter: '1d' }), DAY);
      const res = await v1('GET', `/v1/invoices/${inv.id}`, m.apiKey.secret);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['code', 'data']);
      expect(res.body).toEqual({ code: 'OK', data: inv });
      expect(Object.keys(res.body.data)).toEqual(INVOICE_KEYS);
    });

    it('GET /v1/invoices: 200 {code: OK, data, totalItems}, newest first, paged by offset and limit', async () => {
      const w = await bootstrap(t.client);
      const a = await create(w, simpleBody(w));
      clock.advance(1000);
      const b = await create(w, simpleBody(w));
      clock.advance(1000);
      const c = await create(w, simpleBody(w));
      expectList(await list(w, 'offset=0&limit=10'), [c, b, a]);
      expectList(await list(w, 'offset=1&limit=1'), [b], 3);
      expectList(await list(w, 'offset=2&limit=100'), [a], 3);
      expectList(await list(w, 'offset=3&limit=1'), [], 3);
    });

    it('GET /v1/invoices of a workspace without invoices: empty data, totalItems 0', async () => {
      const w = await bootstrap(t.client);
      expectList(await list(w, 'offset=0&limit=1'), []);
    });

    it('POST /v1/invoices/{id}/mark-as-paid: 200 {code: OK, data} = the same invoice with paid true; reads show it paid', async () => {
      const inv = await create(m, simpleBody(m));
      const res = await v1('POST', `/v1/invoices/${inv.id}/mark-as-paid`, m.apiKey.secret);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['code', 'data']);
      expect(res.body).toEqual({ code: 'OK', data: { ...inv, paid: true } });
      const read = await v1('GET', `/v1/invoices/${inv.id}`, m.apiKey.secret);
      expect(read.body).toEqual({ code: 'OK', data: { ...inv, paid: true } });
    });

    it('DELETE /v1/invoices/{id}: 200 {code: DELETED, data: null}', async () => {
      const inv = await create(m, simpleBody(m));
      const res = await v1('DELETE', `/v1/invoices/${inv.id}`, m.apiKey.secret);
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { code: 'DELETED', data: null } });
    });
  });

  describe('a deleted (canceled) invoice is invisible to v1', () => {
    it('after DELETE: GET, mark-as-paid and DELETE give 404 INVOICE_NOT_FOUND and the list no longer shows it', async () => {
      const w = await bootstrap(t.client);
      const kept = await create(w, simpleBody(w));
      const gone = await create(w, simpleBody(w));
      expect((await v1('DELETE', `/v1/invoices/${gone.id}`, w.apiKey.secret)).status).toBe(200);
      expectV1Error(await v1('GET', `/v1/invoices/${gone.id}`, w.apiKey.secret), 404, 'INVOICE_NOT_FOUND');
      expectV1Error(await v1('POST', `/v1/invoices/${gone.id}/mark-as-paid`, w.apiKey.secret), 404, 'INVOICE_NOT_FOUND');
      expectV1Error(await v1('DELETE', `/v1/invoices/${gone.id}`, w.apiKey.secret), 404, 'INVOICE_NOT_FOUND');
      expectList(await list(w, 'offset=0&limit=10'), [kept]);
      expectList(await list(w, `offset=0&limit=10&search=${gone.id}`), []);
    });

    it('an invoice canceled through GraphQL cancelInvoice is invisible to v1 too', async () => {
      const w = await bootstrap(t.client);
      const inv = await create(w, simpleBody(w));
      await t.client.gql(`mutation($id: ID!) { cancelInvoice(id: $id, reason: "test") { ... on InvoicePayload { invoice { id } } } }`, { id: inv.id }, w.sessionToken);
      expectV1Error(await v1('GET', `/v1/invoices/${inv.id}`, w.apiKey.secret), 404, 'INVOICE_NOT_FOUND');
      expectV1Error(await v1('POST', `/v1/invoices/${inv.id}/mark-as-paid`, w.apiKey.secret), 404, 'INVOICE_NOT_FOUND');
      expectV1Error(await v1('DELETE', `/v1/invoices/${inv.id}`, w.apiKey.secret), 404, 'INVOICE_NOT_FOUND');
      expectList(await list(w, 'offset=0&limit=10'), []);
    });
  });

  describe('404 INVOICE_NOT_FOUND', () => {
    it.each([
      ['a well-formed id that does not exist', MISSING_INVOICE],
      ['a malformed id', 'ivc_123'],
      ['an id of another resource kind', 'trx_000000000000000000000000'],
    ])('GET, mark-as-paid and DELETE of %s', async (_label, id) => {
      expectV1Error(await v1('GET', `/v1/invoices/${id}`, m.apiKey.secret), 404, 'INVOICE_NOT_FOUND');
      expectV1Error(await v1('POST', `/v1/invoices/${id}/mark-as-paid`, m.apiKey.secret), 404, 'INVOICE_NOT_FOUND');
      expectV1Error(await v1('DELETE', `/v1/invoices/${id}`, m.apiKey.secret), 404, 'INVOICE_NOT_FOUND');
    });

    it("another workspace's invoice → 403 INSUFFICIENT_PERMISSIONS, the spec's \"other account's resource\" (and it stays unpaid and undeleted)", async () => {
      const other = await bootstrap(t.client);
      const inv = await create(other, simpleBody(other));
      expectV1Error(await v1('GET', `/v1/invoices/${inv.id}`, m.apiKey.secret), 403, 'INSUFFICIENT_PERMISSIONS');
      expectV1Error(await v1('POST', `/v1/invoices/${inv.id}/mark-as-paid`, m.apiKey.secret), 403, 'INSUFFICIENT_PERMISSIONS');
      expectV1Error(await v1('DELETE', `/v1/invoices/${inv.id}`, m.apiKey.secret), 403, 'INSUFFICIENT_PERMISSIONS');
      expectList(await list(m, `offset=0&limit=10&search=${inv.id}`), []);
      expectOk(await v1('GET', `/v1/invoices/${inv.id}`, other.apiKey.secret), inv);
    });
  });

  describe('403 INVOICE_ALREADY_PAID', () => {
    it('mark-as-paid on a paid invoice', async () => {
      const inv = await create(m, simpleBody(m));
      expect((await v1('POST', `/v1/invoices/${inv.id}/mark-as-paid`, m.apiKey.secret)).status).toBe(200);
      expectV1Error(await v1('POST', `/v1/invoices/${inv.id}/mark-as-paid`, m.apiKey.secret), 403, 'INVOICE_ALREADY_PAID');
    });

    it('DELETE on a paid invoice is refused and the invoice stays readable and paid', async () => {
      const inv = await create(m, simpleBody(m));
      await v1('POST', `/v1/invoices/${inv.id}/mark-as-paid`, m.apiKey.secret);
      expectV1Error(await v1('DELETE', `/v1/invoices/${inv.id}`, m.apiKey.secret), 403, 'INVOICE_ALREADY_PAID');
      expectOk(await v1('GET', `/v1/invoices/${inv.id}`, m.apiKey.secret), { ...inv, paid: true });
    });

    it('mark-as-paid and DELETE on an invoice paid by a matching deposit', async () => {
      const body = simpleBody(m);
      const inv = await create(m, body);
      expect((await t.client.deposit(m.bankAccount.notificationToken, { depositorName: body.customer.name, amount: body.amount })).status).toBe(201);
      expectV1Error(await v1('POST', `/v1/invoices/${inv.id}/mark-as-paid`, m.apiKey.secret), 403, 'INVOICE_ALREADY_PAID');
      expectV1Error(await v1('DELETE', `/v1/invoices/${inv.id}`, m.apiKey.secret), 403, 'INVOICE_ALREADY_PAID');
    });
  });

  describe('expiry', () => {
    it('an expired invoice is still returned with paid false; it can be marked paid; it can be deleted', async () => {
      const w = await bootstrap(t.client);
      const a = await create(w, simpleBody(w, { expireAfter: '30m' }), 30 * MINUTE);
      const b = await create(w, simpleBody(w, { expireAfter: '30m' }), 30 * MINUTE);
      clock.advance(31 * MINUTE);
      expectOk(await v1('GET', `/v1/invoices/${a.id}`, w.apiKey.secret), a);
      const paid = await v1('POST', `/v1/invoices/${a.id}/mark-as-paid`, w.apiKey.secret);
      expect({ status: paid.status, body: paid.body }).toEqual({ status: 200, body: { code: 'OK', data: { ...a, paid: true } } });
      const del = await v1('DELETE', `/v1/invoices/${b.id}`, w.apiKey.secret);
      expect({ status: del.status, body: del.body }).toEqual({ status: 200, body: { code: 'DELETED', data: null } });
    });
  });

  describe('409 INVOICE_ALREADY_EXISTS (same depositor name and amount, overlapping receiving accounts, pending)', () => {
    let w: Bootstrapped;
    let accountB: string;
    beforeAll(async () => {
      w = await bootstrap(t.client);
      accountB = (await addVerifiedBankAccount(t.client, w.sessionToken, { alias: 'second' })).id;
    });
    const post = (body: Body) => v1('POST', '/v1/invoices', w.apiKey.secret, body);

    it('the same name and amount on the same, a superset or all accounts conflicts; a disjoint account does not', async () => {
      const name = uniqueName('dup');
      const amount = uniqueAmount();
      await create(w, { bankAccountIds: [w.bankAccount.id], customer: { name }, amount });
      expectV1Error(await post({ bankAccountIds: [w.bankAccount.id], customer: { name }, amount }), 409, 'INVOICE_ALREADY_EXISTS');
      expectV1Error(await post({ bankAccountIds: [accountB, w.bankAccount.id], customer: { name }, amount }), 409, 'INVOICE_ALREADY_EXISTS');
      expectV1Error(await post({ bankAccountIds: [], customer: { name }, amount }), 409, 'INVOICE_ALREADY_EXISTS');
      await create(w, { bankAccountIds: [accountB], customer: { name }, amount });
    });

    it('another amount or another name does not conflict; nor does the same invoice in another workspace', async () => {
      const name = uniqueName('dup');
      const amount = uniqueAmount();
      await create(w, { bankAccountIds: [w.bankAccount.id], customer: { name }, amount });
      await create(w, { bankAccountIds: [w.bankAccount.id], customer: { name }, amount: amount + 1 });
      await create(w, { bankAccountIds: [w.bankAccount.id], customer: { name: name + 'x' }, amount });
      await create(m, { bankAccountIds: [m.bankAccount.id], customer: { name }, amount });
    });

    it('an all-accounts (empty list) invoice overlaps every account', async () => {
      const name = uniqueName('all');
      const amount = uniqueAmount();
      await create(w, { bankAccountIds: [], customer: { name }, amount });
      expectV1Error(await post({ bankAccountIds: [accountB], customer: { name }, amount }), 409, 'INVOICE_ALREADY_EXISTS');
      expectV1Error(await post({ bankAccountIds: [w.bankAccount.id], customer: { name }, amount }), 409, 'INVOICE_ALREADY_EXISTS');
      expectV1Error(await post({ bankAccountIds: [], customer: { name }, amount }), 409, 'INVOICE_ALREADY_EXISTS');
    });

    it('after DELETE the same name and amount can be created again', async () => {
      const body = { bankAccountIds: [w.bankAccount.id], customer: { name: uniqueName('del') }, amount: uniqueAmount() };
      const first = await create(w, body);
      expectV1Error(await post(body), 409, 'INVOICE_ALREADY_EXISTS');
      expect((await v1('DELETE', `/v1/invoices/${first.id}`, w.apiKey.secret)).status).toBe(200);
      const again = await create(w, body);
      expect(again.id).not.toBe(first.id);
    });

    it('a paid invoice does not conflict', async () => {
      const body = { bankAccountIds: [w.bankAccount.id], customer: { name: uniqueName('paid') }, amount: uniqueAmount() };
      const first = await create(w, body);
      expect((await v1('POST', `/v1/invoices/${first.id}/mark-as-paid`, w.apiKey.secret)).status).toBe(200);
      await create(w, body);
    });

    it('an expired invoice does not conflict', async () => {
      const name = uniqueName('exp');
      const amount = uniqueAmount();
      await create(w, { bankAccountIds: [w.bankAccount.id], customer: { name }, amount, expireAfter: '1h' }, HOUR);
      expectV1Error(await post({ bankAccountIds: [w.bankAccount.id], customer: { name }, amount }), 409, 'INVOICE_ALREADY_EXISTS');
      clock.advance(HOUR + MINUTE);
      await create(w, { bankAccountIds: [w.bankAccount.id], customer: { name }, amount });
    });

    it('a refused creation stores nothing', async () => {
      const body = { bankAccountIds: [w.bankAccount.id], customer: { name: uniqueName('once') }, amount: uniqueAmount() };
      const first = await create(w, body);
      expectV1Error(await post(body), 409, 'INVOICE_ALREADY_EXISTS');
      expectList(await list(w, `offset=0&limit=10&search=${body.customer.name}`), [first]);
    });
  });

  describe('concurrency', () => {
    it('the same invoice created five times at once: exactly one 201, four 409 INVOICE_ALREADY_EXISTS, one stored', async () => {
      const w = await bootstrap(t.client);
      const body = { bankAccountIds: [w.bankAccount.id], customer: { name: '동시생성' }, amount: 4242 };
      const results = await Promise.all(Array.from({ length: 5 }, () => v1('POST', '/v1/invoices', w.apiKey.secret, body)));
      const created = results.filter((r) => r.status === 201);
      expect(created.length).toBe(1);
      for (const r of results.filter((x) => x.status !== 201)) expectV1Error(r, 409, 'INVOICE_ALREADY_EXISTS');
      expectList(await list(w, 'offset=0&limit=10'), [created[0].body.data]);
    });

    it('mark-as-paid three times at once: one 200, the others 403 INVOICE_ALREADY_PAID', async () => {
      const inv = await create(m, simpleBody(m));
      const results = await Promise.all(Array.from({ length: 3 }, () => v1('POST', `/v1/invoices/${inv.id}/mark-as-paid`, m.apiKey.secret)));
      const ok = results.filter((r) => r.status === 200);
      expect(ok.length).toBe(1);
      expect(ok[0].body).toEqual({ code: 'OK', data: { ...inv, paid: true } });
      for (const r of results.filter((x) => x.status !== 200)) expectV1Error(r, 403, 'INVOICE_ALREADY_PAID');
    });

    it('DELETE and mark-as-paid at once: exactly one wins and the reads agree with it', async () => {
      const inv = await create(m, simpleBody(m));
      const [del, paid] = await Promise.all([
        v1('DELETE', `/v1/invoices/${inv.id}`, m.apiKey.secret),
        v1('POST', `/v1/invoices/${inv.id}/mark-as-paid`, m.apiKey.secret),
      ]);
      const read = await v1('GET', `/v1/invoices/${inv.id}`, m.apiKey.secret);
      if (del.status === 200) {
        expect(del.body).toEqual({ code: 'DELETED', data: null });
        expectV1Error(paid, 404, 'INVOICE_NOT_FOUND');
        expectV1Error(read, 404, 'INVOICE_NOT_FOUND');
      } else {
        expectV1Error(del, 403, 'INVOICE_ALREADY_PAID');
        expect(paid.body).toEqual({ code: 'OK', data: { ...inv, paid: true } });
        expectOk(read, { ...inv, paid: true });
      }
    });
  });

  describe('receiving-account errors', () => {
    it('404 BANK_ACCOUNT_NOT_FOUND for an unknown account id', async () => {
      const res = await v1('POST', '/v1/invoices', m.apiKey.secret, simpleBody(m, { bankAccountIds: [m.bankAccount.id, 'bac_000000000000000000000000'] }));
      expectV1Error(res, 404, 'BANK_ACCOUNT_NOT_FOUND');
    });

    it('403 BANK_ACCOUNT_NOT_VERIFIED for an account without the 1-won verification', async () => {
      const w = await bootstrap(t.client);
      const unverified = await addVerifiedBankAccount(t.client, w.sessionToken, { verify: false, alias: 'unverified' });
      expectV1Error(await v1('POST', '/v1/invoices', w.apiKey.secret, simpleBody(w, { bankAccountIds: [unverified.id] })), 403, 'BANK_ACCOUNT_NOT_VERIFIED');
      expectV1Error(await v1('POST', '/v1/invoices', w.apiKey.secret, simpleBody(w, { bankAccountIds: [w.bankAccount.id, unverified.id] })), 403, 'BANK_ACCOUNT_NOT_VERIFIED');
      expectList(await list(w, 'offset=0&limit=10'), []);
    });
  });

  describe('422 validation of POST /v1/invoices (boundaries of the spec Limits)', () => {
    const email = (n: number) => 'a'.repeat(n - '@example.com'.length) + '@example.com';
    const meta = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, `v${i}`]));

    it.each<[string, (b: Body) => void]>([
      ['16 latin characters', (b) => (b.customer.name = 'abcdefghijklmnop')],
      ['16 Korean characters', (b) => (b.customer.name = '가나다라마바사아자차카타파하가나')],
      ['1 character', (b) => (b.customer.name = '김')],
      ['brackets and digits', (b) => (b.customer.name = '홍길동(123)')],
    ])('customer.name accepted: %s', async (_label, mutate) => {
      const body = simpleBody(m);
      mutate(body);
      await create(m, body);
    });

    it.each<[string, unknown]>([
      ['17 latin characters', 'abcdefghijklmnopq'],
      ['17 Korean characters', '가나다라마바사아자차카타파하가나다'],
      ['empty', ''],
      ['an inner space', '홍 길동'],
      ['a leading space', ' 홍길동'],
      ['a trailing space', '홍길동 '],
      ['a tab', '홍\t길동'],
      ['an ideographic space', '홍\u3000길동'],
      ['not a string', 123],
      ['missing', undefined],
    ])('customer.name refused: %s → 422 INVALID_CUSTOMER_NAME', async (_label, name) => {
      const body = simpleBody(m, { customer: name === undefined ? {} : { name } });
      expectV1Error(await v1('POST', '/v1/invoices', m.apiKey.secret, body), 422, 'INVALID_CUSTOMER_NAME');
    });

    it.each([
      [5, 'a@b.c'],
      [255, email(255)],
    ])('customer.email accepted: %i characters', async (length, value) => {
      expect(value.length).toBe(length);
      const body = simpleBody(m);
      body.customer.email = value;
      await create(m, body);
    });

    it.each<[string, unknown]>([
      ['4 characters', 'a@bc'],
      ['256 characters', email(256)],
      ['no @', 'buyer.example.com'],
      ['a space', 'buy er@example.com'],
      ['not a string', 12345],
    ])('customer.email refused: %s → 422 INVALID_EMAIL', async (_label, value) => {
      const body = simpleBody(m);
      body.customer.email = value;
      expectV1Error(await v1('POST', '/v1/invoices', m.apiKey.secret, body), 422, 'INVALID_EMAIL');
    });

    it.each([
      ['10 digits', '0212345678'],
      ['11 digits', '01012345678'],
    ])('customer.phoneNumber accepted: %s', async (_label, value) => {
      const body = simpleBody(m);
      body.customer.phoneNumber = value;
      await create(m, body);
    });

    it.each<[string, unknown]>([
      ['9 digits', '021234567'],
      ['12 digits', '010123456789'],
      ['hyphens', '010-1234-5678'],
      ['a letter', '0101234567a'],
      ['a number, not a string', 1012345678],
    ])('customer.phoneNumber refused: %s → 422 INVALID_PHONE_NUMBER', async (_label, value) => {
      const body = simpleBody(m);
      body.customer.phoneNumber = value;
      expectV1Error(await v1('POST', '/v1/invoices', m.apiKey.secret, body), 422, 'INVALID_PHONE_NUMBER');
    });

    it.each([
      ['1', 1],
      ['2147483647', 2_147_483_647],
    ])('amount accepted: %s', async (_label, amount) => {
      await create(m, simpleBody(m, { amount }));
    });

    it.each<[string, unknown]>([
      ['0', 0],
      ['-1', -1],
      ['1.5', 1.5],
      ['2147483648', 2_147_483_648],
      ['a string', '1000'],
      ['missing', undefined],
    ])('amount refused: %s → 422 INVALID_AMOUNT', async (_label, amount) => {
      const body = simpleBody(m, { amount });
      expectV1Error(await v1('POST', '/v1/invoices', m.apiKey.secret, body), 422, 'INVALID_AMOUNT');
    });

    it.each([
      ['PT30M', 30 * MINUTE],
      ['PT1H', HOUR],
      ['P1D', DAY],
      ['P1DT6H20M', DAY + 6 * HOUR + 20 * MINUTE],
      ['30m', 30 * MINUTE],
      ['1h', HOUR],
      ['1d', DAY],
      ['1d 6h 20m', DAY + 6 * HOUR + 20 * MINUTE],
      ['7d', 7 * DAY],
      ['365d', 365 * DAY],
      ['P365D', 365 * DAY],
    ])('expireAfter %s accepted: expiresAt = issuedAt + the duration', async (expireAfter, ms) => {
      await create(m, simpleBody(m, { expireAfter }), ms);
    });

    it.each([
      ['366d', 'EXPIRE_AFTER_EXCEEDS_MAXIMUM'],
      ['P366D', 'EXPIRE_AFTER_EXCEEDS_MAXIMUM'],
      ['365d 1m', 'EXPIRE_AFTER_EXCEEDS_MAXIMUM'],
      ['abc', 'INVALID_DURATION'],
      ['', 'INVALID_DURATION'],
      ['10', 'INVALID_DURATION'],
      ['P', 'INVALID_DURATION'],
      ['-1d', 'INVALID_DURATION'],
      ['0d', 'INVALID_DURATION'],
    ])('expireAfter %j refused → 422 %s', async (expireAfter, code) => {
      expectV1Error(await v1('POST', '/v1/invoices', m.apiKey.secret, simpleBody(m, { expireAfter })), 422, code);
    });

    it.each([
      ['5 pairs', meta(5)],
      ['a 64-character key', { ['k'.repeat(64)]: 'v' }],
      ['a 1024-character value', { key: 'v'.repeat(1024) }],
      ['an empty object', {}],
    ])('metadata accepted: %s', async (_label, metadata) => {
      await create(m, simpleBody(m, { metadata }));
    });

    it.each([
      ['6 pairs', meta(6), 'METADATA_KEY_VALUE_PAIR_LIMIT_EXCEEDED'],
      ['a 65-character key', { ['k'.repeat(65)]: 'v' }, 'METADATA_KEY_LENGTH_LIMIT_EXCEEDED'],
      ['a 1025-character value', { key: 'v'.repeat(1025) }, 'METADATA_VALUE_LENGTH_LIMIT_EXCEEDED'],
    ])('metadata refused: %s → 422 %s', async (_label, metadata, code) => {
      expectV1Error(await v1('POST', '/v1/invoices', m.apiKey.secret, simpleBody(m, { metadata })), 422, code);
    });

    it.each([
      ['PERSONAL with an 11-digit phone', { type: 'PERSONAL', identifier: '01012345678' }],
      ['PERSONAL with a 10-digit phone', { type: 'PERSONAL', identifier: '0212345678' }],
      ['CORPORATE with a 10-digit business number', { type: 'CORPORATE', identifier: '1234567890' }],
    ])('cashReceipt accepted: %s', async (_label, cashReceipt) => {
      await create(m, simpleBody(m, { cashReceipt }));
    });

    it.each([
      ['PERSONAL with 9 digits', { type: 'PERSONAL', identifier: '021234567' }],
      ['PERSONAL with 12 digits', { type: 'PERSONAL', identifier: '010123456789' }],
      ['PERSONAL with hyphens', { type: 'PERSONAL', identifier: '010-1234-5678' }],
      ['CORPORATE with 11 digits', { type: 'CORPORATE', identifier: '12345678901' }],
      ['CORPORATE with hyphens', { type: 'CORPORATE', identifier: '123-45-67890' }],
      ['a missing identifier', { type: 'PERSONAL' }],
    ])('cashReceipt refused: %s → 422 INVALID_CASH_RECEIPT_IDENTIFIER', async (_label, cashReceipt) => {
      expectV1Error(await v1('POST', '/v1/invoices', m.apiKey.secret, simpleBody(m, { cashReceipt })), 422, 'INVALID_CASH_RECEIPT_IDENTIFIER');
    });

    it('checks run in the spec table order: name before e-mail before phone before amount', async () => {
      const bad = { bankAccountIds: [m.bankAccount.id], customer: { name: 'a b', email: 'x', phoneNumber: '1' }, amount: 0 };
      expectV1Error(await v1('POST', '/v1/invoices', m.apiKey.secret, bad), 422, 'INVALID_CUSTOMER_NAME');
      expectV1Error(await v1('POST', '/v1/invoices', m.apiKey.secret, { ...bad, customer: { ...bad.customer, name: 'ab' } }), 422, 'INVALID_EMAIL');
      expectV1Error(await v1('POST', '/v1/invoices', m.apiKey.secret, { ...bad, customer: { name: 'ab', phoneNumber: '1' } }), 422, 'INVALID_PHONE_NUMBER');
      expectV1Error(await v1('POST', '/v1/invoices', m.apiKey.secret, { ...bad, customer: { name: 'ab' } }), 422, 'INVALID_AMOUNT');
    });

    it('a refused request stores nothing', async () => {
      const w = await bootstrap(t.client);
      const post = (body: unknown) => v1('POST', '/v1/invoices', w.apiKey.secret, body);
      expectV1Error(await post(simpleBody(w, { amount: 0 })), 422, 'INVALID_AMOUNT');
      expectV1Error(await post(simpleBody(w, { expireAfter: '366d' })), 422, 'EXPIRE_AFTER_EXCEEDS_MAXIMUM');
      expectV1Error(await post(simpleBody(w, { metadata: meta(6) })), 422, 'METADATA_KEY_VALUE_PAIR_LIMIT_EXCEEDED');
      expectList(await list(w, 'offset=0&limit=10'), []);
    });
  });

  describe('400 BAD_REQUEST', () => {
    const raw = (rawBody: string) => t.client.request('POST', '/v1/invoices', { token: m.apiKey.secret, rawBody, headers: { 'content-type': 'application/json' } });

    it.each([
      ['truncated JSON', '{"amount": 1'],
      ['not JSON at all', 'name=hong'],
      ['an empty body', ''],
      ['a JSON array', '[]'],
      ['JSON null', 'null'],
    ])('an unreadable body (%s) → 400 BAD_REQUEST in the envelope', async (_label, body) => {
      expectV1Error(await raw(body), 400, 'BAD_REQUEST');
    });

    it.each([
      ['an unknown type', { type: 'BUSINESS', identifier: '1234567890' }],
      ['a lower-case type', { type: 'personal', identifier: '01012345678' }],
      ['a missing type', { identifier: '01012345678' }],
    ])('cashReceipt.type outside the enum (%s) → 400 BAD_REQUEST', async (_label, cashReceipt) => {
      expectV1Error(await v1('POST', '/v1/invoices', m.apiKey.secret, simpleBody(m, { cashReceipt })), 400, 'BAD_REQUEST');
    });
  });

  describe('GET /v1/invoices paging errors', () => {
    it.each([
      ['offset missing', 'limit=10', 422, 'INVALID_OFFSET'],
      ['offset negative', 'offset=-1&limit=10', 422, 'INVALID_OFFSET'],
      ['offset not a number', 'offset=abc&limit=10', 422, 'INVALID_OFFSET'],
      ['offset a fraction', 'offset=1.5&limit=10', 422, 'INVALID_OFFSET'],
      ['limit missing', 'offset=0', 422, 'INVALID_LIMIT'],
      ['limit zero', 'offset=0&limit=0', 422, 'INVALID_LIMIT'],
      ['limit negative', 'offset=0&limit=-1', 422, 'INVALID_LIMIT'],
      ['limit not a number', 'offset=0&limit=ten', 422, 'INVALID_LIMIT'],
      ['limit 101', 'offset=0&limit=101', 403, 'LIMIT_EXCEEDS_MAXIMUM'],
      ['limit 1000', 'offset=0&limit=1000', 403, 'LIMIT_EXCEEDS_MAXIMUM'],
      ['both missing', '', 422, 'INVALID_OFFSET'],
    ])('%s → %i %s', async (_label, query, status, code) => {
      expectV1Error(await list(m, query), status, code);
    });

    it.each([
      ['limit with many digits', 'offset=0&limit=99999999999999999999', 403, 'LIMIT_EXCEEDS_MAXIMUM'],
      ['offset with many negative digits', 'offset=-99999999999999999999&limit=1', 422, 'INVALID_OFFSET'],
    ])('%s → %i %s', async (_label, query, status, code) => {
      expectV1Error(await list(m, query), status, code);
    });

    it('an offset past every invoice is valid, however large: an empty page with the full totalItems', async () => {
      const w = await bootstrap(t.client);
      const a = await create(w, simpleBody(w));
      for (const offset of ['1', '2147483647', '2147483648', '99999999999999999999']) {
        expectList(await list(w, `offset=${offset}&limit=10`), [], 1);
      }
      expectList(await list(w, 'offset=0&limit=10'), [a]);
    });

    it('limit 100 and offset 0 are accepted', async () => {
      const res = await list(m, 'offset=0&limit=100');
      expect(res.status).toBe(200);
      expect(res.body.code).toBe('OK');
      expect(res.body.data.length).toBe(Math.min(100, res.body.totalItems));
    });

    it.each([
      ['dateAfter with slashes', 'dateAfter=2026/11/21'],
      ['dateAfter without separators', 'dateAfter=20261121'],
      ['dateAfter not a real day', 'dateAfter=2026-02-30'],
      ['dateAfter a month 13', 'dateAfter=2026-13-01'],
      ['dateBefore with a time', 'dateBefore=2026-11-21T00:00:00Z'],
      ['dateBefore single-digit month', 'dateBefore=2026-1-05'],
      ['dateBefore a word', 'dateBefore=today'],
    ])('%s → 422 INVALID_DATE_RANGE_FORMAT', async (_label, q) => {
      expectV1Error(await list(m, `offset=0&limit=10&${q}`), 422, 'INVALID_DATE_RANGE_FORMAT');
    });
  });

  describe('GET /v1/invoices filters', () => {
    let w: Bootstrapped;
    let hong: any;
    let kim: any;
    let lee: any;
    beforeAll(async () => {
      w = await bootstrap(t.client);
      hong = await create(w, { bankAccountIds: [w.bankAccount.id], customer: { name: '홍길동', email: 'Hong.GilDong@Example.com', phoneNumber: '01012345678' }, amount: 1000 });
      clock.advance(1000);
      kim = await create(w, {
        bankAccountIds: [w.bankAccount.id],
        customer: { name: 'KIMminsu', phoneNumber: '01098765432' },
        amount: 2000,
        cashReceipt: { type: 'CORPORATE', identifier: '1234567890' },
      });
      clock.advance(1000);
      lee = await create(w, { bankAccountIds: [], customer: { name: '이순신', email: 'lee-sunsin@navy.kr' }, amount: 3000 });
    });

    it.each<[string, string, () => any[]]>([
      ['the exact invoice id', 'ID', () => [hong]],
      ['a name substring', '길동', () => [hong]],
      ['a name substring in another case', 'minSU', () => [kim]],
      ['an e-mail substring in another case', 'gildong@EXAMPLE', () => [hong]],
      ['a phone substring with a hyphen (hyphens ignored)', '010-1234', () => [hong]],
      ['a phone substring matching two invoices', '010', () => [kim, hong]],
      ['a cash-receipt identifier substring written with hyphens', '567-890', () => [kim]],
      ['an e-mail that has a hyphen, searched without it', 'leesunsin', () => [lee]],
      ['an e-mail that has a hyphen, searched with it', 'lee-sunsin@navy', () => [lee]],
      ['nothing that matches', 'zzz', () => []],
      ['a name with spaces around it (trimmed, as the deposit and receipt searches are)', ' 길동 ', () => [hong]],
    ])('search by %s', async (_label, term, expected) => {
      const q = term === 'ID' ? hong.id : term;
      expectList(await list(w, `offset=0&limit=10&search=${encodeURIComponent(q)}`), expected());
    });

    it('search matches an invoice id only exactly, not a prefix of it', async () => {
      expectList(await list(w, `offset=0&limit=10&search=${hong.id.slice(0, 12)}`), []);
    });

    it('search is combined with paging: totalItems counts every match', async () => {
      expectList(await list(w, `offset=0&limit=1&search=010`), [kim], 2);
      expectList(await list(w, `offset=1&limit=1&search=010`), [hong], 2);
    });

    it('paid=true / paid=false / expired=true / expired=false and paid=false&expired=false (pending, can still receive)', async () => {
      const x = await bootstrap(t.client);
      const pending = await create(x, simpleBody(x));
      clock.advance(1000);
      const paid = await create(x, simpleBody(x));
      await v1('POST', `/v1/invoices/${paid.id}/mark-as-paid`, x.apiKey.secret);
      clock.advance(1000);
      const expiring = await create(x, simpleBody(x, { expireAfter: '1h' }), HOUR);
      clock.advance(1000);
      const later = await create(x, simpleBody(x, { expireAfter: '3h' }), 3 * HOUR);
      const paidRead = { ...paid, paid: true };

      expectList(await list(x, 'offset=0&limit=10&expired=true'), []);
      expectList(await list(x, 'offset=0&limit=10&expired=false'), [later, expiring, paidRead, pending]);
      clock.advance(HOUR + MINUTE);

      expectList(await list(x, 'offset=0&limit=10'), [later, expiring, paidRead, pending]);
      expectList(await list(x, 'offset=0&limit=10&paid=true'), [paidRead]);
      expectList(await list(x, 'offset=0&limit=10&paid=false'), [later, expiring, pending]);
      expectList(await list(x, 'offset=0&limit=10&expired=true'), [expiring]);
      expectList(await list(x, 'offset=0&limit=10&expired=false'), [later, paidRead, pending]);
      expectList(await list(x, 'offset=0&limit=10&paid=false&expired=false'), [later, pending]);
      expectList(await list(x, 'offset=0&limit=10&paid=true&expired=true'), []);
    });

    it('dateAfter/dateBefore are KST calendar days, inclusive, by creation time (2026-11-21T15:30Z is KST 2026-11-22)', async () => {
      const x = await bootstrap(t.client);
      const saved = clock.offsetMs;
      setNow('2026-11-21T14:50:00Z'); // KST 2026-11-21 23:50
      const late21 = await create(x, simpleBody(x));
      setNow('2026-11-21T15:30:00Z'); // KST 2026-11-22 00:30
      const early22 = await create(x, simpleBody(x));
      setNow('2026-11-22T14:58:00Z'); // KST 2026-11-22 23:58
      const late22 = await create(x, simpleBody(x));
      setNow('2026-11-22T15:00:30Z'); // KST 2026-11-23 00:00:30
      const early23 = await create(x, simpleBody(x));
      clock.offsetMs = saved;

      const q = (s: string) => list(x, `offset=0&limit=10&${s}`);
      expectList(await q('dateAfter=2026-11-22'), [early23, late22, early22]);
      expectList(await q('dateBefore=2026-11-21'), [late21]);
      expectList(await q('dateAfter=2026-11-22&dateBefore=2026-11-22'), [late22, early22]);
      expectList(await q('dateAfter=2026-11-21&dateBefore=2026-11-21'), [late21]);
      expectList(await q('dateAfter=2026-11-23'), [early23]);
      expectList(await q('dateBefore=2026-11-20'), []);
      expectList(await q('dateAfter=2026-11-23&dateBefore=2026-11-22'), []);
      expectList(await q('dateAfter=2026-11-21&dateBefore=2026-11-23'), [early23, late22, early22, late21]);
      expectList(await q('dateAfter=2026-11-22&search=zzz'), []);
      expect(early22.issuedAt.startsWith('2026-11-21T15:30:')).toBe(true);
    });

    it('filters on booleans take only true or false: paid=yes → 400 BAD_REQUEST', async () => {
      expectV1Error(await list(w, 'offset=0&limit=10&paid=yes'), 400, 'BAD_REQUEST');
      expectV1Error(await list(w, 'offset=0&limit=10&expired=1'), 400, 'BAD_REQUEST');
    });
  });
});
