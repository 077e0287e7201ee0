/**
 * A local fake of Cafe24's OAuth and Admin API (node:http on 127.0.0.1, a random port) for tests of the Cafe24 shop
 * adapter (src/events/shops/cafe24.ts) and, through the running service, of the shop integration end to end. It
 * re-implements the wire contract of src/events/README.md ("Cafe24's Admin API") independently of the adapter, so a
 * mismatch fails the tests.
 *
 * Malls are told apart by a path prefix instead of a host name: `apiBaseUrl(mallId)` is `{url}/{mallId}`, and the
 * adapter appends `/api/v2/...` to it as it would to `https://{mallId}.cafe24api.com`.
 *
 * - OAuth: `authorize(mallId, state)` is a merchant approving the install (or GET .../oauth/authorize, which answers
 *   302 to the redirect URI with code and state, for a browser-like flow). POST .../oauth/token checks the Basic
 *   credentials, the form encoding, the grant type, and: codes single-use, bound to their mall, expiring after
 *   `codeTtlMs`, redirect_uri equal to the registered one; refresh tokens bound to their mall, rotating and single-use
 *   (an old one → 400 invalid_grant), expiring after `refreshTokenTtlMs`. Access tokens live `accessTokenTtlMs`
 *   (mutable, so a test can force expiry; `expireAccessTokens()` expires the ones issued). An install through
 *   GET .../oauth/authorize is granted the scopes it asked for; `authorize()` grants `grantedScopes` (or the scopes it
 *   is given: an older install without mall.read_store).
 * - Admin API: every request needs a live Bearer token of its mall (else 401 with Cafe24's error body) and an
 *   `X-Cafe24-Api-Version` of the form yyyy-MM-dd; query parameters and PUT bodies are checked against the documented
 *   shapes — a departure answers 422 and is recorded in `violations` (tests assert none). Orders: GET .../orders (list,
 *   filters, offset paging with `links`), GET .../orders/{id}; PUT .../payments (the deposit confirmation, scope
 *   mall.write_order); GET .../orders/setting (the mall's order settings, scope mall.read_store, else 403; what it
 *   answers is set per mall with `orderSettings()`, by default Cafe24's documented example: auto-cancel after 7 days).
 * - Rate limit: a leaky bucket per mall (capacity 40, leaking 2 calls/s) over the Admin API; every Admin API answer
 *   carries `X-Api-Call-Limit: n/40`, and a call that finds the bucket full is answered 429. The token endpoint is not
 *   counted (Cafe24 documents the bucket for the Admin API).
 * - Faults: `failNext(n, fault)` answers the next n matching requests with a status (and headers/body), optionally
 *   after applying a PUT (`afterApply`, as if Cafe24 fell over before answering); `hangNext(n)` never answers (with
 *   `afterApply`, a PUT is applied first: Cafe24 did it, its answer never came). `hold(match)` keeps every matching
 *   request waiting, unanswered and unprocessed, until `release()` (a test lines up concurrent callers with it).
 * - `requests`: every request (method, mall, path, query, headers without Authorization, the body with secrets
 *   removed, the status answered). `issued`: every code and token handed out, for tests that check none leaks.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeCafe24Order {
  mallId: string;
  orderId: string;
  billingName: string;
  buyerName: string;
  buyerEmail: string | null;
  buyerCellphone: string | null;
  /** Whole won; rendered as Cafe24 does ("10000.00") unless `amountText` says otherwise. */
  amount: number;
  amountText: string | null;
  paymentMethod: string[];
  currency: string;
  orderDate: Date;
  paid: 'T' | 'F' | 'M';
  canceled: 'T' | 'F' | 'M';
  /** The items' order status (N00 awaiting deposit, N10 after payment, C49 canceled before deposit, ...). */
  orderStatus: string;
  paidAt: Date | null;
  autoPaid: 'T' | 'F' | null;
  /** PUT .../payments requests naming this order, whatever their outcome. */
  confirmCalls: number;
}

export interface NewFakeOrder {
  mallId: string;
  orderId?: string;
  billingName?: string;
  buyerName?: string;
  buyerEmail?: string | null;
  buyerCellphone?: string | null;
  amount: number;
  amountText?: string;
  paymentMethod?: string[];
  currency?: string;
  orderDate?: Date;
  paid?: boolean;
}

export interface FakeCafe24Request {
  method: string;
  mallId: string;
  /** The path after the mall prefix, e.g. /api/v2/admin/orders. */
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  /** The form fields (token endpoint; code and tokens replaced by "<code>", "<refresh_token>") or the JSON body. */
  body: unknown;
  /** The status answered (undefined while hanging). */
  status?: number;
}

export interface Fault {
  status: 429 | 500 | 502 | 503 | 504 | number;
  headers?: Record<string, string>;
  /** The body (default: Cafe24's `{error: {code, message}}` for 4xx/500, an HTML page for 502-504). */
  body?: string | object;
  /** Only requests of this method / whose path starts with this (after the mall prefix); default any Admin API call. */
  method?: string;
  path?: string;
  /** Apply the request first (a PUT .../payments), then answer the fault. */
  afterApply?: boolean;
}

/** Requests a test keeps waiting (FakeCafe24.hold). */
export interface Hold {
  /** Matching requests that arrived (held, or let through after the release). */
  readonly arrived: number;
  /** Resolves once `n` matching requests have arrived. */
  whenArrived(n: number): Promise<void>;
  /** Lets the held requests (and every later one) through. */
  release(): void;
}

/** A secret the fake handed out. */
export interface IssuedSecret {
  kind: 'code' | 'access_token' | 'refresh_token';
  mallId: string;
  value: string;
}

export interface FakeCafe24Options {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  /** Default 2 h, as Cafe24's. */
  accessTokenTtlMs?: number;
  /** Default 14 days, as Cafe24's. */
  refreshTokenTtlMs?: number;
  /** Default 60 s, as Cafe24's. */
  codeTtlMs?: number;
  /** Scopes `authorize()` grants when not told (default mall.read_order, mall.write_order, mall.read_store). */
  grantedScopes?: string[];
  bucketCapacity?: number;
  bucketLeakPerSecond?: number;
}

export interface FakeCafe24 {
  url: string;
  apiBaseUrl(mallId: string): string;
  /** The service's settings for this fake: the Cafe24 app's credentials and redirect URI, and the API at the fake. */
  serviceEnv(): Record<'CAFE24_CLIENT_ID' | 'CAFE24_CLIENT_SECRET' | 'CAFE24_REDIRECT_URI' | 'CAFE24_API_URL', string>;
  accessTokenTtlMs: number;
  refreshTokenTtlMs: number;
  /** Token error descriptions repeat the code / refresh token sent (to check the adapter scrubs them). */
  echoGrantInErrors: boolean;
  requests: FakeCafe24Request[];
  /** Shape violations of requests (unknown parameters, malformed values, a bad PUT body, a missing API version). */
  violations: string[];
  /** The code the merchant's approval of the install produces (what the redirect carries), granting `scopes`. */
  authorize(mallId: string, state: string, redirectUri?: string, scopes?: string[]): string;
  /**
   * What GET .../orders/setting answers for the mall (the `order` object): these fields over the default (Cafe24's
   * documented example, auto_cancel T, auto_cancel_cash_unit D, auto_cancel_cash_period 7). A field set to undefined is
   * left out; any value is served as given (for malformed answers). null restores the default.
   */
  orderSettings(mallId: string, fields: Record<string, unknown> | null): void;
  addOrder(input: NewFakeOrder): FakeCafe24Order;
  cancelOrder(orderId: string): FakeCafe24Order;
  /** The merchant confirms the deposit in Cafe24's admin. */
  markPaid(orderId: string): FakeCafe24Order;
  order(orderId: string): FakeCafe24Order | undefined;
  failNext(n: number, fault: Fault): void;
  hangNext(n: number, match?: { method?: string; path?: string; afterApply?: boolean }): void;
  /** Holds every matching request (default: any Admin API call) until released. */
  hold(match?: { method?: string; path?: string; mallId?: string }): Hold;
  /** Every code, access token and refresh token issued, in order. */
  issued: IssuedSecret[];
  /** Sets a mall's bucket level (as if other apps had called). */
  fillBucket(mallId: string, level: number): void;
  /** Expires every access token issued so far. */
  expireAccessTokens(): void;
  /** Expires every refresh token issued so far (Cafe24 answers invalid_grant: the merchant must install again). */
  expireRefreshTokens(): void;
  close(): Promise<void>;
}

const KST_OFFSET_MS = 9 * 3600_000;
const MALL_RE = /^[a-z][a-z0-9]{3,15}$/;
const ORDER_ID_RE = /^\d{8}-\d{7}$/;
const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
const DATETIME_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?([+-]\d{2}:\d{2}|Z)$/;
const ORDER_STATUS_RE = /^[NCRE]\d{2}$/;
const PAYMENT_METHODS = new Set(['cash', 'card', 'tcash', 'icash', 'cell', 'deferpay', 'cvs', 'point', 'mileage', 'deposit', 'giftcard', 'pointcard', 'etc']);
const EMBEDS = new Set(['items', 'receivers', 'buyer', 'return', 'cancellation', 'exchange', 'benefits', 'coupons', 'refunds']);
const DATE_TYPES = new Set(['order_date', 'pay_date', 'shipbegin_date', 'shipend_date', 'cancel_date', 'place_date']);
/** GET .../orders/setting as Cafe24's reference shows it (Orders setting, "Retrieve Order Settings"). */
const DEFAULT_ORDER_SETTINGS: Record<string, unknown> = {
  shop_no: 1,
  claim_request: 'T',
  claim_request_type: 'S',
  claim_request_button_exposure: ['cancel_N20', 'return_N40'],
  claim_request_button_date_type: 'order_date',
  claim_request_button_period: 30,
  stock_recover: 'T',
  stock_recover_base: 'T',
  stock_recover_individual: { cancel_before: null, cancel_after: null, cancel_return: null },
  refund_processing_setting: 'S',
  claim_request_auto_accept: 'T',
  refund_benefit_setting: 'U',
  use_product_prepare_status: 'T',
  use_purchase_confirmation_button: 'F',
  purchase_confirmation_button_set_date: null,
  use_purchase_confirmation_auto_check: 'F',
  purchase_confirmation_auto_check_day: null,
  purchase_confirmation_auto_check_set_date: null,
  use_additional_fields: 'F',
  customer_pays_return_shipping: 'F',
  refund_bank_account_required: 'F',
  exchange_shipping_fee: '0.00',
  return_shipping_fee: '0.00',
  auto_delivery_completion: 'T',
  delivery_completion_after_days: 3,
  receiver_address_modify_button_exposure: ['N10', 'N20'],
  auto_cancel: 'T',
  auto_cancel_cash_unit: 'D',
  auto_cancel_cash_period: 7,
  auto_cancel_virtual_account_period: 7,
  auto_cancel_cvs_period: 7,
  use_shipped_auto_check_start_day: 'F',
  shipped_auto_check_start_day: null,
};
const LIST_PARAMS = new Set(['shop_no', 'start_date', 'end_date', 'order_id', 'order_status', 'payment_status', 'payment_method', 'date_type', 'limit', 'offset', 'embed', 'fields', 'buyer_name', 'member_type']);

/** yyyy-MM-ddTHH:mm:ss+09:00 */
function kstIso(d: Date): string {
  return new Date(d.getTime() + KST_OFFSET_MS).toISOString().slice(0, 19) + '+09:00';
}
/** Cafe24's token times: KST without an offset, with milliseconds. */
function kstLocal(t: number): string {
  return new Date(t + KST_OFFSET_MS).toISOString().slice(0, 23);
}
function kstDate(d: Date): string {
  return kstIso(d).slice(0, 10);
}

const cafe24Error = (code: number, message: string) => ({ error: { code, message } });

export async function startFakeCafe24(opts: FakeCafe24Options): Promise<FakeCafe24> {
  const capacity = opts.bucketCapacity ?? 40;
  const leak = opts.bucketLeakPerSecond ?? 2;
  const grantedScopes = opts.grantedScopes ?? ['mall.read_order', 'mall.write_order', 'mall.read_store'];
  const codeTtlMs = opts.codeTtlMs ?? 60_000;
  const codes = new Map<string, { mallId: string; redirectUri: string; expiresAt: number; used: boolean; scopes: string[] }>();
  const refreshTokens = new Map<string, { mallId: string; expiresAt: number; used: boolean; scopes: string[] }>();
  const accessTokens = new Map<string, { mallId: string; expiresAt: number; scopes: string[] }>();
  const orders = new Map<string, FakeCafe24Order>();
  /** Per mall, the fields orderSettings() set over DEFAULT_ORDER_SETTINGS. */
  const orderSettingsOf = new Map<string, Record<string, unknown>>();
  const buckets = new Map<string, { level: number; at: number }>();
  const faults: (Fault & { left: number })[] = [];
  const hangs: { left: number; method?: string; path?: string; afterApply?: boolean }[] = [];
  const holds: { method?: string; path?: string; mallId?: string; released: boolean; arrived: number; waiters: (() => void)[]; check: (() => void)[] }[] = [];
  const issued: IssuedSecret[] = [];
  const hanging = new Set<ServerResponse>();
  const orderSeq = new Map<string, number>();
  const requests: FakeCafe24Request[] = [];
  const violations: string[] = [];

  const secret = () => randomBytes(18).toString('base64url');

  function bucketOf(mallId: string) {
    const now = Date.now();
    const b = buckets.get(mallId) ?? { level: 0, at: now };
    b.level = Math.max(0, b.level - (leak * (now - b.at)) / 1000);
    b.at = now;
    buckets.set(mallId, b);
    return b;
  }
  const limitHeader = (mallId: string) => `${Math.min(capacity, Math.ceil(bucketOf(mallId).level))}/${capacity}`;

  function issueTokens(mallId: string, scopes: string[]) {
    const now = Date.now();
    const access = secret();
    const refresh = secret();
    issued.push({ kind: 'access_token', mallId, value: access }, { kind: 'refresh_token', mallId, value: refresh });
    accessTokens.set(access, { mallId, expiresAt: now + fake.accessTokenTtlMs, scopes });
    refreshTokens.set(refresh, { mallId, expiresAt: now + fake.refreshTokenTtlMs, used: false, scopes });
    return {
      access_token: access,
      expires_at: kstLocal(now + fake.accessTokenTtlMs),
      refresh_token: refresh,
      refresh_token_expires_at: kstLocal(now + fake.refreshTokenTtlMs),
      client_id: opts.clientId,
      mall_id: mallId,
      user_id: mallId,
      scopes,
      issued_at: kstLocal(now),
      shop_no: '1',
      token_type: 'Bearer',
    };
  }

  function orderJson(o: FakeCafe24Order, embed: Set<string>) {
    const amount = o.amountText ?? `${o.amount}.00`;
    const money = { order_price_amount: amount, shipping_fee: '0.00', points_spent_amount: '0.00', credits_spent_amount: '0.00', coupon_discount_price: '0.00', total_amount_due: o.paid === 'T' ? '0.00' : amount, payment_amount: amount, tax: '0.00' };
    return {
      shop_no: 1,
      currency: o.currency,
      order_id: o.orderId,
      market_id: 'self',
      member_id: '',
      member_email: o.buyerEmail,
      billing_name: o.billingName,
      bank_code: 'bank_04',
      bank_code_name: '국민은행',
      payment_method: o.paymentMethod,
      payment_method_name: o.paymentMethod.map((m) => (m === 'cash' ? '무통장입금' : m)),
      paid: o.paid,
      canceled: o.canceled,
      order_date: kstIso(o.orderDate),
      payment_date: o.paidAt ? kstIso(o.paidAt) : null,
      payment_amount: amount,
      initial_order_amount: money,
      actual_order_amount: money,
      cancel_date: o.canceled === 'T' ? kstIso(new Date()) : null,
      shipping_status: 'F',
      ...(embed.has('buyer') ? { buyer: { shop_no: 1, member_id: '', name: o.buyerName, email: o.buyerEmail, phone: '', cellphone: o.buyerCellphone } } : {}),
      ...(embed.has('items') ? { items: [{ order_item_code: `${o.orderId}-01`, order_status: o.orderStatus }] } : {}),
    };
  }

  // ───────────── OAuth ─────────────

  function tokenEndpoint(mallId: string, req: IncomingMessage, raw: string, record: FakeCafe24Request): [number, object] {
    const m = /^Basic (.+)$/.exec(String(req.headers.authorization ?? ''));
    const credentials = m ? Buffer.from(m[1], 'base64').toString('utf8') : '';
    if (credentials !== `${opts.clientId}:${opts.clientSecret}`) return [401, { error: 'invalid_client', error_description: 'Client authentication failed.' }];
    if (!String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
      violations.push('token request not form-encoded');
      return [400, { error: 'invalid_request', error_description: 'The request must be application/x-www-form-urlencoded.' }];
    }
    const form = Object.fromEntries(new URLSearchParams(raw));
    record.body = { ...form, ...(form.code ? { code: '<code>' } : {}), ...(form.refresh_token ? { refresh_token: '<refresh_token>' } : {}) };
    const echo = (what: string, value: string | undefined) => (fake.echoGrantInErrors && value ? `${what} ${value} is invalid.` : `The ${what} is invalid, expired or already used.`);
    if (form.grant_type === 'authorization_code') {
      const c = codes.get(form.code ?? '');
      if (!c || c.used || c.mallId !== mallId || Date.now() > c.expiresAt) {
        if (c && c.mallId === mallId) c.used = true; // a replayed code stays dead
        return [400, { error: 'invalid_grant', error_description: echo('authorization code', form.code) }];
      }
      c.used = true;
      if (form.redirect_uri !== c.redirectUri) return [400, { error: 'invalid_grant', error_description: 'redirect_uri does not match the authorization request.' }];
      return [200, issueTokens(mallId, c.scopes)];
    }
    if (form.grant_type === 'refresh_token') {
      const r = refreshTokens.get(form.refresh_token ?? '');
      if (!r || r.used || r.mallId !== mallId || Date.now() > r.expiresAt) return [400, { error: 'invalid_grant', error_description: echo('refresh token', form.refresh_token) }];
      r.used = true;
      return [200, issueTokens(mallId, r.scopes)];
    }
    return [400, { error: 'unsupported_grant_type', error_description: `Unsupported grant_type ${String(form.grant_type).slice(0, 30)}.` }];
  }

  function authorizeEndpoint(mallId: string, q: Record<string, string>, res: ServerResponse, record: FakeCafe24Request) {
    const send = (status: number, payload: object) => {
      record.status = status;
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(payload));
    };
    if (q.client_id !== opts.clientId) return send(400, cafe24Error(400, 'Unknown client_id.'));
    if (q.redirect_uri !== opts.redirectUri) return send(400, cafe24Error(400, 'redirect_uri is not registered for this app.'));
    if (q.response_type !== 'code' || !q.state) return send(400, cafe24Error(400, 'response_type=code and state are required.'));
    const asked = (q.scope ?? '').split(',').filter(Boolean);
    if (asked.length === 0 || asked.some((s) => !/^mall\.(read|write)_[a-z]+$/.test(s))) return send(400, cafe24Error(400, 'invalid_scope'));
    // The merchant approves what the app asks for: the tokens carry those scopes.
    const code = fake.authorize(mallId, q.state, q.redirect_uri, asked);
    const location = new URL(q.redirect_uri);
    location.searchParams.set('code', code);
    location.searchParams.set('state', q.state);
    record.status = 302;
    res.writeHead(302, { location: location.toString() }).end();
  }

  // ───────────── Admin API ─────────────

  function listOrders(mallId: string, q: Record<string, string>): [number, object] {
    const bad = (why: string): [number, object] => {
      violations.push(`GET /orders: ${why}`);
      return [422, cafe24Error(422, why)];
    };
    for (const k of Object.keys(q)) if (!LIST_PARAMS.has(k)) return bad(`unknown parameter ${k}`);
    if (q.shop_no !== undefined && !/^[1-9]\d*$/.test(q.shop_no)) return bad('shop_no must be a positive integer');
    const limit = q.limit === undefined ? 10 : Number(q.limit);
    const offset = q.offset === undefined ? 0 : Number(q.offset);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) return bad('limit must be 1-1000');
    if (!Number.isInteger(offset) || offset < 0 || offset > 15000) return bad('offset must be 0-15000');
    if (!q.start_date || !q.end_date) return bad('start_date and end_date are required');
    const bound = (v: string, end: boolean) => (DATE_RE.test(v) ? Date.parse(`${v}T${end ? '23:59:59.999' : '00:00:00'}+09:00`) : DATETIME_RE.test(v) ? Date.parse(v) : NaN);
    const from = bound(q.start_date, false);
    const to = bound(q.end_date, true);
    if (!Number.isFinite(from) || !Number.isFinite(to) || to < from) return bad('start_date/end_date malformed');
    if (to - from > 92 * 86_400_000) return bad('the search period must be under 3 months');
    if (q.date_type !== undefined && !DATE_TYPES.has(q.date_type)) return bad('date_type unknown');
    const list = (v: string | undefined, ok: (s: string) => boolean, name: string) => {
      if (v === undefined) return null;
      const parts = v.split(',');
      if (parts.length > 100 || parts.some((p) => !ok(p))) throw new Error(`${name} malformed`);
      return new Set(parts);
    };
    let ids: Set<string> | null, statuses: Set<string> | null, methods: Set<string> | null, embed: Set<string> | null;
    try {
      ids = list(q.order_id, (s) => ORDER_ID_RE.test(s), 'order_id');
      statuses = list(q.order_status, (s) => ORDER_STATUS_RE.test(s), 'order_status');
      methods = list(q.payment_method, (s) => PAYMENT_METHODS.has(s), 'payment_method');
      embed = list(q.embed, (s) => EMBEDS.has(s), 'embed');
    } catch (e) {
      return bad((e as Error).message);
    }
    const matching = [...orders.values()]
      .filter((o) => o.mallId === mallId)
      .filter((o) => o.orderDate.getTime() >= from && o.orderDate.getTime() <= to)
      .filter((o) => !ids || ids.has(o.orderId))
      .filter((o) => !statuses || statuses.has(o.orderStatus))
      .filter((o) => !methods || o.paymentMethod.some((m) => methods!.has(m)))
      .sort((a, b) => a.orderDate.getTime() - b.orderDate.getTime() || a.orderId.localeCompare(b.orderId));
    const page = matching.slice(offset, offset + limit);
    const base = `/api/v2/admin/orders`;
    const links = offset + limit < matching.length ? [{ rel: 'next', href: `${base}?limit=${limit}&offset=${offset + limit}` }] : [];
    return [200, { orders: page.map((o) => orderJson(o, embed ?? new Set())), links }];
  }

  function getOrder(mallId: string, orderId: string, q: Record<string, string>): [number, object] {
    for (const k of Object.keys(q)) {
      if (!['shop_no', 'embed', 'fields'].includes(k)) {
        violations.push(`GET /orders/{id}: unknown parameter ${k}`);
        return [422, cafe24Error(422, `unknown parameter ${k}`)];
      }
    }
    const o = orders.get(orderId);
    if (!o || o.mallId !== mallId) return [404, cafe24Error(404, 'No order found.')];
    return [200, { order: orderJson(o, new Set((q.embed ?? '').split(',').filter(Boolean))) }];
  }

  function orderSetting(mallId: string, q: Record<string, string>, scopes: string[]): [number, object] {
    for (const k of Object.keys(q)) {
      if (k !== 'shop_no') {
        violations.push(`GET /orders/setting: unknown parameter ${k}`);
        return [422, cafe24Error(422, `unknown parameter ${k}`)];
      }
    }
    if (q.shop_no !== undefined && !/^[1-9]\d*$/.test(q.shop_no)) {
      violations.push('GET /orders/setting: shop_no must be a positive integer');
      return [422, cafe24Error(422, 'shop_no must be a positive integer')];
    }
    if (!scopes.includes('mall.read_store')) return [403, cafe24Error(403, 'The access token has no mall.read_store scope. (insufficient_scope)')];
    return [200, { order: { ...DEFAULT_ORDER_SETTINGS, ...orderSettingsOf.get(mallId), shop_no: Number(q.shop_no ?? 1) } }];
  }

  function updatePayments(mallId: string, body: unknown, scopes: string[]): [number, object] {
    if (!scopes.includes('mall.write_order')) return [403, cafe24Error(403, 'The access token has no mall.write_order scope.')];
    const bad = (why: string): [number, object] => {
      violations.push(`PUT /payments: ${why}`);
      return [422, cafe24Error(422, why)];
    };
    if (!body || typeof body !== 'object' || Array.isArray(body)) return bad('the body must be a JSON object');
    const b = body as Record<string, unknown>;
    for (const k of Object.keys(b)) if (k !== 'shop_no' && k !== 'requests') return bad(`unknown field ${k}`);
    if (b.shop_no !== undefined && !(Number.isInteger(b.shop_no) && (b.shop_no as number) >= 1)) return bad('shop_no must be a positive integer');
    if (!Array.isArray(b.requests) || b.requests.length < 1 || b.requests.length > 10) return bad('requests must hold 1-10 items');
    for (const r of b.requests as unknown[]) {
      if (!r || typeof r !== 'object' || Array.isArray(r)) return bad('a request must be an object');
      const x = r as Record<string, unknown>;
      for (const k of Object.keys(x)) if (!['order_id', 'status', 'payment_no', 'auto_paid', 'recover_inventory', 'cancel_request'].includes(k)) return bad(`unknown request field ${k}`);
      if (typeof x.order_id !== 'string' || !ORDER_ID_RE.test(x.order_id)) return bad('order_id malformed');
      if (x.status !== 'paid' && x.status !== 'unpaid' && x.status !== 'canceled') return bad('status must be paid, unpaid or canceled');
      if (x.payment_no !== undefined && !(Number.isInteger(x.payment_no) && (x.payment_no as number) >= 1)) return bad('payment_no must be a positive integer');
      if (x.auto_paid !== undefined && x.auto_paid !== 'T' && x.auto_paid !== 'F') return bad('auto_paid must be T or F');
      if (x.status === 'canceled') return bad('status canceled is for payment gateways added by apps');
    }
    const outcomes = (b.requests as Record<string, any>[]).map((x): [number, object] => {
      const o = orders.get(x.order_id);
      if (o && o.mallId === mallId) o.confirmCalls++;
      if (!o || o.mallId !== mallId) return [404, cafe24Error(404, `No order ${x.order_id}.`)];
      if (o.canceled === 'T') return [422, cafe24Error(422, '취소된 주문의 결제상태는 변경할 수 없습니다.')];
      const target = x.status === 'paid' ? 'T' : 'F';
      if (o.paid === target) return [409, cafe24Error(409, 'The payment status is already the requested one.')];
      if (target === 'T') {
        o.paid = 'T';
        o.paidAt = new Date();
        o.autoPaid = x.auto_paid ?? 'F';
        if (o.orderStatus === 'N00') o.orderStatus = 'N10';
      } else {
        o.paid = 'F';
        o.paidAt = null;
        o.autoPaid = null;
        o.orderStatus = 'N00';
      }
      return [200, { shop_no: 1, order_id: o.orderId, status: x.status, payment_no: 1, cancel_request: { refund_status: 'F', partial_cancel: 'F', payment_gateway_name: null, payment_method: null, response_code: null, response_message: null } }];
    });
    if (outcomes.length === 1) return outcomes[0][0] === 200 ? [200, { payments: [outcomes[0][1]] }] : outcomes[0];
    const allOk = outcomes.every(([s]) => s === 200);
    return [allOk ? 200 : 207, { payments: outcomes.map(([s, o]) => (s === 200 ? o : { status_code: s, ...o })) }];
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://fake');
    const [, mallId = '', ...rest] = url.pathname.split('/');
    const path = '/' + rest.join('/');
    const query = Object.fromEntries(url.searchParams);
    const { authorization: _omitted, ...headers } = req.headers;
    const record: FakeCafe24Request = { method: req.method ?? '', mallId, path, query, headers, body: undefined };
    requests.push(record);
    const isApi = path.startsWith('/api/v2/admin/');
    const send = (status: number, payload: object | string, extra: Record<string, string> = {}) => {
      record.status = status;
      const h: Record<string, string> = { 'content-type': typeof payload === 'string' ? 'text/html' : 'application/json; charset=utf-8' };
      if (isApi) h['x-api-call-limit'] = limitHeader(mallId);
      res.writeHead(status, { ...h, ...extra }).end(typeof payload === 'string' ? payload : JSON.stringify(payload));
    };
    if (!MALL_RE.test(mallId)) return send(404, cafe24Error(404, 'No such mall.'));

    const matches = (f: { method?: string; path?: string }) => (!f.method || f.method === req.method) && (f.path ? path.startsWith(f.path) : isApi);
    for (const h of [...holds]) {
      if ((h.mallId && h.mallId !== mallId) || !matches(h)) continue;
      h.arrived++;
      for (const c of h.check) c();
      if (!h.released) await new Promise<void>((resolve) => h.waiters.push(resolve));
    }
    const hang = hangs.find((h) => h.left > 0 && matches(h));
    const hangUp = (h: { left: number }) => {
      h.left--;
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
    };
    // An `afterApply` hang is spent where the request was applied (below), not on a request answered before that.
    if (hang && !hang.afterApply) return hangUp(hang);
    const faultAt = faults.findIndex((f) => f.left > 0 && matches(f));
    const fault = faultAt >= 0 ? faults[faultAt] : null;
    if (fault) fault.left--;
    const answerFault = (f: Fault) => {
      const body = f.body ?? (f.status >= 502 ? `<html><body>${f.status} Bad Gateway</body></html>` : cafe24Error(f.status, f.status === 429 ? 'Too Many Requests' : 'Internal Server Error'));
      const extra = { ...(f.status === 429 && isApi ? { 'x-api-call-limit': `${capacity}/${capacity}` } : {}), ...f.headers };
      return send(f.status, body, extra);
    };
    if (fault && !fault.afterApply) return answerFault(fault);

    if (path === '/api/v2/oauth/token' && req.method === 'POST') {
      const [status, payload] = tokenEndpoint(mallId, req, raw, record);
      return send(status, payload);
    }
    if (path === '/api/v2/oauth/authorize' && req.method === 'GET') return authorizeEndpoint(mallId, query, res, record);
    if (!isApi) return send(404, cafe24Error(404, 'No API found.'));

    const bearer = /^Bearer (\S+)$/.exec(String(req.headers.authorization ?? ''));
    const tok = bearer ? accessTokens.get(bearer[1]) : undefined;
    if (!tok || tok.mallId !== mallId) return send(401, cafe24Error(401, 'Invalid access_token. (invalid_token)'));
    if (Date.now() >= tok.expiresAt) return send(401, cafe24Error(401, 'access_token time expired. (invalid_token)'));
    const version = String(req.headers['x-cafe24-api-version'] ?? '');
    if (!/^\d{4}-\d{2}-\d{2}$/.test(version)) {
      violations.push(`${req.method} ${path}: X-Cafe24-Api-Version missing or malformed (${version.slice(0, 20)})`);
      return send(422, cafe24Error(422, 'X-Cafe24-Api-Version is invalid.'));
    }
    const bucket = bucketOf(mallId);
    if (bucket.level + 1 > capacity) return send(429, cafe24Error(429, 'Too Many Requests'));
    bucket.level += 1;

    let status: number;
    let payload: object;
    if (req.method === 'GET' && path === '/api/v2/admin/orders') [status, payload] = listOrders(mallId, query);
    else if (req.method === 'GET' && path === '/api/v2/admin/orders/setting') [status, payload] = orderSetting(mallId, query, tok.scopes);
    else if (req.method === 'GET' && /^\/api\/v2\/admin\/orders\/[^/]+$/.test(path)) [status, payload] = getOrder(mallId, decodeURIComponent(path.split('/').pop()!), query);
    else if (req.method === 'PUT' && path === '/api/v2/admin/payments') {
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        violations.push('PUT /payments: the body is not JSON');
        return send(400, cafe24Error(400, 'The body is not JSON.'));
      }
      record.body = body;
      if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) violations.push('PUT /payments: content-type is not application/json');
      if (Object.keys(query).length > 0) violations.push(`PUT /payments: unexpected query ${Object.keys(query).join(',')}`);
      [status, payload] = updatePayments(mallId, body, tok.scopes);
    } else [status, payload] = [404, cafe24Error(404, 'No API found.')];
    if (hang) return hangUp(hang);
    if (fault) return answerFault(fault);
    return send(status, payload);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e) => {
      if (!res.headersSent) res.writeHead(500).end(String(e));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  const fake: FakeCafe24 = {
    url: `http://127.0.0.1:${port}`,
    apiBaseUrl: (mallId) => `http://127.0.0.1:${port}/${mallId}`,
    serviceEnv: () => ({
      CAFE24_CLIENT_ID: opts.clientId,
      CAFE24_CLIENT_SECRET: opts.clientSecret,
      CAFE24_REDIRECT_URI: opts.redirectUri,
      CAFE24_API_URL: `http://127.0.0.1:${port}/{mallid}`,
    }),
    accessTokenTtlMs: opts.accessTokenTtlMs ?? 2 * 3600_000,
    refreshTokenTtlMs: opts.refreshTokenTtlMs ?? 14 * 86_400_000,
    echoGrantInErrors: false,
    requests,
    violations,
    issued,
    authorize(mallId, _state, redirectUri = opts.redirectUri, scopes = grantedScopes) {
      const code = secret();
      issued.push({ kind: 'code', mallId, value: code });
      codes.set(code, { mallId, redirectUri, expiresAt: Date.now() + codeTtlMs, used: false, scopes: [...scopes] });
      return code;
    },
    orderSettings(mallId, fields) {
      if (fields === null) orderSettingsOf.delete(mallId);
      else orderSettingsOf.set(mallId, { ...fields });
    },
    addOrder(input) {
      const orderDate = input.orderDate ?? new Date();
      const day = kstDate(orderDate).replace(/-/g, '');
      const seq = (orderSeq.get(day) ?? 0) + 1;
      orderSeq.set(day, seq);
      const o: FakeCafe24Order = {
        mallId: input.mallId,
        orderId: input.orderId ?? `${day}-${String(seq).padStart(7, '0')}`,
        billingName: input.billingName ?? '',
        buyerName: input.buyerName ?? '',
        buyerEmail: input.buyerEmail ?? null,
        buyerCellphone: input.buyerCellphone ?? null,
        amount: input.amount,
        amountText: input.amountText ?? null,
        paymentMethod: input.paymentMethod ?? ['cash'],
        currency: input.currency ?? 'KRW',
        orderDate,
        paid: input.paid ? 'T' : 'F',
        canceled: 'F',
        orderStatus: input.paid ? 'N10' : 'N00',
        paidAt: input.paid ? orderDate : null,
        autoPaid: null,
        confirmCalls: 0,
      };
      if (orders.has(o.orderId)) throw new Error(`fake cafe24: order ${o.orderId} exists`);
      orders.set(o.orderId, o);
      return o;
    },
    cancelOrder(orderId) {
      const o = orders.get(orderId);
      if (!o) throw new Error(`fake cafe24: no order ${orderId}`);
      o.canceled = 'T';
      o.orderStatus = o.paid === 'T' ? 'C40' : 'C49';
      return o;
    },
    markPaid(orderId) {
      const o = orders.get(orderId);
      if (!o) throw new Error(`fake cafe24: no order ${orderId}`);
      o.paid = 'T';
      o.paidAt = new Date();
      o.autoPaid = 'F';
      if (o.orderStatus === 'N00') o.orderStatus = 'N10';
      return o;
    },
    order: (orderId) => orders.get(orderId),
    failNext(n, f) {
      faults.push({ ...f, left: n });
    },
    hangNext(n, match = {}) {
      hangs.push({ left: n, ...match });
    },
    hold(match = {}) {
      const h = { ...match, released: false, arrived: 0, waiters: [] as (() => void)[], check: [] as (() => void)[] };
      holds.push(h);
      return {
        get arrived() {
          return h.arrived;
        },
        whenArrived: (n) =>
          new Promise<void>((resolve) => {
            const check = () => h.arrived >= n && resolve();
            h.check.push(check);
            check();
          }),
        release() {
          h.released = true;
          if (holds.includes(h)) holds.splice(holds.indexOf(h), 1);
          for (const w of h.waiters.splice(0)) w();
        },
      };
    },
    fillBucket(mallId, level) {
      buckets.set(mallId, { level, at: Date.now() });
    },
    expireAccessTokens() {
      for (const t of accessTokens.values()) t.expiresAt = 0;
    },
    expireRefreshTokens() {
      for (const t of refreshTokens.values()) t.expiresAt = 0;
    },
    async close() {
      for (const h of [...holds]) {
        h.released = true;
        for (const w of h.waiters.splice(0)) w();
      }
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}
