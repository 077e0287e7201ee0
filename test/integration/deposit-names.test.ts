/**
 * Depositor names as banks send them, through the real bank notification endpoint (POST /bank-notifications) and the
 * REST faces (spec: States — matching deposit; 1-won verification): one normalisation rule for invoice and deposit
 * names (NFC, brackets of every width, Latin case; src/domain/deposits/depositor-name.ts), bracketed orders that
 * a deposit does not name are never paid by it, and a 1-won deposit carrying the account's verification code is
 * hidden and never matched whether or not the account is verified. PGlite and PostgreSQL (TEST_DATABASE_URL).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addVerifiedBankAccount, bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { dbLabel, startTestApp, type TestApp } from '../helpers/app.ts';
import { checkInvariants } from '../helpers/invariants.ts';

const NFD = (s: string) => s.normalize('NFD');
const RECEIVED_AT = '2026-11-21T10:00:00Z';
const RECEIVED_AT_V1 = '2026-11-21T10:00:00.000+00:00';

let t: TestApp;
let seq = 0;
/** An amount no other test of this file uses (invoices of one amount are one test's). */
const uniqueAmount = () => 70_000 + ++seq;

const v1 = (method: string, path: string, token: string, body?: unknown) => t.client.request(method, path, { token, body });

async function createInvoice(w: Bootstrapped, name: string, amount: number, bankAccountIds: string[] = []) {
  const res = await v1('POST', '/v1/invoices', w.apiKey.secret, { bankAccountIds, customer: { name }, amount });
  expect({ status: res.status, code: res.body.code }).toEqual({ status: 201, code: 'CREATED' });
  expect(res.body.data.customer.name).toBe(name); // the name as sent, not its comparison form
  return res.body.data;
}

async function readInvoice(w: Bootstrapped, id: string) {
  const res = await v1('GET', `/v1/invoices/${id}`, w.apiKey.secret);
  expect(res.status).toBe(200);
  return res.body.data;
}

/**
 * Posts a deposit to `account` and reads it back through v1: the whole Transaction object, the depositor name as the
 * bank sent it, matched as `match` says (null = unmatched), hidden as `hidden` says.
 */
async function deposit(
  w: Bootstrapped,
  account: { id: string; notificationToken: string },
  depositorName: string,
  amount: number,
  match: { invoiceId: string; method: string } | null,
  opts: { hidden?: boolean } = {},
) {
  const res = await t.client.deposit(account.notificationToken, { depositorName, amount, receivedAt: RECEIVED_AT });
  expect(res.status).toBe(201);
  return readDeposit(w, account, res.body.transactionId, { depositorName, amount, match, hidden: opts.hidden ?? false });
}

async function readDeposit(
  w: Bootstrapped,
  account: { id: string },
  id: string,
  e: { depositorName: string; amount: number; match: { invoiceId: string; method: string } | null; hidden: boolean },
) {
  const read = await v1('GET', `/v1/transactions/${id}`, w.apiKey.secret);
  expect(read.status).toBe(200);
  const data = read.body.data;
  expect(data.bankAccount.id).toBe(account.id);
  expect(data).toEqual({
    id,
    bankAccount: data.bankAccount,
    matchedInvoiceId: e.match?.invoiceId ?? null,
    matchMethod: e.match?.method ?? null,
    amount: e.amount,
    description: e.depositorName,
    hidden: e.hidden,
    receivedAt: RECEIVED_AT_V1,
    matchedAt: e.match ? data.createdAt : null,
    createdAt: data.createdAt,
    deletedAt: null,
  });
  return data;
}

describe(`depositor names as banks send them, on ${dbLabel}`, () => {
  let w: Bootstrapped;
  beforeAll(async () => {
    t = await startTestApp({ env: { RATE_LIMIT_PER_SECOND: '0' } });
    w = await bootstrap(t.client);
    expect(w.bankAccount.provider).toBe('SHINHAN'); // keeps 7 characters of a depositor name
  });
  afterAll(async () => {
    if (t) expect(await checkInvariants(t.app.db.sql)).toEqual([]);
    await t?.stop();
  });

  describe('a deposit never pays a bracketed order it does not name (finding 9)', () => {
    it("invoices '홍길동(101호)' and '홍길동(102호)': a '홍길동(102호)' deposit pays 102 (EXACT); a second one pays nothing, 101 stays pending", async () => {
      const amount = uniqueAmount();
      const o101 = await createInvoice(w, '홍길동(101호)', amount);
      const o102 = await createInvoice(w, '홍길동(102호)', amount);
      await deposit(w, w.bankAccount, '홍길동(102호)', amount, { invoiceId: o102.id, method: 'EXACT' });
      await deposit(w, w.bankAccount, '홍길동(102호)', amount, null);
      expect(await readInvoice(w, o101.id)).toEqual(o101);
      expect(await readInvoice(w, o102.id)).toEqual({ ...o102, paid: true });
      // Another order's text, or a name with no bracket text while both wait, pays nothing either.
      await deposit(w, w.bankAccount, '홍길동(103호)', amount, null);
      expect(await readInvoice(w, o101.id)).toEqual(o101);
      // The same text in other brackets names the same order.
      await deposit(w, w.bankAccount, '홍길동【101호】', amount, { invoiceId: o101.id, method: 'BRACKET_REMOVAL' });
      expect(await readInvoice(w, o101.id)).toEqual({ ...o101, paid: true });
    });

    it('a deposit with no bracket text names no order: ambiguous while both wait', async () => {
      const amount = uniqueAmount();
      const o101 = await createInvoice(w, '홍길동(101호)', amount);
      const o102 = await createInvoice(w, '홍길동(102호)', amount);
      await deposit(w, w.bankAccount, '홍길동', amount, null);
      expect(await readInvoice(w, o101.id)).toEqual(o101);
      expect(await readInvoice(w, o102.id)).toEqual(o102);
    });

    it("NAME_PREFIX (SHINHAN keeps 7): '홍길동(102' pays 102; a second '홍길동(102' does not pay 101", async () => {
      const amount = uniqueAmount();
      const o101 = await createInvoice(w, '홍길동(101호)', amount);
      const o102 = await createInvoice(w, '홍길동(102호)', amount);
      await deposit(w, w.bankAccount, '홍길동(102', amount, { invoiceId: o102.id, method: 'NAME_PREFIX' });
      await deposit(w, w.bankAccount, '홍길동(102', amount, null);
      expect(await readInvoice(w, o101.id)).toEqual(o101);
      expect(await readInvoice(w, o102.id)).toEqual({ ...o102, paid: true });
    });
  });

  describe('names compared as banks send them: NFC, brackets of every width, Latin case (finding 10)', () => {
    it('a Hangul name in NFD pays the NFC invoice (EXACT), and an NFC deposit pays an invoice created in NFD, which keeps its name as sent', async () => {
      const amount = uniqueAmount();
      const nfc = await createInvoice(w, '홍길동', amount);
      await deposit(w, w.bankAccount, NFD('홍길동'), amount, { invoiceId: nfc.id, method: 'EXACT' });
      expect(await readInvoice(w, nfc.id)).toEqual({ ...nfc, paid: true });

      const amount2 = uniqueAmount();
      const nfd = await createInvoice(w, NFD('김철수'), amount2);
      await deposit(w, w.bankAccount, '김철수', amount2, { invoiceId: nfd.id, method: 'EXACT' });
      expect(await readInvoice(w, nfd.id)).toEqual({ ...nfd, paid: true });
      expect((await readInvoice(w, nfd.id)).customer.name).toBe(NFD('김철수'));
    });

    it.each([
      ['［주문］', 'full-width square'],
      ['（주문）', 'full-width round'],
      ['｛주문｝', 'full-width curly'],
      ['〔주문〕', 'tortoise-shell'],
      ['〈주문〉', 'angle'],
      ['《주문》', 'double angle'],
      ['「주문」', 'corner'],
      ['『주문』', 'white corner'],
      ['【주문】', 'lenticular'],
    ])('%s (%s brackets) are removed: the deposit pays invoice 이순신 by BRACKET_REMOVAL', async (bracket) => {
      const amount = uniqueAmount();
      const inv = await createInvoice(w, '이순신', amount);
      await deposit(w, w.bankAccount, `${bracket}이순신`, amount, { invoiceId: inv.id, method: 'BRACKET_REMOVAL' });
      expect(await readInvoice(w, inv.id)).toEqual({ ...inv, paid: true });
    });

    it('a Latin name upper-cased by the bank (JOHNKIM), or in full-width letters, pays JohnKim (EXACT)', async () => {
      const amount = uniqueAmount();
      const inv = await createInvoice(w, 'JohnKim', amount);
      await deposit(w, w.bankAccount, 'JOHNKIM', amount, { invoiceId: inv.id, method: 'EXACT' });
      expect(await readInvoice(w, inv.id)).toEqual({ ...inv, paid: true });
      const amount2 = uniqueAmount();
      const inv2 = await createInvoice(w, 'JohnKim', amount2);
      await deposit(w, w.bankAccount, 'ＪＯＨＮＫＩＭ', amount2, { invoiceId: inv2.id, method: 'EXACT' });
      expect(await readInvoice(w, inv2.id)).toEqual({ ...inv2, paid: true });
    });

    it('NAME_PREFIX counts the truncated name after NFC: 7 syllables sent decomposed are 7 characters on SHINHAN', async () => {
      const amount = uniqueAmount();
      const inv = await createInvoice(w, '가나다라마바사아', amount);
      await deposit(w, w.bankAccount, NFD('가나다라마바사'), amount, { invoiceId: inv.id, method: 'NAME_PREFIX' });
      expect(await readInvoice(w, inv.id)).toEqual({ ...inv, paid: true });
    });

    it('the 16-character limit counts after NFC: 16 syllables in NFD are accepted (and shown as sent), 17 are refused', async () => {
      const sixteen = NFD('가나다라마바사아자차카타파하가나');
      expect([...sixteen].length).toBe(32); // as sent: two jamo a syllable
      await createInvoice(w, sixteen, uniqueAmount());
      const res = await v1('POST', '/v1/invoices', w.apiKey.secret, { bankAccountIds: [], customer: { name: NFD('가나다라마바사아자차카타파하가나다') }, amount: uniqueAmount() });
      expect({ status: res.status, body: res.body }).toEqual({ status: 422, body: { code: 'INVALID_CUSTOMER_NAME', data: null } });
    });

    it('list searches compare the same form: a name stored in NFD or full width is found by its plain NFC / ASCII spelling (v1, v2, deposits)', async () => {
      const inv = await createInvoice(w, NFD('세종대왕'), uniqueAmount());
      const wide = await createInvoice(w, 'ＭＡＲＹＬＥＥ', uniqueAmount());
      for (const [term, id] of [
        ['세종대왕', inv.id],
        [NFD('세종'), inv.id],
        ['marylee', wide.id],
        ['ＭａｒｙＬｅｅ', wide.id],
      ] as const) {
        const q = encodeURIComponent(term);
        const r1 = await v1('GET', `/v1/invoices?offset=0&limit=20&search=${q}`, w.apiKey.secret);
        expect({ term, ids: r1.body.data.map((i: { id: string }) => i.id), total: r1.body.totalItems }).toEqual({ term, ids: [id], total: 1 });
        const r2 = await v1('GET', `/v2/invoices?offset=0&limit=20&search=${q}`, w.apiKey.secret);
        expect({ term, ids: r2.body.data.map((i: { id: string }) => i.id) }).toEqual({ term, ids: [id] });
      }
      const dep = await t.client.deposit(w.bankAccount.notificationToken, { depositorName: NFD('장영실'), amount: uniqueAmount(), receivedAt: RECEIVED_AT });
      expect(dep.status).toBe(201);
      const found = await v1('GET', `/v1/transactions?offset=0&limit=20&search=${encodeURIComponent('장영실')}`, w.apiKey.secret);
      expect(found.body.data.map((d: { id: string; description: string }) => [d.id, d.description])).toEqual([[dep.body.transactionId, NFD('장영실')]]);
    });

    it('the conflict check treats names equal after normalisation as the same name (a deposit could pay neither): 409 INVOICE_ALREADY_EXISTS', async () => {
      const amount = uniqueAmount();
      await createInvoice(w, 'JohnKim', amount);
      for (const name of ['JOHNKIM', 'ｊｏｈｎｋｉｍ']) {
        const res = await v1('POST', '/v1/invoices', w.apiKey.secret, { bankAccountIds: [], customer: { name }, amount });
        expect({ status: res.status, body: res.body }).toEqual({ status: 409, body: { code: 'INVOICE_ALREADY_EXISTS', data: null } });
      }
      const amount2 = uniqueAmount();
      await createInvoice(w, '홍길동', amount2);
      const res = await v1('POST', '/v1/invoices', w.apiKey.secret, { bankAccountIds: [], customer: { name: NFD('홍길동') }, amount: amount2 });
      expect({ status: res.status, body: res.body }).toEqual({ status: 409, body: { code: 'INVOICE_ALREADY_EXISTS', data: null } });
    });

    it('v2 PATCH: renaming to a name equal after normalisation conflicts (409 220010); a rename is matched by its normalised name, and history names only customerName', async () => {
      const amount = uniqueAmount();
      const john = await createInvoice(w, 'JohnKim', amount);
      const other = await createInvoice(w, '다른이름', amount);
      const clash = await t.client.request('PATCH', `/v2/invoices/${other.id}`, { token: w.apiKey.secret, body: { customer: { name: 'JOHNKIM' } } });
      const number = (await t.client.request('GET', `/v2/invoices/${john.id}`, { token: w.apiKey.secret })).body.data.number;
      expect({ status: clash.status, body: clash.body }).toEqual({ status: 409, body: { code: '220010', data: { invoiceId: john.id, number } } });

      const renamed = await t.client.request('PATCH', `/v2/invoices/${other.id}`, { token: w.apiKey.secret, body: { customer: { name: NFD('［VIP］박지성') } } });
      expect(renamed.status).toBe(200);
      expect(renamed.body.data.customer.name).toBe(NFD('［VIP］박지성'));
      const read = await t.client.request('GET', `/v2/invoices/${other.id}`, { token: w.apiKey.secret });
      expect(read.body.data.history.map((h: { type: string; data: unknown }) => [h.type, h.data])).toEqual([
        ['created', null],
        ['updated', { fields: ['customerName'] }],
      ]);
      await deposit(w, w.bankAccount, '[VIP]박지성', amount, { invoiceId: other.id, method: 'EXACT' });
      expect(await readInvoice(w, other.id)).toEqual({ ...other, customer: { ...other.customer, name: NFD('［VIP］박지성') }, paid: true });
      expect(await readInvoice(w, john.id)).toEqual(john);
    });
  });

  describe('a 1-won deposit carrying the verification code is hidden and never matched, verified account or not (finding 11)', () => {
    const bankAccounts = async (x: Bootstrapped) =>
      (await t.client.gql<{ bankAccounts: { id: string; verifiedAt: string | null }[] }>(`{ bankAccounts { id verifiedAt } }`, {}, x.sessionToken)).bankAccounts;

    it('on a verified account, a second 1-won code deposit (the single-deposit path) is stored hidden, pays no invoice named after the code, and leaves verifiedAt as it was', async () => {
      const x = await bootstrap(t.client);
      const before = await bankAccounts(x);
      expect(before.find((a) => a.id === x.bankAccount.id)?.verifiedAt).not.toBeNull();
      const inv = await createInvoice(x, x.bankAccount.verificationCode, 1);
      const trx = await deposit(x, x.bankAccount, x.bankAccount.verificationCode, 1, null, { hidden: true });
      expect(await readInvoice(x, inv.id)).toEqual(inv);
      expect(await bankAccounts(x)).toEqual(before);
      // Nor by hand.
      const manual = await t.client.graphql(`mutation($input: MatchTransactionInput!) { matchTransaction(input: $input) { transaction { id } } }`, { input: { transactionId: trx.id, invoiceId: inv.id } }, x.sessionToken);
      expect(manual.errors?.map((e) => e.extensions?.code)).toEqual(['TRANSACTION_NOT_MATCHABLE']);
      expect(await readInvoice(x, inv.id)).toEqual(inv);
      // A visible deposit list does not show it; the hidden one does.
      const visible = await v1('GET', `/v1/transactions?offset=0&limit=100&hidden=false`, x.apiKey.secret);
      expect(visible.body.data.map((d: { id: string }) => d.id)).not.toContain(trx.id);
      const hidden = await v1('GET', `/v1/transactions?offset=0&limit=100&hidden=true`, x.apiKey.secret);
      expect(hidden.body.data.map((d: { id: string }) => d.id)).toContain(trx.id);
    });

    it('the code is compared normalised: full-width digits verify an unverified account, hidden, and pay nothing', async () => {
      const x = await bootstrap(t.client);
      const fresh = await addVerifiedBankAccount(t.client, x.sessionToken, { verify: false, alias: 'fresh' });
      const inv = await createInvoice(x, fresh.verificationCode, 1);
      const fullWidth = fresh.verificationCode.replace(/\d/g, (d) => String.fromCharCode(0xff10 + Number(d)));
      await deposit(x, fresh, fullWidth, 1, null, { hidden: true });
      expect((await bankAccounts(x)).find((a) => a.id === fresh.id)?.verifiedAt).not.toBeNull();
      expect(await readInvoice(x, inv.id)).toEqual(inv);
    });

    it('in a burst of matched deposits (the batched path), the code deposit is still hidden and unmatched while the others pay their invoices', async () => {
      const x = await bootstrap(t.client);
      const codeInvoice = await createInvoice(x, x.bankAccount.verificationCode, 1);
      const names = ['묶음일', '묶음이', '묶음삼', '묶음사', '묶음오', '묶음육'];
      const invoices = [];
      for (const name of names) invoices.push(await createInvoice(x, name, 4_000));
      const bodies = [
        ...names.slice(0, 3).map((name) => ({ depositorName: name, amount: 4_000 })),
        { depositorName: x.bankAccount.verificationCode, amount: 1 },
        ...names.slice(3).map((name) => ({ depositorName: name, amount: 4_000 })),
      ];
      const sent = await Promise.all(bodies.map((b) => t.client.deposit(x.bankAccount.notificationToken, { ...b, receivedAt: RECEIVED_AT })));
      expect(sent.map((r) => r.status)).toEqual(bodies.map(() => 201));
      for (const [i, b] of bodies.entries()) {
        const inv = invoices[names.indexOf(b.depositorName)];
        await readDeposit(x, x.bankAccount, sent[i]!.body.transactionId, {
          ...b,
          match: inv ? { invoiceId: inv.id, method: 'EXACT' } : null,
          hidden: !inv,
        });
      }
      expect(await readInvoice(x, codeInvoice.id)).toEqual(codeInvoice);
      for (const inv of invoices) expect(await readInvoice(x, inv.id)).toEqual({ ...inv, paid: true });
    });

    it('a 2-won deposit named with the code is an ordinary deposit (only 1 won is a verification)', async () => {
      const x = await bootstrap(t.client);
      const inv = await createInvoice(x, x.bankAccount.verificationCode, 2);
      await deposit(x, x.bankAccount, x.bankAccount.verificationCode, 2, { invoiceId: inv.id, method: 'EXACT' });
    });
  });
});
