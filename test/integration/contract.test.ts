/**
 * The dashboard contract of the foundation (fixed names): signUp, logIn, registerBankAccount with its 1-won
 * verification, registerBusinessInfo, the API-key mutations, POST /bank-notifications, and cross-workspace isolation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addVerifiedBankAccount, bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { OffsetClock } from '../../src/domain/clock.ts';
import { sha256Hex } from '../../src/domain/secrets.ts';
import { dbLabel, startTestApp, type TestApp } from '../helpers/app.ts';

const SIGN_UP = `mutation($input: SignUpInput!) { signUp(input: $input) { token account { id } workspace { id } } }`;
const LOG_IN = `mutation($input: LogInInput!) { logIn(input: $input) { token } }`;
const REGISTER_BANK = `mutation($input: RegisterBankAccountInput!) { registerBankAccount(input: $input) { bankAccount { id verifiedAt } verificationCode notificationToken } }`;
const CREATE_KEY = `mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { apiKey { id } secret } }`;
const BUSINESS = `mutation($input: RegisterBusinessInfoInput!) { registerBusinessInfo(input: $input) { workspace { id businessInfo { corpNum companyName agency } } } }`;

describe(`dashboard contract on ${dbLabel}`, () => {
  let t: TestApp;
  const clock = new OffsetClock();
  let a: Bootstrapped;
  let b: Bootstrapped;

  beforeAll(async () => {
    t = await startTestApp({ clock, socket: false });
    [a, b] = await Promise.all([bootstrap(t.client), bootstrap(t.client)]);
  });
  afterAll(() => t?.stop());

  const codes = (r: { errors?: { extensions?: { code?: string } }[] }) => (r.errors ?? []).map((e) => e.extensions?.code);

  describe('signUp and logIn', () => {
    it('signUp creates an acc_ account owning a new workspace and returns a session token', async () => {
      const r = await t.client.graphql(SIGN_UP, { input: { email: 'New.User@Example.com', password: 'password-1', name: 'New' } });
      expect(r.errors).toBeUndefined();
      expect(r.data!.signUp.token).toMatch(/^sess_[a-z0-9]{40}$/);
      expect(r.data!.signUp.account.id).toMatch(/^acc_[a-z0-9]{24}$/);
      expect(r.data!.signUp.workspace.id).toMatch(/^wsp_[a-z0-9]{24}$/);
      const viewer = await t.client.gql(`{ viewer { kind workspace { id ownerId } account { email } } }`, {}, r.data!.signUp.token);
      expect(viewer.viewer).toEqual({ kind: 'SESSION', workspace: { id: r.data!.signUp.workspace.id, ownerId: r.data!.signUp.account.id }, account: { email: 'new.user@example.com' } });
    });

    it('the same e-mail (any case) cannot sign up twice: EMAIL_TAKEN', async () => {
      const r = await t.client.graphql(SIGN_UP, { input: { email: a.email.toUpperCase(), password: 'password-1', name: 'Dup' } });
      expect(codes(r)).toEqual(['EMAIL_TAKEN']);
      expect(r.data).toBeNull();
    });

    it.each([
      ['email', { email: 'nope', password: 'password-1', name: 'X' }],
      ['password', { email: 'short@example.com', password: 'short', name: 'X' }],
      ['name', { email: 'noname@example.com', password: 'password-1', name: '   ' }],
    ])('bad %s → VALIDATION_FAILED naming the field, and no account is created', async (field, input) => {
      const r = await t.client.graphql(SIGN_UP, { input });
      expect(codes(r)).toEqual(['VALIDATION_FAILED']);
      expect(r.errors![0].extensions!.field).toEqual([field]);
      const login = await t.client.graphql(LOG_IN, { input: { email: input.email, password: input.password } });
      expect(codes(login)).toEqual(['INVALID_CREDENTIALS']);
    });

    it('logIn with the right password returns a new working session token', async () => {
      const r = await t.client.gql(LOG_IN, { input: { email: a.email, password: a.password } });
      expect(r.logIn.token).toMatch(/^sess_/);
      expect(r.logIn.token).not.toBe(a.sessionToken);
      const v = await t.client.gql(`{ viewer { workspace { id } } }`, {}, r.logIn.token);
      expect(v.viewer.workspace.id).toBe(a.workspaceId);
    });

    it('a wrong password and an unknown e-mail get the same INVALID_CREDENTIALS', async () => {
      const wrong = await t.client.graphql(LOG_IN, { input: { email: a.email, password: 'wrong-password' } });
      const unknown = await t.client.graphql(LOG_IN, { input: { email: 'nobody@example.com', password: 'wrong-password' } });
      expect(codes(wrong)).toEqual(['INVALID_CREDENTIALS']);
      expect(codes(unknown)).toEqual(['INVALID_CREDENTIALS']);
      expect(wrong.errors![0].message).toBe(unknown.errors![0].message);
    });

    it('after 10 failures in 15 minutes even the right password is refused (TOO_MANY_ATTEMPTS)', async () => {
      const victim = await bootstrap(t.client, { businessInfo: false });
      for (let i = 0; i < 10; i++) {
        const r = await t.client.graphql(LOG_IN, { input: { email: victim.email, password: `guess-${i}-xx` } });
        expect(codes(r)).toEqual(['INVALID_CREDENTIALS']);
      }
      const blocked = await t.client.graphql(LOG_IN, { input: { email: victim.email, password: victim.password } });
      expect(codes(blocked)).toEqual(['TOO_MANY_ATTEMPTS']);
      clock.advance(16 * 60_000);
      const again = await t.client.graphql(LOG_IN, { input: { email: victim.email, password: victim.password } });
      expect(again.errors).toBeUndefined();
    });

    it('passwords and session tokens are stored hashed', async () => {
      const rows = await t.app.db.sql.query<{ passwordHash: string }>(`SELECT "passwordHash" FROM "Account" WHERE email = $1`, [a.email]);
      expect(rows[0].passwordHash).toMatch(/^scrypt\$/);
      expect(rows[0].passwordHash).not.toContain(a.password);
      const sessions = await t.app.db.sql.query<{ tokenHash: string }>(`SELECT "tokenHash" FROM "Session" WHERE "tokenHash" = $1`, [sha256Hex(a.sessionToken)]);
      expect(sessions).toHaveLength(1);
      const plain = await t.app.db.sql.query(`SELECT 1 FROM "Session" WHERE "tokenHash" = $1`, [a.sessionToken]);
      expect(plain).toHaveLength(0);
    });
  });

  describe('registerBankAccount and the 1-won verification', () => {
    it('returns the unverified account, a 6-digit verification code and a notification token', async () => {
      const r = await t.client.gql(REGISTER_BANK, { input: { provider: 'KAKAOBANK', type: 'CORPORATE', number: '3333-01-1234567', alias: 'ops' } }, a.sessionToken);
      const reg = r.registerBankAccount;
      expect(reg.bankAccount.id).toMatch(/^bac_[a-z0-9]{24}$/);
      expect(reg.bankAccount.verifiedAt).toBeNull();
      expect(reg.verificationCode).toMatch(/^\d{6}$/);
      expect(reg.notificationToken).toMatch(/^bnt_/);
      const accounts = await t.client.gql(`{ bankAccounts { id number provider type alias verifiedAt } }`, {}, a.sessionToken);
      expect(accounts.bankAccounts).toContainEqual({ id: reg.bankAccount.id, number: '3333011234567', provider: 'KAKAOBANK', type: 'CORPORATE', alias: 'ops', verifiedAt: null });
    });

    it('a 1-won deposit with the code verifies the account; it is stored hidden and never matched', async () => {
      const acc = await addVerifiedBankAccount(t.client, a.sessionToken, { verify: false });
      // An invoice that a 1-won deposit named after the code would otherwise match.
      await t.client.request('POST', '/v1/invoices', { token: a.apiKey.secret, body: { bankAccountIds: [], customer: { name: acc.verificationCode }, amount: 1 } });
      const wrongAmount = await t.client.deposit(acc.notificationToken, { depositorName: acc.verificationCode, amount: 2 });
      const wrongCode = await t.client.deposit(acc.notificationToken, { depositorName: '000000x', amount: 1 });
      expect([wrongAmount.status, wrongCode.status]).toEqual([201, 201]);
      let list = await t.client.gql(`{ bankAccounts { id verifiedAt } }`, {}, a.sessionToken);
      expect(list.bankAccounts.find((x: { id: string }) => x.id === acc.id).verifiedAt).toBeNull();

      const ok = await t.client.deposit(acc.notificationToken, { depositorName: acc.verificationCode, amount: 1 });
      expect(ok.status).toBe(201);
      list = await t.client.gql(`{ bankAccounts { id verifiedAt } }`, {}, a.sessionToken);
      expect(list.bankAccounts.find((x: { id: string }) => x.id === acc.id).verifiedAt).toMatch(/^\d{4}-/);
      const trx = await t.client.gql(`query($id: ID!) { transaction(id: $id) { hidden verification matchedInvoiceId amount } }`, { id: ok.body.transactionId }, a.sessionToken);
      expect(trx.transaction).toEqual({ hidden: true, verification: true, matchedInvoiceId: null, amount: 1 });
    });

    it.each([
      ['provider', { provider: 'NOT_A_BANK', type: 'PERSONAL', number: '1101234567890', alias: 'x' }],
      ['number', { provider: 'SHINHAN', type: 'PERSONAL', number: '12345', alias: 'x' }],
      ['number', { provider: 'SHINHAN', type: 'PERSONAL', number: '110-12a-4567890', alias: 'x' }],
      ['alias', { provider: 'SHINHAN', type: 'PERSONAL', number: '1101234567891', alias: '' }],
    ])('bad %s → VALIDATION_FAILED naming it', async (field, input) => {
      const r = await t.client.graphql(REGISTER_BANK, { input }, a.sessionToken);
      expect(codes(r)).toEqual(['VALIDATION_FAILED']);
      expect(r.errors![0].extensions!.field).toEqual([field]);
    });

    it('the same account twice in a workspace → BANK_ACCOUNT_ALREADY_REGISTERED; another workspace may register it', async () => {
      const input = { provider: 'WOORI', type: 'PERSONAL', number: '1002123456789', alias: 'w' };
      expect((await t.client.graphql(REGISTER_BANK, { input }, a.sessionToken)).errors).toBeUndefined();
      expect(codes(await t.client.graphql(REGISTER_BANK, { input }, a.sessionToken))).toEqual(['BANK_ACCOUNT_ALREADY_REGISTERED']);
      expect((await t.client.graphql(REGISTER_BANK, { input }, b.sessionToken)).errors).toBeUndefined();
    });

    it('needs a dashboard session: no token → UNAUTHENTICATED, an API key → DASHBOARD_ONLY', async () => {
      const input = { provider: 'HANA', type: 'PERSONAL', number: '1231234567890', alias: 'h' };
      expect(codes(await t.client.graphql(REGISTER_BANK, { input }))).toEqual(['UNAUTHENTICATED']);
      expect(codes(await t.client.graphql(REGISTER_BANK, { input }, a.apiKey.secret))).toEqual(['DASHBOARD_ONLY']);
    });

    it('bankProviders lists the seven providers with their truncation lengths', async () => {
      const r = await t.client.gql(`{ bankProviders { id depositorNameLength } }`);
      expect(r.bankProviders).toHaveLength(7);
      expect(r.bankProviders).toContainEqual({ id: 'SHINHAN', depositorNameLength: 7 });
    });
  });

  describe('POST /bank-notifications', () => {
    it('stores a deposit: 201 {transactionId}; the same notificationId again → 200 with the same id, nothing new', async () => {
      const first = await t.client.deposit(a.bankAccount.notificationToken, { depositorName: '김철수', amount: 5000, notificationId: 'dup-1' });
      expect(first.status).toBe(201);
      expect(first.body).toEqual({ transactionId: expect.stringMatching(/^trx_[a-z0-9]{24}$/) });
      const again = await t.client.deposit(a.bankAccount.notificationToken, { depositorName: '다른이름', amount: 9999, notificationId: 'dup-1' });
      expect(again).toMatchObject({ status: 200, body: { transactionId: first.body.transactionId } });
      const rows = await t.app.db.sql.query<{ n: string }>(`SELECT count(*)::text AS n FROM "Transaction" WHERE "notificationId" = 'dup-1' AND "bankAccountId" = $1`, [a.bankAccount.id]);
      expect(rows[0].n).toBe('1');
    });

    it('ten simultaneous copies of one notification store one transaction (one 201, nine 200, one id)', async () => {
      const rs = await Promise.all(Array.from({ length: 10 }, () => t.client.deposit(a.bankAccount.notificationToken, { depositorName: '동시', amount: 700, notificationId: 'race-1' })));
      expect(rs.filter((r) => r.status === 201)).toHaveLength(1);
      expect(rs.filter((r) => r.status === 200)).toHaveLength(9);
      expect(new Set(rs.map((r) => r.body.transactionId)).size).toBe(1);
    });

    it('notificationId is unique per account: the same id on another account is a new deposit', async () => {
      const x = await t.client.deposit(a.bankAccount.notificationToken, { depositorName: '이영희', amount: 100, notificationId: 'shared-id' });
      const y = await t.client.deposit(b.bankAccount.notificationToken, { depositorName: '이영희', amount: 100, notificationId: 'shared-id' });
      expect([x.status, y.status]).toEqual([201, 201]);
      expect(x.body.transactionId).not.toBe(y.body.transactionId);
    });

    it('an unknown or missing token → 401 NOT_AUTHORIZED; an API key is not a notification token', async () => {
      for (const token of [undefined, 'bnt_unknown', a.apiKey.secret]) {
        const r = await t.client.request('POST', '/bank-notifications', { token, body: { notificationId: 'x', depositorName: 'a', amount: 1, receivedAt: '2026-11-21T19:00:00+09:00' } });
        expect(r.status).toBe(401);
        expect(r.body.code).toBe('NOT_AUTHORIZED');
      }
    });

    it.each([
      ['notificationId', { depositorName: 'a', amount: 1, receivedAt: '2026-11-21T19:00:00+09:00' }, 422, 'VALIDATION_FAILED'],
      ['depositorName', { notificationId: 'v1', amount: 1, receivedAt: '2026-11-21T19:00:00+09:00' }, 422, 'VALIDATION_FAILED'],
      ['amount', { notificationId: 'v2', depositorName: 'a', amount: 0, receivedAt: '2026-11-21T19:00:00+09:00' }, 422, 'INVALID_AMOUNT'],
      ['amount', { notificationId: 'v3', depositorName: 'a', amount: 2_147_483_648, receivedAt: '2026-11-21T19:00:00+09:00' }, 422, 'INVALID_AMOUNT'],
      ['receivedAt', { notificationId: 'v4', depositorName: 'a', amount: 1, receivedAt: 'yesterday' }, 422, 'VALIDATION_FAILED'],
      ['receivedAt', { notificationId: 'v5', depositorName: 'a', amount: 1, receivedAt: '2026-11-21T19:00:00' }, 422, 'VALIDATION_FAILED'],
    ])('bad %s → %d %s, nothing stored', async (field, body, status, code) => {
      const r = await t.client.request('POST', '/bank-notifications', { token: a.bankAccount.notificationToken, body });
      expect(r.status).toBe(status);
      expect(r.body.code).toBe(code);
      if (code === 'VALIDATION_FAILED') expect(r.body.field).toBe(field);
      const rows = await t.app.db.sql.query(`SELECT 1 FROM "Transaction" WHERE "notificationId" = $1`, [(body as { notificationId?: string }).notificationId ?? '']);
      expect(rows).toHaveLength(0);
    });

    it('invalid JSON → 400 BAD_REQUEST', async () => {
      const r = await t.client.request('POST', '/bank-notifications', { token: a.bankAccount.notificationToken, rawBody: '{"notificationId":', headers: { 'content-type': 'application/json' } });
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('BAD_REQUEST');
    });

    it('the transaction keeps a snapshot of the account as it was', async () => {
      const r = await t.client.deposit(a.bankAccount.notificationToken, { depositorName: '스냅샷', amount: 321 });
      const trx = await t.client.gql(`query($id: ID!) { transaction(id: $id) { bankAccount { id number provider alias active } receivedAt } }`, { id: r.body.transactionId }, a.sessionToken);
      expect(trx.transaction.bankAccount).toEqual({ id: a.bankAccount.id, number: a.bankAccount.number, provider: 'SHINHAN', alias: 'main', active: true });
    });
  });

  describe('registerBusinessInfo', () => {
    it('registers the business and links the simulated agency; hyphens in corpNum are removed', async () => {
      const r = await t.client.gql(BUSINESS, { input: { corpNum: '123-45-67890', companyName: 'ACME', representativeName: 'Kim' } }, b.sessionToken);
      expect(r.registerBusinessInfo.workspace).toEqual({ id: b.workspaceId, businessInfo: { corpNum: '1234567890', companyName: 'ACME', agency: 'SIMULATED' } });
    });
    it('a corpNum that is not 10 digits → VALIDATION_FAILED', async () => {
      const r = await t.client.graphql(BUSINESS, { input: { corpNum: '12345', companyName: 'ACME', representativeName: 'Kim' } }, b.sessionToken);
      expect(codes(r)).toEqual(['VALIDATION_FAILED']);
      expect(r.errors![0].extensions!.field).toEqual(['corpNum']);
    });
    it('needs a session', async () => {
      const r = await t.client.graphql(BUSINESS, { input: { corpNum: '1234567890', companyName: 'ACME', representativeName: 'Kim' } }, b.apiKey.secret);
      expect(codes(r)).toEqual(['DASHBOARD_ONLY']);
    });
  });

  describe('API keys', () => {
    const v1List = (token: string) => t.client.request('GET', '/v1/invoices?offset=0&limit=1', { token });

    it('createApiKey returns the secret once; only its hash is stored; the key works on v1', async () => {
      const r = await t.client.gql(CREATE_KEY, { input: { name: 'ci' } }, a.sessionToken);
      expect(r.createApiKey.secret).toMatch(/^sk_live_[a-z0-9]{40}$/);
      expect(r.createApiKey.apiKey.id).toMatch(/^apk_/);
      const stored = await t.app.db.sql.query<{ secretHash: string }>(`SELECT "secretHash" FROM "ApiKey" WHERE id = $1`, [r.createApiKey.apiKey.id]);
      expect(stored[0].secretHash).toBe(sha256Hex(r.createApiKey.secret));
      const listed = await t.client.gql(`{ apiKeys { id name secretHint readOnly bankAccountIds } }`, {}, a.sessionToken);
      expect(listed.apiKeys).toContainEqual({ id: r.createApiKey.apiKey.id, name: 'ci', secretHint: r.createApiKey.secret.slice(-4), readOnly: false, bankAccountIds: null });
      expect(JSON.stringify(listed)).not.toContain(r.createApiKey.secret);
      expect((await v1List(r.createApiKey.secret)).status).toBe(200);
    });

    it('disableApiKey and deleteApiKey stop the key at once (401 NOT_AUTHORIZED)', async () => {
      for (const op of ['disableApiKey', 'deleteApiKey']) {
        const k = await t.client.gql(CREATE_KEY, { input: { name: op } }, a.sessionToken);
        expect((await v1List(k.createApiKey.secret)).status).toBe(200);
        const r = await t.client.gql(`mutation($id: ID!) { ${op}(id: $id) { apiKey { id } } }`, { id: k.createApiKey.apiKey.id }, a.sessionToken);
        expect(r[op].apiKey.id).toBe(k.createApiKey.apiKey.id);
        const after = await v1List(k.createApiKey.secret);
        expect(after).toMatchObject({ status: 401, body: { code: 'NOT_AUTHORIZED', data: null } });
      }
    });

    it('an expired key is unauthorized', async () => {
      const k = await t.client.gql(CREATE_KEY, { input: { name: 'short-lived', expiresAt: new Date(clock.now().getTime() + 60_000).toISOString() } }, a.sessionToken);
      expect((await v1List(k.createApiKey.secret)).status).toBe(200);
      clock.advance(61_000);
      expect((await v1List(k.createApiKey.secret)).status).toBe(401);
    });

    it('expiresAt in the past → VALIDATION_FAILED; another workspace’s bank account → BANK_ACCOUNT_NOT_FOUND', async () => {
      const past = await t.client.graphql(CREATE_KEY, { input: { name: 'x', expiresAt: '2000-01-01T00:00:00Z' } }, a.sessionToken);
      expect(codes(past)).toEqual(['VALIDATION_FAILED']);
      const foreign = await t.client.graphql(CREATE_KEY, { input: { name: 'x', bankAccountIds: [b.bankAccount.id] } }, a.sessionToken);
      expect(codes(foreign)).toEqual(['BANK_ACCOUNT_NOT_FOUND']);
    });

    it('another workspace cannot disable or delete my key (NOT_FOUND); an API key cannot manage keys (DASHBOARD_ONLY)', async () => {
      for (const op of ['disableApiKey', 'deleteApiKey']) {
        const r = await t.client.graphql(`mutation($id: ID!) { ${op}(id: $id) { apiKey { id } } }`, { id: a.apiKey.id }, b.sessionToken);
        expect(codes(r)).toEqual(['NOT_FOUND']);
        const r2 = await t.client.graphql(`mutation($id: ID!) { ${op}(id: $id) { apiKey { id } } }`, { id: a.apiKey.id }, a.apiKey.secret);
        expect(codes(r2)).toEqual(['DASHBOARD_ONLY']);
      }
      expect((await v1List(a.apiKey.secret)).status).toBe(200);
    });

    it('a dashboard session token cannot call v1 (403 INSUFFICIENT_PERMISSIONS)', async () => {
      expect(await v1List(a.sessionToken)).toMatchObject({ status: 403, body: { code: 'INSUFFICIENT_PERMISSIONS', data: null } });
    });
  });

  describe('cross-workspace isolation', () => {
    it("workspace B sees nothing of A's invoices and deposits, by v1 or GraphQL", async () => {
      const inv = await t.client.request('POST', '/v1/invoices', { token: a.apiKey.secret, body: { bankAccountIds: [], customer: { name: '격리' }, amount: 4321 } });
      expect(inv.status).toBe(201);
      const dep = await t.client.deposit(a.bankAccount.notificationToken, { depositorName: '격리', amount: 4321 });
      const id = inv.body.data.id;
      // v1: 403 for another account's resource (spec); it shows nothing of it.
      expect(await t.client.request('GET', `/v1/invoices/${id}`, { token: b.apiKey.secret })).toMatchObject({ status: 403, body: { code: 'INSUFFICIENT_PERMISSIONS', data: null } });
      expect(await t.client.request('POST', `/v1/invoices/${id}/mark-as-paid`, { token: b.apiKey.secret })).toMatchObject({ status: 403, body: { code: 'INSUFFICIENT_PERMISSIONS' } });
      expect(await t.client.request('DELETE', `/v1/invoices/${id}`, { token: b.apiKey.secret })).toMatchObject({ status: 403, body: { code: 'INSUFFICIENT_PERMISSIONS' } });
      expect(await t.client.request('GET', `/v1/transactions/${dep.body.transactionId}`, { token: b.apiKey.secret })).toMatchObject({ status: 403, body: { code: 'INSUFFICIENT_PERMISSIONS', data: null } });
      // v2 does not tell it from a missing one.
      expect(await t.client.request('GET', `/v2/invoices/${id}`, { token: b.apiKey.secret })).toMatchObject({ status: 404, body: { code: '20014', data: null } });
      const list = await t.client.request('GET', `/v1/invoices?offset=0&limit=100&search=${id}`, { token: b.apiKey.secret });
      expect(list.body).toEqual({ code: 'OK', data: [], totalItems: 0 });
      const tlist = await t.client.request('GET', `/v1/transactions?offset=0&limit=100&search=${dep.body.transactionId}`, { token: b.apiKey.secret });
      expect(tlist.body).toEqual({ code: 'OK', data: [], totalItems: 0 });
      const g = await t.client.graphql(`query($id: ID!) { invoice(id: $id) { id } }`, { id }, b.sessionToken);
      expect(codes(g)).toEqual(['INVOICE_NOT_FOUND']);
      const m = await t.client.graphql(`mutation($i: MatchTransactionInput!) { matchTransaction(input: $i) { transaction { id } } }`, { i: { transactionId: dep.body.transactionId, invoiceId: id } }, b.sessionToken);
      expect(codes(m)).toEqual(['TRANSACTION_NOT_FOUND']);
      const still = await t.client.request('GET', `/v1/invoices/${id}`, { token: a.apiKey.secret });
      expect(still.body.data.paid).toBe(true);
    });

    it("B's key cannot name A's bank account in an invoice (403 INSUFFICIENT_PERMISSIONS)", async () => {
      const r = await t.client.request('POST', '/v1/invoices', { token: b.apiKey.secret, body: { bankAccountIds: [a.bankAccount.id], customer: { name: '침입' }, amount: 1 } });
      expect(r).toMatchObject({ status: 403, body: { code: 'INSUFFICIENT_PERMISSIONS', data: null } });
    });
  });

  describe('health', () => {
    it('GET /healthz → 200; GET /readyz → 200 with the database kind once migrations are applied', async () => {
      expect(await t.client.request('GET', '/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });
      // The test apps are given their database by URL (a database on the run's server), so they report `postgres`;
      // `npm start`'s own embedded server reports `embedded` (entrypoints.test.ts).
      expect(await t.client.request('GET', '/readyz')).toMatchObject({ status: 200, body: { status: 'ready', database: 'postgres' } });
    });
    it('every response carries a request id (echoed when the client sends a sane one)', async () => {
      const r = await t.client.request('GET', '/healthz', { headers: { 'x-request-id': 'abc-123' } });
      expect(r.headers.get('x-request-id')).toBe('abc-123');
      const r2 = await t.client.request('GET', '/healthz', { headers: { 'x-request-id': 'bad id with spaces' } });
      expect(r2.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    });
  });
});
