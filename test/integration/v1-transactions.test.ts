/**
 * REST v1 transactions (deposits) over real HTTP (spec: GET /v1/transactions, GET /v1/transactions/{id}, Transaction
 * object, Errors) and deposit matching as v1 reads show it (spec: States — matching deposit; matchMethod).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addVerifiedBankAccount, bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { OffsetClock } from '../../src/domain/clock.ts';
import { dbLabel, startTestApp, type TestApp } from '../helpers/app.ts';
import { expectV1Error, expectOk, expectList, v1Time } from '../helpers/v1-envelope.ts';

const V1_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000\+00:00$/;
const TRX_ID = /^trx_[a-z0-9]{24}$/;
const TRANSACTION_KEYS = ['id', 'bankAccount', 'matchedInvoiceId', 'matchMethod', 'amount', 'description', 'hidden', 'receivedAt', 'matchedAt', 'createdAt', 'deletedAt'];
const BANK_ACCOUNT_KEYS = ['id', 'active', 'ownerId', 'alias', 'provider', 'type', 'number', 'createdAt', 'verifiedAt', 'deletedAt'];
const MINUTE = 60_000;

let t: TestApp;
const clock = new OffsetClock();

function setNow(iso: string) {
  clock.offsetMs = Date.parse(iso) - Date.now();
}

function v1(method: string, path: string, token: string | undefined, body?: unknown) {
  return t.client.request(method, path, { token, body });
}

let seq = 0;
function uniqueAmount(): number {
  seq += 1;
  return 50_000 + seq;
}

interface AccountInfo {
  id: string;
  alias: string;
  provider: string;
  number: string;
  notificationToken: string;
  createdAt: string;
  verifiedAt: string | null;
}

/** The bank accounts of a workspace as the dashboard sees them (for the expected snapshot). */
async function accountInfo(w: Bootstrapped, acc: { id: string; notificationToken: string }): Promise<AccountInfo> {
  const r = await t.client.gql<{ bankAccounts: { id: string; alias: string; provider: string; number: string; createdAt: string; verifiedAt: string | null }[] }>(
    `{ bankAccounts { id alias provider number createdAt verifiedAt } }`,
    {},
    w.sessionToken,
  );
  const a = r.bankAccounts.find((x) => x.id === acc.id)!;
  return { ...a, notificationToken: acc.notificationToken };
}

/** The spec's `bankAccount` snapshot for a deposit to `a` (verified at receipt unless `unverified`). */
function snapshot(w: Bootstrapped, a: AccountInfo, opts: { unverified?: boolean } = {}) {
  return {
    id: a.id,
    active: true,
    ownerId: w.accountId,
    alias: a.alias,
    provider: a.provider,
    type: 'PERSONAL',
    number: a.number,
    createdAt: v1Time(a.createdAt),
    verifiedAt: opts.unverified ? null : v1Time(a.verifiedAt!),
    deletedAt: null,
  };
}

/** Posts a deposit and reads it back through v1; asserts the whole object, keys in the spec's order. */
async function deposit(
  w: Bootstrapped,
  a: AccountInfo,
  d: { depositorName: string; amount: number; receivedAt?: string },
  match: { invoiceId: string; method: string } | null = null,
) {
  const before = clock.now().getTime();
  const receivedAt = d.receivedAt ?? new Date().toISOString();
  const res = await t.client.deposit(a.notificationToken, { ...d, receivedAt });
  const after = clock.now().getTime();
  expect(res.status).toBe(201);
  const read = await v1('GET', `/v1/transactions/${res.body.transactionId}`, w.apiKey.secret);
  expect(read.status).toBe(200);
  expect(Object.keys(read.body)).toEqual(['code', 'data']);
  const data = read.body.data;
  expect(Object.keys(data)).toEqual(TRANSACTION_KEYS);
  expect(Object.keys(data.bankAccount)).toEqual(BANK_ACCOUNT_KEYS);
  expect(data.createdAt).toMatch(V1_TIME);
  const created = Date.parse(data.createdAt);
  expect(created).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
  expect(created).toBeLessThanOrEqual(after);
  expect(read.body).toEqual({
    code: 'OK',
    data: {
      id: res.body.transactionId,
      bankAccount: snapshot(w, a),
      matchedInvoiceId: match?.invoiceId ?? null,
      matchMethod: match?.method ?? null,
      amount: d.amount,
      description: d.depositorName,
      hidden: false,
      receivedAt: v1Time(receivedAt),
      matchedAt: match ? data.createdAt : null,
      createdAt: data.createdAt,
      deletedAt: null,
    },
  });
  expect(data.id).toMatch(TRX_ID);
  return data;
}

async function createInvoice(w: Bootstrapped, body: Record<string, unknown>) {
  const res = await v1('POST', '/v1/invoices', w.apiKey.secret, body);
  expect(res.status).toBe(201);
  return res.body.data;
}

async function readInvoice(w: Bootstrapped, id: string) {
  const res = await v1('GET', `/v1/invoices/${id}`, w.apiKey.secret);
  expect(res.status).toBe(200);
  return res.body.data;
}

const listTrx = (w: Bootstrapped, query: string) => v1('GET', `/v1/transactions?${query}`, w.apiKey.secret);

describe(`REST v1 transactions on ${dbLabel}`, () => {
  let m: Bootstrapped;
  let mA: AccountInfo;

  beforeAll(async () => {
    t = await startTestApp({ clock, socket: false });
    m = await bootstrap(t.client);
    mA = await accountInfo(m, m.bankAccount);
  });
  afterAll(() => t?.stop());

  describe('GET /v1/transactions/{id}: the Transaction object', () => {
    it('an unmatched deposit: 200 {code: OK, data} with every field in the spec order, receivedAt in the v1 format', async () => {
      await deposit(m, mA, { depositorName: '무명씨', amount: uniqueAmount(), receivedAt: '2026-11-21T19:00:00+09:00' });
    });

    it('receivedAt with real milliseconds is written at second precision with .000 and +00:00', async () => {
      const trx = await deposit(m, mA, { depositorName: '무명씨', amount: uniqueAmount(), receivedAt: '2026-11-21T10:00:00.789Z' });
      expect(trx.receivedAt).toBe('2026-11-21T10:00:00.000+00:00');
    });

    it('a matched deposit names the invoice, the method and matchedAt (= the time it arrived)', async () => {
      const amount = uniqueAmount();
      const inv = await createInvoice(m, { bankAccountIds: [m.bankAccount.id], customer: { name: '정약용' }, amount });
      await deposit(m, mA, { depositorName: '정약용', amount }, { invoiceId: inv.id, method: 'EXACT' });
    });

    it.each([
      ['a well-formed id that does not exist', 'trx_000000000000000000000000'],
      ['a malformed id', 'trx_123'],
      ['an invoice id', 'ivc_000000000000000000000000'],
    ])('404 TRANSACTION_NOT_FOUND for %s', async (_label, id) => {
      expectV1Error(await v1('GET', `/v1/transactions/${id}`, m.apiKey.secret), 404, 'TRANSACTION_NOT_FOUND');
    });

    it("403 INSUFFICIENT_PERMISSIONS for another workspace's deposit (\"other account's resource\"), which its own workspace can read", async () => {
      const other = await bootstrap(t.client);
      const otherA = await accountInfo(other, other.bankAccount);
      const trx = await deposit(other, otherA, { depositorName: '남의돈', amount: uniqueAmount() });
      expectV1Error(await v1('GET', `/v1/transactions/${trx.id}`, m.apiKey.secret), 403, 'INSUFFICIENT_PERMISSIONS');
      expectList(await listTrx(m, `offset=0&limit=10&search=${trx.id}`), []);
      expectOk(await v1('GET', `/v1/transactions/${trx.id}`, other.apiKey.secret), trx);
    });
  });

  describe('GET /v1/transactions: list and filters', () => {
    let w: Bootstrapped;
    let A: AccountInfo;
    let B: AccountInfo;
    let vA: any;
    let vB: any;
    let d1: any;
    let d2: any;
    let d3: any;
    let invoice: any;
    let codeB: string;

    beforeAll(async () => {
      w = await bootstrap(t.client);
      clock.advance(1000);
      const b = await addVerifiedBankAccount(t.client, w.sessionToken, { alias: 'second', provider: 'WOORI' });
      A = await accountInfo(w, w.bankAccount);
      B = await accountInfo(w, b);
      codeB = b.verificationCode;
      clock.advance(1000);
      d1 = await deposit(w, A, { depositorName: 'Kim MinSu', amount: 5000 });
      clock.advance(1000);
      d2 = await deposit(w, B, { depositorName: '이영희', amount: 7000 });
      clock.advance(1000);
      invoice = await createInvoice(w, { bankAccountIds: [A.id], customer: { name: '박지성' }, amount: 8000 });
      d3 = await deposit(w, A, { depositorName: '박지성', amount: 8000 }, { invoiceId: invoice.id, method: 'EXACT' });
      const hidden = await listTrx(w, 'offset=0&limit=10&hidden=true');
      [vB, vA] = hidden.body.data;
    });

    it('the 1-won verification deposits are listed as hidden, unmatched, 1 won, with the verification code as depositor name', () => {
      const verification = (a: AccountInfo, code: string) => ({
        id: expect.stringMatching(TRX_ID),
        bankAccount: snapshot(w, a, { unverified: true }),
        matchedInvoiceId: null,
        matchMethod: null,
        amount: 1,
        description: code,
        hidden: true,
        receivedAt: expect.stringMatching(V1_TIME),
        matchedAt: null,
        createdAt: v1Time(a.verifiedAt!),
        deletedAt: null,
      });
      expect(vA).toEqual(verification(A, w.bankAccount.verificationCode));
      expect(vB).toEqual(verification(B, codeB));
    });

    it('200 {code: OK, data, totalItems}, all deposits newest first (by createdAt)', async () => {
      expectList(await listTrx(w, 'offset=0&limit=10'), [d3, d2, d1, vB, vA]);
    });

    it('offset and limit page the list; totalItems counts all matches', async () => {
      expectList(await listTrx(w, 'offset=0&limit=2'), [d3, d2], 5);
      expectList(await listTrx(w, 'offset=2&limit=2'), [d1, vB], 5);
      expectList(await listTrx(w, 'offset=4&limit=100'), [vA], 5);
      expectList(await listTrx(w, 'offset=5&limit=1'), [], 5);
    });

    it.each<[string, () => string, () => any[]]>([
      ['the exact transaction id', () => d1.id, () => [d1]],
      ['the bank account id (exact)', () => B.id, () => [d2, vB]],
      ['the matched invoice id (exact)', () => invoice.id, () => [d3]],
      ['an account-number substring written with a hyphen', () => `${A.number.slice(3, 7)}-${A.number.slice(7, 11)}`, () => [d3, d1, vA]],
      ['a depositor-name substring in another case', () => 'minsu', () => [d1]],
      ['a Korean depositor-name substring', () => '영희', () => [d2]],
      ['a depositor name with its inner space', () => 'kim mins', () => [d1]],
      ['nothing that matches', () => 'zzz', () => []],
      ['a prefix of a transaction id (ids match only exactly)', () => d1.id.slice(0, 12), () => []],
      ['a LIKE wildcard, matched literally', () => '%', () => []],
    ])('search by %s', async (_label, term, expected) => {
      expectList(await listTrx(w, `offset=0&limit=10&search=${encodeURIComponent(term())}`), expected());
    });

    it.each<[string, () => string, () => any[]]>([
      ['bankAccountId of the first account', () => `bankAccountId=${A.id}`, () => [d3, d1, vA]],
      ['bankAccountId of the second account', () => `bankAccountId=${B.id}`, () => [d2, vB]],
      ['bankAccountId that does not exist (an unlimited key: nothing matches)', () => 'bankAccountId=bac_000000000000000000000000', () => []],
      ['matched=true', () => 'matched=true', () => [d3]],
      ['matched=false', () => 'matched=false', () => [d2, d1, vB, vA]],
      ['hidden=true (1-won verification deposits)', () => 'hidden=true', () => [vB, vA]],
      ['hidden=false', () => 'hidden=false', () => [d3, d2, d1]],
      ['bankAccountId, matched=false and hidden=false together', () => `bankAccountId=${A.id}&matched=false&hidden=false`, () => [d1]],
      ['search and matched together', () => `search=${A.id}&matched=true`, () => [d3]],
    ])('filter %s', async (_label, q, expected) => {
      expectList(await listTrx(w, `offset=0&limit=10&${q()}`), expected());
    });

    it('a deposit hidden in the dashboard reads hidden: true and moves to hidden=true', async () => {
      const x = await bootstrap(t.client);
      const xA = await accountInfo(x, x.bankAccount);
      const d = await deposit(x, xA, { depositorName: '숨김', amount: 300 });
      await t.client.gql(`mutation($id: ID!) { setTransactionHidden(id: $id, hidden: true) { transaction { id } } }`, { id: d.id }, x.sessionToken);
      expectOk(await v1('GET', `/v1/transactions/${d.id}`, x.apiKey.secret), { ...d, hidden: true });
      const hidden = await listTrx(x, 'offset=0&limit=10&hidden=true');
      expect(hidden.body.totalItems).toBe(2);
      expect(hidden.body.data[0]).toEqual({ ...d, hidden: true });
      expectList(await listTrx(x, 'offset=0&limit=10&hidden=false'), []);
    });

    it('dateAfter/dateBefore are KST days, inclusive, by createdAt (not receivedAt)', async () => {
      const x = await bootstrap(t.client);
      const xA = await accountInfo(x, x.bankAccount);
      const saved = clock.offsetMs;
      const receivedAt = '2026-10-01T00:00:00Z';
      setNow('2026-11-21T14:50:00Z'); // KST 2026-11-21 23:50
      const late21 = await deposit(x, xA, { depositorName: 'a', amount: 1000, receivedAt });
      setNow('2026-11-21T15:30:00Z'); // KST 2026-11-22 00:30
      const early22 = await deposit(x, xA, { depositorName: 'b', amount: 1000, receivedAt });
      setNow('2026-11-22T14:58:00Z'); // KST 2026-11-22 23:58
      const late22 = await deposit(x, xA, { depositorName: 'c', amount: 1000, receivedAt });
      setNow('2026-11-22T15:00:30Z'); // KST 2026-11-23 00:00:30
      const early23 = await deposit(x, xA, { depositorName: 'd', amount: 1000, receivedAt });
      clock.offsetMs = saved;

      const q = (s: string) => listTrx(x, `offset=0&limit=10&hidden=false&${s}`);
      expectList(await q('dateAfter=2026-11-22'), [early23, late22, early22]);
      expectList(await q('dateBefore=2026-11-21'), [late21]);
      expectList(await q('dateAfter=2026-11-22&dateBefore=2026-11-22'), [late22, early22]);
      expectList(await q('dateAfter=2026-11-23'), [early23]);
      expectList(await q('dateAfter=2026-11-21&dateBefore=2026-11-23'), [early23, late22, early22, late21]);
      expectList(await q('dateAfter=2026-10-01&dateBefore=2026-10-01'), []);
      expect(early22.createdAt.startsWith('2026-11-21T15:30:')).toBe(true);
    });
  });

  describe('GET /v1/transactions errors', () => {
    it.each([
      ['offset missing', 'limit=10', 422, 'INVALID_OFFSET'],
      ['offset negative', 'offset=-1&limit=10', 422, 'INVALID_OFFSET'],
      ['offset not a number', 'offset=x&limit=10', 422, 'INVALID_OFFSET'],
      ['limit missing', 'offset=0', 422, 'INVALID_LIMIT'],
      ['limit zero', 'offset=0&limit=0', 422, 'INVALID_LIMIT'],
      ['limit negative', 'offset=0&limit=-5', 422, 'INVALID_LIMIT'],
      ['limit not a number', 'offset=0&limit=abc', 422, 'INVALID_LIMIT'],
      ['limit 101', 'offset=0&limit=101', 403, 'LIMIT_EXCEEDS_MAXIMUM'],
      ['dateAfter not YYYY-MM-DD', 'offset=0&limit=10&dateAfter=2026.11.21', 422, 'INVALID_DATE_RANGE_FORMAT'],
      ['dateBefore not a real day', 'offset=0&limit=10&dateBefore=2026-11-31', 422, 'INVALID_DATE_RANGE_FORMAT'],
      ['matched not a boolean', 'offset=0&limit=10&matched=maybe', 400, 'BAD_REQUEST'],
      ['hidden not a boolean', 'offset=0&limit=10&hidden=0', 400, 'BAD_REQUEST'],
    ])('%s → %i %s', async (_label, query, status, code) => {
      expectV1Error(await listTrx(m, query), status, code);
    });

    it('limit with many digits → 403 LIMIT_EXCEEDS_MAXIMUM', async () => {
      expectV1Error(await listTrx(m, 'offset=0&limit=12345678901234567890'), 403, 'LIMIT_EXCEEDS_MAXIMUM');
    });

    it('an offset past every deposit is valid, however large: an empty page with the full totalItems', async () => {
      const all = await listTrx(m, 'offset=0&limit=1');
      expect(all.status).toBe(200);
      for (const offset of ['2147483647', '2147483648', '99999999999999999999']) {
        expectList(await listTrx(m, `offset=${offset}&limit=10`), [], all.body.totalItems);
      }
    });

    it('limit 100 is accepted', async () => {
      const res = await listTrx(m, 'offset=0&limit=100');
      expect(res.status).toBe(200);
      expect(res.body.code).toBe('OK');
      expect(res.body.data.length).toBe(Math.min(100, res.body.totalItems));
    });
  });

  describe('deposit matching as v1 reads show it', () => {
    it('EXACT: same depositor name and amount pays the invoice', async () => {
      const amount = uniqueAmount();
      const inv = await createInvoice(m, { bankAccountIds: [m.bankAccount.id], customer: { name: '홍길동' }, amount });
      await deposit(m, mA, { depositorName: '홍길동', amount }, { invoiceId: inv.id, method: 'EXACT' });
      expectOk(await v1('GET', `/v1/invoices/${inv.id}`, m.apiKey.secret), { ...inv, paid: true });
    });

    it('BRACKET_REMOVAL: deposit "홍길동(123)" pays invoice "홍길동"', async () => {
      const amount = uniqueAmount();
      const inv = await createInvoice(m, { bankAccountIds: [m.bankAccount.id], customer: { name: '홍길동' }, amount });
      await deposit(m, mA, { depositorName: '홍길동(123)', amount }, { invoiceId: inv.id, method: 'BRACKET_REMOVAL' });
      expect(await readInvoice(m, inv.id)).toEqual({ ...inv, paid: true });
    });

    it('EXACT is tried before BRACKET_REMOVAL: deposit "최영" pays "최영", not "최영(2)"', async () => {
      const amount = uniqueAmount();
      const plain = await createInvoice(m, { bankAccountIds: [m.bankAccount.id], customer: { name: '최영' }, amount });
      const bracketed = await createInvoice(m, { bankAccountIds: [m.bankAccount.id], customer: { name: '최영(2)' }, amount });
      await deposit(m, mA, { depositorName: '최영', amount }, { invoiceId: plain.id, method: 'EXACT' });
      expect(await readInvoice(m, bracketed.id)).toEqual(bracketed);
    });

    it('NAME_PREFIX: SHINHAN keeps 7 characters, so deposit "가나다라마바사" pays invoice "가나다라마바사아"', async () => {
      expect(mA.provider).toBe('SHINHAN');
      const amount = uniqueAmount();
      const inv = await createInvoice(m, { bankAccountIds: [m.bankAccount.id], customer: { name: '가나다라마바사아' }, amount });
      await deposit(m, mA, { depositorName: '가나다라마바사', amount }, { invoiceId: inv.id, method: 'NAME_PREFIX' });
      expect(await readInvoice(m, inv.id)).toEqual({ ...inv, paid: true });
    });

    it('NAME_PREFIX needs the bank\'s length: a 6-character prefix on SHINHAN does not match', async () => {
      const amount = uniqueAmount();
      const inv = await createInvoice(m, { bankAccountIds: [m.bankAccount.id], customer: { name: '가나다라마바사아' }, amount });
      await deposit(m, mA, { depositorName: '가나다라마바', amount }, null);
      expect(await readInvoice(m, inv.id)).toEqual(inv);
    });

    it('NAME_PREFIX per provider: KB_KOOKMIN keeps 8, so 8 characters match and 7 do not', async () => {
      const kb = await addVerifiedBankAccount(t.client, m.sessionToken, { provider: 'KB_KOOKMIN', alias: 'kb' });
      const kbA = await accountInfo(m, kb);
      const amount = uniqueAmount();
      const inv = await createInvoice(m, { bankAccountIds: [kb.id], customer: { name: '가나다라마바사아자' }, amount });
      await deposit(m, kbA, { depositorName: '가나다라마바사', amount }, null);
      expect(await readInvoice(m, inv.id)).toEqual(inv);
      await deposit(m, kbA, { depositorName: '가나다라마바사아', amount }, { invoiceId: inv.id, method: 'NAME_PREFIX' });
      expect(await readInvoice(m, inv.id)).toEqual({ ...inv, paid: true });
    });

    it('ambiguity leaves the deposit unmatched and both invoices unpaid (NAME_PREFIX and BRACKET_REMOVAL)', async () => {
      const amount = uniqueAmount();
      const a = await createInvoice(m, { bankAccountIds: [m.bankAccount.id], customer: { name: '가나다라마바사아' }, amount });
      const b = await createInvoice(m, { bankAccountIds: [m.bankAccount.id], customer: { name: '가나다라마바사자' }, amount });
      await deposit(m, mA, { depositorName: '가나다라마바사', amount }, null);
      expect(await readInvoice(m, a.id)).toEqual(a);
      expect(await readInvoice(m, b.id)).toEqual(b);

      const amount2 = uniqueAmount();
      const c = await createInvoice(m, { bankAccountIds: [m.bankAccount.id], customer: { name: '강감찬(1)' }, amount: amount2 });
      const d = await createInvoice(m, { bankAccountIds: [], customer: { name: '강감찬(2)' }, amount: amount2 });
      await deposit(m, mA, { depositorName: '강감찬', amount: amount2 }, null);
      expect(await readInvoice(m, c.id)).toEqual(c);
      expect(await readInvoice(m, d.id)).toEqual(d);
    });

    it('an expired invoice is not matched', async () => {
      const amount = uniqueAmount();
      const inv = await createInvoice(m, { bankAccountIds: [m.bankAccount.id], customer: { name: '만료됨' }, amount, expireAfter: '30m' });
      clock.advance(31 * MINUTE);
      await deposit(m, mA, { depositorName: '만료됨', amount }, null);
      expect(await readInvoice(m, inv.id)).toEqual(inv);
    });

    it('a deleted invoice is not matched', async () => {
      const amount = uniqueAmount();
      const inv = await createInvoice(m, { bankAccountIds: [m.bankAccount.id], customer: { name: '삭제됨' }, amount });
      expect((await v1('DELETE', `/v1/invoices/${inv.id}`, m.apiKey.secret)).status).toBe(200);
      await deposit(m, mA, { depositorName: '삭제됨', amount }, null);
    });

    it('another amount or a name that differs is not matched', async () => {
      const amount = uniqueAmount();
      const inv = await createInvoice(m, { bankAccountIds: [m.bankAccount.id], customer: { name: '유관순' }, amount });
      await deposit(m, mA, { depositorName: '유관순', amount: amount + 1 }, null);
      await deposit(m, mA, { depositorName: '유관선', amount }, null);
      expect(await readInvoice(m, inv.id)).toEqual(inv);
    });

    it('one deposit pays one invoice: a second identical deposit stays unmatched', async () => {
      const amount = uniqueAmount();
      const inv = await createInvoice(m, { bankAccountIds: [m.bankAccount.id], customer: { name: '안중근' }, amount });
      const first = await deposit(m, mA, { depositorName: '안중근', amount }, { invoiceId: inv.id, method: 'EXACT' });
      await deposit(m, mA, { depositorName: '안중근', amount }, null);
      expectList(await listTrx(m, `offset=0&limit=10&search=${inv.id}`), [first]);
    });

    it('the receiving account decides: a deposit pays only the invoice listed on its account; all-accounts invoices take any account', async () => {
      const w = await bootstrap(t.client);
      const b = await addVerifiedBankAccount(t.client, w.sessionToken, { alias: 'second' });
      const A = await accountInfo(w, w.bankAccount);
      const B = await accountInfo(w, b);
      const onA = await createInvoice(w, { bankAccountIds: [A.id], customer: { name: '윤봉길' }, amount: 4000 });
      const onB = await createInvoice(w, { bankAccountIds: [B.id], customer: { name: '윤봉길' }, amount: 4000 });
      await deposit(w, B, { depositorName: '윤봉길', amount: 4000 }, { invoiceId: onB.id, method: 'EXACT' });
      expect(await readInvoice(w, onA.id)).toEqual(onA);
      expect(await readInvoice(w, onB.id)).toEqual({ ...onB, paid: true });

      const everywhere = await createInvoice(w, { bankAccountIds: [], customer: { name: '김구' }, amount: 4500 });
      await deposit(w, B, { depositorName: '김구', amount: 4500 }, { invoiceId: everywhere.id, method: 'EXACT' });

      const onlyA = await createInvoice(w, { bankAccountIds: [A.id], customer: { name: '김좌진' }, amount: 4600 });
      await deposit(w, B, { depositorName: '김좌진', amount: 4600 }, null);
      expect(await readInvoice(w, onlyA.id)).toEqual(onlyA);
    });

    it('MANUAL: a dashboard match shows matchMethod MANUAL; a dashboard un-match returns both to unmatched / unpaid', async () => {
      const amount = uniqueAmount();
      const inv = await createInvoice(m, { bankAccountIds: [m.bankAccount.id], customer: { name: '수동매칭' }, amount });
      const trx = await deposit(m, mA, { depositorName: '전혀다른이름', amount }, null);
      const before = clock.now().getTime();
      await t.client.gql(`mutation($input: MatchTransactionInput!) { matchTransaction(input: $input) { transaction { id } } }`, { input: { transactionId: trx.id, invoiceId: inv.id } }, m.sessionToken);
      const after = clock.now().getTime();
      const matched = await v1('GET', `/v1/transactions/${trx.id}`, m.apiKey.secret);
      expectOk(matched, { ...trx, matchedInvoiceId: inv.id, matchMethod: 'MANUAL', matchedAt: matched.body.data.matchedAt });
      expect(Date.parse(matched.body.data.matchedAt)).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
      expect(Date.parse(matched.body.data.matchedAt)).toBeLessThanOrEqual(after);
      expect(await readInvoice(m, inv.id)).toEqual({ ...inv, paid: true });
      expectList(await listTrx(m, `offset=0&limit=10&search=${inv.id}`), [matched.body.data]);

      await t.client.gql(`mutation($id: ID!) { unmatchTransaction(id: $id) { transaction { id } } }`, { id: trx.id }, m.sessionToken);
      expectOk(await v1('GET', `/v1/transactions/${trx.id}`, m.apiKey.secret), trx);
      expect(await readInvoice(m, inv.id)).toEqual(inv);
      expectList(await listTrx(m, `offset=0&limit=10&search=${inv.id}`), []);
    });

    it('a 1-won verification deposit never pays an invoice, even one whose name is the verification code', async () => {
      const w = await bootstrap(t.client);
      const fresh = await addVerifiedBankAccount(t.client, w.sessionToken, { verify: false, alias: 'new' });
      const inv = await createInvoice(w, { bankAccountIds: [], customer: { name: fresh.verificationCode }, amount: 1 });
      const res = await t.client.deposit(fresh.notificationToken, { depositorName: fresh.verificationCode, amount: 1 });
      expect(res.status).toBe(201);
      const read = await v1('GET', `/v1/transactions/${res.body.transactionId}`, w.apiKey.secret);
      expect(read.status).toBe(200);
      expect(read.body.data).toMatchObject({ matchedInvoiceId: null, matchMethod: null, matchedAt: null, hidden: true, amount: 1, description: fresh.verificationCode });
      expect(await readInvoice(w, inv.id)).toEqual(inv);
    });

    it('identical deposits arriving at once: exactly one pays the invoice', async () => {
      const amount = uniqueAmount();
      const inv = await createInvoice(m, { bankAccountIds: [m.bankAccount.id], customer: { name: '동시입금' }, amount });
      const results = await Promise.all(Array.from({ length: 4 }, () => t.client.deposit(m.bankAccount.notificationToken, { depositorName: '동시입금', amount })));
      expect(results.map((r) => r.status)).toEqual([201, 201, 201, 201]);
      const reads = await Promise.all(results.map((r) => v1('GET', `/v1/transactions/${r.body.transactionId}`, m.apiKey.secret)));
      const matched = reads.filter((r) => r.body.data.matchedInvoiceId !== null);
      expect(matched.length).toBe(1);
      expect(matched[0].body.data).toMatchObject({ matchedInvoiceId: inv.id, matchMethod: 'EXACT' });
      expectList(await listTrx(m, `offset=0&limit=10&search=${inv.id}`), [matched[0].body.data]);
      expect(await readInvoice(m, inv.id)).toEqual({ ...inv, paid: true });
    });

    it("a deposit never pays another workspace's invoice", async () => {
      const other = await bootstrap(t.client);
      const amount = uniqueAmount();
      const inv = await createInvoice(other, { bankAccountIds: [], customer: { name: '타인' }, amount });
      await deposit(m, mA, { depositorName: '타인', amount }, null);
      expect(await readInvoice(other, inv.id)).toEqual(inv);
    });
  });
});
