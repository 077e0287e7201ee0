/**
 * Shop integrations through the running service against the fake Cafe24 (test/helpers/fake-cafe24.ts), wired as in
 * production: CAFE24_CLIENT_ID / CAFE24_CLIENT_SECRET / CAFE24_REDIRECT_URI and CAFE24_API_URL (the fake's
 * `{url}/{mallid}`). The OAuth install, tokens sealed and never shown or logged, orders awaiting their deposit imported
 * once (expiring by the mall's unpaid-order auto-cancel setting), a deposit and mark-as-paid confirming the order at
 * Cafe24 with one payment update, token expiry and rotation,
 * a refused refresh token, 429 / 5xx / timeouts retried with the job's backoff, Cafe24 refusing for good, cancellations
 * in the shop, and no request the fake finds out of Cafe24's documented shape.
 *
 * The job runner's backoff (5 s, 10 s, ...) is skipped by moving the service's clock (OffsetClock) past it and waking
 * the runner: the retry runs as it would later, without the wait.
 */
import { openCallback, submitApproval } from '../helpers/shop-install.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, ServiceClient, type Bootstrapped } from '../../src/cli/client.ts';
import { loadConfig } from '../../src/config/config.ts';
import { OffsetClock } from '../../src/domain/clock.ts';
import { decryptSecret } from '../../src/domain/secrets.ts';
import { buildApp, type App } from '../../src/http/app.ts';
import { dbLabel, freshDatabase, type TestDatabase } from '../helpers/app.ts';
import { startFakeCafe24, type FakeCafe24 } from '../helpers/fake-cafe24.ts';
import { checkResponse, reportOpenApiCheckCounts } from '../helpers/openapi-check.ts';
import { until } from '../helpers/wait.ts';

const CLIENT_ID = 'btp-cafe24-integration';
const CLIENT_SECRET = 'cafe24-it-secret-9Vw2Lk7Qp3Zx';
/** The service's public address as registered with Cafe24 (behind a proxy); the test plays the browser that follows it. */
const REDIRECT_URI = 'https://pay.example.test/shops/cafe24/callback';
const MALL = 'teashop01';
const PAYMENTS = { method: 'PUT', path: '/api/v2/admin/payments' };
const TOKEN_PATH = '/api/v2/oauth/token';

const START = `mutation($i: StartShopInstallInput!) { startShopInstall(input: $i) { __typename ... on ShopInstallPayload { authorizeUrl connection { id state shopId } } ... on DomainError { code message } } }`;
const SYNC = `mutation($c: ID!) { syncShopOrders(connectionId: $c) { __typename ... on ShopSyncPayload { imported waiting refused canceledInShop connection { state lastSyncAt lastSyncError } } ... on DomainError { code message } } }`;
const CONNECTION = `query($c: ID!) { shopConnection(id: $c) { id platform shopId state connectedAt lastSyncAt lastSyncError } }`;
const ORDERS = `query($c: ID!) { shopConnection(id: $c) { orders(first: 100) { id orderId state reason confirmAttempts depositorName amount orderedAt payBy error { code message } invoice { id status metadata customer { name email } amount expiresAt } } } }`;
const SETTING_PATH = '/api/v2/admin/orders/setting';
const HOUR = 3_600_000;
/** The service expires an imported invoice a little before the shop's deadline (a margin kept in the domain). */
const PAY_BY_MARGIN_TOLERANCE_MS = 30 * 60_000;
const INVOICE = `query($id: ID!) { invoice(id: $id) { id status shopOrder { state orderId confirmAttempts confirmedAt error { code message } } history { type } } }`;
const EVENTS = `query($i: ID!) { events(invoiceId: $i) { type data } }`;
const RETRY = `mutation($id: ID!) { retryShopOrderConfirmation(id: $id) { __typename ... on ShopOrderPayload { shopOrder { state } } ... on DomainError { code message } } }`;

describe(`shop integration with Cafe24 (a fake) on ${dbLabel}`, () => {
  let fake: FakeCafe24;
  let db: TestDatabase;
  let dataDir: string;
  let app: App;
  let url: string;
  let client: ServiceClient;
  let m: Bootstrapped;
  let connectionId: string;
  const clock = new OffsetClock();
  const logLines: string[] = [];
  /** Every answer the service gave the tests (GraphQL, REST, the install callback): none may carry a secret. */
  const answers: string[] = [];

  const gql = async (query: string, variables: Record<string, unknown> = {}) => {
    const r = await client.graphql(query, variables, m.sessionToken);
    answers.push(JSON.stringify(r));
    if (r.errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(r.errors)}`);
    return r.data as Record<string, any>;
  };
  const orders = async () => (await gql(ORDERS, { c: connectionId })).shopConnection.orders as any[];
  const order = async (orderId: string) => (await orders()).find((o) => o.orderId === orderId);
  const connection = async () => (await gql(CONNECTION, { c: connectionId })).shopConnection;
  const sync = async () => (await gql(SYNC, { c: connectionId })).syncShopOrders;
  const addOrder = (name: string, amount: number, extra: Record<string, unknown> = {}) =>
    fake.addOrder({ mallId: MALL, billingName: name, buyerName: name, amount, ...extra }).orderId;
  /** An order placed in Cafe24 and imported by an on-demand sync: LINKED to a pending invoice. */
  const placeAndImport = async (name: string, amount: number) => {
    const orderId = addOrder(name, amount);
    expect((await sync()).imported).toBe(1);
    const o = await order(orderId);
    expect(o).toMatchObject({ state: 'LINKED', invoice: { status: 'PENDING' } });
    return o as { id: string; orderId: string; invoice: { id: string } };
  };
  const markPaid = async (invoiceId: string) => {
    const r = await client.request('POST', `/v1/invoices/${invoiceId}/mark-as-paid`, { token: m.apiKey.secret });
    expect(r.status).toBe(200);
  };
  const job = async (shopOrderId: string) => {
    const rows = await app.db.sql.query<{ status: string; attempts: number; runAt: Date; updatedAt: Date; lockedUntil: Date | null; lastError: string | null }>(
      `SELECT status, attempts, "runAt", "updatedAt", "lockedUntil", "lastError" FROM "Job" WHERE kind = 'shop.confirm' AND payload->>'shopOrderId' = $1 ORDER BY "createdAt"`,
      [shopOrderId],
    );
    expect(rows).toHaveLength(1);
    return rows[0]!;
  };
  /** The job once the runner recorded its failed attempt (the order shows the error a moment before). */
  const failedAttempt = (shopOrderId: string) => until(() => job(shopOrderId), (j) => j.lockedUntil === null && j.lastError !== null);
  /** The job's next attempt is due `ms` after its failed one (its backoff): asserted, then skipped on the service's clock. */
  const skipBackoff = async (shopOrderId: string, ms: number) => {
    const j = await failedAttempt(shopOrderId);
    expect(j.status).toBe('PENDING');
    const delay = new Date(j.runAt).getTime() - new Date(j.updatedAt).getTime();
    expect(delay).toBeGreaterThan(ms - 50);
    expect(delay).toBeLessThanOrEqual(ms);
    clock.advance(ms);
    app.workers.jobs.wake();
  };
  const sealedColumns = async () =>
    (await app.db.sql.query<{ accessTokenSealed: string | null; refreshTokenSealed: string | null; accessTokenExpiresAt: Date | null }>(
      `SELECT "accessTokenSealed", "refreshTokenSealed", "accessTokenExpiresAt" FROM "ShopConnection" WHERE id = $1`,
      [connectionId],
    ))[0]!;
  const opened = async () => {
    const row = await sealedColumns();
    return {
      access: decryptSecret(row.accessTokenSealed!, app.deps.encryptionKey, `shop:${connectionId}:access`),
      refresh: decryptSecret(row.refreshTokenSealed!, app.deps.encryptionKey, `shop:${connectionId}:refresh`),
    };
  };
  const lastIssued = (kind: 'access_token' | 'refresh_token') => fake.issued.filter((s) => s.kind === kind && s.mallId === MALL).at(-1)!.value;
  const requestsSince = (mark: number) => fake.requests.slice(mark);
  const refreshRequests = (mark: number) => requestsSince(mark).filter((r) => r.path === TOKEN_PATH && (r.body as { grant_type?: string })?.grant_type === 'refresh_token');

  /** Cafe24's approval in a browser: the authorize URL, Cafe24's 302 to the redirect URI; the service's callback URL. */
  const authorizeAtCafe24 = async (authorizeUrl: string) => {
    const authorize = await fetch(authorizeUrl, { redirect: 'manual' });
    expect(authorize.status).toBe(302);
    const location = new URL(authorize.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
    return { callback: `${url}/shops/cafe24/callback${location.search}`, code: location.searchParams.get('code')!, state: location.searchParams.get('state')! };
  };
  /** ...then the callback (the approval cookie, the workspace named) and the approval form with the merchant's log-in. */
  const approve = async (authorizeUrl: string, creds: { email: string; password: string } = m) => {
    const at = await authorizeAtCafe24(authorizeUrl);
    const opened = await openCallback(at.callback);
    answers.push(JSON.stringify(opened.body));
    expect(opened.status).toBe(200);
    expect(opened.body.approval).toMatchObject({ workspace: expect.any(String), workspaceOwner: expect.stringMatching(/^.{1,2}\*\*\*@/), approveUrl: '/shops/cafe24/approve' });
    // The install's own cookie (named by its connection), kept by the browser for the approval form.
    expect(opened.cookie).toMatch(new RegExp(`^shop_install_approval_${opened.body.approval.connection.id}=[A-Za-z0-9_-]{43}$`));
    const done = await submitApproval(url, opened.body.approval, opened.cookie, creds);
    answers.push(JSON.stringify(done.body));
    return { ...done, ...at, opened };
  };

  beforeAll(async () => {
    fake = await startFakeCafe24({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, redirectUri: REDIRECT_URI });
    db = await freshDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'cafe24-it-'));
    const config = loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'trace',
      AGENCY_SIM_DELAY_MS: '0',
      SHOP_SYNC_INTERVAL_MS: '3600000',
      ...fake.serviceEnv(),
      // A hung call gives up after 1.5 s (the timeout case), not the production 10 s.
      CAFE24_TIMEOUT_MS: '1500',
    });
    // Everything the service logs, at trace level: no secret may be in it (checked last).
    const sink = new Writable({
      write(chunk, _enc, cb) {
        logLines.push(chunk.toString());
        cb();
      },
    });
    app = await buildApp(config, { database: db.database, clock, logger: pino({ level: 'trace' }, sink) });
    url = (await app.start()).url;
    client = new ServiceClient(url);
    client.onResponse = (r) => {
      answers.push(JSON.stringify(r.body));
      checkResponse(r.method, r.path, r.status, r.body);
    };
    m = await bootstrap(client);
  });
  afterAll(async () => {
    reportOpenApiCheckCounts('shop-cafe24.test.ts');
    await app?.stop({ graceMs: 100 });
    await fake?.close();
    await db?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("installs through Cafe24's OAuth: the authorize URL, the approval, the callback; CONNECTED, tokens sealed", async () => {
    // Orders already waiting in the mall: the install's first sync imports the bank-transfer ones awaiting a deposit.
    addOrder('홍길동', 25_000, { buyerEmail: 'hong@example.com', buyerCellphone: '010-1234-5678' });
    addOrder('김철수', 7_000);
    addOrder('카드손님', 9_000, { paymentMethod: ['card'] });
    addOrder('이미입금', 11_000, { paid: true });

    const r = await gql(START, { i: { platform: 'CAFE24', shopId: `https://${MALL.toUpperCase()}.cafe24.com/` } });
    expect(r.startShopInstall).toMatchObject({ __typename: 'ShopInstallPayload', connection: { state: 'INSTALLING', shopId: MALL } });
    connectionId = r.startShopInstall.connection.id;
    const authorizeUrl = new URL(r.startShopInstall.authorizeUrl);
    expect(`${authorizeUrl.origin}${authorizeUrl.pathname}`).toBe(`${fake.url}/${MALL}/api/v2/oauth/authorize`);
    expect(Object.fromEntries(authorizeUrl.searchParams)).toEqual({
      response_type: 'code',
      client_id: CLIENT_ID,
      state: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      redirect_uri: REDIRECT_URI,
      scope: 'mall.read_order,mall.write_order,mall.read_store',
    });

    const done = await approve(authorizeUrl.toString());
    expect(done.state).toBe(authorizeUrl.searchParams.get('state'));
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ connection: { id: connectionId, platform: 'CAFE24', shopId: MALL, state: 'CONNECTED' } });
    // The code was exchanged once, form-encoded with the registered redirect URI (the fake checks the Basic credentials).
    const exchanges = fake.requests.filter((q) => q.path === TOKEN_PATH);
    expect(exchanges.map((q) => [q.mallId, q.status, q.body])).toEqual([[MALL, 200, { grant_type: 'authorization_code', code: '<code>', redirect_uri: REDIRECT_URI }]]);
    // The state and the code are single-use.
    const replay = await fetch(done.callback, { headers: { accept: 'application/json' } });
    answers.push(await replay.clone().text());
    expect(replay.status).toBe(400);
    expect(fake.requests.filter((q) => q.path === TOKEN_PATH)).toHaveLength(1);

    expect(await connection()).toMatchObject({ id: connectionId, platform: 'CAFE24', shopId: MALL, state: 'CONNECTED', connectedAt: expect.any(String) });
    // Sealed at rest: the columns hold ciphertext bound to this connection, which opens to the tokens Cafe24 issued.
    const row = await sealedColumns();
    const issuedAccess = lastIssued('access_token');
    const issuedRefresh = lastIssued('refresh_token');
    expect(row.accessTokenSealed).toMatch(/^v1\./);
    expect(row.refreshTokenSealed).toMatch(/^v1\./);
    expect(row.accessTokenSealed).not.toContain(issuedAccess);
    expect(row.refreshTokenSealed).not.toContain(issuedRefresh);
    expect(await opened()).toEqual({ access: issuedAccess, refresh: issuedRefresh });
    expect(() => decryptSecret(row.accessTokenSealed!, app.deps.encryptionKey, `shop:shc_other:access`)).toThrow();
    // Cafe24's expiry (2 h, sent as KST without an offset) read right.
    expect(Math.abs(new Date(row.accessTokenExpiresAt!).getTime() - (Date.now() + 2 * 3600_000))).toBeLessThan(60_000);
  });

  it("an install is completed only by the workspace that started it, and a mall is connected to one workspace", async () => {
    const stranger = await bootstrap(client);
    const asStranger = (q: string, v: Record<string, unknown>) => client.gql(q, v, stranger.sessionToken);
    // Starting an install tells nothing of who else has the mall (no SHOP_CONNECTED_ELSEWHERE here: that would tell
    // anyone whether a mall is a customer). The refusal comes at completion, where Cafe24's consent proved control of
    // the mall (played here by the fake, which approves any browser), and it does not spend the approval.
    const taken = await asStranger(START, { i: { platform: 'CAFE24', shopId: MALL } });
    expect(taken.startShopInstall).toMatchObject({ __typename: 'ShopInstallPayload', connection: { state: 'INSTALLING', shopId: MALL } });
    const takenAt = await openCallback((await authorizeAtCafe24(taken.startShopInstall.authorizeUrl)).callback);
    answers.push(JSON.stringify(takenAt.body));
    const elsewhere = await submitApproval(url, takenAt.body.approval, takenAt.cookie, stranger);
    answers.push(JSON.stringify(elsewhere.body));
    expect(elsewhere.status).toBe(409);
    expect(elsewhere.body.message).toBe('This shop is connected to another workspace of this service; disconnect it there, or contact support.');
    const left = await app.db.sql.query<{ state: string; pending: boolean }>(`SELECT state, "approvalHash" IS NOT NULL AS pending FROM "ShopConnection" WHERE id = $1`, [
      taken.startShopInstall.connection.id,
    ]);
    expect(left).toEqual([{ state: 'INSTALLING', pending: true }]);
    // The stranger starts an install of another mall and gets its owner (our merchant) to approve the genuine link.
    const started = await asStranger(START, { i: { platform: 'CAFE24', shopId: 'victimmall' } });
    const at = await authorizeAtCafe24(started.startShopInstall.authorizeUrl);
    const opened = await openCallback(at.callback);
    answers.push(JSON.stringify(opened.body));
    // The page says which workspace the shop would go to (and its owner's e-mail, masked), and asks for that
    // workspace's log-in.
    expect(opened.body.approval.workspace).toBe((await client.gql(`{ viewer { workspace { name } } }`, {}, stranger.sessionToken)).viewer.workspace.name);
    const [local, domain] = stranger.email.split('@') as [string, string];
    expect(opened.body.approval.workspaceOwner).toBe(`${local.slice(0, 2)}***@${domain.split('.').slice(0, -1).join('.').slice(0, 2)}***.${domain.split('.').at(-1)}`);
    const wrong = await submitApproval(url, opened.body.approval, opened.cookie, m);
    expect(wrong.status).toBe(403);
    expect(wrong.body.message).toContain('not a member of the workspace that started the install');
    // Without the cookie of the browser that came back, not even the stranger's own log-in completes it.
    const noCookie = await submitApproval(url, opened.body.approval, null, stranger);
    expect(noCookie.status).toBe(400);
    const conn = await asStranger(`query($id: ID!) { shopConnection(id: $id) { state } }`, { id: started.startShopInstall.connection.id });
    expect(conn.shopConnection.state).toBe('INSTALLING');
    // A wrong password counts as a failed log-in, and answers like one.
    const badPassword = await submitApproval(url, opened.body.approval, opened.cookie, { email: stranger.email, password: 'not-the-password' });
    expect(badPassword.status).toBe(401);
  });

  it('orders awaiting their deposit become invoices with cafe24_ metadata; importing again changes nothing', async () => {
    // The install's sync (due at once) imported the two bank-transfer orders awaiting their deposit, not the others.
    const synced = await until(connection, (c) => c.lastSyncAt !== null, 15_000);
    expect(synced).toMatchObject({ state: 'CONNECTED', lastSyncError: null });
    const imported = await orders();
    expect(imported).toHaveLength(2);
    const [hong, kim] = ['홍길동', '김철수'].map((name) => imported.find((o) => o.depositorName === name));
    for (const [o, amount] of [[hong, 25_000], [kim, 7_000]] as const) {
      expect(o).toMatchObject({
        state: 'LINKED',
        amount,
        invoice: { status: 'PENDING', amount, metadata: { cafe24_connection: connectionId, cafe24_order_id: o.orderId } },
      });
    }
    expect(hong.invoice.customer).toEqual({ name: '홍길동', email: 'hong@example.com' });

    const again = await sync();
    expect(again).toMatchObject({ __typename: 'ShopSyncPayload', imported: 0, waiting: 0, refused: 0, canceledInShop: 0, connection: { lastSyncError: null } });
    const after = await orders();
    expect(after.map((o) => [o.id, o.state, o.invoice.id]).sort()).toEqual(imported.map((o) => [o.id, o.state, o.invoice.id]).sort());
    const invoices = await app.db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM "Invoice" WHERE metadata->>'cafe24_connection' = $1`, [connectionId]);
    expect(invoices[0]!.n).toBe(2);
  });

  it("an imported invoice expires by the mall's auto-cancel setting (read with the install's mall.read_store)", async () => {
    const expectDeadline = (o: { orderedAt: string; payBy: string | null; invoice: { expiresAt: string | null } }, deadline: (orderedAt: number) => number) => {
      expect(Date.parse(o.payBy!)).toBe(deadline(Date.parse(o.orderedAt)));
      const expiresAt = Date.parse(o.invoice.expiresAt!);
      expect(expiresAt).toBeLessThanOrEqual(Date.parse(o.payBy!));
      expect(expiresAt).toBeGreaterThanOrEqual(Date.parse(o.payBy!) - PAY_BY_MARGIN_TOLERANCE_MS);
    };
    // The install's orders: the fake mall's default setting (Cafe24's documented example), 7 days: midnight KST starting
    // the 7th day after the order's KST date.
    const KST = 9 * HOUR;
    const days = (n: number) => (t: number) => Math.floor((t + KST) / (24 * HOUR)) * 24 * HOUR - KST + n * 24 * HOUR;
    for (const name of ['홍길동', '김철수']) expectDeadline((await orders()).find((o) => o.depositorName === name), days(7));
    // The merchant sets 5 hours: the next import's order is due then.
    fake.orderSettings(MALL, { auto_cancel: 'T', auto_cancel_cash_unit: 'T', auto_cancel_cash_period: 5 });
    const hours = await placeAndImport('시간제', 21_000);
    expectDeadline(await order(hours.orderId), (t) => t + 5 * HOUR);
    // No auto-cancel: no deadline, an invoice that does not expire.
    fake.orderSettings(MALL, { auto_cancel: 'F' });
    const never = await placeAndImport('무기한', 22_000);
    expect(await order(never.orderId)).toMatchObject({ payBy: null, invoice: { expiresAt: null } });
    fake.orderSettings(MALL, null);
    const reads = fake.requests.filter((q) => q.mallId === MALL && q.path === SETTING_PATH);
    expect(reads.length).toBeGreaterThanOrEqual(3);
    expect(reads.every((q) => q.status === 200)).toBe(true);
  });

  it('a deposit pays the invoice, and Cafe24 has the order paid after exactly one payment update', async () => {
    const hong = (await orders()).find((o) => o.depositorName === '홍길동');
    const dep = await client.deposit(m.bankAccount.notificationToken, { depositorName: '홍길동', amount: 25_000 });
    expect(dep.status).toBe(201);
    const confirmed = await until(() => order(hong.orderId), (o) => o?.state === 'CONFIRMED');
    expect(confirmed).toMatchObject({ state: 'CONFIRMED', confirmAttempts: 1, error: null, invoice: { status: 'PAID' } });
    expect(fake.order(hong.orderId)).toMatchObject({ paid: 'T', orderStatus: 'N10', autoPaid: 'T', confirmCalls: 1 });
    const puts = fake.requests.filter((q) => q.method === 'PUT' && q.path === PAYMENTS.path);
    expect(puts.map((q) => [q.status, q.body])).toEqual([[200, { shop_no: 1, requests: [{ order_id: hong.orderId, status: 'paid', auto_paid: 'T' }] }]]);
    const inv = (await gql(INVOICE, { id: hong.invoice.id })).invoice;
    expect(inv.shopOrder).toMatchObject({ state: 'CONFIRMED', orderId: hong.orderId, confirmedAt: expect.any(String), error: null });
    expect(inv.history.map((h: { type: string }) => h.type)).toEqual(expect.arrayContaining(['paid', 'shop_order_confirmation_requested', 'shop_order_confirmed']));
    const events = (await gql(EVENTS, { i: hong.invoice.id })).events;
    expect(events.map((e: { type: string }) => e.type)).toContain('shop_order.confirmed');
  });

  it('mark-as-paid confirms the order at Cafe24 likewise', async () => {
    const kim = (await orders()).find((o) => o.depositorName === '김철수');
    await markPaid(kim.invoice.id);
    const confirmed = await until(() => order(kim.orderId), (o) => o?.state === 'CONFIRMED');
    expect(confirmed).toMatchObject({ confirmAttempts: 1, invoice: { status: 'PAID' } });
    expect(fake.order(kim.orderId)).toMatchObject({ paid: 'T', confirmCalls: 1 });
  });

  it('an expired access token is refreshed (the refresh token rotates) and the call succeeds; one about to expire is refreshed before use', async () => {
    const before = await opened();
    const mark = fake.requests.length;
    // Cafe24 expired the token (the service still thinks it valid): the call gets 401, refreshes, and is made again.
    fake.expireAccessTokens();
    const orderId = addOrder('박영희', 13_000);
    expect(await sync()).toMatchObject({ imported: 1, connection: { state: 'CONNECTED', lastSyncError: null } });
    expect((await order(orderId)).state).toBe('LINKED');
    const seen = requestsSince(mark);
    expect(seen.filter((q) => q.status === 401)).toHaveLength(1);
    expect(refreshRequests(mark).map((q) => q.status)).toEqual([200]);
    const after = await opened();
    expect(after.access).not.toBe(before.access);
    expect(after.refresh).not.toBe(before.refresh);
    expect(after).toEqual({ access: lastIssued('access_token'), refresh: lastIssued('refresh_token') });

    // An access token the service knows expires within the minute is refreshed first: no 401 at all.
    await app.db.sql.query(`UPDATE "ShopConnection" SET "accessTokenExpiresAt" = $2::timestamptz WHERE id = $1`, [connectionId, new Date(clock.now().getTime() + 30_000).toISOString()]);
    const mark2 = fake.requests.length;
    expect(await sync()).toMatchObject({ imported: 0, connection: { state: 'CONNECTED', lastSyncError: null } });
    expect(requestsSince(mark2).filter((q) => q.status === 401)).toEqual([]);
    expect(refreshRequests(mark2).map((q) => q.status)).toEqual([200]);
    expect((await opened()).refresh).toBe(lastIssued('refresh_token'));
  });

  it('429 and 5xx on the payment update are retried with backoff, then CONFIRMED with one update at Cafe24', async () => {
    const o = await placeAndImport('최지우', 14_000);
    const mark = fake.requests.length;
    // Attempt 1: three 429s (the adapter waits out two itself, ~0.5 s each); attempt 2: a 503; attempt 3 goes through.
    fake.failNext(3, { status: 429, ...PAYMENTS });
    fake.failNext(1, { status: 503, ...PAYMENTS });
    await markPaid(o.invoice.id);
    const first = await until(() => order(o.orderId), (x) => x.confirmAttempts === 1 && x.error !== null);
    expect(first).toMatchObject({ state: 'CONFIRMING', error: { code: 'RATE_LIMITED' } });
    expect((await job(o.id)).attempts).toBe(1);
    await skipBackoff(o.id, 5_000);
    const second = await until(() => order(o.orderId), (x) => x.confirmAttempts === 2 && x.error?.code !== 'RATE_LIMITED');
    expect(second).toMatchObject({ state: 'CONFIRMING', error: { code: 'HTTP_503' } });
    await skipBackoff(o.id, 10_000);
    const done = await until(() => order(o.orderId), (x) => x.state === 'CONFIRMED');
    expect(done).toMatchObject({ state: 'CONFIRMED', confirmAttempts: 3, error: null });
    expect(await until(() => job(o.id), (j) => j.status !== 'PENDING')).toMatchObject({ status: 'DONE', attempts: 3 });
    expect(fake.order(o.orderId)).toMatchObject({ paid: 'T', confirmCalls: 1 });
    const puts = requestsSince(mark).filter((q) => q.method === 'PUT' && q.path === PAYMENTS.path);
    expect(puts.map((q) => q.status)).toEqual([429, 429, 429, 503, 200]);
  });

  it('a payment update Cafe24 applied but answered 500 for is confirmed at once (the order read back is paid)', async () => {
    const o = await placeAndImport('윤서연', 15_000);
    fake.failNext(1, { status: 500, ...PAYMENTS, afterApply: true });
    await markPaid(o.invoice.id);
    const done = await until(() => order(o.orderId), (x) => x.state === 'CONFIRMED');
    expect(done).toMatchObject({ confirmAttempts: 1, error: null });
    expect(fake.order(o.orderId)).toMatchObject({ paid: 'T', confirmCalls: 1 });
  });

  it('a payment update that gets no answer times out and is retried', { timeout: 20_000 }, async () => {
    const o = await placeAndImport('장보고', 16_000);
    fake.hangNext(1, PAYMENTS);
    await markPaid(o.invoice.id);
    // The adapter gives up after its timeout (CAFE24_TIMEOUT_MS), reads the order back (still unpaid) and leaves it for the retry.
    const first = await until(() => order(o.orderId), (x) => x.error !== null, 20_000, 100);
    expect(first).toMatchObject({ state: 'CONFIRMING', confirmAttempts: 1, error: { code: 'TIMEOUT' } });
    expect(fake.order(o.orderId)).toMatchObject({ paid: 'F', confirmCalls: 0 });
    await skipBackoff(o.id, 5_000);
    const done = await until(() => order(o.orderId), (x) => x.state === 'CONFIRMED');
    expect(done).toMatchObject({ confirmAttempts: 2, error: null });
    expect(fake.order(o.orderId)).toMatchObject({ paid: 'T', confirmCalls: 1 });
  });

  it('an order canceled in Cafe24 before the confirmation: FAILED with the reason, shop_order.confirmation_failed', async () => {
    const o = await placeAndImport('강감찬', 17_000);
    fake.cancelOrder(o.orderId);
    await markPaid(o.invoice.id);
    const failed = await until(() => order(o.orderId), (x) => x.state === 'FAILED');
    expect(failed).toMatchObject({ confirmAttempts: 1, invoice: { status: 'PAID' }, error: { code: 'ORDER_CANCELED', message: expect.stringContaining(o.orderId) } });
    const inv = (await gql(INVOICE, { id: o.invoice.id })).invoice;
    expect(inv.shopOrder).toMatchObject({ state: 'FAILED', error: { code: 'ORDER_CANCELED' } });
    expect(inv.history.map((h: { type: string }) => h.type)).toContain('shop_order_confirmation_failed');
    const events = (await gql(EVENTS, { i: o.invoice.id })).events as { type: string; data: any }[];
    const ev = events.find((e) => e.type === 'shop_order.confirmation_failed');
    expect(ev?.data.shopOrder).toMatchObject({ id: o.id, orderId: o.orderId, state: 'FAILED', error: { code: 'ORDER_CANCELED' } });
    // Nothing was sent to change a canceled order, and nothing retries it.
    expect(fake.order(o.orderId)).toMatchObject({ paid: 'F', canceled: 'T', confirmCalls: 0 });
    expect(await until(() => job(o.id), (j) => j.status !== 'PENDING')).toMatchObject({ status: 'DONE', attempts: 1 });
  });

  it("a payment update Cafe24 refuses for good: FAILED with Cafe24's own error code and message; a retry confirms it", async () => {
    const o = await placeAndImport('유관순', 18_000);
    fake.failNext(1, { status: 422, ...PAYMENTS, body: { error: { code: 'order_payment_locked', message: '결제상태를 변경할 수 없는 주문입니다.' } } });
    await markPaid(o.invoice.id);
    const failed = await until(() => order(o.orderId), (x) => x.state === 'FAILED');
    expect(failed.error).toEqual({ code: 'order_payment_locked', message: expect.stringContaining('결제상태를 변경할 수 없는 주문입니다.') });
    const inv = (await gql(INVOICE, { id: o.invoice.id })).invoice;
    expect(inv.shopOrder.error.code).toBe('order_payment_locked');
    expect((await gql(EVENTS, { i: o.invoice.id })).events.map((e: { type: string }) => e.type)).toContain('shop_order.confirmation_failed');
    expect((await gql(RETRY, { id: o.id })).retryShopOrderConfirmation).toMatchObject({ __typename: 'ShopOrderPayload', shopOrder: { state: 'CONFIRMING' } });
    const done = await until(() => order(o.orderId), (x) => x.state === 'CONFIRMED');
    expect(done).toMatchObject({ confirmAttempts: 2, error: null });
    expect(fake.order(o.orderId)).toMatchObject({ paid: 'T', confirmCalls: 1 });
  });

  it('an order canceled in the shop cancels its unpaid invoice at the next sync', async () => {
    const o = await placeAndImport('이순신', 19_000);
    fake.cancelOrder(o.orderId);
    expect(await sync()).toMatchObject({ imported: 0, canceledInShop: 1 });
    const canceled = await order(o.orderId);
    expect(canceled).toMatchObject({ state: 'CANCELED_IN_SHOP', invoice: { status: 'CANCELED' } });
    expect(await sync()).toMatchObject({ canceledInShop: 0 });
    const v2 = await client.request('GET', `/v2/invoices/${o.invoice.id}`, { token: m.apiKey.secret });
    expect(v2.status).toBe(200);
    expect(JSON.stringify(v2.body)).toContain('"SHOP_INTEGRATION"');
  });

  it('the refresh token refused: NEEDS_REAUTHORIZATION with the reason; a payment meanwhile is confirmed once the shop is installed again', async () => {
    const o = await placeAndImport('세종대왕', 20_000);
    fake.expireAccessTokens();
    fake.expireRefreshTokens();
    const mark = fake.requests.length;
    const refused = await sync();
    expect(refused).toMatchObject({ __typename: 'DomainError', code: 'SHOP_NOT_CONNECTED', message: expect.stringContaining('invalid_grant') });
    expect(refreshRequests(mark).map((q) => q.status)).toEqual([400]);
    const c = await connection();
    expect(c.state).toBe('NEEDS_REAUTHORIZATION');
    expect(c.lastSyncError).toContain('invalid_grant');

    // Paid while the shop cannot be told: CONFIRMING, the job waiting on the connection.
    await markPaid(o.invoice.id);
    const waiting = await until(() => order(o.orderId), (x) => x.error !== null);
    expect(waiting).toMatchObject({ state: 'CONFIRMING', error: { code: 'SHOP_NOT_CONNECTED', message: expect.stringMatching(/installed again.*invalid_grant/) } });
    expect(fake.order(o.orderId)).toMatchObject({ paid: 'F', confirmCalls: 0 });

    const backingOff = await failedAttempt(o.id);
    expect(new Date(backingOff.runAt).getTime()).toBeGreaterThan(clock.now().getTime() + 1_000);

    // The merchant installs again: the same connection, CONNECTED, and the waiting confirmation is due at once (not at
    // the end of its backoff, which grows to an hour).
    const again = await gql(START, { i: { platform: 'CAFE24', shopId: MALL } });
    expect(again.startShopInstall.connection).toMatchObject({ id: connectionId, state: 'NEEDS_REAUTHORIZATION' });
    const done = await approve(again.startShopInstall.authorizeUrl);
    expect(done.body.connection).toMatchObject({ id: connectionId, state: 'CONNECTED' });
    expect(new Date((await job(o.id)).runAt).getTime()).toBeLessThanOrEqual(clock.now().getTime());
    const confirmed = await until(() => order(o.orderId), (x) => x.state === 'CONFIRMED');
    expect(confirmed).toMatchObject({ confirmAttempts: 2, error: null });
    expect(fake.order(o.orderId)).toMatchObject({ paid: 'T', confirmCalls: 1 });
    expect(await connection()).toMatchObject({ state: 'CONNECTED' });
  });

  it('no secret in any answer, log line or database column; Cafe24 saw no request out of its documented shape', async () => {
    expect(fake.violations).toEqual([]);
    const secrets = [CLIENT_SECRET, Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64'), ...fake.issued.map((s) => s.value)];
    // Four installs (codes: ours twice, the stranger's twice, never approved here), and the tokens of their four
    // exchanges (the stranger's kept sealed, waiting for an approval that never came) and of the two refreshes.
    expect(fake.issued.filter((s) => s.kind === 'code')).toHaveLength(4);
    expect(fake.issued.filter((s) => s.kind === 'refresh_token')).toHaveLength(6);
    const answered = answers.join('\n');
    expect(answers.length).toBeGreaterThan(50);
    expect(secrets.filter((s) => answered.includes(s))).toEqual([]);
    const log = logLines.join('');
    expect(logLines.length).toBeGreaterThan(100);
    expect(log).toContain('"requestId"');
    expect(secrets.filter((s) => log.includes(s))).toEqual([]);
    // Every row of every table, as text.
    const tables = await app.db.sql.query<{ name: string }>(`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`);
    expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(['ShopConnection', 'ShopOrder', 'Job', 'Invoice']));
    let dump = '';
    for (const { name } of tables) {
      const rows = await app.db.sql.query<{ row: string }>(`SELECT t::text AS row FROM "${name}" t`);
      dump += rows.map((r) => r.row).join('\n');
    }
    expect(dump).toContain(connectionId);
    expect(secrets.filter((s) => dump.includes(s))).toEqual([]);
  });
});
