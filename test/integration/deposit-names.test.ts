/**
 * Depositor names as banks send them, through the real bank notification endpoint (POST /bank-notifications) and the
 * REST faces (spec: States — matching deposit; 1-won verification): one normalisation rule for invoice and deposit
 * names (NFC, brackets of every width, Latin case; src/domain/deposits/depositor-name.ts), bracketed orders that
 * a deposit does not name are never paid by it, and a 1-won deposit carrying the account's verification code is
 * hidden and never matched whether or not the account is verified. Embedded PostgreSQL and TEST_DATABASE_URL.
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
      expect(await readInvoice(x, inv.id)).toEqual({ ...inv, paid: true });
    });
  });

  describe('holes of the security review of deposit matching', () => {
    /** The deposit as the dashboard sees it: what it paid and, unmatched, why (matchNote). */
    const matchOf = async (x: Bootstrapped, id: string) =>
      (
        await t.client.gql<{ transaction: { matchedInvoiceId: string | null; matchMethod: string | null; matchNote: unknown } }>(
          `query($id: ID!) { transaction(id: $id) { matchedInvoiceId matchMethod matchNote } }`,
          { id },
          x.sessionToken,
        )
      ).transaction;
    const ambiguous = (method: string, ids: string[]) => ({
      matchedInvoiceId: null,
      matchMethod: null,
      matchNote: { reason: 'AMBIGUOUS', method, candidateInvoiceIds: ids, message: 'More than one pending invoice matches this deposit; match it manually.' },
    });
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

    describe('1. a deposit exactly the bank\'s truncation length may be a longer name cut short: the invoices it begins compete with an EXACT one', () => {
      it("'가나다라마바사아' and '가나다라마바사' wait: a deposit '가나다라마바사' (SHINHAN keeps 7) pays neither, AMBIGUOUS with both", async () => {
        const amount = uniqueAmount();
        const eight = await createInvoice(w, '가나다라마바사아', amount);
        const seven = await createInvoice(w, '가나다라마바사', amount);
        const trx = await deposit(w, w.bankAccount, '가나다라마바사', amount, null);
        expect(await matchOf(w, trx.id)).toEqual(ambiguous('EXACT', [seven.id, eight.id]));
        expect(await readInvoice(w, eight.id)).toEqual(eight);
        expect(await readInvoice(w, seven.id)).toEqual(seven);
      });

      it("'홍길동(101' and '홍길동(101호)' wait: a deposit '홍길동(101' pays neither, AMBIGUOUS with both", async () => {
        const amount = uniqueAmount();
        const ho = await createInvoice(w, '홍길동(101호)', amount);
        const plain = await createInvoice(w, '홍길동(101', amount);
        const trx = await deposit(w, w.bankAccount, '홍길동(101', amount, null);
        expect(await matchOf(w, trx.id)).toEqual(ambiguous('EXACT', [plain.id, ho.id]));
        expect(await readInvoice(w, ho.id)).toEqual(ho);
        expect(await readInvoice(w, plain.id)).toEqual(plain);
      });

      it("likewise against BRACKET_REMOVAL: '홍길동' and '[주문]홍길동님' wait, a deposit '[주문]홍길동' (7) is AMBIGUOUS", async () => {
        const amount = uniqueAmount();
        const plain = await createInvoice(w, '홍길동', amount);
        const longer = await createInvoice(w, '[주문]홍길동님', amount);
        const trx = await deposit(w, w.bankAccount, '[주문]홍길동', amount, null);
        expect(await matchOf(w, trx.id)).toEqual(ambiguous('BRACKET_REMOVAL', [plain.id, longer.id]));
        expect(await readInvoice(w, plain.id)).toEqual(plain);
        expect(await readInvoice(w, longer.id)).toEqual(longer);
      });

      it('alone, the 7-character invoice is paid by EXACT; a deposit shorter than the truncation length keeps EXACT first', async () => {
        const amount = uniqueAmount();
        const seven = await createInvoice(w, '가나다라마바사', amount);
        await deposit(w, w.bankAccount, '가나다라마바사', amount, { invoiceId: seven.id, method: 'EXACT' });
        const amount2 = uniqueAmount();
        const six = await createInvoice(w, '가나다라마바', amount2);
        const seven2 = await createInvoice(w, '가나다라마바사', amount2);
        await deposit(w, w.bankAccount, '가나다라마바', amount2, { invoiceId: six.id, method: 'EXACT' });
        expect(await readInvoice(w, seven2.id)).toEqual(seven2);
      });
    });

    describe('2. the candidate limit (50) never decides a match', () => {
      it("'이몽룡', 49 × '이몽룡(Yn)' and '이몽룡[X]' wait: a deposit '이몽룡(X)' pays nothing (TOO_MANY_CANDIDATES); without the 49 it is AMBIGUOUS; '이몽룡' still pays by EXACT", async () => {
        const x = await bootstrap(t.client);
        const plain = await createInvoice(x, '이몽룡', 4343);
        await sleep(5); // '이몽룡' is read first, '이몽룡[X]' after the 49 (oldest first)
        for (let n = 1; n <= 49; n++) await createInvoice(x, `이몽룡(Y${n})`, 4343);
        await sleep(5);
        const bracketX = await createInvoice(x, '이몽룡[X]', 4343);
        const trx = await deposit(x, x.bankAccount, '이몽룡(X)', 4343, null);
        expect(await matchOf(x, trx.id)).toEqual({
          matchedInvoiceId: null,
          matchMethod: null,
          matchNote: {
            reason: 'TOO_MANY_CANDIDATES',
            candidateInvoiceIds: [plain.id],
            message:
              'More than 50 pending invoices could match this deposit, too many to be sure which one it pays; the matching ones among those read are listed. Match it manually.',
          },
        });
        expect(await readInvoice(x, plain.id)).toEqual(plain);
        expect(await readInvoice(x, bracketX.id)).toEqual(bracketX);
        // The control: the same without the 49.
        const plain2 = await createInvoice(x, '이몽룡', 4344);
        const bracketX2 = await createInvoice(x, '이몽룡[X]', 4344);
        const trx2 = await deposit(x, x.bankAccount, '이몽룡(X)', 4344, null);
        expect(await matchOf(x, trx2.id)).toEqual(ambiguous('BRACKET_REMOVAL', [plain2.id, bracketX2.id]));
        // An EXACT hit of a name shorter than the truncation length decides alone, completely: the limit is not reached.
        await deposit(x, x.bankAccount, '이몽룡', 4343, { invoiceId: plain.id, method: 'EXACT' });
        expect(await readInvoice(x, bracketX.id)).toEqual(bracketX);
      });
    });

    describe('3. un-matching a deposit does not bring back a second pending invoice of the same name and amount', () => {
      const unmatch = (x: Bootstrapped, id: string) =>
        t.client.graphql<{ unmatchTransaction: { transaction: { id: string; matchedInvoiceId: string | null } } }>(
          `mutation($id: ID!) { unmatchTransaction(id: $id) { transaction { id matchedInvoiceId } } }`,
          { id },
          x.sessionToken,
        );
      const numberOf = async (x: Bootstrapped, id: string) => (await t.client.request('GET', `/v2/invoices/${id}`, { token: x.apiKey.secret })).body.data.number as number;

      it("X 'Unmatch2' paid, then Y 'UNMATCH2' created: un-matching X's deposit is refused INVOICE_ALREADY_EXISTS (Y's id and number); once Y is canceled it goes through and 'unmatch2' pays X", async () => {
        const x = await bootstrap(t.client);
        const invoiceX = await createInvoice(x, 'Unmatch2', 3940);
        const paying = await deposit(x, x.bankAccount, 'Unmatch2', 3940, { invoiceId: invoiceX.id, method: 'EXACT' });
        const invoiceY = await createInvoice(x, 'UNMATCH2', 3940);
        const number = await numberOf(x, invoiceY.id);
        const refused = await unmatch(x, paying.id);
        expect({ data: refused.data, errors: refused.errors?.map((e) => ({ message: e.message, extensions: e.extensions })) }).toEqual({
          data: null,
          errors: [
            {
              message: `Pending invoice ${number} has the same depositor name and amount on an overlapping receiving account; cancel it before un-matching this deposit.`,
              extensions: { code: 'INVOICE_ALREADY_EXISTS', data: { invoiceId: invoiceY.id, number } },
            },
          ],
        });
        expect(await readInvoice(x, invoiceX.id)).toEqual({ ...invoiceX, paid: true });
        await readDeposit(x, x.bankAccount, paying.id, { depositorName: 'Unmatch2', amount: 3940, match: { invoiceId: invoiceX.id, method: 'EXACT' }, hidden: false });

        expect((await v1('DELETE', `/v1/invoices/${invoiceY.id}`, x.apiKey.secret)).status).toBe(200);
        const done = await unmatch(x, paying.id);
        expect(done).toEqual({ data: { unmatchTransaction: { transaction: { id: paying.id, matchedInvoiceId: null } } } });
        expect(await readInvoice(x, invoiceX.id)).toEqual(invoiceX);
        await deposit(x, x.bankAccount, 'unmatch2', 3940, { invoiceId: invoiceX.id, method: 'EXACT' });
      });

      it('un-matching and creating the conflicting invoice at the same moment: exactly one of them goes through, never two pending', async () => {
        const x = await bootstrap(t.client);
        for (let round = 0; round < 6; round++) {
          const amount = 3950 + round;
          const invoiceX = await createInvoice(x, 'Racer', amount);
          const paying = await deposit(x, x.bankAccount, 'Racer', amount, { invoiceId: invoiceX.id, method: 'EXACT' });
          // Sent in either order: each of the two gets to go first.
          const create = () => v1('POST', '/v1/invoices', x.apiKey.secret, { bankAccountIds: [], customer: { name: 'RACER' }, amount });
          const [un, created] =
            round % 2 === 0 ? await Promise.all([unmatch(x, paying.id), create()]) : await Promise.all([create(), unmatch(x, paying.id)]).then(([c, u]) => [u, c] as const);
          const outcome = {
            unmatch: un.errors ? un.errors.map((e) => e.extensions?.code) : 'ok',
            create: created.status === 201 ? 'ok' : [created.status, created.body.code],
          };
          expect([
            { unmatch: 'ok', create: [409, 'INVOICE_ALREADY_EXISTS'] },
            { unmatch: ['INVOICE_ALREADY_EXISTS'], create: 'ok' },
          ]).toContainEqual(outcome);
          const pending = await v1('GET', `/v1/invoices?offset=0&limit=10&paid=false&search=racer`, x.apiKey.secret);
          const waiting = pending.body.data.filter((i: { amount: number; paid: boolean; expiresAt: unknown }) => i.amount === amount);
          expect(waiting).toHaveLength(1);
        }
      });
    });

    describe('4. invoice names a bank deposit cannot carry or a reader cannot see are refused; deposit names are compared without them', () => {
      const invisible = [
        ['\u200b', 'zero-width space only'],
        ['\u3164', 'Hangul filler only'],
        ['\u0001', 'a control character only'],
        ['\u0301', 'a combining mark only'],
        ['\ufe0f', 'a variation selector only'],
        ['홍길동\u200b', 'a trailing zero-width space'],
        ['홍길동\u00ad', 'a soft hyphen'],
        ['\u200e홍길동', 'a left-to-right mark'],
        ['홍\u115f길동', 'a Hangul choseong filler'],
        ['홍길동\u1160', 'a Hangul jungseong filler'],
        ['홍길동\uffa0', 'a half-width Hangul filler'],
        ['홍\u2060길동', 'a word joiner'],
        ['\u0301홍길동', 'a leading combining mark'],
      ] as const;
      let target: { id: string };
      beforeAll(async () => {
        target = await createInvoice(w, '이름바꿀곳', uniqueAmount());
      });

      it.each(invisible)('%j (%s): v1 create 422 INVALID_CUSTOMER_NAME, GraphQL createInvoice INVALID_CUSTOMER_NAME, v2 PATCH 422 220002', async (name) => {
        const amount = uniqueAmount();
        const r1 = await v1('POST', '/v1/invoices', w.apiKey.secret, { bankAccountIds: [], customer: { name }, amount });
        expect({ status: r1.status, body: r1.body }).toEqual({ status: 422, body: { code: 'INVALID_CUSTOMER_NAME', data: null } });
        const gql = await t.client.gql(
          `mutation($input: CreateInvoiceInput!) { createInvoice(input: $input) { __typename ... on DomainError { code field } } }`,
          { input: { bankAccountIds: [], customer: { name }, amount } },
          w.apiKey.secret,
        );
        expect(gql).toEqual({ createInvoice: { __typename: 'DomainError', code: 'INVALID_CUSTOMER_NAME', field: ['customer', 'name'] } });
        const r2 = await t.client.request('PATCH', `/v2/invoices/${target.id}`, { token: w.apiKey.secret, body: { customer: { name } } });
        expect({ status: r2.status, body: r2.body }).toEqual({ status: 422, body: { code: '220002', data: null } });
        const list = await v1('GET', `/v1/invoices?offset=0&limit=10&search=${encodeURIComponent(String(amount))}`, w.apiKey.secret);
        expect(list.body.totalItems).toBe(0);
      });

      it('a combining mark after a letter is a name (NFD É), and 홍길동 with invisible characters in the deposit pays 홍길동 (EXACT)', async () => {
        await createInvoice(w, 'E\u0301mile', uniqueAmount());
        for (const sent of ['홍길동\u200b', '\u200e홍길동\u00ad', '홍\u2060길동\ufe0f']) {
          const amount = uniqueAmount();
          const inv = await createInvoice(w, '홍길동', amount);
          await deposit(w, w.bankAccount, sent, amount, { invoiceId: inv.id, method: 'EXACT' });
          expect(await readInvoice(w, inv.id)).toEqual({ ...inv, paid: true });
        }
      });
    });

    describe('5. the verification code is compared without whitespace, as bracket removal compares names', () => {
      const spaced = (code: string) => `${code.slice(0, 3)} ${code.slice(3)}`;

      it("a 1-won '937 368' on a verified account is a verification deposit: hidden, and pays no invoice named '937368' (the single-deposit path); it verifies a new account", async () => {
        const x = await bootstrap(t.client);
        const inv = await createInvoice(x, x.bankAccount.verificationCode, 1);
        const trx = await deposit(x, x.bankAccount, spaced(x.bankAccount.verificationCode), 1, null, { hidden: true });
        expect(await matchOf(x, trx.id)).toEqual({ matchedInvoiceId: null, matchMethod: null, matchNote: null });
        expect(await readInvoice(x, inv.id)).toEqual(inv);
        const manual = await t.client.graphql(`mutation($input: MatchTransactionInput!) { matchTransaction(input: $input) { transaction { id } } }`, { input: { transactionId: trx.id, invoiceId: inv.id } }, x.sessionToken);
        expect(manual.errors?.map((e) => e.extensions?.code)).toEqual(['TRANSACTION_NOT_MATCHABLE']);

        const fresh = await addVerifiedBankAccount(t.client, x.sessionToken, { verify: false, alias: 'fresh' });
        await deposit(x, fresh, ` ${fresh.verificationCode.slice(0, 2)}\u3000${fresh.verificationCode.slice(2, 4)} ${fresh.verificationCode.slice(4)}`.trim(), 1, null, { hidden: true });
        const accounts = (await t.client.gql<{ bankAccounts: { id: string; verifiedAt: string | null }[] }>(`{ bankAccounts { id verifiedAt } }`, {}, x.sessionToken)).bankAccounts;
        expect(accounts.find((a) => a.id === fresh.id)?.verifiedAt).not.toBeNull();
      });

      it('in a burst of matched deposits (the batched path), the spaced code deposit is hidden and unmatched while the others pay', async () => {
        const x = await bootstrap(t.client);
        const codeInvoice = await createInvoice(x, x.bankAccount.verificationCode, 1);
        const names = ['띄움일', '띄움이', '띄움삼', '띄움사'];
        const invoices = [];
        for (const name of names) invoices.push(await createInvoice(x, name, 4_100));
        const bodies = [
          ...names.slice(0, 2).map((name) => ({ depositorName: name, amount: 4_100 })),
          { depositorName: spaced(x.bankAccount.verificationCode), amount: 1 },
          ...names.slice(2).map((name) => ({ depositorName: name, amount: 4_100 })),
        ];
        const sent = await Promise.all(bodies.map((b) => t.client.deposit(x.bankAccount.notificationToken, { ...b, receivedAt: RECEIVED_AT })));
        expect(sent.map((r) => r.status)).toEqual(bodies.map(() => 201));
        for (const [i, b] of bodies.entries()) {
          const inv = invoices[names.indexOf(b.depositorName)];
          await readDeposit(x, x.bankAccount, sent[i]!.body.transactionId, { ...b, match: inv ? { invoiceId: inv.id, method: 'EXACT' } : null, hidden: !inv });
        }
        expect(await readInvoice(x, codeInvoice.id)).toEqual(codeInvoice);
      });
    });
  });
});
