/**
 * The Cafe24 shop adapter (src/events/shops/cafe24.ts) against the local fake Cafe24 (test/helpers/fake-cafe24.ts):
 * the install (authorization code), refresh-token rotation, the port's error mapping (401 authExpired, invalid_grant
 * reauthorize, 429/5xx/timeouts retryable, other 4xx not), paging through the awaiting bank-transfer orders, their
 * deadline (payBy) from the mall's auto-cancel setting, batched status lookups, the idempotent deposit confirmation,
 * rate-limit pacing, and no secret in any error.
 */
import { inspect } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ShopApiError, type ShopAdapter, type ShopSession, type ShopTokens } from '../../src/domain/shops/shop-port.ts';
import { cafe24Shop, CAFE24_SCOPES } from '../../src/events/shops/cafe24.ts';
import { startFakeCafe24, type FakeCafe24 } from '../helpers/fake-cafe24.ts';

const CLIENT_ID = 'cafe24-test-client-7Hq2';
const CLIENT_SECRET = 'cafe24-test-secret-Zk81mN04pQ77';
const REDIRECT_URI = 'https://pay.example/shops/cafe24/callback';
const TIMEOUT_MS = 400;

let fake: FakeCafe24;
/** Every ShopApiError a test caught: none may carry a secret (checked last). */
const caught: unknown[] = [];
/** Every secret the tests saw: the client secret, codes, access and refresh tokens. */
const secrets = new Set<string>([CLIENT_SECRET]);
/** The waits the adapter asked for (pacing and 429 retries), in order. */
let waits: number[] = [];

/** An adapter whose sleep is recorded; `realSleep` also waits (for the fake's real bucket). */
function adapter(over: Partial<Parameters<typeof cafe24Shop>[0]> & { realSleep?: boolean } = {}): ShopAdapter {
  const { realSleep, ...rest } = over;
  return cafe24Shop({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    redirectUri: REDIRECT_URI,
    apiBaseUrl: (mallId) => fake.apiBaseUrl(mallId),
    timeoutMs: TIMEOUT_MS,
    sleep: async (ms) => {
      waits.push(ms);
      if (realSleep) await new Promise((r) => setTimeout(r, ms));
    },
    ...rest,
  });
}

async function shopError(p: Promise<unknown>): Promise<ShopApiError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ShopApiError);
  caught.push(e);
  return e as ShopApiError;
}

function remember(t: ShopTokens): ShopTokens {
  secrets.add(t.accessToken);
  if (t.refreshToken) secrets.add(t.refreshToken);
  return t;
}

async function install(shop: ShopAdapter, mallId: string, scopes?: string[]): Promise<{ tokens: ShopTokens; session: ShopSession }> {
  const code = fake.authorize(mallId, 'st', undefined, scopes);
  secrets.add(code);
  const tokens = remember(await shop.exchangeCode(mallId, code));
  return { tokens, session: { shopId: mallId, accessToken: tokens.accessToken, connectionId: `shc_${mallId}` } };
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** A day-unit deadline: midnight KST starting the n-th day after the order's KST date (the adapter's reading). */
const dayDeadline = (orderedAt: Date | number, n: number) => {
  const t = typeof orderedAt === 'number' ? orderedAt : orderedAt.getTime();
  return Math.floor((t + 9 * HOUR) / DAY) * DAY - 9 * HOUR + n * DAY;
};
const SETTING_PATH = '/api/v2/admin/orders/setting';
const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000);
const apiCalls = (mallId: string, path: string) => fake.requests.filter((r) => r.mallId === mallId && r.path === path);
/** yyyy-MM-ddTHH:mm:ss in KST, of an instant. */
const kst = (t: Date | number) => new Date(new Date(t).getTime() + 9 * HOUR).toISOString().slice(0, 19);

beforeAll(async () => {
  fake = await startFakeCafe24({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, redirectUri: REDIRECT_URI });
});
afterAll(async () => {
  await fake?.close();
});
beforeEach(() => {
  waits = [];
  fake.accessTokenTtlMs = 2 * 3600_000;
  fake.echoGrantInErrors = false;
});

describe('mall ids and the install URL', () => {
  it('normalizes mall ids (lower case, pasted shop addresses) and refuses what cannot be one', () => {
    const shop = adapter();
    expect(shop.platform).toBe('CAFE24');
    expect(shop.normalizeShopId(' MyShop01 ')).toBe('myshop01');
    expect(shop.normalizeShopId('https://myshop01.cafe24.com/product/list.html')).toBe('myshop01');
    expect(shop.normalizeShopId('myshop01.cafe24api.com')).toBe('myshop01');
    for (const bad of ['', 'abc', '1shop', 'my-shop', 'my_shop', 'a'.repeat(17), 'shop.example.com', '한글몰']) expect(shop.normalizeShopId(bad)).toBeNull();
  });

  it("authorizeUrl is Cafe24's authorization request; following it as a browser would ends at the redirect URI with a code that exchanges", async () => {
    const shop = adapter();
    const url = new URL(shop.authorizeUrl('MyMall01', 'nonce-123'));
    expect(url.origin + url.pathname).toBe(`${fake.apiBaseUrl('mymall01')}/api/v2/oauth/authorize`);
    expect(Object.fromEntries(url.searchParams)).toEqual({ response_type: 'code', client_id: CLIENT_ID, state: 'nonce-123', redirect_uri: REDIRECT_URI, scope: CAFE24_SCOPES.join(',') });
    expect(CAFE24_SCOPES).toEqual(['mall.read_order', 'mall.write_order', 'mall.read_store']);
    expect(new URL(adapter({ apiBaseUrl: undefined }).authorizeUrl('mymall01', 's')).origin).toBe('https://mymall01.cafe24api.com');

    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(302);
    const back = new URL(res.headers.get('location')!);
    expect(back.origin + back.pathname).toBe(REDIRECT_URI);
    expect(back.searchParams.get('state')).toBe('nonce-123');
    const code = back.searchParams.get('code')!;
    secrets.add(code);
    const tokens = remember(await shop.exchangeCode('mymall01', code));
    expect(tokens.accessToken.length).toBeGreaterThan(10);
  });

  it('a mall id that is not one is refused before anything is sent', async () => {
    const before = fake.requests.length;
    expect(() => adapter().authorizeUrl('no way', 's')).toThrow(ShopApiError);
    const e = await shopError(adapter().listAwaitingOrders({ shopId: '../etc', accessToken: 'x', connectionId: 'shc_x' }, minutesAgo(5), new Date()));
    expect(e).toMatchObject({ code: 'INVALID_SHOP_ID', retryable: false });
    expect(fake.requests.length).toBe(before);
  });
});

describe('tokens', () => {
  it('exchanges the install code: access token for ~2 h, refresh token for ~2 weeks, the granted scopes; with Basic client credentials', async () => {
    const shop = adapter();
    const { tokens } = await install(shop, 'tokmall01');
    expect(tokens.accessTokenExpiresAt!.getTime() - Date.now()).toBeGreaterThan(2 * 3600_000 - 60_000);
    expect(tokens.accessTokenExpiresAt!.getTime() - Date.now()).toBeLessThanOrEqual(2 * 3600_000 + 1000);
    expect(tokens.refreshTokenExpiresAt!.getTime() - Date.now()).toBeGreaterThan(14 * 86_400_000 - 60_000);
    expect(tokens.scopes).toEqual(['mall.read_order', 'mall.write_order', 'mall.read_store']);
    expect(tokens.refreshToken).toBeTruthy();
    const sent = apiCalls('tokmall01', '/api/v2/oauth/token').at(-1)!;
    expect(sent).toMatchObject({ method: 'POST', status: 200, body: { grant_type: 'authorization_code', code: '<code>', redirect_uri: REDIRECT_URI } });
    expect(sent.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
  });

  it('a code works once and only for its mall; a used or foreign code is invalid_grant → reauthorize', async () => {
    const shop = adapter();
    const code = fake.authorize('codemall1', 's');
    secrets.add(code);
    const foreign = await shopError(shop.exchangeCode('codemall2', code));
    expect(foreign).toMatchObject({ code: 'invalid_grant', reauthorize: true, retryable: false, status: 400 });
    const code2 = fake.authorize('codemall1', 's');
    secrets.add(code2);
    remember(await shop.exchangeCode('codemall1', code2));
    const replay = await shopError(shop.exchangeCode('codemall1', code2));
    expect(replay).toMatchObject({ code: 'invalid_grant', reauthorize: true, retryable: false });
  });

  it('refresh rotates the refresh token; the old one is refused afterwards (invalid_grant → reauthorize), the new one works', async () => {
    const shop = adapter();
    const { tokens: first } = await install(shop, 'rotmall01');
    const second = remember(await shop.refresh('rotmall01', first.refreshToken!));
    expect(second.refreshToken).not.toBe(first.refreshToken);
    expect(second.accessToken).not.toBe(first.accessToken);
    expect(apiCalls('rotmall01', '/api/v2/oauth/token').at(-1)!.body).toEqual({ grant_type: 'refresh_token', refresh_token: '<refresh_token>' });

    const old = await shopError(shop.refresh('rotmall01', first.refreshToken!));
    expect(old).toMatchObject({ code: 'invalid_grant', reauthorize: true, retryable: false, authExpired: false, status: 400 });
    const third = remember(await shop.refresh('rotmall01', second.refreshToken!));
    expect(third.refreshToken).not.toBe(second.refreshToken);
    // The new access token reads orders.
    expect(await shop.listAwaitingOrders({ shopId: 'rotmall01', accessToken: third.accessToken, connectionId: 'shc_rotmall01' }, minutesAgo(5), new Date())).toEqual([]);
  });

  it('wrong client credentials are not a reauthorization: invalid_client, not retryable', async () => {
    const e = await shopError(adapter({ clientSecret: 'not-the-secret-at-all' }).refresh('credmall1', 'whatever-refresh'));
    expect(e).toMatchObject({ code: 'invalid_client', retryable: false, reauthorize: false, status: 401 });
  });

  it('an expired access token (401) maps to authExpired; after a refresh the call succeeds', async () => {
    const shop = adapter();
    fake.accessTokenTtlMs = 1;
    const { tokens, session } = await install(shop, 'expmall01');
    await new Promise((r) => setTimeout(r, 5));
    const e = await shopError(shop.listAwaitingOrders(session, minutesAgo(5), new Date()));
    expect(e).toMatchObject({ code: 'invalid_token', authExpired: true, reauthorize: false, retryable: false, status: 401 });
    expect(e.message).toMatch(/expired/);
    fake.accessTokenTtlMs = 2 * 3600_000;
    const fresh = remember(await shop.refresh('expmall01', tokens.refreshToken!));
    expect(await shop.orderStatuses({ shopId: 'expmall01', accessToken: fresh.accessToken, connectionId: 'shc_expmall01' }, ['20260101-0000001'])).toEqual(new Map([['20260101-0000001', 'NOT_FOUND']]));
  });

  it("a token of another mall is refused there (401); Cafe24's token times without an offset are read as KST", async () => {
    const shop = adapter();
    const { session, tokens } = await install(shop, 'mallaaaa');
    const e = await shopError(shop.listAwaitingOrders({ ...session, shopId: 'mallbbbb' }, minutesAgo(5), new Date()));
    expect(e.authExpired).toBe(true);
    // The fake writes expires_at as KST local time, as Cafe24's examples do; read as UTC it would be 9 h off.
    expect(Math.abs(tokens.accessTokenExpiresAt!.getTime() - (Date.now() + 2 * 3600_000))).toBeLessThan(60_000);
  });
});

describe('orders', () => {
  it('lists every page of bank-transfer orders awaiting deposit in the window, with whole-won amounts and depositor names', async () => {
    const shop = adapter({ pageSize: 10 });
    const { session } = await install(shop, 'listmall1');
    const expected = new Map<string, { amount: number; name: string }>();
    for (let i = 0; i < 25; i++) {
      const o = fake.addOrder({
        mallId: 'listmall1',
        amount: 10_000 + i * 100,
        billingName: i % 5 === 0 ? '' : `입금자${i}`,
        buyerName: `주문자${i}`,
        buyerEmail: `b${i}@example.com`,
        buyerCellphone: '010-1234-5678',
        orderDate: minutesAgo(60 - i),
      });
      expected.set(o.orderId, { amount: 10_000 + i * 100, name: i % 5 === 0 ? `주문자${i}` : `입금자${i}` });
    }
    // Not listed: a card order, a paid transfer, a canceled transfer, one before the window, another mall's, a fraction.
    fake.addOrder({ mallId: 'listmall1', amount: 5000, paymentMethod: ['card'], buyerName: 'x', orderDate: minutesAgo(30) });
    fake.addOrder({ mallId: 'listmall1', amount: 5000, paid: true, buyerName: 'x', orderDate: minutesAgo(30) });
    fake.cancelOrder(fake.addOrder({ mallId: 'listmall1', amount: 5000, buyerName: 'x', orderDate: minutesAgo(30) }).orderId);
    fake.addOrder({ mallId: 'listmall1', amount: 5000, buyerName: 'x', orderDate: minutesAgo(600) });
    fake.addOrder({ mallId: 'othermall', amount: 5000, buyerName: 'x', orderDate: minutesAgo(30) });
    fake.addOrder({ mallId: 'listmall1', amount: 5000, amountText: '5000.50', buyerName: 'x', orderDate: minutesAgo(30) });

    const before = apiCalls('listmall1', '/api/v2/admin/orders').length;
    const mark = fake.requests.length;
    const listed = await shop.listAwaitingOrders(session, minutesAgo(120), new Date());
    const calls = apiCalls('listmall1', '/api/v2/admin/orders').slice(before);
    expect(calls.map((c) => c.query.offset)).toEqual(['0', '10', '20']);
    // The mall's order settings, read once after the pages (for the deadline), with its version header.
    const sent = fake.requests.slice(mark).filter((r) => r.mallId === 'listmall1');
    expect(sent.map((r) => [r.path, r.status])).toEqual([...calls.map(() => ['/api/v2/admin/orders', 200]), [SETTING_PATH, 200]]);
    expect(sent.at(-1)!.query).toEqual({ shop_no: '1' });
    expect(sent.at(-1)!.headers['x-cafe24-api-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    for (const c of calls) {
      expect(c.query).toMatchObject({ order_status: 'N00', payment_method: 'cash', embed: 'buyer', limit: '10', date_type: 'order_date', shop_no: '1' });
      expect(c.query.start_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(c.headers['x-cafe24-api-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
    expect(listed.map((o) => o.orderId)).toEqual([...expected.keys()]);
    for (const o of listed) {
      expect(o.amount).toBe(expected.get(o.orderId)!.amount);
      expect(o.depositorName).toBe(expected.get(o.orderId)!.name);
      // The fake's default setting, Cafe24's documented example: unpaid bank-transfer orders canceled after 7 days.
      expect(o.payBy!.getTime()).toBe(dayDeadline(o.orderedAt, 7));
      expect(o.buyerPhone).toBe('01012345678');
      expect(o.buyerEmail).toMatch(/^b\d+@example\.com$/);
      expect(o.orderedAt.getTime()).toBe(fake.order(o.orderId)!.orderDate.getTime() - (fake.order(o.orderId)!.orderDate.getTime() % 1000));
    }
    expect(fake.violations).toEqual([]);
  });

  it('a window longer than Cafe24 allows in one search is searched in pieces', async () => {
    const shop = adapter();
    const { session } = await install(shop, 'longmall1');
    const old = fake.addOrder({ mallId: 'longmall1', amount: 7000, buyerName: '오래된', orderDate: new Date(Date.now() - 150 * 86_400_000) });
    const recent = fake.addOrder({ mallId: 'longmall1', amount: 8000, buyerName: '최근', orderDate: minutesAgo(10) });
    const listed = await shop.listAwaitingOrders(session, new Date(Date.now() - 200 * 86_400_000), new Date());
    expect(listed.map((o) => o.orderId)).toEqual([old.orderId, recent.orderId]);
    const searches = apiCalls('longmall1', '/api/v2/admin/orders');
    expect(searches.length).toBe(3);
    expect(fake.violations).toEqual([]);
  });

  it('orderStatuses: paid, canceled, awaiting and unknown ids, in one batched lookup per 100 ids; a malformed id is not searched and left out (unknown)', async () => {
    const shop = adapter();
    const { session } = await install(shop, 'statmall1');
    const awaiting = fake.addOrder({ mallId: 'statmall1', amount: 1000, buyerName: 'a' });
    const paid = fake.addOrder({ mallId: 'statmall1', amount: 1000, buyerName: 'b' });
    fake.markPaid(paid.orderId);
    const canceled = fake.addOrder({ mallId: 'statmall1', amount: 1000, buyerName: 'c' });
    fake.cancelOrder(canceled.orderId);
    const foreign = fake.addOrder({ mallId: 'othermall', amount: 1000, buyerName: 'd' });
    const unknown = awaiting.orderId.slice(0, 9) + '9999999';
    const before = apiCalls('statmall1', '/api/v2/admin/orders').length;
    const states = await shop.orderStatuses(session, [awaiting.orderId, paid.orderId, canceled.orderId, unknown, foreign.orderId, 'not-an-id', paid.orderId]);
    expect(states).toEqual(
      new Map([
        [awaiting.orderId, 'AWAITING_DEPOSIT'],
        [paid.orderId, 'PAID'],
        [canceled.orderId, 'CANCELED'],
        [unknown, 'NOT_FOUND'],
        [foreign.orderId, 'NOT_FOUND'],
      ]),
    );
    const calls = apiCalls('statmall1', '/api/v2/admin/orders').slice(before);
    expect(calls.length).toBe(1);
    expect(calls[0].query.order_id.split(',').sort()).toEqual([awaiting.orderId, paid.orderId, canceled.orderId, unknown, foreign.orderId].sort());

    const many = Array.from({ length: 150 }, (_, i) => `${awaiting.orderId.slice(0, 8)}-${String(9_000_000 + i)}`);
    const before2 = apiCalls('statmall1', '/api/v2/admin/orders').length;
    const lots = await shop.orderStatuses(session, many);
    expect([...lots.values()].every((s) => s === 'NOT_FOUND')).toBe(true);
    expect(apiCalls('statmall1', '/api/v2/admin/orders').slice(before2).map((c) => c.query.order_id.split(',').length)).toEqual([100, 50]);
    expect(fake.violations).toEqual([]);
  });

  it('orderStatuses: a batch whose search fails leaves its ids out (unknown, never NOT_FOUND) and the other batches answer; when every batch fails, the error is thrown', async () => {
    const shop = adapter();
    const { session } = await install(shop, 'statmall2');
    const awaiting = fake.addOrder({ mallId: 'statmall2', amount: 1000, buyerName: 'a' });
    const day = awaiting.orderId.slice(0, 8);
    // Sorted by id: the first batch is 100 ids of a day long ago, the second the real order and 49 more of its day.
    const many = [...Array.from({ length: 100 }, (_, i) => `20250101-${String(9_000_000 + i)}`), awaiting.orderId, ...Array.from({ length: 49 }, (_, i) => `${day}-${String(9_000_000 + i)}`)];
    fake.failNext(1, { status: 500, path: '/api/v2/admin/orders' });
    const partial = await shop.orderStatuses(session, many);
    expect(partial.size).toBe(50);
    expect(partial.get(awaiting.orderId)).toBe('AWAITING_DEPOSIT');
    expect(many.slice(0, 100).some((id) => partial.has(id))).toBe(false);
    expect(many.slice(101).every((id) => partial.get(id) === 'NOT_FOUND')).toBe(true);
    // One batch, failing: the error (the sync notes it; the orders' states stay unknown).
    fake.failNext(1, { status: 503, path: '/api/v2/admin/orders' });
    const e = await shopError(shop.orderStatuses(session, [awaiting.orderId]));
    expect(e).toMatchObject({ code: 'HTTP_503', retryable: true });
    // An expired token is not a failed batch: thrown for the caller's refresh.
    fake.failNext(1, { status: 401, path: '/api/v2/admin/orders' });
    const e2 = await shopError(shop.orderStatuses(session, many));
    expect(e2).toMatchObject({ authExpired: true });
    // Nothing searchable: nothing asked, nothing known.
    const before = apiCalls('statmall2', '/api/v2/admin/orders').length;
    expect(await shop.orderStatuses(session, ['not-an-id', 'P-1'])).toEqual(new Map());
    expect(apiCalls('statmall2', '/api/v2/admin/orders').length).toBe(before);
  });

  it('the listing leaves out an order whose id is not a Cafe24 order id (its state could never be read)', async () => {
    const shop = adapter();
    const { session } = await install(shop, 'oddmall01');
    const good = fake.addOrder({ mallId: 'oddmall01', amount: 1000, buyerName: 'a', orderDate: minutesAgo(3) });
    fake.addOrder({ mallId: 'oddmall01', orderId: 'ODD-ORDER-1', amount: 1000, buyerName: 'b', orderDate: minutesAgo(2) });
    const listed = await shop.listAwaitingOrders(session, minutesAgo(10), new Date());
    expect(listed.map((o) => o.orderId)).toEqual([good.orderId]);
  });
});

describe("payBy: the mall's unpaid-order auto-cancel setting", () => {
  it('days: midnight KST starting the n-th day after the order KST date; one setting read per listing, across pages and windows', async () => {
    const shop = adapter({ pageSize: 2 });
    const { session } = await install(shop, 'paybyday1');
    fake.orderSettings('paybyday1', { auto_cancel: 'T', auto_cancel_cash_unit: 'D', auto_cancel_cash_period: 3 });
    // Late in a KST day (23:50 KST, 14:50 UTC) and three more, one of them 100 days ago (another search window).
    const lastLateEvening = Date.parse(`${kst(Date.now() - 15 * 60_000).slice(0, 10)}T23:50:00+09:00`) - DAY;
    const late = fake.addOrder({ mallId: 'paybyday1', amount: 1000, buyerName: '늦은밤', orderDate: new Date(lastLateEvening) });
    const others = [minutesAgo(30), minutesAgo(20), new Date(Date.now() - 100 * DAY)].map((d) => fake.addOrder({ mallId: 'paybyday1', amount: 2000, buyerName: '다른', orderDate: d }));
    const mark = fake.requests.length;
    const listed = await shop.listAwaitingOrders(session, new Date(Date.now() - 120 * DAY), new Date());
    expect(listed.map((o) => o.orderId).sort()).toEqual([late, ...others].map((o) => o.orderId).sort());
    for (const o of listed) expect(o.payBy!.getTime()).toBe(dayDeadline(o.orderedAt, 3));
    const lateListed = listed.find((o) => o.orderId === late.orderId)!;
    // order_date "…T23:50:00+09:00": the deadline is 00:00 KST three KST dates later (the KST date, not the UTC one).
    expect(kst(lateListed.orderedAt)).toBe(kst(lastLateEvening));
    expect(kst(lateListed.orderedAt).slice(11)).toBe('23:50:00');
    expect(kst(lateListed.payBy!)).toBe(`${kst(lastLateEvening + 3 * DAY).slice(0, 10)}T00:00:00`);
    expect(lateListed.payBy!.getTime()).toBe(lastLateEvening + 3 * DAY - (23 * HOUR + 50 * 60_000));
    const sent = fake.requests.slice(mark);
    expect(sent.filter((r) => r.path === '/api/v2/admin/orders').length).toBeGreaterThan(2);
    expect(sent.filter((r) => r.path === SETTING_PATH).map((r) => r.status)).toEqual([200]);
    expect(fake.violations).toEqual([]);
  });

  it('hours: order_date + n hours', async () => {
    const shop = adapter();
    const { session } = await install(shop, 'paybyhour1');
    fake.orderSettings('paybyhour1', { auto_cancel_cash_unit: 'T', auto_cancel_cash_period: 5 });
    const o = fake.addOrder({ mallId: 'paybyhour1', amount: 3000, buyerName: '시간', orderDate: minutesAgo(45) });
    const [listed] = await shop.listAwaitingOrders(session, minutesAgo(60), new Date());
    expect(listed.orderId).toBe(o.orderId);
    expect(listed.payBy!.getTime()).toBe(listed.orderedAt.getTime() + 5 * HOUR);
    // The bounds of the documented range (1-23), and a period Cafe24 might send as a string.
    for (const [period, ms] of [[1, HOUR], [23, 23 * HOUR], ['5', 5 * HOUR]] as const) {
      fake.orderSettings('paybyhour1', { auto_cancel_cash_unit: 'T', auto_cancel_cash_period: period });
      const [again] = await shop.listAwaitingOrders(session, minutesAgo(60), new Date());
      expect(again.payBy!.getTime() - again.orderedAt.getTime()).toBe(ms);
    }
    fake.orderSettings('paybyhour1', { auto_cancel_cash_unit: 'D', auto_cancel_cash_period: 23 });
    const [days] = await shop.listAwaitingOrders(session, minutesAgo(60), new Date());
    expect(days.payBy!.getTime()).toBe(dayDeadline(days.orderedAt, 23));
  });

  it('auto_cancel F: no deadline', async () => {
    const shop = adapter();
    const { session } = await install(shop, 'paybyoff1');
    fake.orderSettings('paybyoff1', { auto_cancel: 'F', auto_cancel_cash_unit: 'D', auto_cancel_cash_period: 7 });
    fake.addOrder({ mallId: 'paybyoff1', amount: 4000, buyerName: '끔', orderDate: minutesAgo(10) });
    const listed = await shop.listAwaitingOrders(session, minutesAgo(60), new Date());
    expect(listed).toHaveLength(1);
    expect(listed[0].payBy).toBeNull();
    expect(apiCalls('paybyoff1', SETTING_PATH).map((r) => r.status)).toEqual([200]);
  });

  it('an install without mall.read_store (made before it was asked for): 403 on the setting, orders listed with payBy null, no reauthorization', async () => {
    const shop = adapter();
    const { tokens, session } = await install(shop, 'paybyold1', ['mall.read_order', 'mall.write_order']);
    expect(tokens.scopes).toEqual(['mall.read_order', 'mall.write_order']);
    const o = fake.addOrder({ mallId: 'paybyold1', amount: 5000, buyerName: '옛설치', orderDate: minutesAgo(10) });
    const listed = await shop.listAwaitingOrders(session, minutesAgo(60), new Date());
    expect(listed.map((x) => [x.orderId, x.payBy])).toEqual([[o.orderId, null]]);
    expect(apiCalls('paybyold1', SETTING_PATH).map((r) => r.status)).toEqual([403]);
    // The same token still reads and confirms orders: nothing else needs the scope.
    expect((await shop.orderStatuses(session, [o.orderId])).get(o.orderId)).toBe('AWAITING_DEPOSIT');
    // A 403 with another message (the shape Cafe24 uses for any refusal) is read the same way on this call.
    fake.failNext(1, { status: 403, path: SETTING_PATH, body: { error: { code: 403, message: 'Forbidden' } } });
    const { session: full } = await install(shop, 'paybyold1');
    expect((await shop.listAwaitingOrders(full, minutesAgo(60), new Date()))[0].payBy).toBeNull();
    expect((await shop.listAwaitingOrders(full, minutesAgo(60), new Date()))[0].payBy).not.toBeNull();
    expect(fake.violations).toEqual([]);
  });

  it('a setting not in the documented shape: payBy null, the listing does not fail', async () => {
    const shop = adapter();
    const { session } = await install(shop, 'paybybad1');
    fake.addOrder({ mallId: 'paybybad1', amount: 6000, buyerName: '이상', orderDate: minutesAgo(10) });
    const malformed: Record<string, unknown>[] = [
      { auto_cancel_cash_unit: 'W' },
      { auto_cancel_cash_unit: undefined },
      { auto_cancel_cash_period: 0 },
      { auto_cancel_cash_period: 24 },
      { auto_cancel_cash_period: 2.5 },
      { auto_cancel_cash_period: 'seven' },
      { auto_cancel_cash_period: null },
      { auto_cancel_cash_period: undefined },
      { auto_cancel: undefined },
      { auto_cancel: true },
    ];
    for (const fields of malformed) {
      fake.orderSettings('paybybad1', fields);
      const listed = await shop.listAwaitingOrders(session, minutesAgo(60), new Date());
      expect(listed.map((o) => o.payBy), JSON.stringify(fields)).toEqual([null]);
    }
    fake.orderSettings('paybybad1', null);
    // A JSON answer without `order`, or with something else in its place.
    for (const body of [{}, { order: 'T' }, { order: [] }, { orders: [{ auto_cancel: 'T' }] }]) {
      fake.failNext(1, { status: 200, path: SETTING_PATH, body });
      const listed = await shop.listAwaitingOrders(session, minutesAgo(60), new Date());
      expect(listed.map((o) => o.payBy), JSON.stringify(body)).toEqual([null]);
    }
    // Back to the default (7 days).
    const [o] = await shop.listAwaitingOrders(session, minutesAgo(60), new Date());
    expect(o.payBy!.getTime()).toBe(dayDeadline(o.orderedAt, 7));
  });

  it('no order awaiting: the setting is not read', async () => {
    const shop = adapter();
    const { session } = await install(shop, 'paybynone');
    expect(await shop.listAwaitingOrders(session, minutesAgo(60), new Date())).toEqual([]);
    expect(apiCalls('paybynone', '/api/v2/admin/orders')).toHaveLength(1);
    expect(apiCalls('paybynone', SETTING_PATH)).toHaveLength(0);
  });

  it("the setting's other failures fail the listing as any call's: 5xx, a 429 that persists, a timeout, a 2xx that is not JSON, 401", async () => {
    const shop = adapter();
    const { session } = await install(shop, 'paybyfail');
    fake.addOrder({ mallId: 'paybyfail', amount: 7000, buyerName: '실패', orderDate: minutesAgo(10) });
    const list = () => shop.listAwaitingOrders(session, minutesAgo(60), new Date());
    fake.failNext(1, { status: 500, path: SETTING_PATH });
    expect(await shopError(list())).toMatchObject({ code: '500', retryable: true, status: 500 });
    fake.failNext(1, { status: 503, path: SETTING_PATH });
    expect(await shopError(list())).toMatchObject({ code: 'HTTP_503', retryable: true });
    fake.failNext(3, { status: 429, path: SETTING_PATH, headers: { 'retry-after': '1' } });
    expect(await shopError(list())).toMatchObject({ code: 'RATE_LIMITED', retryable: true, retryAfterMs: 1000 });
    fake.hangNext(1, { path: SETTING_PATH });
    expect(await shopError(list())).toMatchObject({ code: 'TIMEOUT', retryable: true });
    fake.failNext(1, { status: 200, path: SETTING_PATH, body: '<html>maintenance</html>' });
    expect(await shopError(list())).toMatchObject({ code: 'BAD_RESPONSE', retryable: true });
    fake.failNext(1, { status: 401, path: SETTING_PATH, body: { error: { code: 401, message: 'access_token time expired. (invalid_token)' } } });
    expect(await shopError(list())).toMatchObject({ code: 'invalid_token', authExpired: true });
    // A short 429 is waited out and retried like any call's.
    fake.failNext(1, { status: 429, path: SETTING_PATH });
    const [o] = await list();
    expect(o.payBy!.getTime()).toBe(dayDeadline(o.orderedAt, 7));
    expect(apiCalls('paybyfail', SETTING_PATH).slice(-2).map((r) => r.status)).toEqual([429, 200]);
  });

  it('the setting read is paced by the bucket like the other calls', async () => {
    const paced = adapter({ realSleep: true });
    const { session } = await install(paced, 'paybypace');
    fake.addOrder({ mallId: 'paybypace', amount: 8000, buyerName: '속도', orderDate: minutesAgo(10) });
    fake.fillBucket('paybypace', 38);
    const [o] = await paced.listAwaitingOrders(session, minutesAgo(60), new Date());
    expect(o.payBy).not.toBeNull();
    // The order search left 1 call of room (39/40): the adapter waited for 4 before reading the setting.
    expect(waits.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(1000);
    expect(apiCalls('paybypace', SETTING_PATH).map((r) => r.status)).toEqual([200]);
  }, 10_000);
});

describe('confirmDeposit', () => {
  it('marks the order paid (auto_paid) once; a repeat is a success without a second update', async () => {
    const shop = adapter();
    const { session } = await install(shop, 'paymall01');
    const o = fake.addOrder({ mallId: 'paymall01', amount: 33_000, buyerName: '김구매' });
    await shop.confirmDeposit(session, o.orderId);
    expect(fake.order(o.orderId)).toMatchObject({ paid: 'T', autoPaid: 'T', orderStatus: 'N10', confirmCalls: 1 });
    const put = apiCalls('paymall01', '/api/v2/admin/payments').at(-1)!;
    expect(put).toMatchObject({ method: 'PUT', status: 200, body: { shop_no: 1, requests: [{ order_id: o.orderId, status: 'paid', auto_paid: 'T' }] } });

    await shop.confirmDeposit(session, o.orderId);
    await shop.confirmDeposit(session, o.orderId);
    expect(fake.order(o.orderId)).toMatchObject({ paid: 'T', confirmCalls: 1 });
    expect((await shop.orderStatuses(session, [o.orderId])).get(o.orderId)).toBe('PAID');
    expect(fake.violations).toEqual([]);
  });

  it('the update applied but unanswered (500 after applying) is a success once the order reads paid', async () => {
    const shop = adapter();
    const { session } = await install(shop, 'paymall02');
    const o = fake.addOrder({ mallId: 'paymall02', amount: 12_000, buyerName: '이구매' });
    fake.failNext(1, { status: 500, method: 'PUT', path: '/api/v2/admin/payments', afterApply: true });
    await shop.confirmDeposit(session, o.orderId);
    expect(fake.order(o.orderId)).toMatchObject({ paid: 'T', confirmCalls: 1 });
  });

  it('paid by the merchant meanwhile: Cafe24 refuses the identical update (409) and that counts as success', async () => {
    const shop = adapter();
    const { session } = await install(shop, 'paymall03');
    const o = fake.addOrder({ mallId: 'paymall03', amount: 12_000, buyerName: '박구매' });
    // The merchant confirms in Cafe24's admin between our check and our update.
    const racing = adapter({
      fetch: async (input, init) => {
        if (init?.method === 'PUT') fake.markPaid(o.orderId);
        return fetch(input, init);
      },
    });
    await racing.confirmDeposit(session, o.orderId);
    expect(apiCalls('paymall03', '/api/v2/admin/payments').at(-1)!.status).toBe(409);
    expect(fake.order(o.orderId)).toMatchObject({ paid: 'T', autoPaid: 'F', confirmCalls: 1 });
    expect(fake.violations).toEqual([]);
  });

  it('a canceled order is a non-retryable ORDER_CANCELED, before or during the update; an unknown one ORDER_NOT_FOUND', async () => {
    const shop = adapter();
    const { session } = await install(shop, 'paymall04');
    const o = fake.addOrder({ mallId: 'paymall04', amount: 9000, buyerName: '최구매' });
    fake.cancelOrder(o.orderId);
    const e = await shopError(shop.confirmDeposit(session, o.orderId));
    expect(e).toMatchObject({ code: 'ORDER_CANCELED', retryable: false });
    expect(fake.order(o.orderId)).toMatchObject({ paid: 'F', confirmCalls: 0 });

    const o2 = fake.addOrder({ mallId: 'paymall04', amount: 9000, buyerName: '최구매' });
    const racing = adapter({
      fetch: async (input, init) => {
        if (init?.method === 'PUT') fake.cancelOrder(o2.orderId);
        return fetch(input, init);
      },
    });
    const e2 = await shopError(racing.confirmDeposit(session, o2.orderId));
    expect(e2).toMatchObject({ code: 'ORDER_CANCELED', retryable: false });
    expect(fake.order(o2.orderId)).toMatchObject({ paid: 'F', confirmCalls: 1 });

    const e3 = await shopError(shop.confirmDeposit(session, `${o.orderId.slice(0, 9)}8888888`));
    expect(e3).toMatchObject({ code: 'ORDER_NOT_FOUND', retryable: false });
    expect(fake.violations).toEqual([]);
  });
});

describe('failures and the rate limit', () => {
  let shop: ShopAdapter;
  let session: ShopSession;
  beforeAll(async () => {
    shop = adapter();
    ({ session } = await install(shop, 'failmall1'));
  });

  it('a 429 with a short wait is waited out and retried; the call succeeds', async () => {
    fake.failNext(1, { status: 429 });
    const before = apiCalls('failmall1', '/api/v2/admin/orders').length;
    expect(await shop.listAwaitingOrders(session, minutesAgo(5), new Date())).toEqual([]);
    const calls = apiCalls('failmall1', '/api/v2/admin/orders').slice(before);
    expect(calls.map((c) => c.status)).toEqual([429, 200]);
    expect(waits).toEqual([500]); // 40/40 in the bucket: one call drains in 0.5 s
  });

  it('a 429 that persists is a retryable RATE_LIMITED with retryAfterMs after 2 retries', async () => {
    fake.failNext(3, { status: 429, headers: { 'retry-after': '1' } });
    const before = apiCalls('failmall1', '/api/v2/admin/orders').length;
    const e = await shopError(shop.listAwaitingOrders(session, minutesAgo(5), new Date()));
    expect(e).toMatchObject({ code: 'RATE_LIMITED', retryable: true, status: 429, retryAfterMs: 1000, authExpired: false });
    expect(apiCalls('failmall1', '/api/v2/admin/orders').length - before).toBe(3);
    expect(waits).toEqual([1000, 1000]);
  });

  it("a 429 asking for a long wait (Cafe24's usage limit: X-Cafe24-Call-Remain) is not waited out: retryable at once, and the next call is not sent early", async () => {
    const own = adapter();
    fake.failNext(1, { status: 429, headers: { 'x-cafe24-call-usage': '104.2', 'x-cafe24-call-remain': '32' } });
    const before = fake.requests.length;
    const e = await shopError(own.orderStatuses(session, ['20260101-0000001']));
    expect(e).toMatchObject({ code: 'RATE_LIMITED', retryable: true, retryAfterMs: 32_000 });
    const e2 = await shopError(own.confirmDeposit(session, '20260101-0000001'));
    expect(e2).toMatchObject({ code: 'RATE_LIMITED', retryable: true });
    expect(e2.retryAfterMs).toBeGreaterThan(30_000);
    expect(fake.requests.length - before).toBe(1);
    expect(waits).toEqual([]);
  });

  it('500 is retryable with Cafe24’s code; an HTML 503 is retryable HTTP_503; other 4xx are not retryable', async () => {
    fake.failNext(1, { status: 500 });
    const e = await shopError(shop.listAwaitingOrders(session, minutesAgo(5), new Date()));
    expect(e).toMatchObject({ code: '500', retryable: true, status: 500, authExpired: false });
    fake.failNext(1, { status: 503 });
    const e2 = await shopError(shop.orderStatuses(session, ['20260101-0000001']));
    expect(e2).toMatchObject({ code: 'HTTP_503', retryable: true, status: 503 });
    fake.failNext(1, { status: 422, body: { error: { code: 'invalid_parameter', message: 'start_date is invalid' } } });
    const e3 = await shopError(shop.listAwaitingOrders(session, minutesAgo(5), new Date()));
    expect(e3).toMatchObject({ code: 'invalid_parameter', retryable: false, status: 422 });
    expect(e3.message).toContain('start_date is invalid');
    fake.failNext(1, { status: 403, body: { error: { code: 403, message: 'The app was deleted from the mall.' } } });
    const e4 = await shopError(shop.listAwaitingOrders(session, minutesAgo(5), new Date()));
    expect(e4).toMatchObject({ code: '403', retryable: false, reauthorize: true });
  });

  it('an answer that never comes is a retryable TIMEOUT within timeoutMs; an unreachable Cafe24 a retryable NETWORK', async () => {
    fake.hangNext(1);
    const t0 = Date.now();
    const e = await shopError(shop.listAwaitingOrders(session, minutesAgo(5), new Date()));
    const took = Date.now() - t0;
    expect(e).toMatchObject({ code: 'TIMEOUT', retryable: true });
    expect(took).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
    expect(took).toBeLessThan(TIMEOUT_MS + 3000);

    const down = adapter({ apiBaseUrl: () => 'http://127.0.0.1:9' });
    const e2 = await shopError(down.refresh('failmall1', 'some-refresh-token'));
    expect(e2).toMatchObject({ code: 'NETWORK', retryable: true, reauthorize: false });
  });

  it('a confirmation whose update times out is retryable unless the order reads paid afterwards', async () => {
    const o = fake.addOrder({ mallId: 'failmall1', amount: 4000, buyerName: '정구매' });
    fake.hangNext(1, { method: 'PUT' });
    const e = await shopError(shop.confirmDeposit(session, o.orderId));
    expect(e).toMatchObject({ code: 'TIMEOUT', retryable: true });
    expect(fake.order(o.orderId)!.paid).toBe('F');
    await shop.confirmDeposit(session, o.orderId);
    expect(fake.order(o.orderId)!.paid).toBe('T');
  });

  it('paces calls by X-Api-Call-Limit: with the bucket nearly full it waits before the next call instead of meeting a 429', async () => {
    const paced = adapter({ realSleep: true });
    const { session: s } = await install(paced, 'pacemall1');
    fake.fillBucket('pacemall1', 36);
    const before = apiCalls('pacemall1', '/api/v2/admin/orders').length;
    for (let i = 0; i < 6; i++) await paced.orderStatuses(s, ['20260101-0000001']);
    const calls = apiCalls('pacemall1', '/api/v2/admin/orders').slice(before);
    expect(calls.map((c) => c.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(waits.length).toBeGreaterThan(0);
    expect(waits.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(1000);

    // Without pacing (a fresh adapter knows nothing of the bucket) the same burst meets the full bucket.
    fake.fillBucket('pacemall1', 40);
    const blind = adapter();
    const e = await shopError(blind.orderStatuses(s, ['20260101-0000001']));
    expect(e).toMatchObject({ code: 'RATE_LIMITED', retryable: true });
  }, 20_000);
});

describe('secrets', () => {
  it("Cafe24's messages that echo a code or a refresh token are scrubbed", async () => {
    const shop = adapter();
    fake.echoGrantInErrors = true;
    const e = await shopError(shop.refresh('echomall1', 'echoed-refresh-token-3f9a8b7c'));
    secrets.add('echoed-refresh-token-3f9a8b7c');
    expect(e.code).toBe('invalid_grant');
    expect(e.message).toContain('[redacted]');
    const e2 = await shopError(shop.exchangeCode('echomall1', 'echoed-code-77aa66bb'));
    secrets.add('echoed-code-77aa66bb');
    expect(e2.message).toContain('[redacted]');
  });

  it('no error caught in this file carries the client secret, a code, an access or a refresh token', () => {
    expect(caught.length).toBeGreaterThan(15);
    expect(secrets.size).toBeGreaterThan(10);
    for (const e of caught) {
      const text = `${(e as Error).message}\n${(e as Error).stack}\n${inspect(e)}\n${JSON.stringify(e)}`;
      for (const s of secrets) expect(text.includes(s), `an error carries a secret: ${(e as Error).message}`).toBe(false);
    }
    // Nor the Basic credentials built from them.
    const basic = Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64');
    for (const e of caught) expect(inspect(e).includes(basic)).toBe(false);
  });
});

describe('the fake itself', () => {
  it('records a malformed deposit update or settings read and answers 422, and refuses a token request without client credentials', async () => {
    const shop = adapter();
    const { session } = await install(shop, 'fakemall1');
    const o = fake.addOrder({ mallId: 'fakemall1', amount: 1000, buyerName: 'x' });
    const before = fake.violations.length;
    const res = await fetch(`${fake.apiBaseUrl('fakemall1')}/api/v2/admin/payments`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${session.accessToken}`, 'content-type': 'application/json', 'x-cafe24-api-version': '2026-03-01' },
      body: JSON.stringify({ request: { order_id: o.orderId, status: 'paid' } }),
    });
    expect(res.status).toBe(422);
    expect(res.headers.get('x-api-call-limit')).toMatch(/^\d+\/40$/);
    expect(fake.violations.slice(before)).toEqual(['PUT /payments: unknown field request']);
    fake.violations.length = before;
    const noVersion = await fetch(`${fake.apiBaseUrl('fakemall1')}/api/v2/admin/orders/${o.orderId}`, { headers: { authorization: `Bearer ${session.accessToken}` } });
    expect(noVersion.status).toBe(422);
    expect(fake.violations.splice(before)).toHaveLength(1);
    // The order settings: only shop_no; the version header and a token of the mall are needed as for any call.
    const auth = { authorization: `Bearer ${session.accessToken}`, 'x-cafe24-api-version': '2026-03-01' };
    const setting = await fetch(`${fake.apiBaseUrl('fakemall1')}/api/v2/admin/orders/setting?shop_no=1`, { headers: auth });
    expect(setting.status).toBe(200);
    expect((await setting.json()).order).toMatchObject({ shop_no: 1, auto_cancel: 'T', auto_cancel_cash_unit: 'D', auto_cancel_cash_period: 7 });
    const extra = await fetch(`${fake.apiBaseUrl('fakemall1')}/api/v2/admin/orders/setting?shop_no=1&fields=auto_cancel`, { headers: auth });
    expect(extra.status).toBe(422);
    expect(fake.violations.splice(before)).toEqual(['GET /orders/setting: unknown parameter fields']);
    const settingNoVersion = await fetch(`${fake.apiBaseUrl('fakemall1')}/api/v2/admin/orders/setting`, { headers: { authorization: auth.authorization } });
    expect(settingNoVersion.status).toBe(422);
    expect(fake.violations.splice(before)).toHaveLength(1);
    const settingNoToken = await fetch(`${fake.apiBaseUrl('fakemall1')}/api/v2/admin/orders/setting`, { headers: { 'x-cafe24-api-version': '2026-03-01' } });
    expect(settingNoToken.status).toBe(401);
    const token = await fetch(`${fake.apiBaseUrl('fakemall1')}/api/v2/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=refresh_token&refresh_token=x' });
    expect(token.status).toBe(401);
    expect(await token.json()).toMatchObject({ error: 'invalid_client' });
  });
});
