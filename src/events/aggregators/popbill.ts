/**
 * Popbill's EasyFinBank (팝빌 계좌조회): the AggregatorAdapter of the account-history port
 * (src/domain/deposits/history/aggregator-port.ts). A Linkhub session token per merchant (CorpNum), then for each
 * window of at most 28 days: RequestJob (Popbill collects the account's history from the bank), GetJobState until the
 * job is done, and Search, every page, deposits only.
 *
 * The wire contract, the error mapping, the sources and the choices made where Popbill's documentation is silent:
 * src/events/aggregators/README.md. Tested against test/helpers/fake-popbill.ts.
 *
 * Secrets: the SecretKey lives in a private field and is used only to sign the token request; session tokens are sent
 * only as the Bearer credential. No error message carries either (text Popbill sends back is scrubbed of both).
 */
import { createHash, createHmac } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { BankProviderId } from '../../domain/bank-accounts/bank-providers.ts';
import { AggregatorError, type AggregatorAdapter, type HistoryAccount, type HistoryRow, type HistoryWindow } from '../../domain/deposits/history/aggregator-port.ts';
import { boundedExchange, ExchangeFailure } from '../http-exchange.ts';

export interface PopbillAggregatorOptions {
  /** The partner's LinkID, issued by Linkhub with the SecretKey. */
  linkId: string;
  /** The partner's SecretKey, base64 as Linkhub issues it (decoded, it is the HMAC key). */
  secretKey: string;
  /** Linkhub's authentication server (default https://auth.linkhub.co.kr). */
  authUrl?: string;
  /** Popbill's API (default https://popbill.linkhub.co.kr, or https://popbill-test.linkhub.co.kr when `test`). */
  apiUrl?: string;
  /** Popbill's test environment: ServiceID POPBILL_TEST and the test API host (default false: POPBILL). */
  test?: boolean;
  /** Per HTTP exchange, reading the answer included (default 15 s). */
  timeoutMs?: number;
  /** Wait between two GetJobState calls (default 1 s). */
  pollIntervalMs?: number;
  /** How long a job may take before the poll gives up with JOB_TIMEOUT (default 60 s). */
  jobTimeoutMs?: number;
  /** The least time between two calls this adapter sends, all merchants together (default 200 ms). */
  minCallIntervalMs?: number;
  fetch?: typeof fetch;
  /** The wall clock (ms since the epoch): the token request's x-lh-date and the tokens' expiry. */
  clock?: () => number;
}

/**
 * Popbill's institution codes (기관코드) for our bank providers, as its EasyFinBank reference lists them. KakaoBank is
 * not among the institutions Popbill lists for EasyFinBank, so a KAKAOBANK account is refused without a call.
 */
export const POPBILL_BANK_CODES: Partial<Record<BankProviderId, string>> = {
  KB_KOOKMIN: '0004',
  SHINHAN: '0088',
  WOORI: '0020',
  HANA: '0081',
  NH_NONGHYUP: '0011',
  IBK: '0003',
};

const DEFAULT_AUTH_URL = 'https://auth.linkhub.co.kr';
const DEFAULT_API_URL = 'https://popbill.linkhub.co.kr';
const DEFAULT_TEST_API_URL = 'https://popbill-test.linkhub.co.kr';
/** The Linkhub token protocol version whose signature this adapter computes (SHA-256 body hash, HMAC-SHA256). */
const LINKHUB_API_VERSION = '2.0';
/** The `x-pb-version` Popbill's SDKs send with every API call. */
const POPBILL_API_VERSION = '1.0';
/** "member" (every Popbill SDK) and "180" (EasyFinBankService's scope). */
const TOKEN_SCOPES = ['member', '180'] as const;
/** A token is not reused this close to its expiry: a call it starts must not outlive it. */
const TOKEN_EXPIRY_MARGIN_MS = 60_000;
/** Popbill's largest PerPage for Search. */
const PER_PAGE = 1000;
/** Pages read per job at most (100,000 deposits in 28 days of one account is not an account this service serves). */
const MAX_PAGES = 100;
/** Popbill collects at most one month per job; 28 days fits within a month whichever month it starts in. */
const JOB_MAX_DAYS = 28;
const RESPONSE_MAX_BYTES = 4 * 1024 * 1024;
const MESSAGE_MAX_CHARS = 300;
/** The adapter waits out a 429 itself only when the wait is this short, at most MAX_429_RETRIES times per call. */
const MAX_OWN_WAIT_MS = 2000;
const MAX_429_RETRIES = 2;
/** A 429 without a usable Retry-After. */
const DEFAULT_RATE_LIMIT_WAIT_MS = 1000;
const KST_OFFSET_MS = 9 * 3600_000;
const DAY_MS = 86_400_000;
const CORP_NUM_RE = /^\d{10}$/;
/** Popbill's AccountNumber is at most 30 characters; ours are digits only. */
const ACCOUNT_NUMBER_RE = /^\d{1,30}$/;
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TRDT_RE = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/;
/** Whole won as Popbill renders it: digits with or without thousands separators, perhaps a zero fraction. */
const WON_RE = /^(-?)(\d{1,15})(?:\.0+)?$/;

interface Answer {
  status: number;
  headers: Headers;
  /** The body when it is a JSON object, else null. */
  json: Record<string, any> | null;
}

interface SessionToken {
  value: string;
  /** Epoch ms of Popbill's `expiration`. */
  expiresAt: number;
}

function aborted(): AggregatorError {
  return new AggregatorError('ABORTED', 'The Popbill poll was aborted (the service is stopping).', { retryable: true });
}

function badResponse(message: string): AggregatorError {
  return new AggregatorError('BAD_RESPONSE', message, { retryable: true });
}

/** Resolves after `ms`, or rejects with ABORTED as soon as `signal` aborts. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.reject(aborted());
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(aborted());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Epoch ms of a YYYY-MM-DD date at 00:00 UTC, or null when it is not a real calendar date. */
function parseDate(v: unknown): number | null {
  const m = typeof v === 'string' ? DATE_RE.exec(v) : null;
  if (!m) return null;
  const t = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return new Date(t).toISOString().slice(0, 10) === v ? t : null;
}

/** yyyyMMdd of an epoch-ms date (UTC midnight), Popbill's SDate/EDate. */
function popbillDate(t: number): string {
  return new Date(t).toISOString().slice(0, 10).replaceAll('-', '');
}

/** Popbill's trdt (yyyyMMddHHmmss, Korean time, UTC+9 without daylight saving) as an instant; null if malformed. */
function parseTrdt(v: unknown): Date | null {
  const m = typeof v === 'string' ? TRDT_RE.exec(v) : null;
  if (!m) return null;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number);
  const local = Date.UTC(y, mo - 1, d, h, mi, s);
  const back = new Date(local);
  // Date.UTC rolls 2026-02-30 over to March: a field out of range is a malformed trdt, not another day.
  if (back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d || back.getUTCHours() !== h || back.getUTCMinutes() !== mi || back.getUTCSeconds() !== s) return null;
  return new Date(local - KST_OFFSET_MS);
}

/**
 * Whole won from Popbill's amount fields: strings with or without separators ("10,000", "10000", "10000.00"), or
 * numbers. `undefined` for an empty field (no amount), null for anything unreadable (a fraction of a won, garbage).
 */
function won(v: unknown): number | null | undefined {
  if (v === null || v === undefined) return undefined;
  const s = typeof v === 'number' ? String(v) : typeof v === 'string' ? v.replace(/[,\s]/g, '') : null;
  if (s === null) return null;
  if (s === '') return undefined;
  const m = WON_RE.exec(s);
  if (!m) return null;
  const n = Number(m[2]);
  return m[1] === '-' && n !== 0 ? -n : n;
}

function sha256Base64(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('base64');
}

/** The number of seconds or the HTTP date of a Retry-After header, in ms from now; null when absent or unreadable. */
function retryAfterMs(headers: Headers, now: number): number | null {
  const v = headers.get('retry-after')?.trim();
  if (!v) return null;
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isFinite(at) ? Math.max(0, at - now) : null;
}

export class PopbillAggregator implements AggregatorAdapter {
  readonly name = 'POPBILL' as const;

  readonly #linkId: string;
  /** Kept out of enumerable properties (and so out of logs of the object); used only by #sign. */
  readonly #secretKey: string;
  readonly #hmacKey: Buffer;
  readonly #serviceId: 'POPBILL' | 'POPBILL_TEST';
  readonly #authUrl: string;
  readonly #apiUrl: string;
  readonly #timeoutMs: number;
  readonly #pollIntervalMs: number;
  readonly #jobTimeoutMs: number;
  readonly #minCallIntervalMs: number;
  readonly #fetch: typeof fetch;
  readonly #clock: () => number;
  /** Session tokens by CorpNum (Popbill issues a token per merchant). */
  readonly #tokens = new Map<string, SessionToken>();
  /** performance.now() before which no call may be sent (pacing, across all merchants). */
  #nextCallAt = 0;

  constructor(opts: PopbillAggregatorOptions) {
    if (!opts.linkId) throw new Error('PopbillAggregator: linkId is required');
    if (!opts.secretKey) throw new Error('PopbillAggregator: secretKey is required');
    const hmacKey = Buffer.from(opts.secretKey, 'base64');
    if (hmacKey.length === 0 || hmacKey.toString('base64').replace(/=+$/, '') !== opts.secretKey.trim().replace(/=+$/, '')) {
      throw new Error('PopbillAggregator: secretKey must be the base64 key Linkhub issued');
    }
    this.#linkId = opts.linkId;
    this.#secretKey = opts.secretKey;
    this.#hmacKey = hmacKey;
    this.#serviceId = opts.test ? 'POPBILL_TEST' : 'POPBILL';
    this.#authUrl = (opts.authUrl ?? DEFAULT_AUTH_URL).replace(/\/+$/, '');
    this.#apiUrl = (opts.apiUrl ?? (opts.test ? DEFAULT_TEST_API_URL : DEFAULT_API_URL)).replace(/\/+$/, '');
    this.#timeoutMs = opts.timeoutMs ?? 15_000;
    this.#pollIntervalMs = opts.pollIntervalMs ?? 1000;
    this.#jobTimeoutMs = opts.jobTimeoutMs ?? 60_000;
    this.#minCallIntervalMs = opts.minCallIntervalMs ?? 200;
    this.#fetch = opts.fetch ?? fetch;
    this.#clock = opts.clock ?? Date.now;
  }

  async listDeposits(account: HistoryAccount, window: HistoryWindow, signal?: AbortSignal): Promise<HistoryRow[]> {
    if (signal?.aborted) throw aborted();
    const corpNum = this.#corpNumOf(account);
    const bankCode = POPBILL_BANK_CODES[account.provider];
    if (!bankCode) {
      throw new AggregatorError('UNSUPPORTED_BANK', `Popbill's EasyFinBank does not read ${String(account.provider).slice(0, 30)} accounts.`, { retryable: false });
    }
    if (!ACCOUNT_NUMBER_RE.test(account.accountNumber)) {
      throw new AggregatorError('INVALID_ACCOUNT_NUMBER', 'The account number must be 1-30 digits for Popbill.', { retryable: false });
    }
    const from = parseDate(window.from);
    const to = parseDate(window.to);
    if (from === null || to === null || from > to) {
      throw new AggregatorError('INVALID_WINDOW', `Not a window of whole days: ${String(window.from).slice(0, 12)}..${String(window.to).slice(0, 12)}.`, { retryable: false });
    }

    const found = new Map<string, HistoryRow>();
    for (let start = from; start <= to; start += JOB_MAX_DAYS * DAY_MS) {
      const end = Math.min(to, start + (JOB_MAX_DAYS - 1) * DAY_MS);
      const jobId = await this.#requestJob(corpNum, bankCode, account.accountNumber, start, end, signal);
      await this.#awaitJob(corpNum, jobId, signal);
      for (const row of await this.#search(corpNum, jobId, signal)) if (!found.has(row.rowId)) found.set(row.rowId, row);
    }
    // Popbill lists each job oldest first (Order=A) and the jobs follow each other; the sort keeps that order for
    // rows of the same second (it is stable) and only matters if a bank's rows came out of order.
    return [...found.values()].sort((a, b) => a.occurredAt.getTime() - b.occurredAt.getTime());
  }

  #corpNumOf(account: HistoryAccount): string {
    if (account.corpNum === null || account.corpNum.trim() === '') {
      throw new AggregatorError('NO_CORP_NUM', "The feed has no business registration number (CorpNum): Popbill reads an account only for the merchant it is registered to.", { retryable: false });
    }
    const corpNum = account.corpNum.replaceAll('-', '').trim();
    if (!CORP_NUM_RE.test(corpNum)) {
      throw new AggregatorError('INVALID_CORP_NUM', 'A business registration number (CorpNum) is 10 digits.', { retryable: false });
    }
    return corpNum;
  }

  // ───────────── jobs ─────────────

  async #requestJob(corpNum: string, bankCode: string, accountNumber: string, start: number, end: number, signal: AbortSignal | undefined): Promise<string> {
    const body = await this.#api(corpNum, 'POST', '/EasyFin/Bank/BankAccount', { BankCode: bankCode, AccountNumber: accountNumber, SDate: popbillDate(start), EDate: popbillDate(end) }, 'RequestJob', signal);
    const jobId = body.jobID;
    // Popbill's SDKs refuse a jobID that is not 18 characters before sending it back.
    if (typeof jobId !== 'string' || jobId.length !== 18) throw badResponse("Popbill's answer to RequestJob carried no 18-character jobID.");
    return jobId;
  }

  /**
   * Polls GetJobState every pollIntervalMs until the job is done (jobState 3). Done with a negative errorCode is a
   * job the bank side failed: retryable with Popbill's code. Past jobTimeoutMs: JOB_TIMEOUT, retryable.
   */
  async #awaitJob(corpNum: string, jobId: string, signal: AbortSignal | undefined): Promise<void> {
    const started = performance.now();
    for (;;) {
      await sleep(this.#pollIntervalMs, signal);
      const state = await this.#api(corpNum, 'GET', `/EasyFin/Bank/${encodeURIComponent(jobId)}/State`, undefined, 'GetJobState', signal);
      const jobState = String(state.jobState);
      if (jobState === '3') {
        const errorCode = Number(state.errorCode);
        // Popbill's job results: 1 for success, an 8-digit negative code for a failure (its "errorCode" field).
        if (Number.isFinite(errorCode) && errorCode < 0) {
          const reason = typeof state.errorReason === 'string' ? this.#scrub(state.errorReason, []) : '';
          throw new AggregatorError(String(errorCode), `Popbill's collection job failed (${errorCode}${reason ? `: ${reason}` : ''}).`, { retryable: true });
        }
        return;
      }
      if (jobState !== '1' && jobState !== '2') throw badResponse(`Popbill's GetJobState answered jobState ${jobState.slice(0, 10)}, not 1, 2 or 3.`);
      if (performance.now() - started + this.#pollIntervalMs > this.#jobTimeoutMs) {
        throw new AggregatorError('JOB_TIMEOUT', `Popbill's collection job was not done within ${this.#jobTimeoutMs} ms.`, { retryable: true });
      }
    }
  }

  /** Every page of the job's deposits (TradeType=I), oldest first; withdrawals Popbill lists anyway are left out. */
  async #search(corpNum: string, jobId: string, signal: AbortSignal | undefined): Promise<HistoryRow[]> {
    const rows: HistoryRow[] = [];
    for (let page = 1; ; page++) {
      const body = await this.#api(
        corpNum,
        'GET',
        `/EasyFin/Bank/${encodeURIComponent(jobId)}`,
        { TradeType: 'I', Page: String(page), PerPage: String(PER_PAGE), Order: 'A' },
        'Search',
        signal,
      );
      const list: unknown = body.list;
      if (!Array.isArray(list)) throw badResponse("Popbill's Search answer had no `list` array.");
      for (const item of list) {
        const row = this.#depositOf(item);
        if (row) rows.push(row);
      }
      const pageCount = Number(body.pageCount);
      if (Number.isInteger(pageCount) && pageCount > MAX_PAGES) {
        throw new AggregatorError('TOO_MANY_ROWS', `Popbill lists ${pageCount} pages of deposits for one job; the adapter reads at most ${MAX_PAGES}.`, { retryable: false });
      }
      // pageCount says when to stop; without it, a page shorter than the page size Popbill applied is the last.
      const perPage = Number(body.perPage) > 0 ? Number(body.perPage) : PER_PAGE;
      const more = Number.isInteger(pageCount) ? page < pageCount : list.length >= perPage;
      if (!more || list.length === 0) return rows;
      if (page >= MAX_PAGES) {
        throw new AggregatorError('TOO_MANY_ROWS', `Popbill lists more than ${MAX_PAGES} pages of deposits for one job; the adapter reads at most ${MAX_PAGES}.`, { retryable: false });
      }
    }
  }

  /**
   * A row of Search as a deposit, or null for a row that is not one (accIn empty or 0: a withdrawal). A deposit that
   * cannot be read (no tid, a malformed trdt, an amount that is not whole won) fails the poll (BAD_RESPONSE) rather
   * than being skipped: a deposit dropped silently would leave its invoice unpaid.
   */
  #depositOf(item: unknown): HistoryRow | null {
    if (!item || typeof item !== 'object') throw badResponse("Popbill's Search list held something other than a row.");
    const r = item as Record<string, unknown>;
    const amount = won(r.accIn);
    if (amount === undefined || amount === 0) return null;
    const tid = typeof r.tid === 'string' ? r.tid.trim() : '';
    if (amount === null || amount < 0) throw badResponse(`Popbill's row ${tid.slice(0, 40) || '(no tid)'} has an accIn that is not a positive whole-won amount.`);
    if (!tid) throw badResponse("A deposit row of Popbill's Search has no tid.");
    const occurredAt = parseTrdt(r.trdt);
    if (!occurredAt) throw badResponse(`Popbill's row ${tid.slice(0, 40)} has a trdt that is not yyyyMMddHHmmss.`);
    const balance = won(r.balance);
    return {
      rowId: tid,
      occurredAt,
      amount,
      depositorName: typeof r.remark1 === 'string' ? r.remark1.trim() : '',
      balanceAfter: typeof balance === 'number' ? balance : null,
    };
  }

  // ───────────── tokens ─────────────

  /** The merchant's session token: the cached one until shortly before its expiry, else a new one from Linkhub. */
  async #token(corpNum: string, signal: AbortSignal | undefined): Promise<string> {
    const cached = this.#tokens.get(corpNum);
    if (cached && this.#clock() < cached.expiresAt - TOKEN_EXPIRY_MARGIN_MS) return cached.value;
    this.#tokens.delete(corpNum);

    const uri = `/${this.#serviceId}/Token`;
    const body = JSON.stringify({ access_id: corpNum, scope: TOKEN_SCOPES });
    // yyyy-MM-ddTHH:mm:ssZ, the form Linkhub's Java and Python SDKs send.
    const xDate = new Date(this.#clock()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const headers = {
      'content-type': 'application/json; charset=utf-8',
      'x-lh-date': xDate,
      'x-lh-version': LINKHUB_API_VERSION,
      authorization: `LINKHUB ${this.#linkId} ${this.#sign(`POST\n${sha256Base64(body)}\n${xDate}\n${LINKHUB_API_VERSION}\n${uri}`)}`,
    };
    const what = 'the Linkhub token request';
    await this.#pace(signal);
    const a = await this.#exchange('POST', new URL(this.#authUrl + uri), headers, body, what, signal);
    if (a.status < 200 || a.status >= 300) throw this.#popbillError(a, what, []);
    const value = a.json?.session_token;
    if (typeof value !== 'string' || !value) throw badResponse(`Linkhub's answer to ${what} carried no session_token (HTTP ${a.status}).`);
    const expiresAt = typeof a.json!.expiration === 'string' ? Date.parse(a.json!.expiration) : NaN;
    // A token without a readable expiration serves this call only.
    if (Number.isFinite(expiresAt)) this.#tokens.set(corpNum, { value, expiresAt });
    return value;
  }

  /** base64(HMAC-SHA256(base64-decoded SecretKey, UTF-8 of the string to sign)), Linkhub's signature. */
  #sign(stringToSign: string): string {
    return createHmac('sha256', this.#hmacKey).update(stringToSign, 'utf8').digest('base64');
  }

  // ───────────── calls ─────────────

  /**
   * One Popbill API call as the merchant: paced, with a Bearer session token (a 401 drops the token and retries once
   * with a new one), a short 429 waited out (at most twice). Resolves with a 2xx answer's JSON object.
   */
  async #api(corpNum: string, method: 'GET' | 'POST', path: string, query: Record<string, string> | undefined, what: string, signal: AbortSignal | undefined): Promise<Record<string, any>> {
    const url = new URL(this.#apiUrl + path);
    for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, v);
    let renewed = false;
    for (let limited = 0; ; ) {
      const token = await this.#token(corpNum, signal);
      const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'x-pb-version': POPBILL_API_VERSION, accept: 'application/json' };
      if (method === 'POST') headers['content-type'] = 'application/json; charset=utf-8';
      await this.#pace(signal);
      const a = await this.#exchange(method, url, headers, undefined, what, signal);
      if (a.status >= 200 && a.status < 300) {
        if (!a.json) throw badResponse(`Popbill's answer to ${what} was not a JSON object (HTTP ${a.status}).`);
        return a.json;
      }
      if (a.status === 401 && !renewed) {
        // The token was refused before its expiry (Popbill revoked it, or clocks disagree): one new token, one retry.
        this.#tokens.delete(corpNum);
        renewed = true;
        continue;
      }
      const err = this.#popbillError(a, what, [token]);
      if (a.status === 429 && limited < MAX_429_RETRIES && err.retryAfterMs !== null && err.retryAfterMs <= MAX_OWN_WAIT_MS) {
        limited++;
        await sleep(err.retryAfterMs, signal);
        continue;
      }
      throw err;
    }
  }

  /** Waits until minCallIntervalMs has passed since the call before (calls reserve their turn in order). */
  async #pace(signal: AbortSignal | undefined): Promise<void> {
    const now = performance.now();
    const at = Math.max(now, this.#nextCallAt);
    this.#nextCallAt = at + this.#minCallIntervalMs;
    await sleep(at - now, signal);
  }

  /** One HTTP exchange bounded by timeoutMs; throws AggregatorError TIMEOUT / NETWORK / BAD_RESPONSE / ABORTED. */
  async #exchange(method: string, url: URL, headers: Record<string, string>, body: string | undefined, what: string, signal: AbortSignal | undefined): Promise<Answer> {
    // The caller's abort cancels the request in flight too, not only the waits between calls.
    const doFetch: typeof fetch = signal ? (input, init) => this.#fetch(input, { ...init, signal: AbortSignal.any([init!.signal!, signal]) }) : this.#fetch;
    try {
      const a = await boundedExchange(doFetch, url, { method, headers, body }, { timeoutMs: this.#timeoutMs, maxBytes: RESPONSE_MAX_BYTES });
      return { status: a.status, headers: a.headers, json: a.json };
    } catch (e) {
      if (signal?.aborted) throw aborted();
      if (!(e instanceof ExchangeFailure)) throw e;
      if (e.kind === 'TIMEOUT') throw new AggregatorError('TIMEOUT', `Popbill did not answer ${what} within ${this.#timeoutMs} ms.`, { retryable: true });
      if (e.kind === 'TOO_LARGE') throw badResponse(`Popbill's answer to ${what} was larger than ${RESPONSE_MAX_BYTES} bytes.`);
      throw new AggregatorError('NETWORK', `Popbill could not be reached for ${what} (${e.reason}).`, { retryable: true });
    }
  }

  /**
   * The error of a non-2xx answer: Popbill's `{code, message}` when it sent one (its code), else HTTP_<status>.
   * Retryable: 5xx, 408, 429 (with retryAfterMs); any other refusal is for good until someone acts.
   */
  #popbillError(a: Answer, what: string, secrets: readonly string[]): AggregatorError {
    const rawCode = a.json?.code;
    const code = (typeof rawCode === 'number' && Number.isInteger(rawCode)) || (typeof rawCode === 'string' && /^-?\d{1,12}$/.test(rawCode)) ? String(rawCode) : `HTTP_${a.status}`;
    const text = typeof a.json?.message === 'string' ? this.#scrub(a.json.message, secrets) : '';
    const message = `Popbill refused ${what} (HTTP ${a.status}, ${code}${text ? `: ${text}` : ''}).`;
    if (a.status === 429) {
      return new AggregatorError(code, message, { retryable: true, retryAfterMs: retryAfterMs(a.headers, Date.now()) ?? DEFAULT_RATE_LIMIT_WAIT_MS });
    }
    const retryable = a.status >= 500 || a.status === 408;
    return new AggregatorError(code, message, { retryable, retryAfterMs: a.status === 503 ? retryAfterMs(a.headers, Date.now()) : null });
  }

  /** Text from Popbill with the SecretKey and every session token replaced, cut to MESSAGE_MAX_CHARS. */
  #scrub(text: string, secrets: readonly string[]): string {
    let out = text;
    // The SecretKey as issued, without its base64 padding, and decoded (as text, if it is any): none of it is shown.
    const key = [this.#secretKey, this.#secretKey.replace(/=+$/, ''), Buffer.from(this.#secretKey, 'base64').toString('latin1')];
    for (const s of [...key, ...secrets, ...[...this.#tokens.values()].map((t) => t.value)]) if (s.length >= 8) out = out.split(s).join('[redacted]');
    return out.slice(0, MESSAGE_MAX_CHARS);
  }
}
