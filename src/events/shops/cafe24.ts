/**
 * Cafe24's Admin API: the ShopAdapter of the shop port (src/domain/shops/shop-port.ts) for Cafe24 malls. OAuth 2.0
 * authorization code (install) and refresh-token rotation, the bank-transfer (무통장입금) orders awaiting their deposit
 * (with the mall's unpaid-order auto-cancel deadline), their states, and the deposit confirmation (결제상태 입금확인).
 *
 * The wire contract, the rate-limit pacing, the error mapping, the sources and the choices made where Cafe24's
 * documentation is silent: src/events/README.md, "Cafe24's Admin API". Tested against test/helpers/fake-cafe24.ts.
 *
 * Secrets: the client secret is kept in this closure and sent only in the token request's Basic credentials; tokens
 * and codes are sent only where the protocol puts them. No error message carries any of them (a message Cafe24 gives
 * is scrubbed of every secret the call sent before it is used).
 */
import { boundedExchange, ExchangeFailure } from '../http-exchange.ts';
import { ShopApiError, type AwaitingOrder, type ShopAdapter, type ShopOrderStatus, type ShopSession, type ShopTokens } from '../../domain/shops/shop-port.ts';

export interface Cafe24ShopOptions {
  clientId: string;
  clientSecret: string;
  /** The redirect URI registered for the app; sent with the authorization request and again with the code exchange. */
  redirectUri: string;
  /** The origin of a mall's API (default `https://{mallId}.cafe24api.com`); tests point it at the fake. */
  apiBaseUrl?: (mallId: string) => string;
  /** `X-Cafe24-Api-Version` (default CAFE24_API_VERSION). */
  apiVersion?: string;
  /** Scopes asked for at install (default CAFE24_SCOPES). */
  scopes?: readonly string[];
  /** Per request, including reading the answer (default 10 s). */
  timeoutMs?: number;
  /** Orders per page when listing (1-1000, Cafe24's maximum; default 500). */
  pageSize?: number;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
}

/** The API version this adapter was written against (Cafe24 dates its versions; each lives a year after its successor). */
export const CAFE24_API_VERSION = '2026-03-01';
/**
 * Reading orders and writing their payment status; reading the mall's order settings (mall.read_store: the unpaid-order
 * auto-cancel deadline, `payBy`). Installs made before mall.read_store was asked for import orders without a deadline.
 */
export const CAFE24_SCOPES = ['mall.read_order', 'mall.write_order', 'mall.read_store'] as const;

/** A mall id: the operator's Cafe24 id — lower-case letters and digits, starting with a letter, 4-16 characters. */
const MALL_ID_RE = /^[a-z][a-z0-9]{3,15}$/;
/** A Cafe24 order id: the order date (KST) and a sequence, e.g. 20261126-0000123. */
const ORDER_ID_RE = /^(\d{4})(\d{2})(\d{2})-\d{7}$/;

const RESPONSE_MAX_BYTES = 16 * 1024 * 1024;
const MESSAGE_MAX_CHARS = 300;
/** Cafe24's leaky bucket drains 2 calls a second. */
const LEAK_PER_SECOND = 2;
/** Pace when fewer than this many calls are left in the bucket. */
const MIN_FREE_CALLS = 4;
/** The adapter waits out a 429 itself only when the wait is this short, at most MAX_429_RETRIES times. */
const MAX_OWN_WAIT_MS = 2000;
const MAX_429_RETRIES = 2;
/** Cafe24 refuses an order search spanning 3 months or more; windows stay well under. */
const WINDOW_DAYS = 80;
/** Cafe24's largest `offset`. */
const MAX_OFFSET = 15_000;
/** Comma-separated searches take at most 100 values. */
const IDS_PER_LOOKUP = 100;
const KST_OFFSET_MS = 9 * 3600_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** auto_cancel_cash_period's documented range (Orders setting: 최소 1 ~ 최대 23), in the unit auto_cancel_cash_unit says. */
const AUTO_CANCEL_PERIOD_MIN = 1;
const AUTO_CANCEL_PERIOD_MAX = 23;

interface Answer {
  status: number;
  headers: Headers;
  /** The parsed JSON object, or null (no body, not JSON, not an object). */
  body: Record<string, any> | null;
}

interface Bucket {
  /** Calls in the bucket at `at` (Cafe24's count, plus the calls sent since). */
  level: number;
  max: number;
  at: number;
  /** Cafe24 said (X-Cafe24-*-Remain) no call gets through before this time. */
  blockedUntil: number;
}

/** yyyy-MM-dd of an instant in Korea Standard Time (UTC+9, no daylight saving). */
function kstDate(d: Date | number): string {
  return new Date(new Date(d).getTime() + KST_OFFSET_MS).toISOString().slice(0, 10);
}

function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);
}

/** A Cafe24 time: ISO 8601 with its offset, or without one (the token answer's `expires_at`), read as KST. */
function parseCafe24Time(v: unknown): Date | null {
  if (typeof v !== 'string' || !v) return null;
  const withZone = /(Z|[+-]\d{2}:?\d{2})$/.test(v) ? v : `${v}+09:00`;
  const t = Date.parse(withZone);
  return Number.isFinite(t) ? new Date(t) : null;
}

/** Whole won from Cafe24's decimal strings ("10000.00"); null for anything else (a fraction, a negative, garbage). */
function wholeWon(v: unknown): number | null {
  const s = typeof v === 'number' ? String(v) : v;
  if (typeof s !== 'string') return null;
  const m = /^(\d{1,12})(?:\.0*)?$/.exec(s.trim());
  return m ? Number(m[1]) : null;
}

function nonEmpty(v: unknown): string | null {
  return typeof v === 'string' && v.trim() ? v.trim() : null;
}

/**
 * When the mall may auto-cancel an unpaid bank-transfer (무통장입금) order, from the `order` of
 * GET /api/v2/admin/orders/setting: a function of the order's time, or null when the mall does not auto-cancel
 * (auto_cancel F) or the setting is not in the documented shape (auto_cancel T|F, auto_cancel_cash_unit D days |
 * T hours, auto_cancel_cash_period 1-23).
 *
 * Hours count from the order. Days: Cafe24 does not document when in the day a day-unit cancellation runs; shops on
 * Cafe24 tell buyers of a daily run early in the morning (one: "unpaid 5 days after ordering → canceled around 5 a.m.
 * on the 6th day", the order's day counting as the first). The deadline is read as the earliest moment that allows:
 * midnight KST starting the n-th day after the order's KST date (README, "payBy"). KST has no daylight saving.
 */
function autoCancelRule(setting: unknown): ((orderedAt: Date) => Date) | null {
  if (!setting || typeof setting !== 'object' || Array.isArray(setting)) return null;
  const s = setting as Record<string, unknown>;
  if (s.auto_cancel !== 'T') return null;
  const raw = s.auto_cancel_cash_period;
  const period = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d{1,3}$/.test(raw.trim()) ? Number(raw) : NaN;
  if (!Number.isInteger(period) || period < AUTO_CANCEL_PERIOD_MIN || period > AUTO_CANCEL_PERIOD_MAX) return null;
  if (s.auto_cancel_cash_unit === 'T') return (orderedAt) => new Date(orderedAt.getTime() + period * HOUR_MS);
  if (s.auto_cancel_cash_unit === 'D') {
    return (orderedAt) => {
      const kstMidnight = Math.floor((orderedAt.getTime() + KST_OFFSET_MS) / DAY_MS) * DAY_MS - KST_OFFSET_MS;
      return new Date(kstMidnight + period * DAY_MS);
    };
  }
  return null;
}

/** The states of an order as far as the port cares (see the README for the mapping). */
function statusOf(o: Record<string, any>): ShopOrderStatus {
  const itemStates: string[] = Array.isArray(o.items) ? o.items.map((i: any) => i?.order_status).filter((s: unknown): s is string => typeof s === 'string') : [];
  if (o.canceled === 'T' || (itemStates.length > 0 && itemStates.every((s) => s.startsWith('C')))) return 'CANCELED';
  if (o.paid === 'T') return 'PAID';
  if (o.paid === 'F' && o.canceled !== 'M' && itemStates.every((s) => s === 'N00')) return 'AWAITING_DEPOSIT';
  return 'OTHER';
}

function defaultSleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function cafe24Shop(opts: Cafe24ShopOptions): ShopAdapter {
  if (!opts.clientId) throw new Error('cafe24Shop: clientId is required');
  if (!opts.clientSecret) throw new Error('cafe24Shop: clientSecret is required');
  if (!opts.redirectUri) throw new Error('cafe24Shop: redirectUri is required');
  const clientId = opts.clientId;
  const redirectUri = opts.redirectUri;
  // Kept only in this closure: the Basic credentials are its one use; `scrub` removes it from any text we pass on.
  const clientSecret = opts.clientSecret;
  const basicCredentials = Buffer.from(`${clientId}:${clientSecret}`, 'utf8').toString('base64');
  const apiBase = opts.apiBaseUrl ?? ((mallId: string) => `https://${mallId}.cafe24api.com`);
  const apiVersion = opts.apiVersion ?? CAFE24_API_VERSION;
  const scopes = opts.scopes ?? CAFE24_SCOPES;
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const pageSize = opts.pageSize ?? 500;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 1000) throw new Error('cafe24Shop: pageSize must be 1-1000');
  const doFetch = opts.fetch ?? fetch;
  const sleep = opts.sleep ?? defaultSleep;
  /** Per mall, what the last answers said of its bucket (in-process pacing; not connection state). */
  const buckets = new Map<string, Bucket>();

  function normalizeShopId(raw: string): string | null {
    if (typeof raw !== 'string') return null;
    let s = raw.trim().toLowerCase();
    // A merchant may paste the shop's address: https://myshop.cafe24.com/..., myshop.cafe24api.com
    s = s.replace(/^https?:\/\//, '').replace(/[/?#].*$/, '');
    const host = /^([a-z0-9]+)\.(?:cafe24|cafe24api)\.com$/.exec(s);
    if (host) s = host[1];
    return MALL_ID_RE.test(s) ? s : null;
  }

  function mallOf(shopId: string): string {
    const mall = normalizeShopId(shopId);
    if (!mall) throw new ShopApiError('INVALID_SHOP_ID', `"${String(shopId).slice(0, 40)}" is not a Cafe24 mall id (4-16 lower-case letters and digits, starting with a letter).`, { retryable: false });
    return mall;
  }

  function urlFor(mall: string, path: string, query?: Record<string, string>): URL {
    const base = apiBase(mall).replace(/\/+$/, '');
    const url = new URL(base + path);
    for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, v);
    return url;
  }

  /** The text with every secret of this call replaced (Cafe24's messages may echo what was sent). */
  function scrub(text: string, secrets: readonly string[]): string {
    let out = text;
    for (const s of [clientSecret, basicCredentials, ...secrets]) if (s && s.length >= 4) out = out.split(s).join('[redacted]');
    return out.slice(0, MESSAGE_MAX_CHARS);
  }

  /** One HTTP exchange bounded by `timeoutMs` (headers and body); throws ShopApiError TIMEOUT / NETWORK / BAD_RESPONSE. */
  async function exchange(method: string, url: URL, headers: Record<string, string>, body: string | undefined, what: string): Promise<Answer> {
    try {
      const a = await boundedExchange(doFetch, url, { method, headers, body }, { timeoutMs, maxBytes: RESPONSE_MAX_BYTES });
      return { status: a.status, headers: a.headers, body: a.json };
    } catch (e) {
      if (!(e instanceof ExchangeFailure)) throw e;
      if (e.kind === 'TIMEOUT') throw new ShopApiError('TIMEOUT', `Cafe24 did not answer ${what} within ${timeoutMs} ms.`, { retryable: true });
      if (e.kind === 'TOO_LARGE') throw new ShopApiError('BAD_RESPONSE', `Cafe24's answer was larger than ${RESPONSE_MAX_BYTES} bytes.`, { retryable: true });
      throw new ShopApiError('NETWORK', `Cafe24 could not be reached for ${what} (${e.reason}).`, { retryable: true });
    }
  }

  // ───────────── rate limit ─────────────

  function header(h: Headers, name: string): number | null {
    const v = h.get(name);
    if (v === null || v.trim() === '') return null;
    const n = Number(v);
    return Number.isFinite(n) && n >= 0 ? n : null;
  }

  /** [used, max] of `X-Api-Call-Limit: used/max`. */
  function callLimit(h: Headers): [number, number] | null {
    const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(h.get('x-api-call-limit') ?? '');
    return m && Number(m[2]) > 0 ? [Number(m[1]), Number(m[2])] : null;
  }

  /** How long Cafe24 asks us to wait: X-Cafe24-*-Remain (seconds), else Retry-After, else what the bucket needs. */
  function waitMsOf(h: Headers): number | null {
    const remain = Math.max(header(h, 'x-cafe24-call-remain') ?? 0, header(h, 'x-cafe24-time-remain') ?? 0);
    if (remain > 0) return Math.ceil(remain * 1000);
    const retryAfter = h.get('retry-after');
    if (retryAfter) {
      const seconds = Number(retryAfter);
      if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds * 1000);
      const at = Date.parse(retryAfter);
      if (Number.isFinite(at)) return Math.max(0, at - Date.now());
    }
    const limit = callLimit(h);
    if (limit && limit[0] >= limit[1]) return Math.ceil(((limit[0] - limit[1] + 1) / LEAK_PER_SECOND) * 1000);
    return null;
  }

  function levelNow(b: Bucket, now: number): number {
    return Math.max(0, b.level - (LEAK_PER_SECOND * (now - b.at)) / 1000);
  }

  /** Waits until the mall's bucket has `minFree` calls of room (for this call and the ones behind it), and counts it. */
  async function pace(mall: string, what: string, minFree: number): Promise<void> {
    const b = buckets.get(mall);
    if (!b) return;
    const now = Date.now();
    const blocked = b.blockedUntil - now;
    if (blocked > MAX_OWN_WAIT_MS) {
      throw new ShopApiError('RATE_LIMITED', `Cafe24's API usage limit for this mall is spent; ${what} was not sent (retry in ${Math.ceil(blocked / 1000)} s).`, { retryable: true, status: 429, retryAfterMs: blocked });
    }
    const level = levelNow(b, now);
    const free = b.max - level;
    const wait = Math.max(blocked, free < minFree ? Math.ceil(((minFree - free) / LEAK_PER_SECOND) * 1000) : 0);
    b.level = level + 1; // this call, so calls made meanwhile wait their turn behind it
    b.at = now;
    if (wait > 0) await sleep(wait);
  }

  function recordBucket(mall: string, h: Headers): void {
    const now = Date.now();
    const limit = callLimit(h);
    const b = buckets.get(mall) ?? { level: 0, max: 40, at: now, blockedUntil: 0 };
    if (limit) {
      b.level = limit[0];
      b.max = limit[1];
      b.at = now;
    }
    const remain = Math.max(header(h, 'x-cafe24-call-remain') ?? 0, header(h, 'x-cafe24-time-remain') ?? 0);
    if (remain > 0) b.blockedUntil = now + remain * 1000;
    if (limit || remain > 0) buckets.set(mall, b);
  }

  // ───────────── errors ─────────────

  /** The error of a non-2xx answer of the Admin API (`{error: {code, message}}`), mapped per the port. */
  function apiError(a: Answer, what: string, secrets: readonly string[]): ShopApiError {
    const err = a.body?.error;
    const rawCode = err && typeof err === 'object' ? err.code : undefined;
    const rawMessage = err && typeof err === 'object' ? nonEmpty(err.message) : null;
    const code = typeof rawCode === 'string' && rawCode ? scrub(rawCode, secrets).slice(0, 60) : typeof rawCode === 'number' ? String(rawCode) : `HTTP_${a.status}`;
    const message = rawMessage ? `Cafe24 answered ${what} with HTTP ${a.status}: ${scrub(rawMessage, secrets)}` : `Cafe24 answered ${what} with HTTP ${a.status}.`;
    if (a.status === 401) return new ShopApiError('invalid_token', message, { retryable: false, status: 401, authExpired: true });
    // 403: a scope the token lacks, or the app was deleted from the mall; either way the merchant must install again.
    if (a.status === 403) return new ShopApiError(code, message, { retryable: false, status: 403, reauthorize: true });
    if (a.status === 429) return new ShopApiError('RATE_LIMITED', message, { retryable: true, status: 429, retryAfterMs: waitMsOf(a.headers) ?? 1000 });
    const retryable = a.status >= 500 || a.status === 408;
    return new ShopApiError(code, message, { retryable, status: a.status });
  }

  /** The error of a non-2xx answer of the token endpoint: OAuth's `{error, error_description}` or Cafe24's shape. */
  function tokenError(a: Answer, what: string, secrets: readonly string[]): ShopApiError {
    const b = a.body;
    const oauthCode = typeof b?.error === 'string' ? b.error : null;
    if (!oauthCode) {
      const e = apiError(a, what, secrets);
      // A 401/403 of the token endpoint is about the client, not an access token.
      if (a.status === 401 || a.status === 403) return new ShopApiError(e.code === 'invalid_token' ? 'invalid_client' : e.code, e.message, { retryable: false, status: a.status });
      return e;
    }
    const description = nonEmpty(b?.error_description);
    const code = scrub(oauthCode, secrets).slice(0, 60);
    const message = `Cafe24 refused ${what} (${code}${description ? `: ${scrub(description, secrets)}` : ''}).`;
    if (oauthCode === 'invalid_grant') return new ShopApiError('invalid_grant', message, { retryable: false, status: a.status, reauthorize: true });
    const retryable = a.status >= 500 || a.status === 429;
    return new ShopApiError(code, message, { retryable, status: a.status, retryAfterMs: a.status === 429 ? (waitMsOf(a.headers) ?? 1000) : null });
  }

  // ───────────── calls ─────────────

  /**
   * One Admin API call: paced by the mall's bucket, a short 429 waited out and retried (at most twice), any other
   * failure thrown as ShopApiError. Resolves with a 2xx answer whose body is a JSON object.
   */
  async function admin(session: ShopSession, method: 'GET' | 'PUT', path: string, query?: Record<string, string>, payload?: unknown): Promise<Answer> {
    const mall = mallOf(session.shopId);
    const secrets = [session.accessToken];
    const what = `${method} ${path}`;
    const url = urlFor(mall, path, query);
    const headers: Record<string, string> = {
      accept: 'application/json',
      authorization: `Bearer ${session.accessToken}`,
      'content-type': 'application/json',
      'x-cafe24-api-version': apiVersion,
    };
    const body = payload === undefined ? undefined : JSON.stringify(payload);
    for (let attempt = 0; ; attempt++) {
      // A retry after a 429 has already waited what Cafe24 asked; other calls keep a few calls of room in the bucket.
      await pace(mall, what, attempt === 0 ? MIN_FREE_CALLS : 0);
      const a = await exchange(method, url, headers, body, what);
      recordBucket(mall, a.headers);
      if (a.status >= 200 && a.status < 300) {
        if (!a.body) throw new ShopApiError('BAD_RESPONSE', `Cafe24's answer to ${what} was not a JSON object (HTTP ${a.status}).`, { retryable: true, status: a.status });
        return a;
      }
      const err = apiError(a, what, secrets);
      if (a.status === 429 && attempt < MAX_429_RETRIES && err.retryAfterMs !== null && err.retryAfterMs <= MAX_OWN_WAIT_MS) {
        await sleep(err.retryAfterMs);
        continue;
      }
      throw err;
    }
  }

  async function token(shopId: string, form: Record<string, string>, what: string, secrets: readonly string[]): Promise<ShopTokens> {
    const mall = mallOf(shopId);
    const a = await exchange(
      'POST',
      urlFor(mall, '/api/v2/oauth/token'),
      { accept: 'application/json', authorization: `Basic ${basicCredentials}`, 'content-type': 'application/x-www-form-urlencoded' },
      new URLSearchParams(form).toString(),
      what,
    );
    if (a.status < 200 || a.status >= 300) throw tokenError(a, what, secrets);
    const b = a.body;
    const accessToken = nonEmpty(b?.access_token);
    if (!b || !accessToken) throw new ShopApiError('BAD_RESPONSE', `Cafe24's answer to ${what} carried no access token (HTTP ${a.status}).`, { retryable: true, status: a.status });
    if (typeof b.mall_id === 'string' && b.mall_id.toLowerCase() !== mall) {
      throw new ShopApiError('MALL_MISMATCH', `Cafe24 issued tokens for another mall than ${mall} (${scrub(b.mall_id, secrets).slice(0, 40)}).`, { retryable: false, status: a.status });
    }
    return {
      accessToken,
      accessTokenExpiresAt: parseCafe24Time(b.expires_at),
      refreshToken: nonEmpty(b.refresh_token),
      refreshTokenExpiresAt: parseCafe24Time(b.refresh_token_expires_at),
      scopes: Array.isArray(b.scopes) ? b.scopes.filter((s: unknown): s is string => typeof s === 'string') : undefined,
    };
  }

  /** The orders of one search, every page (offset paging, Cafe24's `links: [{rel: 'next'}]`). */
  async function searchOrders(session: ShopSession, query: Record<string, string>, limit: number): Promise<Record<string, any>[]> {
    const out: Record<string, any>[] = [];
    for (let offset = 0; ; ) {
      if (offset > MAX_OFFSET) {
        throw new ShopApiError('TOO_MANY_ORDERS', `More than ${MAX_OFFSET} orders match one search (${query.start_date}..${query.end_date}); Cafe24 pages no further.`, { retryable: false });
      }
      const a = await admin(session, 'GET', '/api/v2/admin/orders', { ...query, limit: String(limit), offset: String(offset) });
      const page = a.body!.orders;
      if (!Array.isArray(page)) throw new ShopApiError('BAD_RESPONSE', "Cafe24's order list had no `orders` array.", { retryable: true, status: a.status });
      out.push(...page.filter((o) => o && typeof o === 'object'));
      const next = Array.isArray(a.body!.links) && a.body!.links.some((l: any) => l?.rel === 'next');
      if (page.length === 0 || (page.length < limit && !next)) return out;
      offset += page.length;
    }
  }

  /**
   * An order of the listing as the port has it, or null (not a bank-transfer order awaiting its deposit in won, or not
   * in a shape the service can keep). An id that is not a Cafe24 order id (yyyyMMdd-nnnnnnn) is left out too: its state
   * could never be searched (orderStatuses) nor confirmed (confirmDeposit), so it would stay open here for good.
   */
  function awaitingOrder(o: Record<string, any>): AwaitingOrder | null {
    const orderId = nonEmpty(o.order_id);
    if (!orderId || !ORDER_ID_RE.test(orderId)) return null;
    const methods: unknown[] = Array.isArray(o.payment_method) ? o.payment_method : [o.payment_method];
    if (!methods.includes('cash') || o.paid !== 'F' || o.canceled !== 'F') return null;
    if (typeof o.currency === 'string' && o.currency !== 'KRW') return null;
    const amount = wholeWon(o.actual_order_amount?.payment_amount ?? o.payment_amount);
    const orderedAt = parseCafe24Time(o.order_date);
    if (amount === null || amount <= 0 || !orderedAt) return null;
    const buyer = o.buyer && typeof o.buyer === 'object' ? o.buyer : {};
    const phoneDigits = String(nonEmpty(buyer.cellphone) ?? nonEmpty(buyer.phone) ?? '').replace(/\D/g, '');
    return {
      orderId,
      depositorName: nonEmpty(o.billing_name) ?? nonEmpty(buyer.name) ?? '',
      amount,
      orderedAt,
      payBy: null,
      buyerEmail: nonEmpty(buyer.email) ?? nonEmpty(o.member_email),
      buyerPhone: phoneDigits || null,
    };
  }

  /**
   * The mall's auto-cancel rule for unpaid bank-transfer orders (see autoCancelRule), or null. One Admin API call,
   * paced and retried like every other.
   */
  async function autoCancelDeadline(session: ShopSession): Promise<((orderedAt: Date) => Date) | null> {
    let a: Answer;
    try {
      a = await admin(session, 'GET', '/api/v2/admin/orders/setting', { shop_no: '1' });
    } catch (e) {
      // 403: the token lacks mall.read_store (an install made before the adapter asked for it: Cafe24 keeps the scopes
      // granted at install). It cannot be the app removed from the mall: the order list was just read with the same
      // token. Orders are imported without a deadline (as before the setting was read) rather than failing every sync
      // until the merchant installs again. Any other failure (401, a 429 that persists, 5xx, a timeout, a 2xx that is
      // not JSON) fails the listing as any call does.
      if (e instanceof ShopApiError && e.status === 403) return null;
      throw e;
    }
    // A JSON answer without the setting in the documented shape (no `order`, unknown unit, a period out of range):
    // no deadline rather than a guessed one, and not a failed sync — retrying would read the same setting.
    return autoCancelRule(a.body!.order);
  }

  async function readOrder(session: ShopSession, orderId: string): Promise<Record<string, any> | null> {
    try {
      const a = await admin(session, 'GET', `/api/v2/admin/orders/${encodeURIComponent(orderId)}`, { shop_no: '1', embed: 'items' });
      const o = a.body!.order;
      if (!o || typeof o !== 'object') throw new ShopApiError('BAD_RESPONSE', "Cafe24's answer had no `order`.", { retryable: true, status: a.status });
      return o;
    } catch (e) {
      if (e instanceof ShopApiError && e.status === 404) return null;
      throw e;
    }
  }

  function canceledError(orderId: string): ShopApiError {
    return new ShopApiError('ORDER_CANCELED', `Cafe24 order ${orderId} is canceled; its deposit cannot be confirmed.`, { retryable: false });
  }

  function notFoundError(orderId: string): ShopApiError {
    return new ShopApiError('ORDER_NOT_FOUND', `Cafe24 has no order ${String(orderId).slice(0, 40)}.`, { retryable: false, status: 404 });
  }

  return {
    platform: 'CAFE24',

    normalizeShopId,

    authorizeUrl(shopId: string, state: string): string {
      const url = urlFor(mallOf(shopId), '/api/v2/oauth/authorize');
      url.search = new URLSearchParams({ response_type: 'code', client_id: clientId, state, redirect_uri: redirectUri, scope: scopes.join(',') }).toString();
      return url.toString();
    },

    exchangeCode(shopId: string, code: string): Promise<ShopTokens> {
      return token(shopId, { grant_type: 'authorization_code', code, redirect_uri: redirectUri }, 'the authorization code exchange', [code]);
    },

    refresh(shopId: string, refreshToken: string): Promise<ShopTokens> {
      return token(shopId, { grant_type: 'refresh_token', refresh_token: refreshToken }, 'the token refresh', [refreshToken]);
    },

    async listAwaitingOrders(session: ShopSession, since: Date, until: Date): Promise<AwaitingOrder[]> {
      if (!(until.getTime() > since.getTime())) return [];
      const found = new Map<string, AwaitingOrder>();
      const last = kstDate(until);
      for (let start = kstDate(since); start <= last; start = addDays(start, WINDOW_DAYS)) {
        const end = [addDays(start, WINDOW_DAYS - 1), last].sort()[0];
        const orders = await searchOrders(
          session,
          { shop_no: '1', date_type: 'order_date', start_date: start, end_date: end, order_status: 'N00', payment_method: 'cash', embed: 'buyer' },
          pageSize,
        );
        for (const o of orders) {
          const order = awaitingOrder(o);
          const t = order?.orderedAt.getTime();
          if (order && t! >= since.getTime() && t! < until.getTime() && !found.has(order.orderId)) found.set(order.orderId, order);
        }
      }
      // The deadline is a mall setting, read once per listing and only when there is an order to give it to.
      // order_date carries its offset (parseCafe24Time), so orderedAt is the instant the rule counts from.
      if (found.size > 0) {
        const deadline = await autoCancelDeadline(session);
        if (deadline !== null) for (const o of found.values()) o.payBy = deadline(o.orderedAt);
      }
      return [...found.values()].sort((a, b) => a.orderedAt.getTime() - b.orderedAt.getTime() || a.orderId.localeCompare(b.orderId));
    },

    /**
     * The states of the ids it could search: NOT_FOUND only for an id searched and not returned. Left out (unknown, for
     * the caller to leave alone): an id that is not a Cafe24 order id (never searched), and the ids of a batch whose
     * search failed (a 5xx, a timeout, a 429 that persists, a refusal, an answer out of shape); after a 429 the batches
     * left are not sent either. Thrown: a 401 or a reauthorization (the caller refreshes, or the merchant installs
     * again), and the error of the first failed batch when no batch could be searched (nothing is known: the caller says
     * so rather than report an empty answer).
     */
    async orderStatuses(session: ShopSession, orderIds: readonly string[]): Promise<Map<string, ShopOrderStatus>> {
      const result = new Map<string, ShopOrderStatus>();
      // The id carries the order date: a batch is searched within its ids' dates (Cafe24 searches order dates).
      const valid = [...new Set(orderIds)].filter((id) => ORDER_ID_RE.test(id));
      const dateOf = (id: string) => `${id.slice(0, 4)}-${id.slice(4, 6)}-${id.slice(6, 8)}`;
      valid.sort();
      const batches: string[][] = [];
      for (const id of valid) {
        const batch = batches.at(-1);
        if (batch && batch.length < IDS_PER_LOOKUP && daysBetween(dateOf(batch[0]), dateOf(id)) < WINDOW_DAYS) batch.push(id);
        else batches.push([id]);
      }
      let searched = 0;
      let failure: ShopApiError | null = null;
      for (const batch of batches) {
        let orders: Record<string, any>[];
        try {
          orders = await searchOrders(
            session,
            { shop_no: '1', start_date: addDays(dateOf(batch[0]), -1), end_date: addDays(dateOf(batch.at(-1)!), 1), order_id: batch.join(','), embed: 'items' },
            IDS_PER_LOOKUP,
          );
        } catch (e) {
          if (!(e instanceof ShopApiError) || e.authExpired || e.reauthorize) throw e;
          failure ??= e;
          if (e.status === 429) break;
          continue;
        }
        searched++;
        for (const id of batch) result.set(id, 'NOT_FOUND');
        for (const o of orders) if (typeof o.order_id === 'string' && batch.includes(o.order_id)) result.set(o.order_id, statusOf(o));
      }
      if (failure && searched === 0) throw failure;
      return result;
    },

    async confirmDeposit(session: ShopSession, orderId: string): Promise<void> {
      if (!ORDER_ID_RE.test(orderId)) throw notFoundError(orderId);
      const before = await readOrder(session, orderId);
      if (!before) throw notFoundError(orderId);
      const state = statusOf(before);
      if (state === 'PAID') return;
      if (state === 'CANCELED') throw canceledError(orderId);
      let failure: ShopApiError;
      try {
        const a = await admin(session, 'PUT', '/api/v2/admin/payments', undefined, { shop_no: 1, requests: [{ order_id: orderId, status: 'paid', auto_paid: 'T' }] });
        const item = Array.isArray(a.body!.payments) ? a.body!.payments.find((p: any) => p?.order_id === orderId) : undefined;
        if (a.status === 200 && (!item || item.status === 'paid')) return;
        failure = new ShopApiError('BAD_RESPONSE', `Cafe24 did not report order ${orderId} paid (HTTP ${a.status}).`, { retryable: true, status: a.status });
      } catch (e) {
        if (!(e instanceof ShopApiError) || e.authExpired || e.reauthorize || e.status === 429) throw e;
        failure = e;
      }
      // Refused (409 for an identical update, 422, ...) or no answer: what the order is now decides.
      const after = await readOrder(session, orderId).catch(() => undefined);
      if (after) {
        const now = statusOf(after);
        if (now === 'PAID') return;
        if (now === 'CANCELED') throw canceledError(orderId);
      }
      throw failure;
    },
  };
}
