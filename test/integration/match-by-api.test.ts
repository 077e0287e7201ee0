/**
 * Matching a deposit to an invoice by API (GraphQL `matchTransaction` with an API key or OAuth token, REST
 * `POST /v2/transactions/{id}/match`, `/api/match-transaction`), with the rules of the dashboard's manual match:
 * matchMethod MANUAL, the invoice (pending or expired) paid with trigger DEPOSIT and one invoice.paid; a read-only key
 * refused; a key limited to bank accounts only with a deposit to one of them and an invoice within them (never an
 * all-accounts invoice); another workspace's deposit or invoice reads as missing; a deposit already matched, a 1-won
 * verification deposit, a paid or canceled invoice refused; concurrent matches race to exactly one winner on the real
 * server; Idempotency-Key replays to its own credential only. Un-matching and hiding stay dashboard operations.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addVerifiedBankAccount, bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { dbLabel, startTestApp, type TestApp } from '../helpers/app.ts';
import { createApiKey, oauthAccessToken } from '../helpers/credentials.ts';
import { Receiver } from '../helpers/receiver.ts';
import { until } from '../helpers/wait.ts';

const REDIRECT = 'https://match-partner.example/callback';
const TRANSACTION_KEYS = ['id', 'bankAccount', 'matchedInvoiceId', 'matchMethod', 'amount', 'description', 'hidden', 'receivedAt', 'matchedAt', 'createdAt', 'deletedAt'];
const BANK_ACCOUNT_KEYS = ['id', 'active', 'ownerId', 'alias', 'provider', 'type', 'number', 'createdAt', 'verifiedAt', 'deletedAt'];
const MATCH = `mutation($input: MatchTransactionInput!) { matchTransaction(input: $input) { transaction { id matchedInvoiceId matchMethod matchedAt amount description } } }`;

let t: TestApp;
const rx = new Receiver();
/** The merchant: account A (bootstrap's) and B; a second full key, a read-only key, a key limited to B, an OAuth token. */
let w: Bootstrapped;
let B: { id: string; notificationToken: string };
let keys: { full2: string; readOnly: string; limitedB: string; oauth: string };
/** Another workspace. */
let other: Bootstrapped;

let seq = 0;
/** An amount no other fixture of the file uses (no deposit here matches an invoice by itself unless a test wants it). */
const amount = () => 61_000 + ++seq;

async function invoice(owner: Bootstrapped, bankAccountIds: string[], opts: { name?: string; amount?: number; expireAfter?: string } = {}): Promise<string> {
  const body = { bankAccountIds, customer: { name: opts.name ?? `청구${++seq}` }, amount: opts.amount ?? amount(), ...(opts.expireAfter ? { expireAfter: opts.expireAfter } : {}) };
  const r = await t.client.request('POST', '/v1/invoices', { token: owner.apiKey.secret, body });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data.id;
}

/** A deposit no invoice matches by itself (a name no invoice has). */
async function deposit(account: { notificationToken: string }, opts: { name?: string; amount?: number } = {}): Promise<string> {
  const r = await t.client.deposit(account.notificationToken, { depositorName: opts.name ?? `입금자${++seq}`, amount: opts.amount ?? amount() });
  expect(r.status).toBe(201);
  return r.body.transactionId;
}

const v2Match = (token: string, trxId: string, body: unknown, headers: Record<string, string> = {}) =>
  t.client.request('POST', `/v2/transactions/${trxId}/match`, { token, body, headers });

const gqlMatch = (token: string, transactionId: string, invoiceId: string) => t.client.graphql<any>(MATCH, { input: { transactionId, invoiceId } }, token);

/** The code of a GraphQL answer's first error (null without one). */
const codeOf = (r: { errors?: { extensions?: { code?: string } }[] }) => r.errors?.[0]?.extensions?.code ?? null;

const v2Invoice = async (id: string) => (await t.client.request('GET', `/v2/invoices/${id}`, { token: w.apiKey.secret })).body.data;
const v1Deposit = async (id: string, token = w.apiKey.secret) => (await t.client.request('GET', `/v1/transactions/${id}`, { token })).body.data;
const unix = (v1: string | null) => (v1 === null ? null : Math.floor(Date.parse(v1) / 1000));

/** What a refused match leaves: the invoice as it was, the deposit unmatched. */
async function expectUntouched(trxId: string, invoiceId: string, status = 'PENDING') {
  expect((await v2Invoice(invoiceId)).status).toBe(status);
  expect(await v1Deposit(trxId)).toMatchObject({ matchedInvoiceId: null, matchMethod: null, matchedAt: null });
}

/** The invoice.paid events of an invoice, from the database (the events query). */
async function paidEvents(owner: Bootstrapped, invoiceId: string) {
  const r = await t.client.gql<{ events: { type: string; data: any }[] }>(`query($i: ID!) { events(invoiceId: $i) { type data } }`, { i: invoiceId }, owner.sessionToken);
  return r.events.filter((e) => e.type === 'invoice.paid');
}

beforeAll(async () => {
  await rx.start();
  // On the real server (a socket): the races below are concurrent HTTP requests.
  t = await startTestApp({ env: { RATE_LIMIT_PER_SECOND: '0', WEBHOOK_ALLOW_PRIVATE: 'true' } });
  [w, other] = await Promise.all([bootstrap(t.client, { name: 'MatchOwner' }), bootstrap(t.client, { name: 'MatchOther' })]);
  B = await addVerifiedBankAccount(t.client, w.sessionToken, { alias: 'B' });
  const [full2, readOnly, limitedB] = await Promise.all([
    createApiKey(t.client, w.sessionToken, { name: 'second' }),
    createApiKey(t.client, w.sessionToken, { name: 'reader', readOnly: true }),
    createApiKey(t.client, w.sessionToken, { name: 'only-b', bankAccountIds: [B.id] }),
  ]);
  const app = await t.client.gql(`mutation($i: CreateOAuthAppInput!) { createOAuthApp(input: $i) { app { id } clientSecret } }`, { i: { name: 'MatchApp', redirectUris: [REDIRECT] } }, w.sessionToken);
  const oauth = await oauthAccessToken(t.client, w.sessionToken, { id: app.createOAuthApp.app.id, secret: app.createOAuthApp.clientSecret }, REDIRECT);
  keys = { full2: full2.secret, readOnly: readOnly.secret, limitedB: limitedB.secret, oauth };
});
afterAll(async () => {
  await t?.stop();
  await rx.stop();
});

describe(`matching a deposit to an invoice by API on ${dbLabel}`, () => {
  describe('who may match', () => {
    it('an API key on v2: 200 {code: "10001", data: the v2 deposit} — the v1 fields, Unix seconds; the invoice PAID, its history naming the key', async () => {
      const inv = await invoice(w, [w.bankAccount.id]);
      const trx = await deposit(w.bankAccount);
      const before = Math.floor(Date.now() / 1000);
      const res = await v2Match(w.apiKey.secret, trx, { invoiceId: inv });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(Object.keys(res.body)).toEqual(['code', 'data']);
      expect(res.body.code).toBe('10001');
      const d = res.body.data;
      expect(Object.keys(d)).toEqual(TRANSACTION_KEYS);
      expect(Object.keys(d.bankAccount)).toEqual(BANK_ACCOUNT_KEYS);
      // The same deposit as v1 reads it, its times in Unix seconds.
      const v1 = await v1Deposit(trx);
      expect(d).toEqual({
        ...v1,
        bankAccount: { ...v1.bankAccount, createdAt: unix(v1.bankAccount.createdAt), verifiedAt: unix(v1.bankAccount.verifiedAt) },
        receivedAt: unix(v1.receivedAt),
        matchedAt: unix(v1.matchedAt),
        createdAt: unix(v1.createdAt),
      });
      expect(d).toMatchObject({ id: trx, matchedInvoiceId: inv, matchMethod: 'MANUAL', deletedAt: null, bankAccount: { id: w.bankAccount.id, ownerId: w.accountId, deletedAt: null } });
      expect(d.matchedAt).toBeGreaterThanOrEqual(before);

      const paid = await v2Invoice(inv);
      expect(paid.status).toBe('PAID');
      expect(paid.history.at(-1)).toEqual({
        type: 'paid',
        actor: { type: 'SECRET_API_KEY', accountId: null, apiKeyId: w.apiKey.id, name: 'default' },
        data: { trigger: 'DEPOSIT', transactionId: trx, matchMethod: 'MANUAL' },
        createdAt: d.matchedAt,
      });
    });

    it('an API key and an OAuth token on GraphQL: the deposit MANUAL, the history actor the key or the app', async () => {
      for (const [token, actor] of [
        [w.apiKey.secret, { type: 'SECRET_API_KEY', accountId: null, apiKeyId: w.apiKey.id, name: 'default' }],
        [keys.oauth, { type: 'OAUTH_APP', accountId: null, apiKeyId: null, name: 'MatchApp' }],
      ] as const) {
        const inv = await invoice(w, []);
        const trx = await deposit(B);
        const r = await gqlMatch(token, trx, inv);
        expect(r.errors).toBeUndefined();
        expect(r.data.matchTransaction.transaction).toMatchObject({ id: trx, matchedInvoiceId: inv, matchMethod: 'MANUAL' });
        const history = (await v2Invoice(inv)).history;
        expect(history.at(-1)).toMatchObject({ type: 'paid', actor, data: { trigger: 'DEPOSIT', transactionId: trx, matchMethod: 'MANUAL' } });
      }
    });

    it('the dashboard match still works, its actor the signed-in account', async () => {
      const inv = await invoice(w, [B.id]);
      // A deposit to A for an invoice on B: the buyer paid into the other account; matching by hand settles it.
      const trx = await deposit(w.bankAccount);
      const r = await gqlMatch(w.sessionToken, trx, inv);
      expect(r.errors).toBeUndefined();
      expect(r.data.matchTransaction.transaction).toMatchObject({ matchedInvoiceId: inv, matchMethod: 'MANUAL' });
      expect((await v2Invoice(inv)).history.at(-1)).toMatchObject({ type: 'paid', actor: { type: 'DASHBOARD', accountId: w.accountId, apiKeyId: null } });
    });

    it('/api/match-transaction: the same mutation as a REST route, with an API key', async () => {
      const inv = await invoice(w, []);
      const trx = await deposit(w.bankAccount);
      const res = await t.fetch(`${t.url}/api/match-transaction`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${w.apiKey.secret}` },
        body: JSON.stringify({ input: { transactionId: trx, invoiceId: inv } }),
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ transaction: { id: trx, matchedInvoiceId: inv, matchMethod: 'MANUAL' } });
      const doc = (await (await t.fetch(`${t.url}/api/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
      expect(Object.keys(doc.paths['/match-transaction'] ?? {})).toEqual(['post']);
    });

    it('a read-only key is refused everywhere (v2 403 290007, GraphQL and /api READ_ONLY_KEY); nothing changes', async () => {
      const inv = await invoice(w, []);
      const trx = await deposit(w.bankAccount);
      expect(await v2Match(keys.readOnly, trx, { invoiceId: inv })).toMatchObject({ status: 403, body: { code: '290007', data: null } });
      const g = await gqlMatch(keys.readOnly, trx, inv);
      expect(codeOf(g)).toBe('READ_ONLY_KEY');
      expect(g.data?.matchTransaction ?? null).toBeNull();
      const api = await t.fetch(`${t.url}/api/match-transaction`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${keys.readOnly}` },
        body: JSON.stringify({ input: { transactionId: trx, invoiceId: inv } }),
      });
      expect(api.status).toBe(403);
      expect(await api.json()).toMatchObject({ errors: [{ extensions: { code: 'READ_ONLY_KEY' } }] });
      await expectUntouched(trx, inv);
    });

    it('a dashboard session cannot call v2 (403 290007), as on every v2 route', async () => {
      const inv = await invoice(w, []);
      const trx = await deposit(w.bankAccount);
      expect(await v2Match(w.sessionToken, trx, { invoiceId: inv })).toMatchObject({ status: 403, body: { code: '290007', data: null } });
      expect(await v2Match('sk_live_nope', trx, { invoiceId: inv })).toMatchObject({ status: 401, body: { code: '290006', data: null } });
      await expectUntouched(trx, inv);
    });
  });

  describe('a key limited to account B (spec: account-limited keys)', () => {
    it('a deposit to B and an invoice on B: allowed', async () => {
      const inv = await invoice(w, [B.id]);
      const trx = await deposit(B);
      const res = await v2Match(keys.limitedB, trx, { invoiceId: inv });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data).toMatchObject({ id: trx, matchedInvoiceId: inv, matchMethod: 'MANUAL' });
    });

    it('a deposit outside its accounts, an invoice outside them, an all-accounts invoice, an invoice also on A: 403 80002 / OUT_OF_SCOPE, nothing changes', async () => {
      const onB = await invoice(w, [B.id]);
      const onA = await invoice(w, [w.bankAccount.id]);
      const all = await invoice(w, []);
      const onAB = await invoice(w, [w.bankAccount.id, B.id]);
      const toA = await deposit(w.bankAccount);
      const toB = await deposit(B);
      for (const [trx, inv] of [
        [toA, onB],
        [toB, onA],
        [toB, all],
        [toB, onAB],
      ]) {
        expect(await v2Match(keys.limitedB, trx, { invoiceId: inv }), `${trx} → ${inv}`).toMatchObject({ status: 403, body: { code: '80002', data: null } });
        expect(codeOf(await gqlMatch(keys.limitedB, trx, inv)), `${trx} → ${inv}`).toBe('OUT_OF_SCOPE');
      }
      for (const inv of [onB, onA, all, onAB]) expect((await v2Invoice(inv)).status).toBe('PENDING');
      for (const trx of [toA, toB]) expect((await v1Deposit(trx)).matchedInvoiceId).toBeNull();
    });
  });

  describe('what cannot be matched', () => {
    it("another workspace's deposit or invoice reads as missing (404 20016 / 20014; TRANSACTION_NOT_FOUND / INVOICE_NOT_FOUND); unknown and malformed ids too", async () => {
      const mine = await invoice(w, []);
      const myTrx = await deposit(w.bankAccount);
      const theirs = await invoice(other, []);
      const theirTrx = await deposit(other.bankAccount);
      // Their key: my deposit, or their deposit with my invoice.
      expect(await v2Match(other.apiKey.secret, myTrx, { invoiceId: theirs })).toMatchObject({ status: 404, body: { code: '20016', data: null } });
      expect(await v2Match(other.apiKey.secret, theirTrx, { invoiceId: mine })).toMatchObject({ status: 404, body: { code: '20014', data: null } });
      expect(codeOf(await gqlMatch(other.apiKey.secret, myTrx, theirs))).toBe('TRANSACTION_NOT_FOUND');
      expect(codeOf(await gqlMatch(other.sessionToken, theirTrx, mine))).toBe('INVOICE_NOT_FOUND');
      // My key: their deposit, their invoice.
      expect(await v2Match(w.apiKey.secret, theirTrx, { invoiceId: mine })).toMatchObject({ status: 404, body: { code: '20016', data: null } });
      expect(await v2Match(w.apiKey.secret, myTrx, { invoiceId: theirs })).toMatchObject({ status: 404, body: { code: '20014', data: null } });
      // Ids that name nothing.
      expect(await v2Match(w.apiKey.secret, 'trx_000000000000000000000000', { invoiceId: mine })).toMatchObject({ status: 404, body: { code: '20016', data: null } });
      expect(await v2Match(w.apiKey.secret, 'not-a-deposit', { invoiceId: mine })).toMatchObject({ status: 404, body: { code: '20016', data: null } });
      expect(await v2Match(w.apiKey.secret, myTrx, { invoiceId: 'ivc_000000000000000000000000' })).toMatchObject({ status: 404, body: { code: '20014', data: null } });
      for (const [trx, inv] of [
        [myTrx, mine],
        [theirTrx, theirs],
      ]) {
        const owner = trx === myTrx ? w : other;
        expect((await t.client.request('GET', `/v2/invoices/${inv}`, { token: owner.apiKey.secret })).body.data.status).toBe('PENDING');
        expect((await v1Deposit(trx, owner.apiKey.secret)).matchedInvoiceId).toBeNull();
      }
    });

    it('a body without a usable invoiceId is refused in the v2 envelope, never a 500: 422 30007 (missing, not JSON, not an object), 422 220001 (not an invoice id)', async () => {
      const trx = await deposit(w.bankAccount);
      const key = w.apiKey.secret;
      const post = (rawBody: string | undefined) =>
        t.client.request('POST', `/v2/transactions/${trx}/match`, { token: key, rawBody, headers: rawBody === undefined ? {} : { 'content-type': 'application/json' } });
      for (const raw of [undefined, '', '{}', '{"invoiceId": null}', '{not json', '[]', '"ivc_000000000000000000000000"', '{"invoice_id": "ivc_000000000000000000000000"}']) {
        expect(await post(raw), String(raw)).toMatchObject({ status: 422, body: { code: '30007', data: null } });
      }
      for (const invoiceId of [12345, 'ivc_short', 'trx_000000000000000000000000', 'IVC_000000000000000000000000', ['ivc_000000000000000000000000'], 'ivc_00000000000000000000000\u0000']) {
        expect(await v2Match(key, trx, { invoiceId }), JSON.stringify(invoiceId)).toMatchObject({ status: 422, body: { code: '220001', data: null } });
      }
      expect((await v1Deposit(trx)).matchedInvoiceId).toBeNull();
    });

    it('a deposit already matched (by itself or by hand): 409 220030 / TRANSACTION_ALREADY_MATCHED', async () => {
      const name = `자동${++seq}`;
      const amt = amount();
      const autoPaid = await invoice(w, [], { name, amount: amt });
      const auto = await deposit(w.bankAccount, { name, amount: amt });
      expect(await v1Deposit(auto)).toMatchObject({ matchedInvoiceId: autoPaid, matchMethod: 'EXACT' });
      const another = await invoice(w, []);
      expect(await v2Match(w.apiKey.secret, auto, { invoiceId: another })).toMatchObject({ status: 409, body: { code: '220030', data: null } });
      expect(codeOf(await gqlMatch(w.apiKey.secret, auto, another))).toBe('TRANSACTION_ALREADY_MATCHED');

      const byHand = await deposit(w.bankAccount);
      expect((await v2Match(w.apiKey.secret, byHand, { invoiceId: await invoice(w, []) })).status).toBe(200);
      expect(await v2Match(w.apiKey.secret, byHand, { invoiceId: another })).toMatchObject({ status: 409, body: { code: '220030', data: null } });
      expect((await v2Invoice(another)).status).toBe('PENDING');
    });

    it('a 1-won verification deposit: 409 220032 / TRANSACTION_NOT_MATCHABLE, even to an invoice named after the code', async () => {
      const fresh = await addVerifiedBankAccount(t.client, w.sessionToken, { verify: false, alias: 'new' });
      const named = await invoice(w, [], { name: fresh.verificationCode, amount: 1 });
      const r = await t.client.deposit(fresh.notificationToken, { depositorName: fresh.verificationCode, amount: 1 });
      const trx = r.body.transactionId as string;
      expect(await v1Deposit(trx)).toMatchObject({ hidden: true, matchedInvoiceId: null });
      const res = await v2Match(w.apiKey.secret, trx, { invoiceId: named });
      expect(res).toMatchObject({ status: 409, body: { code: '220032', data: null } });
      const g = await gqlMatch(w.apiKey.secret, trx, named);
      expect(g.errors?.[0]).toMatchObject({ message: 'A 1-won verification deposit cannot pay an invoice.', extensions: { code: 'TRANSACTION_NOT_MATCHABLE' } });
      await expectUntouched(trx, named);
    });

    it('an invoice paid or canceled: 409 220011 (INVOICE_ALREADY_PAID / INVOICE_CANCELED); an expired invoice can still be matched', async () => {
      const paid = await invoice(w, []);
      expect((await t.client.request('POST', `/v1/invoices/${paid}/mark-as-paid`, { token: w.apiKey.secret })).status).toBe(200);
      const canceled = await invoice(w, []);
      expect((await t.client.request('POST', `/v2/invoices/${canceled}/cancel`, { token: w.apiKey.secret, body: { reason: 'gone' } })).status).toBe(200);
      const trx = await deposit(w.bankAccount);
      expect(await v2Match(w.apiKey.secret, trx, { invoiceId: paid })).toMatchObject({ status: 409, body: { code: '220011', data: null } });
      expect(await v2Match(w.apiKey.secret, trx, { invoiceId: canceled })).toMatchObject({ status: 409, body: { code: '220011', data: null } });
      expect(codeOf(await gqlMatch(w.apiKey.secret, trx, paid))).toBe('INVOICE_ALREADY_PAID');
      expect(codeOf(await gqlMatch(w.apiKey.secret, trx, canceled))).toBe('INVOICE_CANCELED');
      expect((await v1Deposit(trx)).matchedInvoiceId).toBeNull();

      const expiring = await invoice(w, [], { expireAfter: '1s' });
      await until(() => v2Invoice(expiring), (i) => i.status === 'EXPIRED', 5_000, 100);
      const res = await v2Match(w.apiKey.secret, trx, { invoiceId: expiring });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect((await v2Invoice(expiring)).status).toBe('PAID');
    });
  });

  describe('races on the real server', () => {
    it('one deposit matched to two invoices at once, five times over (v2 and GraphQL): exactly one wins, the other is 220030 / TRANSACTION_ALREADY_MATCHED', async () => {
      for (let round = 0; round < 5; round++) {
        const [i1, i2] = await Promise.all([invoice(w, []), invoice(w, [])]);
        const trx = await deposit(w.bankAccount);
        const viaGraphql = round % 2 === 1;
        // The second match by GraphQL every other round: its outcome written as v2 writes it.
        const second = viaGraphql
          ? gqlMatch(keys.full2, trx, i2).then((g) => (codeOf(g) === null ? '200 10001' : codeOf(g) === 'TRANSACTION_ALREADY_MATCHED' ? '409 220030' : `GraphQL ${codeOf(g)}`))
          : v2Match(keys.full2, trx, { invoiceId: i2 }).then((r) => `${r.status} ${r.body.code}`);
        const [a, b] = await Promise.all([v2Match(w.apiKey.secret, trx, { invoiceId: i1 }).then((r) => `${r.status} ${r.body.code}`), second]);
        expect([a, b].sort(), `round ${round}`).toEqual(['200 10001', '409 220030']);
        const winner = a === '200 10001' ? i1 : i2;
        const loser = winner === i1 ? i2 : i1;
        expect(await v1Deposit(trx)).toMatchObject({ matchedInvoiceId: winner, matchMethod: 'MANUAL' });
        expect((await v2Invoice(winner)).status).toBe('PAID');
        const lost = await v2Invoice(loser);
        expect(lost.status).toBe('PENDING');
        expect(lost.history.map((h: { type: string }) => h.type)).not.toContain('paid');
        expect(await paidEvents(w, winner)).toHaveLength(1);
        expect(await paidEvents(w, loser)).toHaveLength(0);
      }
    });

    it('two deposits matched to one invoice at once, five times over: exactly one pays it, the other is 220011 and stays unmatched', async () => {
      for (let round = 0; round < 5; round++) {
        const inv = await invoice(w, []);
        const [d1, d2] = await Promise.all([deposit(w.bankAccount), deposit(B)]);
        const [a, b] = await Promise.all([v2Match(w.apiKey.secret, d1, { invoiceId: inv }), v2Match(keys.full2, d2, { invoiceId: inv })]);
        expect([a, b].map((r) => `${r.status} ${r.body.code}`).sort(), `round ${round}`).toEqual(['200 10001', '409 220011']);
        const [winner, loser] = a.status === 200 ? [d1, d2] : [d2, d1];
        expect(await v1Deposit(winner)).toMatchObject({ matchedInvoiceId: inv, matchMethod: 'MANUAL' });
        expect(await v1Deposit(loser)).toMatchObject({ matchedInvoiceId: null, matchMethod: null });
        const events = await paidEvents(w, inv);
        expect(events).toHaveLength(1);
        expect(events[0].data.transaction.id).toBe(winner);
      }
    });
  });

  it('invoice.paid is emitted once, trigger DEPOSIT and matchMethod MANUAL, to V1 and V2 webhooks alike', async () => {
    const m = await bootstrap(t.client, { name: 'MatchHooks' });
    for (const version of ['V1', 'V2']) {
      await t.client.gql(`mutation($i: CreateWebhookInput!) { createWebhook(input: $i) { webhook { id } } }`, { i: { url: `${rx.url}?v=${version}`, version } }, m.sessionToken);
    }
    const inv = await invoice(m, []);
    const trx = await deposit(m.bankAccount);
    expect((await v2Match(m.apiKey.secret, trx, { invoiceId: inv })).status).toBe(200);
    // A later event as the marker: once it has arrived at both webhooks, the payment's deliveries have too.
    const marker = await invoice(m, []);
    const mine = () => rx.received.filter((r) => r.json?.workspaceId === m.workspaceId);
    await rx.waitFor(() => mine().filter((r) => r.json.type === 'invoice.created' && r.json.data.invoice.id === marker).length === 2 && mine().filter((r) => r.json.type === 'invoice.paid').length >= 2);
    const paid = mine().filter((r) => r.json.type === 'invoice.paid');
    expect(paid).toHaveLength(2);
    for (const r of paid) {
      expect(r.json.data.invoice.id).toBe(inv);
      expect(r.json.data.trigger).toBe('DEPOSIT');
      expect(r.json.data.transaction).toMatchObject({ id: trx, matchedInvoiceId: inv, matchMethod: 'MANUAL' });
    }
    expect(new Set(paid.map((r) => typeof r.json.createdAt))).toEqual(new Set(['string', 'number']));
    const events = await paidEvents(m, inv);
    expect(events).toHaveLength(1);
    expect(events[0].data).toMatchObject({ trigger: 'DEPOSIT', transaction: { id: trx, matchMethod: 'MANUAL' } });
  });

  describe('un-matching and hiding stay dashboard operations', () => {
    it('an API key cannot un-match or hide (DASHBOARD_ONLY on GraphQL and /api; no v2 route); the dashboard un-matches a deposit a key matched', async () => {
      const inv = await invoice(w, []);
      const trx = await deposit(w.bankAccount);
      expect((await v2Match(w.apiKey.secret, trx, { invoiceId: inv })).status).toBe(200);
      for (const token of [w.apiKey.secret, keys.oauth, keys.limitedB]) {
        const un = await t.client.graphql(`mutation($id: ID!) { unmatchTransaction(id: $id) { transaction { id } } }`, { id: trx }, token);
        expect(codeOf(un)).toBe('DASHBOARD_ONLY');
        const hide = await t.client.graphql(`mutation($id: ID!) { setTransactionHidden(id: $id, hidden: true) { transaction { id } } }`, { id: trx }, token);
        expect(codeOf(hide)).toBe('DASHBOARD_ONLY');
      }
      const api = await t.fetch(`${t.url}/api/unmatch-transaction`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${w.apiKey.secret}` },
        body: JSON.stringify({ id: trx }),
      });
      expect(api.status).toBe(403);
      expect(await api.json()).toMatchObject({ errors: [{ extensions: { code: 'DASHBOARD_ONLY' } }] });
      expect(await t.client.request('POST', `/v2/transactions/${trx}/unmatch`, { token: w.apiKey.secret })).toMatchObject({ status: 404, body: { code: '30003', data: null } });
      expect(await v1Deposit(trx)).toMatchObject({ matchedInvoiceId: inv, matchMethod: 'MANUAL' });

      const un = await t.client.gql(`mutation($id: ID!) { unmatchTransaction(id: $id) { transaction { id matchedInvoiceId } } }`, { id: trx }, w.sessionToken);
      expect(un.unmatchTransaction.transaction).toEqual({ id: trx, matchedInvoiceId: null });
      expect((await v2Invoice(inv)).status).toBe('PENDING');
    });
  });

  describe('Idempotency-Key', () => {
    it('v2: the same key and request replay the first answer to its credential; another key sending it makes a call of its own; another request is 30020', async () => {
      const inv = await invoice(w, []);
      const trx = await deposit(w.bankAccount);
      const headers = { 'idempotency-key': `match-${trx}` };
      const first = await v2Match(w.apiKey.secret, trx, { invoiceId: inv }, headers);
      expect(first.status).toBe(200);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const again = await v2Match(w.apiKey.secret, trx, { invoiceId: inv }, headers);
      expect({ status: again.status, body: again.body, replayed: again.headers.get('idempotent-replayed') }).toEqual({ status: 200, body: first.body, replayed: 'true' });
      // Another full key of the workspace: not the stored answer, its own call (the deposit is matched by now).
      const otherKey = await v2Match(keys.full2, trx, { invoiceId: inv }, headers);
      expect({ status: otherKey.status, body: otherKey.body, replayed: otherKey.headers.get('idempotent-replayed') }).toEqual({ status: 409, body: { code: '220030', data: null }, replayed: null });
      // The read-only key and the limited key: their own refusals.
      expect(await v2Match(keys.readOnly, trx, { invoiceId: inv }, headers)).toMatchObject({ status: 403, body: { code: '290007', data: null } });
      expect(await v2Match(keys.limitedB, trx, { invoiceId: inv }, headers)).toMatchObject({ status: 403, body: { code: '80002', data: null } });
      // The first credential, the same key, another request.
      const reused = await v2Match(w.apiKey.secret, trx, { invoiceId: await invoice(w, []) }, headers);
      expect(reused).toMatchObject({ status: 422, body: { code: '30020', data: null } });
      expect(await paidEvents(w, inv)).toHaveLength(1);
    });

    it('GraphQL: a replay for the same key; a session and an OAuth token with the same key string get their own answers', async () => {
      const inv = await invoice(w, []);
      const trx = await deposit(w.bankAccount);
      const send = async (token: string) => {
        const res = await t.fetch(`${t.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'idempotency-key': `gql-match-${trx}` },
          body: JSON.stringify({ query: MATCH, variables: { input: { transactionId: trx, invoiceId: inv } } }),
        });
        return { status: res.status, replayed: res.headers.get('idempotent-replayed'), body: (await res.json()) as any };
      };
      const first = await send(w.apiKey.secret);
      expect(first.body.data.matchTransaction.transaction).toMatchObject({ id: trx, matchedInvoiceId: inv, matchMethod: 'MANUAL' });
      expect(await send(w.apiKey.secret)).toEqual({ ...first, replayed: 'true' });
      for (const token of [w.sessionToken, keys.oauth, keys.full2]) {
        const own = await send(token);
        expect(own.replayed).toBeNull();
        expect(codeOf(own.body)).toBe('TRANSACTION_ALREADY_MATCHED');
      }
      expect(await paidEvents(w, inv)).toHaveLength(1);
    });
  });
});
