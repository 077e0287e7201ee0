/**
 * A local fake of Linkhub's token endpoint and Popbill's EasyFinBank API (node:http on 127.0.0.1, a random port) for
 * tests of the Popbill aggregator adapter (src/events/aggregators/popbill.ts). It re-implements the wire contract of
 * src/events/aggregators/README.md independently of the adapter, so a mismatch fails the tests. One origin serves
 * both hosts: the adapter's authUrl and apiUrl are both `url`.
 *
 * - Token: POST /{ServiceID}/Token checks the request as Linkhub does: x-lh-version 2.0, an x-lh-date within 5 minutes
 *   of the fake's clock, `Authorization: LINKHUB {LinkID} {signature}` where the signature is
 *   base64(HMAC-SHA256(base64-decoded SecretKey, "POST\n" + base64(SHA-256(body)) + "\n" + x-lh-date + "\n" + "2.0" +
 *   "\n" + "/{ServiceID}/Token")), and the body `{access_id, scope}`. A wrong LinkID or signature is refused (401 with
 *   Popbill's `{code, message}`), as is a merchant that is not a member (`addMember`). Tokens live `tokenTtlMs`.
 * - EasyFinBank: every call needs a live Bearer token with scope 180 (else 401). RequestJob (POST
 *   /EasyFin/Bank/BankAccount?BankCode&AccountNumber&SDate&EDate) checks the account is registered to the token's
 *   merchant (`addAccount`), its bank credentials are valid (`expireCredentials`), and that the window is at most one
 *   month; it answers `{jobID}` (18 digits). GetJobState (GET /EasyFin/Bank/{jobID}/State) answers jobState 1, then 2,
 *   then 3 at the `pollsToFinish`-th poll (Infinity: never), with errorCode 1 — or a failure set by `failJobs`.
 *   Search (GET /EasyFin/Bank/{jobID}?TradeType&Page&PerPage&Order) pages the account's ledger rows of the window
 *   (PerPage capped at `maxPerPage`), filtered by TradeType unless `ignoreTradeType` (then withdrawals come too).
 * - Rate limit: after `limitCallRate(ms)`, a call arriving sooner than `ms` after the previous one is answered 429 with
 *   Retry-After.
 * - Faults: `failNext(n, fault)` answers the next n matching requests with a status/body/headers, or after a delay
 *   (`delayMs` alone: the normal answer, late).
 * - `requests`: every request received (method, path, query, headers, body, arrival time, status answered).
 *   `violations`: departures from the documented shapes (tests assert none). `issuedTokens`: every token handed out.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

/**
 * Codes the fake answers with. -10000012/-10000033/-10000034 are Popbill's published common codes ("Master(user)
 * corresponds to the entered information of LinkID and BRN does not exist", "Token Interpretation failed", "Auth token
 * is not entered"). Popbill's EasyFinBank-specific table was not found; the others are the fake's stand-ins (the
 * adapter classifies by HTTP status, not by these numbers).
 */
export const FAKE_POPBILL_CODES = {
  notMember: -10000012,
  badToken: -10000033,
  noToken: -10000034,
  badSignature: -89000001,
  staleDate: -89000002,
  badRequest: -89000003,
  accountNotRegistered: -89000010,
  credentialsExpired: -89000011,
  windowTooLong: -89000012,
  jobNotDone: -89000013,
  jobNotFound: -89000014,
  rateLimited: -89000020,
  serverError: -89000099,
} as const;

export interface FakeLedgerRow {
  tid: string;
  /** yyyyMMddHHmmss, Korean time. */
  trdt: string;
  /** Rendered as given (strings with separators, numbers, ""). */
  accIn: string | number;
  accOut: string | number;
  balance: string | number;
  remark1: string;
  remark2: string;
}

export type NewLedgerRow = Partial<FakeLedgerRow> & { trdt: string };

export interface FakePopbillRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** performance.now() at arrival. */
  at: number;
  /** The status answered (undefined while waiting). */
  status?: number;
}

export interface PopbillFault {
  /** Only requests of this method / whose path starts with this; default every request. */
  method?: string;
  path?: string;
  /** Answer this late (alone: the normal answer, late). */
  delayMs?: number;
  status?: number;
  headers?: Record<string, string>;
  /** Default: Popbill's `{code, message}`. A string is sent as is. */
  body?: string | object;
}

export interface FakePopbillOptions {
  linkId: string;
  /** Base64, as Linkhub issues it. */
  secretKey: string;
  /** The ServiceID the fake serves (default POPBILL_TEST). */
  serviceId?: 'POPBILL' | 'POPBILL_TEST';
  /** The fake's wall clock (default Date.now): x-lh-date checks, token expiry. */
  clock?: () => number;
}

export interface FakePopbill {
  url: string;
  requests: FakePopbillRequest[];
  violations: string[];
  issuedTokens: string[];
  /** Session token lifetime (default 1 h). */
  tokenTtlMs: number;
  /** The GetJobState poll at which a job is done (default 3: answers 1, 2, 3). Infinity: never. */
  pollsToFinish: number;
  /** The largest page Search serves, whatever PerPage asks (default 1000, Popbill's maximum). */
  maxPerPage: number;
  /** Search lists withdrawals even when TradeType=I asks for deposits only. */
  ignoreTradeType: boolean;
  /** From now on, a call sooner than `minIntervalMs` after the one before is answered 429 (0: no limit). */
  limitCallRate(minIntervalMs: number): void;
  addMember(corpNum: string): void;
  addAccount(corpNum: string, bankCode: string, accountNumber: string): void;
  /** The bank refuses Popbill's login for this account (RequestJob answers credentialsExpired). */
  expireCredentials(corpNum: string, bankCode: string, accountNumber: string): void;
  /** The merchant gave Popbill the account's new bank credentials: its jobs run again. */
  renewCredentials(corpNum: string, bankCode: string, accountNumber: string): void;
  /** Adds rows to the account's ledger (a deposit unless accIn is 0/empty); returns them as stored. */
  addRows(corpNum: string, bankCode: string, accountNumber: string, rows: NewLedgerRow[]): FakeLedgerRow[];
  /** The next n jobs end (jobState 3) with this error code and reason. */
  failJobs(n: number, errorCode: number, errorReason: string): void;
  failNext(n: number, fault: PopbillFault): void;
  /** Every session token issued so far stops working (the next call with one is answered 401). */
  expireTokens(): void;
  close(): Promise<void>;
}

interface Account {
  corpNum: string;
  bankCode: string;
  accountNumber: string;
  credentialsValid: boolean;
  rows: FakeLedgerRow[];
}

interface Job {
  account: Account;
  sDate: string;
  eDate: string;
  polls: number;
  error: { code: number; reason: string } | null;
  regDT: string;
}

const LINKHUB_VERSION = '2.0';
const MAX_SKEW_MS = 5 * 60_000;
const X_LH_DATE_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;
const YMD_RE = /^(\d{4})(\d{2})(\d{2})$/;
const KST_MS = 9 * 3600_000;

function accountKey(corpNum: string, bankCode: string, accountNumber: string): string {
  return `${corpNum}/${bankCode}/${accountNumber}`;
}

/** yyyyMMddHHmmss in Korean time. */
function kstStamp(t: number): string {
  return new Date(t + KST_MS).toISOString().replace(/\D/g, '').slice(0, 14);
}

/** A yyyyMMdd date's day number (days since the epoch) or null; `monthLater` is the same day a month on, clamped. */
function ymd(v: string | undefined): { day: number; monthLater: number } | null {
  const m = YMD_RE.exec(v ?? '');
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = Date.UTC(y, mo - 1, d);
  if (new Date(t).getUTCDate() !== d || new Date(t).getUTCMonth() !== mo - 1) return null;
  const lastOfNext = new Date(Date.UTC(y, mo + 1, 0)).getUTCDate();
  return { day: t / 86_400_000, monthLater: Date.UTC(y, mo, Math.min(d, lastOfNext)) / 86_400_000 };
}

function amountOf(v: string | number): number {
  const n = Number(String(v).replace(/,/g, ''));
  return Number.isFinite(n) ? n : 0;
}

export async function startFakePopbill(opts: FakePopbillOptions): Promise<FakePopbill> {
  const serviceId = opts.serviceId ?? 'POPBILL_TEST';
  const clock = opts.clock ?? Date.now;
  const hmacKey = Buffer.from(opts.secretKey, 'base64');
  const members = new Set<string>();
  const accounts = new Map<string, Account>();
  const tokens = new Map<string, { corpNum: string; scope: string[]; expiresAt: number }>();
  const jobs = new Map<string, Job>();
  const faults: { left: number; fault: PopbillFault }[] = [];
  const jobFailures: { left: number; code: number; reason: string }[] = [];
  let jobSeq = 0;
  let tidSeq = 0;
  let minCallIntervalMs = 0;
  let lastCallAt = -Infinity;

  const error = (code: number, message: string) => ({ code, message });

  function takeFault(method: string, path: string): PopbillFault | null {
    for (const f of faults) {
      if (f.left <= 0) continue;
      if (f.fault.method && f.fault.method !== method) continue;
      if (f.fault.path && !path.startsWith(f.fault.path)) continue;
      f.left--;
      return f.fault;
    }
    return null;
  }

  function tokenRequest(req: FakePopbillRequest): [number, object] {
    const expectedPath = `/${serviceId}/Token`;
    if (req.path !== expectedPath) {
      fake.violations.push(`token request to ${req.path}, not ${expectedPath}`);
      return [404, error(FAKE_POPBILL_CODES.badRequest, 'Unknown ServiceID.')];
    }
    const h = (n: string) => (typeof req.headers[n] === 'string' ? (req.headers[n] as string) : '');
    const xDate = h('x-lh-date');
    const version = h('x-lh-version');
    if (version !== LINKHUB_VERSION) {
      fake.violations.push(`x-lh-version ${version || '(none)'}`);
      return [400, error(FAKE_POPBILL_CODES.badRequest, 'Unsupported x-lh-version.')];
    }
    if (!X_LH_DATE_RE.test(xDate)) {
      fake.violations.push(`x-lh-date ${xDate || '(none)'}`);
      return [400, error(FAKE_POPBILL_CODES.badRequest, 'x-lh-date is not ISO 8601 UTC.')];
    }
    if (Math.abs(Date.parse(xDate) - clock()) > MAX_SKEW_MS) return [401, error(FAKE_POPBILL_CODES.staleDate, 'x-lh-date is too far from the server time.')];
    const auth = /^LINKHUB (\S+) (\S+)$/.exec(h('authorization'));
    if (!auth || auth[1] !== opts.linkId) return [401, error(FAKE_POPBILL_CODES.badSignature, 'Unknown LinkID or malformed Authorization.')];
    const forwarded = h('x-lh-forwarded');
    const bodyHash = createHash('sha256').update(Buffer.from(req.body, 'utf8')).digest('base64');
    const toSign = `POST\n${bodyHash}\n${xDate}\n${forwarded ? `${forwarded}\n` : ''}${LINKHUB_VERSION}\n${req.path}`;
    const expected = createHmac('sha256', hmacKey).update(Buffer.from(toSign, 'utf8')).digest();
    const given = Buffer.from(auth[2], 'base64');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return [401, error(FAKE_POPBILL_CODES.badSignature, 'Signature mismatch.')];
    let body: { access_id?: unknown; scope?: unknown };
    try {
      body = JSON.parse(req.body);
    } catch {
      fake.violations.push('token request body is not JSON');
      return [400, error(FAKE_POPBILL_CODES.badRequest, 'Body is not JSON.')];
    }
    const scope = Array.isArray(body.scope) ? body.scope.filter((s): s is string => typeof s === 'string') : [];
    if (typeof body.access_id !== 'string' || !/^\d{10}$/.test(body.access_id)) {
      fake.violations.push(`access_id ${String(body.access_id)}`);
      return [400, error(FAKE_POPBILL_CODES.badRequest, 'access_id must be a 10-digit CorpNum.')];
    }
    if (!scope.includes('member') || !scope.includes('180')) fake.violations.push(`scope ${JSON.stringify(body.scope)}`);
    if (!members.has(body.access_id)) return [400, error(FAKE_POPBILL_CODES.notMember, 'Master(user) corresponds to the entered information of LinkID and BRN does not exist.')];
    const value = randomBytes(24).toString('base64url');
    const expiresAt = clock() + fake.tokenTtlMs;
    tokens.set(value, { corpNum: body.access_id, scope, expiresAt });
    fake.issuedTokens.push(value);
    return [
      200,
      { session_token: value, serviceID: serviceId, linkID: opts.linkId, usercode: 'FAKEUSR', ipaddress: '*', expiration: new Date(expiresAt).toISOString(), scope },
    ];
  }

  function easyFin(req: FakePopbillRequest): [number, object] {
    const bearer = /^Bearer (\S+)$/.exec(typeof req.headers.authorization === 'string' ? req.headers.authorization : '');
    if (!bearer) return [401, error(FAKE_POPBILL_CODES.noToken, 'Auth token is not entered.')];
    const token = tokens.get(bearer[1]);
    if (!token || token.expiresAt <= clock()) return [401, error(FAKE_POPBILL_CODES.badToken, 'Token Interpretation failed.')];
    if (!token.scope.includes('180')) return [403, error(FAKE_POPBILL_CODES.badToken, 'The token lacks the EasyFinBank scope.')];
    if (req.headers['x-pb-version'] !== '1.0') fake.violations.push(`x-pb-version ${String(req.headers['x-pb-version'])} on ${req.method} ${req.path}`);

    if (req.method === 'POST' && req.path === '/EasyFin/Bank/BankAccount') return requestJob(token.corpNum, req.query);
    const state = /^\/EasyFin\/Bank\/([^/]+)\/State$/.exec(req.path);
    if (req.method === 'GET' && state) return jobState(token.corpNum, decodeURIComponent(state[1]));
    const search = /^\/EasyFin\/Bank\/([^/]+)$/.exec(req.path);
    if (req.method === 'GET' && search) return searchJob(token.corpNum, decodeURIComponent(search[1]), req.query);
    fake.violations.push(`unknown route ${req.method} ${req.path}`);
    return [404, error(FAKE_POPBILL_CODES.badRequest, 'Unknown route.')];
  }

  function requestJob(corpNum: string, q: Record<string, string>): [number, object] {
    const known = new Set(['BankCode', 'AccountNumber', 'SDate', 'EDate']);
    for (const k of Object.keys(q)) if (!known.has(k)) fake.violations.push(`RequestJob parameter ${k}`);
    const s = ymd(q.SDate);
    const e = ymd(q.EDate);
    if (!/^\d{4}$/.test(q.BankCode ?? '') || !q.AccountNumber || !s || !e || e.day < s.day) {
      fake.violations.push(`RequestJob ${JSON.stringify(q)}`);
      return [400, error(FAKE_POPBILL_CODES.badRequest, 'BankCode, AccountNumber, SDate and EDate (yyyyMMdd) are required.')];
    }
    if (e.day >= s.monthLater) return [400, error(FAKE_POPBILL_CODES.windowTooLong, 'A job covers at most one month.')];
    const account = accounts.get(accountKey(corpNum, q.BankCode, q.AccountNumber));
    if (!account) return [400, error(FAKE_POPBILL_CODES.accountNotRegistered, 'The account is not registered with Popbill.')];
    if (!account.credentialsValid) return [400, error(FAKE_POPBILL_CODES.credentialsExpired, "The bank refused the account's login credentials.")];
    const failure = jobFailures.find((f) => f.left > 0);
    if (failure) failure.left--;
    const id = `${String(Math.floor(clock() / 1000) % 1e9).padStart(9, '0')}${String(++jobSeq).padStart(9, '0')}`;
    jobs.set(id, { account, sDate: q.SDate, eDate: q.EDate, polls: 0, error: failure ? { code: failure.code, reason: failure.reason } : null, regDT: kstStamp(clock()) });
    return [200, { jobID: id }];
  }

  function jobOf(corpNum: string, id: string): Job | null {
    const job = jobs.get(id);
    return job && job.account.corpNum === corpNum ? job : null;
  }

  function jobState(corpNum: string, id: string): [number, object] {
    const job = jobOf(corpNum, id);
    if (!job) return [400, error(FAKE_POPBILL_CODES.jobNotFound, 'No such job.')];
    job.polls++;
    const done = job.polls >= fake.pollsToFinish;
    return [
      200,
      {
        jobID: id,
        jobState: done ? '3' : job.polls === 1 ? '1' : '2',
        startDate: job.sDate,
        endDate: job.eDate,
        errorCode: done && job.error ? job.error.code : 1,
        errorReason: done && job.error ? job.error.reason : '',
        jobStartDT: job.regDT,
        jobEndDT: done ? kstStamp(clock()) : '',
        regDT: job.regDT,
      },
    ];
  }

  function searchJob(corpNum: string, id: string, q: Record<string, string>): [number, object] {
    const known = new Set(['TradeType', 'SearchString', 'Page', 'PerPage', 'Order']);
    for (const k of Object.keys(q)) if (!known.has(k)) fake.violations.push(`Search parameter ${k}`);
    const job = jobOf(corpNum, id);
    if (!job) return [400, error(FAKE_POPBILL_CODES.jobNotFound, 'No such job.')];
    if (job.polls < fake.pollsToFinish || job.error) {
      fake.violations.push(`Search of job ${id} before it was done`);
      return [400, error(FAKE_POPBILL_CODES.jobNotDone, 'The job is not done.')];
    }
    const types = (q.TradeType ?? 'I,O').split(',');
    if (types.some((t) => t !== 'I' && t !== 'O')) fake.violations.push(`TradeType ${q.TradeType}`);
    const page = q.Page === undefined ? 1 : Number(q.Page);
    const asked = q.PerPage === undefined ? 500 : Number(q.PerPage);
    if (!Number.isInteger(page) || page < 1 || !Number.isInteger(asked) || asked < 1 || asked > 1000) {
      fake.violations.push(`Search paging ${JSON.stringify(q)}`);
      return [400, error(FAKE_POPBILL_CODES.badRequest, 'Page / PerPage out of range.')];
    }
    if (q.Order !== undefined && q.Order !== 'A' && q.Order !== 'D') fake.violations.push(`Order ${q.Order}`);
    const perPage = Math.min(asked, fake.maxPerPage);
    const rows = job.account.rows
      .filter((r) => r.trdt.slice(0, 8) >= job.sDate && r.trdt.slice(0, 8) <= job.eDate)
      .filter((r) => fake.ignoreTradeType || (types.includes('I') && amountOf(r.accIn) > 0) || (types.includes('O') && amountOf(r.accOut) > 0));
    const ordered = [...rows].sort((a, b) => (a.trdt < b.trdt ? -1 : a.trdt > b.trdt ? 1 : 0));
    if (q.Order !== 'A') ordered.reverse();
    const list = ordered.slice((page - 1) * perPage, page * perPage).map((r, i) => ({
      tid: r.tid,
      accountID: accountKey(job.account.corpNum, job.account.bankCode, job.account.accountNumber),
      trdate: r.trdt.slice(0, 8),
      trserial: (page - 1) * perPage + i + 1,
      trdt: r.trdt,
      accIn: r.accIn,
      accOut: r.accOut,
      balance: r.balance,
      remark1: r.remark1,
      remark2: r.remark2,
      remark3: '',
      remark4: '',
      regDT: job.regDT,
      memo: '',
    }));
    return [200, { code: 1, message: '', total: ordered.length, perPage, pageNum: page, pageCount: Math.ceil(ordered.length / perPage), list }];
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const u = new URL(req.url ?? '/', 'http://fake');
      const rec: FakePopbillRequest = {
        method: req.method ?? '',
        path: u.pathname,
        query: Object.fromEntries(u.searchParams),
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: performance.now(),
      };
      fake.requests.push(rec);
      const send = (status: number, body: string | object, headers: Record<string, string> = {}) => {
        rec.status = status;
        const text = typeof body === 'string' ? body : JSON.stringify(body);
        const type = typeof body === 'string' ? 'text/html' : 'application/json;charset=utf-8';
        res.writeHead(status, { 'content-type': type, ...headers });
        res.end(text);
      };
      const fault = takeFault(rec.method, rec.path);
      const answer = () => {
        if (fault?.status !== undefined) {
          send(fault.status, fault.body ?? error(fault.status === 429 ? FAKE_POPBILL_CODES.rateLimited : FAKE_POPBILL_CODES.serverError, `Fault ${fault.status}.`), fault.headers);
          return;
        }
        const [status, body] = rec.path.endsWith('/Token') ? tokenRequest(rec) : easyFin(rec);
        send(status, body);
      };
      const since = rec.at - lastCallAt;
      lastCallAt = rec.at;
      if (!fault && since < minCallIntervalMs) {
        send(429, error(FAKE_POPBILL_CODES.rateLimited, 'Too many calls.'), { 'retry-after': String(Math.ceil((minCallIntervalMs - since) / 1000)) });
        return;
      }
      if (fault?.delayMs) setTimeout(answer, fault.delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const fake: FakePopbill = {
    url: `http://127.0.0.1:${port}`,
    requests: [],
    violations: [],
    issuedTokens: [],
    tokenTtlMs: 3_600_000,
    pollsToFinish: 3,
    maxPerPage: 1000,
    ignoreTradeType: false,
    limitCallRate(minIntervalMs) {
      minCallIntervalMs = minIntervalMs;
      lastCallAt = -Infinity;
    },
    addMember(corpNum) {
      members.add(corpNum);
    },
    addAccount(corpNum, bankCode, accountNumber) {
      const key = accountKey(corpNum, bankCode, accountNumber);
      if (!accounts.has(key)) accounts.set(key, { corpNum, bankCode, accountNumber, credentialsValid: true, rows: [] });
    },
    expireCredentials(corpNum, bankCode, accountNumber) {
      const account = accounts.get(accountKey(corpNum, bankCode, accountNumber));
      if (!account) throw new Error('fake-popbill: no such account');
      account.credentialsValid = false;
    },
    renewCredentials(corpNum, bankCode, accountNumber) {
      const account = accounts.get(accountKey(corpNum, bankCode, accountNumber));
      if (!account) throw new Error('fake-popbill: add the account first');
      account.credentialsValid = true;
    },
    addRows(corpNum, bankCode, accountNumber, rows) {
      const account = accounts.get(accountKey(corpNum, bankCode, accountNumber));
      if (!account) throw new Error('fake-popbill: add the account first');
      const added = rows.map((r) => ({
        tid: r.tid ?? `${r.trdt.slice(0, 8)}${String(++tidSeq).padStart(12, '0')}`,
        trdt: r.trdt,
        accIn: r.accIn ?? '0',
        accOut: r.accOut ?? '0',
        balance: r.balance ?? '',
        remark1: r.remark1 ?? '',
        remark2: r.remark2 ?? '',
      }));
      account.rows.push(...added);
      return added;
    },
    failJobs(n, errorCode, errorReason) {
      jobFailures.push({ left: n, code: errorCode, reason: errorReason });
    },
    failNext(n, fault) {
      faults.push({ left: n, fault });
    },
    expireTokens() {
      for (const t of tokens.values()) t.expiresAt = -Infinity;
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}
