/**
 * Shop integrations under concurrency: two service instances on one database against the fake Cafe24. The fake's
 * `hold` keeps chosen requests waiting, so the callers meet exactly where the race is (both listing orders, one
 * refreshing a token while the other wants one), instead of hoping a Promise.all lines them up.
 *
 * - Scheduled syncs of both instances at the same moment: one claims the shop, the other leaves it (and waits for the
 *   lease, not spinning); each order is imported once.
 * - Two syncs of one shop that do overlap (a sync outliving its lease): still one row and one invoice per order.
 * - syncShopOrders on both instances while one runs: CONFLICT for the second, no duplicates.
 * - Orders of the same buyer and amount imported at the same moment from two shops: one LINKED, one WAITING, never two
 *   pending invoices with the same name and amount.
 * - A rotating, single-use refresh token needed by both instances at once: one refresh, both calls succeed, the
 *   connection stays CONNECTED.
 * - A payment and the sync's cancellation of the same order at the same moment: the payment wins, no deadlock.
 * - A refresh that fails, awaited by several callers of one instance: one token request, its error for all of them.
 * - A refresh that outlived its lease while another instance took over: its good tokens are kept, and the other's
 *   refusal of the spent refresh token does not make the connection NEEDS_REAUTHORIZATION.
 * - An instance whose clock is ahead: the refresh lease is the database's time, so it still waits for the lease.
 * - A refresh answered after the connection was disconnected: no token is stored, the caller gets "not connected".
 */
import { completeInstallInBrowser } from '../helpers/shop-install.ts';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, ServiceClient, type Bootstrapped } from '../../src/cli/client.ts';
import { loadConfig } from '../../src/config/config.ts';
import { openDatabase } from '../../src/db/database.ts';
import type { ShopConnection } from '../../src/generated/prisma/client.ts';
import { callShop, ShopNotConnected } from '../../src/domain/shops/connections.ts';
import type { Deps } from '../../src/domain/deps.ts';
import { ShopApiError } from '../../src/domain/shops/shop-port.ts';
import { syncShopOrders } from '../../src/domain/shops/shop-orders.ts';
import { CLAIM_RACE_RETRY_MS, runDueShopSyncs } from '../../src/domain/shops/shop-sync.ts';
import { buildApp, type App } from '../../src/http/app.ts';
import { dbLabel, freshDatabase } from '../helpers/app.ts';
import { startFakeCafe24, type FakeCafe24 } from '../helpers/fake-cafe24.ts';
import { until } from '../helpers/wait.ts';

const CLIENT_ID = 'btp-cafe24-races';
const CLIENT_SECRET = 'cafe24-races-secret-7Yh3Kd0Wm5Bv';
const REDIRECT_URI = 'https://pay.example.test/shops/cafe24/callback';
const ORDERS_PATH = '/api/v2/admin/orders';
const TOKEN_PATH = '/api/v2/oauth/token';

const START = `mutation($i: StartShopInstallInput!) { startShopInstall(input: $i) { ... on ShopInstallPayload { authorizeUrl connection { id } } } }`;
const DISCONNECT = `mutation($id: ID!) { disconnectShop(id: $id) { __typename ... on ShopConnectionPayload { connection { state } } ... on DomainError { code message } } }`;
const SYNC = `mutation($c: ID!) { syncShopOrders(connectionId: $c) { __typename ... on ShopSyncPayload { imported waiting canceledInShop } ... on DomainError { code message } } }`;
const CONNECTION = `query($c: ID!) { shopConnection(id: $c) { state lastSyncAt lastSyncError } }`;

describe(`shop integration races, two instances on one ${dbLabel} database`, () => {
  let fake: FakeCafe24;
  let drop: () => Promise<void>;
  const apps: App[] = [];
  const clients: ServiceClient[] = [];
  const dirs: string[] = [];
  let m: Bootstrapped;
  let dbUrl: string;

  const gql = (i: number, q: string, v: Record<string, unknown> = {}) => clients[i]!.gql(q, v, m.sessionToken);
  const connectionRow = (id: string) => apps[0]!.deps.prisma.shopConnection.findUniqueOrThrow({ where: { id } }) as Promise<ShopConnection>;
  const sql = <T>(text: string, params: unknown[] = []) => apps[0]!.db.sql.query<T>(text, params);
  /** Rows and invoices of a connection's orders: [orderId, state, invoice status] sorted, and the invoices per order. */
  const imported = (connectionId: string) =>
    sql<{ orderId: string; state: string; invoiceId: string | null; status: string | null; rows: number; invoices: number }>(
      `SELECT o."orderId", o.state::text, o."invoiceId", i.status::text,
              (SELECT count(*)::int FROM "ShopOrder" x WHERE x."connectionId" = o."connectionId" AND x."orderId" = o."orderId") AS rows,
              (SELECT count(*)::int FROM "Invoice" v WHERE v.metadata->>'cafe24_connection' = o."connectionId" AND v.metadata->>'cafe24_order_id' = o."orderId") AS invoices
         FROM "ShopOrder" o LEFT JOIN "Invoice" i ON i.id = o."invoiceId" WHERE o."connectionId" = $1 ORDER BY o."orderId"`,
      [connectionId],
    );
  const addOrders = (mallId: string, names: string[], amount: number) => names.map((name) => fake.addOrder({ mallId, billingName: name, amount }).orderId);

  /** A Cafe24 mall installed through instance 0, its first sync done. */
  const install = async (mallId: string) => {
    const r = await gql(0, START, { i: { platform: 'CAFE24', shopId: mallId } });
    const id = r.startShopInstall.connection.id as string;
    const authorize = await fetch(r.startShopInstall.authorizeUrl, { redirect: 'manual' });
    const back = new URL(authorize.headers.get('location')!);
    const done = await completeInstallInBrowser(clients[0]!.baseUrl, `${clients[0]!.baseUrl}/shops/cafe24/callback${back.search}`, m);
    expect(done.state).toBe('CONNECTED');
    const synced = await until(() => gql(0, CONNECTION, { c: id }), (c) => c.shopConnection.lastSyncAt !== null);
    expect(synced.shopConnection).toMatchObject({ state: 'CONNECTED', lastSyncError: null });
    return id;
  };

  beforeAll(async () => {
    fake = await startFakeCafe24({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, redirectUri: REDIRECT_URI });
    const fresh = await freshDatabase();
    drop = fresh.drop;
    dbUrl = fresh.url;
    await fresh.database.close();
    const key = randomBytes(32).toString('hex');
    for (let i = 0; i < 2; i++) {
      const dir = mkdtempSync(join(tmpdir(), 'shop-races-'));
      dirs.push(dir);
      const config = loadConfig({
        PORT: '0', HOST: '127.0.0.1', DATA_DIR: dir, LOG_LEVEL: 'silent', DATABASE_URL: fresh.url, ENCRYPTION_KEY: key, AGENCY_SIM_DELAY_MS: '0',
        SHOP_SYNC_INTERVAL_MS: '3600000',
        ...fake.serviceEnv(),
      });
      const app = await buildApp(config, { database: await openDatabase({ databaseUrl: fresh.url, poolSize: 10 }), logger: pino({ level: 'silent' }) });
      apps.push(app);
      clients.push(new ServiceClient((await app.start()).url));
    }
    m = await bootstrap(clients[0]!);
  });
  afterAll(async () => {
    for (const a of apps) await a.stop({ graceMs: 100 });
    await fake?.close();
    await drop?.();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("both instances' scheduled syncs due at the same moment: one claims the shop, the other waits for its lease; each order imported once", async () => {
    const id = await install('racemall');
    const orderIds = addOrders('racemall', ['가', '나', '다', '라', '마', '바', '사', '아'].map((n) => `예약${n}`), 5_000);
    await sql(`UPDATE "ShopConnection" SET "nextSyncAt" = now() - interval '1 second' WHERE id = $1`, [id]);
    const listing = fake.hold({ method: 'GET', path: ORDERS_PATH, mallId: 'racemall' });
    const runs = apps.map((a, i) => runDueShopSyncs(a.deps).then((next) => ({ next, i })));
    await listing.whenArrived(1);
    // The instance that did not get the shop is done: it listed nothing, and comes back when the lease ends (10 min),
    // not at once (its loop would otherwise run again and again while the other syncs) — or, when it looked while the
    // other's claim was still committing, in a second, and then finds the lease.
    const loser = await Promise.race(runs);
    expect(listing.arrived).toBe(1);
    expect(loser.next).toEqual(expect.any(Number));
    if ((loser.next as number) <= CLAIM_RACE_RETRY_MS) expect(await runDueShopSyncs(apps[loser.i]!.deps)).toBeGreaterThan(9 * 60_000);
    else expect(loser.next as number).toBeGreaterThan(9 * 60_000);
    expect(listing.arrived).toBe(1);
    listing.release();
    await Promise.all(runs);
    const rows = await imported(id);
    expect(rows.filter((r) => orderIds.includes(r.orderId)).map((r) => [r.state, r.status, r.rows, r.invoices])).toEqual(orderIds.map(() => ['LINKED', 'PENDING', 1, 1]));
    expect((await gql(1, CONNECTION, { c: id })).shopConnection).toMatchObject({ state: 'CONNECTED', lastSyncError: null });
  });

  it('a shop made due while a sync of it runs is synced when that sync ends, by the instance that ran it', async () => {
    const id = await install('duemall');
    const dueAt = async () => (await connectionRow(id)).nextSyncAt!.getTime();
    const listing = fake.hold({ method: 'GET', path: ORDERS_PATH, mallId: 'duemall' });
    const onDemand = gql(0, SYNC, { c: id });
    await listing.whenArrived(1);
    // Due now while it runs (what an install's approval or an order in the simulated shop does): the other instance,
    // told, finds it leased and leaves it to the lease's end.
    await sql(`UPDATE "ShopConnection" SET "nextSyncAt" = now() WHERE id = $1`, [id]);
    expect(await runDueShopSyncs(apps[1]!.deps)).toBeGreaterThan(9 * 60_000);
    listing.release();
    expect((await onDemand).syncShopOrders.__typename).toBe('ShopSyncPayload');
    // The due time survived the sync; the instance that ran it syncs again at once (its loop would sleep an hour).
    const synced = await until(dueAt, (t) => t > Date.now() + 30 * 60_000);
    expect(synced).toBeGreaterThan(Date.now() + 30 * 60_000);
    expect(fake.requests.filter((q) => q.mallId === 'duemall' && q.path === ORDERS_PATH && q.query.order_status === 'N00')).toHaveLength(3);
  });

  it('two syncs of one shop that overlap (one outlived its lease): one row and one invoice per order; a repeated buyer and amount waits', async () => {
    const id = await install('overlapmall');
    const single = addOrders('overlapmall', Array.from({ length: 12 }, (_, i) => `겹침${i}`), 6_000);
    const twins = addOrders('overlapmall', ['쌍둥이', '쌍둥이'], 6_500);
    const listing = fake.hold({ method: 'GET', path: ORDERS_PATH, mallId: 'overlapmall' });
    // The syncs themselves, without the lease: what two instances would do if one's sync ran past it.
    const c = await connectionRow(id);
    const syncs = apps.map((a) => syncShopOrders(a.deps, c));
    await listing.whenArrived(2);
    listing.release();
    const results = await Promise.all(syncs);
    expect(results.reduce((n, r) => n + r.imported, 0)).toBe(13);
    const rows = await imported(id);
    expect(rows.filter((r) => single.includes(r.orderId)).map((r) => [r.state, r.rows, r.invoices])).toEqual(single.map(() => ['LINKED', 1, 1]));
    expect(rows.filter((r) => twins.includes(r.orderId)).map((r) => r.state).sort()).toEqual(['LINKED', 'WAITING']);
    const pending = await sql<{ n: number }>(`SELECT count(*)::int AS n FROM "Invoice" WHERE "customerName" = '쌍둥이' AND amount = 6500 AND status = 'PENDING'`);
    expect(pending[0]!.n).toBe(1);
  });

  it('syncShopOrders on both instances while one runs: CONFLICT for the second, no duplicates', async () => {
    const id = await install('conflictmall');
    const orderIds = addOrders('conflictmall', ['충돌하나', '충돌둘', '충돌셋'], 7_000);
    const listing = fake.hold({ method: 'GET', path: ORDERS_PATH, mallId: 'conflictmall' });
    const firstSync = gql(0, SYNC, { c: id });
    await listing.whenArrived(1);
    const second = await gql(1, SYNC, { c: id });
    expect(second.syncShopOrders).toMatchObject({ __typename: 'DomainError', code: 'CONFLICT' });
    expect(listing.arrived).toBe(1);
    listing.release();
    expect((await firstSync).syncShopOrders).toEqual({ __typename: 'ShopSyncPayload', imported: 3, waiting: 0, canceledInShop: 0 });
    // Once it is done, a sync on the other instance finds nothing new.
    expect((await gql(1, SYNC, { c: id })).syncShopOrders).toEqual({ __typename: 'ShopSyncPayload', imported: 0, waiting: 0, canceledInShop: 0 });
    expect((await imported(id)).map((r) => [r.orderId, r.state, r.rows, r.invoices])).toEqual(orderIds.map((o) => [o, 'LINKED', 1, 1]));
  });

  it('orders of the same buyer and amount imported at the same moment from two shops: one LINKED, one WAITING for each', async () => {
    const [one, two] = [await install('twinmallone'), await install('twinmalltwo')];
    const names = ['동시일', '동시이', '동시삼', '동시사', '동시오'];
    const fromOne = addOrders('twinmallone', names, 8_800);
    const fromTwo = addOrders('twinmalltwo', names, 8_800);
    const listing = fake.hold({ method: 'GET', path: ORDERS_PATH });
    const syncs = [gql(0, SYNC, { c: one }), gql(1, SYNC, { c: two })];
    await listing.whenArrived(2);
    listing.release();
    const [a, b] = await Promise.all(syncs);
    expect(a.syncShopOrders.imported + b.syncShopOrders.imported).toBe(5);
    expect(a.syncShopOrders.waiting + b.syncShopOrders.waiting).toBe(5);
    const [rowsOne, rowsTwo] = [await imported(one), await imported(two)];
    for (let i = 0; i < names.length; i++) {
      const pair = [rowsOne.find((r) => r.orderId === fromOne[i])!, rowsTwo.find((r) => r.orderId === fromTwo[i])!];
      expect(pair.map((r) => r.state).sort()).toEqual(['LINKED', 'WAITING']);
      const [linked, waiting] = pair[0]!.state === 'LINKED' ? pair : [pair[1]!, pair[0]!];
      expect(waiting.invoiceId).toBeNull();
      expect((await sql<{ reason: string }>(`SELECT reason FROM "ShopOrder" WHERE "connectionId" = ANY($1::text[]) AND "orderId" = $2 AND state = 'WAITING'`, [[one, two], waiting.orderId]))[0]!.reason).toBe(linked.invoiceId);
    }
    const pending = await sql<{ name: string; n: number }>(
      `SELECT "customerName" AS name, count(*)::int AS n FROM "Invoice" WHERE "customerName" = ANY($1::text[]) AND amount = 8800 AND status = 'PENDING' GROUP BY 1 ORDER BY 1`,
      [names],
    );
    expect(pending.map((p) => p.n)).toEqual(names.map(() => 1));
  });

  it("a payment and the sync's cancellation of the same order in the same moment: the payment wins, no deadlock", async () => {
    const id = await install('cancelmall');
    const [orderId] = addOrders('cancelmall', ['취소경합'], 10_000);
    expect((await gql(1, SYNC, { c: id })).syncShopOrders).toMatchObject({ imported: 1 });
    const [row] = await imported(id);
    fake.cancelOrder(orderId!);
    const lockWaiters = async () =>
      (await sql<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`))[0]!.n;
    // The payment is held inside its transaction, after it locked the invoice and before it reaches the shop order
    // (its history line waits for the table this session locks); the sync's cancellation of the order comes then.
    const holder = new pg.Client({ connectionString: dbUrl });
    await holder.connect();
    try {
      await holder.query(`BEGIN`);
      await holder.query(`LOCK TABLE "InvoiceHistoryEntry" IN SHARE MODE`);
      const paying = clients[0]!.request('POST', `/v1/invoices/${row!.invoiceId}/mark-as-paid`, { token: m.apiKey.secret });
      await until(lockWaiters, (n) => n === 1);
      const syncing = gql(1, SYNC, { c: id });
      await until(lockWaiters, (n) => n === 2);
      await holder.query(`COMMIT`);
      expect((await paying).status).toBe(200);
      expect((await syncing).syncShopOrders).toMatchObject({ __typename: 'ShopSyncPayload', canceledInShop: 0 });
    } finally {
      await holder.end();
    }
    // Paid here, canceled at Cafe24: the confirmation fails for the merchant to see.
    const [after] = await imported(id);
    expect(after).toMatchObject({ status: 'PAID' });
    const failed = await until(() => imported(id), (rs) => rs[0]!.state === 'FAILED');
    expect(failed[0]).toMatchObject({ state: 'FAILED', status: 'PAID', rows: 1, invoices: 1 });
  });

  it('an expired token refreshed for both instances at once: one refresh of the single-use refresh token, both calls succeed, still CONNECTED', async () => {
    const id = await install('tokenmall');
    const [orderId] = addOrders('tokenmall', ['토큰손님'], 9_000);
    const c = await connectionRow(id);
    const lookUp = (i: number) => callShop(apps[i]!.deps, c, (shop, session) => shop.orderStatuses(session, [orderId!]));

    // Cafe24 expired the access token (the service thinks it valid): both get 401, both want the refresh.
    fake.expireAccessTokens();
    let mark = fake.requests.length;
    const refreshing = fake.hold({ method: 'POST', path: TOKEN_PATH, mallId: 'tokenmall' });
    const calls = [lookUp(0), lookUp(1)];
    await until(() => fake.requests.slice(mark).filter((q) => q.status === 401).length, (n) => n === 2);
    await refreshing.whenArrived(1);
    refreshing.release();
    const results = await Promise.all(calls);
    for (const r of results) expect(Object.fromEntries(r)).toEqual({ [orderId!]: 'AWAITING_DEPOSIT' });
    const refreshes = () => fake.requests.slice(mark).filter((q) => q.path === TOKEN_PATH);
    expect(refreshes().map((q) => [q.status, (q.body as { grant_type: string }).grant_type])).toEqual([[200, 'refresh_token']]);
    expect((await connectionRow(id)).state).toBe('CONNECTED');

    // The service knows the token expired: both instances go for the refresh; one takes the refresh lease, the other
    // waits for it (no row lock held across Cafe24's answer) and uses its tokens.
    await sql(`UPDATE "ShopConnection" SET "accessTokenExpiresAt" = now() - interval '1 minute' WHERE id = $1`, [id]);
    mark = fake.requests.length;
    const again = fake.hold({ method: 'POST', path: TOKEN_PATH, mallId: 'tokenmall' });
    const more = [lookUp(0), lookUp(1)];
    await again.whenArrived(1);
    const leased = await until(() => sql<{ lease: Date | null }>(`SELECT "refreshLeaseUntil" AS lease FROM "ShopConnection" WHERE id = $1`, [id]), (r) => r[0]!.lease !== null);
    expect(leased[0]!.lease).not.toBeNull();
    // While the lease is held no transaction waits on the connection's row.
    const waiting = await sql<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`);
    expect(waiting[0]!.n).toBe(0);
    again.release();
    for (const r of await Promise.all(more)) expect(Object.fromEntries(r)).toEqual({ [orderId!]: 'AWAITING_DEPOSIT' });
    expect(refreshes().map((q) => [q.status, (q.body as { grant_type: string }).grant_type])).toEqual([[200, 'refresh_token']]);
    expect(fake.requests.slice(mark).filter((q) => q.status === 401)).toEqual([]);
    expect((await connectionRow(id)).state).toBe('CONNECTED');
    expect(fake.violations).toEqual([]);
  });
  /**
   * An instance's deps whose reads of the connection (each round of sessionFor) are counted when they come back, and
   * whose clock may be another: a test knows when every caller has read the row (and so joined a refresh in flight, or
   * gone round its wait once).
   */
  const counted = (deps: Deps, clock = deps.clock) => {
    const reads = { n: 0 };
    const shopConnection = deps.prisma.shopConnection;
    const prisma = { shopConnection: { findUnique: (args: { where: { id: string } }) => shopConnection.findUnique(args).then((r) => ((reads.n += 1), r)) } };
    return { deps: { ...deps, clock, prisma: prisma as unknown as Deps['prisma'] } as Deps, reads };
  };
  const tokenRequests = (mark: number) => fake.requests.slice(mark).filter((q) => q.path === TOKEN_PATH);
  const expireAccessToken = (id: string) => sql(`UPDATE "ShopConnection" SET "accessTokenExpiresAt" = now() - interval '1 minute' WHERE id = $1`, [id]);

  it("a failing refresh awaited by five callers of one instance: one token request, and all five get its error", async () => {
    const id = await install('waitmall');
    const c = await connectionRow(id);
    await expireAccessToken(id);
    const mark = fake.requests.length;
    const held = fake.hold({ method: 'POST', path: TOKEN_PATH, mallId: 'waitmall' });
    // One failure only: a caller that tried again on its own would succeed.
    fake.failNext(1, { status: 500, method: 'POST', path: TOKEN_PATH });
    const { deps, reads } = counted(apps[0]!.deps);
    const calls = Array.from({ length: 5 }, () => callShop(deps, c, async () => 'ok'));
    await held.whenArrived(1);
    await until(() => reads.n, (n) => n >= 5);
    held.release();
    const results = await Promise.allSettled(calls);
    expect(results.map((r) => r.status)).toEqual(Array(5).fill('rejected'));
    const reasons = results.map((r) => (r as PromiseRejectedResult).reason);
    expect(reasons[0]).toBeInstanceOf(ShopApiError);
    expect(reasons[0]).toMatchObject({ retryable: true, status: 500 });
    expect(reasons.every((e) => e === reasons[0])).toBe(true);
    expect(tokenRequests(mark).map((q) => q.status)).toEqual([500]);
    expect(await connectionRow(id)).toMatchObject({ state: 'CONNECTED', refreshLeaseUntil: null });
    // The next call refreshes (once) and goes through.
    expect(await callShop(apps[0]!.deps, c, async () => 'ok')).toBe('ok');
    expect(tokenRequests(mark).map((q) => q.status)).toEqual([500, 200]);
  });

  it("a refresh that outlived its lease keeps its good tokens, and the other instance's refused refresh token does not ask for a new install", async () => {
    const id = await install('leasemall');
    const [orderId] = addOrders('leasemall', ['리스손님'], 9_500);
    const c = await connectionRow(id);
    const lookUp = (i: number) => callShop(apps[i]!.deps, c, (shop, session) => shop.orderStatuses(session, [orderId!]));
    await expireAccessToken(id);
    const mark = fake.requests.length;
    const first = fake.hold({ method: 'POST', path: TOKEN_PATH, mallId: 'leasemall' });
    const a = lookUp(0);
    await first.whenArrived(1);
    // Instance 0 stalls past its lease (a long pause, a slow database); instance 1 takes the lease over and spends the
    // same refresh token. Its request is kept waiting until instance 0's answer is stored.
    await sql(`UPDATE "ShopConnection" SET "refreshLeaseUntil" = now() - interval '1 second' WHERE id = $1`, [id]);
    const second = fake.hold({ method: 'POST', path: TOKEN_PATH, mallId: 'leasemall' });
    try {
      const b = lookUp(1);
      await first.whenArrived(2);
      const spent = (await connectionRow(id)).refreshTokenSealed;
      first.release();
      // Instance 0's refresh (Cafe24 rotated the refresh token) is stored although the lease is instance 1's now.
      const stored = await until(() => connectionRow(id), (r) => r.refreshTokenSealed !== spent);
      expect(stored.refreshTokenSealed).not.toBe(spent);
      expect(Object.fromEntries(await a)).toEqual({ [orderId!]: 'AWAITING_DEPOSIT' });
      // Instance 1's refresh token is refused (spent by instance 0): not a refused grant, so it uses the new tokens.
      await second.whenArrived(1);
      second.release();
      expect(Object.fromEntries(await b)).toEqual({ [orderId!]: 'AWAITING_DEPOSIT' });
    } finally {
      second.release();
    }
    expect(tokenRequests(mark).map((q) => q.status)).toEqual([200, 400]);
    const after = await connectionRow(id);
    expect(after).toMatchObject({ state: 'CONNECTED', lastSyncError: null });
    expect(fake.violations).toEqual([]);
  });

  it("an instance whose clock is a minute ahead still waits for another's refresh lease (the lease is the database's time)", async () => {
    const id = await install('clockmall');
    const c = await connectionRow(id);
    await expireAccessToken(id);
    const mark = fake.requests.length;
    const held = fake.hold({ method: 'POST', path: TOKEN_PATH, mallId: 'clockmall' });
    const a = callShop(apps[0]!.deps, c, async () => 'a');
    await held.whenArrived(1);
    const ahead = counted(apps[1]!.deps, { now: () => new Date(Date.now() + 60_000) });
    const b = callShop(ahead.deps, c, async () => 'b');
    // Round its wait at least twice: it found the lease taken, and did not take it over.
    await until(() => ahead.reads.n, (n) => n >= 3);
    expect(held.arrived).toBe(1);
    held.release();
    expect(await Promise.all([a, b])).toEqual(['a', 'b']);
    expect(tokenRequests(mark).map((q) => q.status)).toEqual([200]);
    expect((await connectionRow(id)).state).toBe('CONNECTED');
  });

  it('a refresh answered after the shop was disconnected stores nothing, and its caller is told the shop is not connected', async () => {
    const id = await install('discomall');
    const c = await connectionRow(id);
    await expireAccessToken(id);
    const held = fake.hold({ method: 'POST', path: TOKEN_PATH, mallId: 'discomall' });
    const call = callShop(apps[0]!.deps, c, async () => 'called the shop').then(
      (v) => v,
      (e: unknown) => e,
    );
    await held.whenArrived(1);
    expect((await gql(1, DISCONNECT, { id })).disconnectShop).toMatchObject({ __typename: 'ShopConnectionPayload', connection: { state: 'DISCONNECTED' } });
    // The disconnect dropped the refresh's lease with the tokens.
    expect(await connectionRow(id)).toMatchObject({ state: 'DISCONNECTED', accessTokenSealed: null, refreshTokenSealed: null, refreshLeaseUntil: null });
    held.release();
    const outcome = await call;
    expect(outcome).toBeInstanceOf(ShopNotConnected);
    expect(outcome).toMatchObject({ state: 'DISCONNECTED' });
    expect(await connectionRow(id)).toMatchObject({ state: 'DISCONNECTED', accessTokenSealed: null, accessTokenExpiresAt: null, refreshTokenSealed: null, refreshLeaseUntil: null });
  });
});
