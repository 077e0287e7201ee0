/**
 * The Popbill EasyFinBank adapter (src/events/aggregators/popbill.ts) against the local fake Popbill
 * (test/helpers/fake-popbill.ts): the Linkhub token request's signature, token reuse until shortly before expiry (one
 * per CorpNum), the job flow (RequestJob → GetJobState → Search, every page), withdrawals left out, Korean time,
 * amounts with or without separators, the error mapping (retryable or not), timeouts, jobs that fail or never finish,
 * unreadable answers, pacing, the abort signal, and no secret in any error.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { inspect } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AggregatorError, type HistoryAccount, type HistoryWindow } from '../../src/domain/deposits/history/aggregator-port.ts';
import type { BankProviderId } from '../../src/domain/bank-accounts/bank-providers.ts';
import { PopbillAggregator, POPBILL_BANK_CODES, type PopbillAggregatorOptions } from '../../src/events/aggregators/popbill.ts';
import { FAKE_POPBILL_CODES, startFakePopbill, type FakePopbill, type NewLedgerRow } from '../helpers/fake-popbill.ts';

const LINK_ID = 'TESTER_PB';
const SECRET = randomBytes(32).toString('base64');
const CORP = '1234567890';
const CORP_2 = '2208162517';
const WINDOW: HistoryWindow = { from: '2026-07-01', to: '2026-07-04' };
const TOKEN_PATH = '/POPBILL_TEST/Token';
const JOB_PATH = '/EasyFin/Bank/BankAccount';

let fake: FakePopbill;
/** Added to Date.now() by the clock the adapter and the fake share (tests move it to expire tokens). */
let clockOffset = 0;
const now = () => Date.now() + clockOffset;
/** Every AggregatorError a test caught: none may carry a secret (checked last). */
const caught: AggregatorError[] = [];
let accountSeq = 0;

function adapter(over: Partial<PopbillAggregatorOptions> = {}): PopbillAggregator {
  return new PopbillAggregator({
    linkId: LINK_ID,
    secretKey: SECRET,
    authUrl: fake.url,
    apiUrl: fake.url,
    test: true,
    timeoutMs: 1000,
    pollIntervalMs: 5,
    jobTimeoutMs: 2000,
    minCallIntervalMs: 0,
    clock: now,
    ...over,
  });
}

/** A new account registered with the fake (each test reads its own ledger). */
function newAccount(provider: BankProviderId = 'KB_KOOKMIN', corpNum = CORP): HistoryAccount {
  accountSeq++;
  const accountNumber = String(100200300000 + accountSeq);
  const bankCode = POPBILL_BANK_CODES[provider];
  if (bankCode) fake.addAccount(corpNum, bankCode, accountNumber);
  return { feedId: `hfd_${accountSeq}`, provider, accountNumber, corpNum };
}

function addRows(account: HistoryAccount, rows: NewLedgerRow[]) {
  return fake.addRows(account.corpNum!, POPBILL_BANK_CODES[account.provider]!, account.accountNumber, rows);
}

async function aggregatorError(p: Promise<unknown>): Promise<AggregatorError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(AggregatorError);
  caught.push(e as AggregatorError);
  return e as AggregatorError;
}

const apiRequests = () => fake.requests.filter((r) => r.path !== TOKEN_PATH);
const tokenRequests = () => fake.requests.filter((r) => r.path === TOKEN_PATH);
const jobRequests = () => fake.requests.filter((r) => r.method === 'POST' && r.path === JOB_PATH);
const stateRequests = () => fake.requests.filter((r) => r.path.endsWith('/State'));
const searchRequests = () => fake.requests.filter((r) => r.method === 'GET' && /^\/EasyFin\/Bank\/\d{18}$/.test(r.path));

beforeAll(async () => {
  fake = await startFakePopbill({ linkId: LINK_ID, secretKey: SECRET, clock: now });
  fake.addMember(CORP);
  fake.addMember(CORP_2);
});
afterAll(async () => {
  await fake?.close();
});
beforeEach(() => {
  clockOffset = 0;
  fake.requests.length = 0;
  fake.violations.length = 0;
  fake.tokenTtlMs = 3_600_000;
  fake.pollsToFinish = 3;
  fake.maxPerPage = 1000;
  fake.ignoreTradeType = false;
  fake.limitCallRate(0);
});

describe('the Linkhub token', () => {
  it('is requested as Linkhub documents: POST /{ServiceID}/Token, {access_id, scope}, x-lh-date, x-lh-version 2.0, LINKHUB {LinkID} {HMAC-SHA256}', async () => {
    const account = newAccount();
    expect(await adapter().listDeposits(account, WINDOW)).toEqual([]);
    const [t] = tokenRequests();
    expect(tokenRequests()).toHaveLength(1);
    expect(t.method).toBe('POST');
    expect(t.status).toBe(200);
    expect(JSON.parse(t.body)).toEqual({ access_id: CORP, scope: ['member', '180'] });
    const date = t.headers['x-lh-date'] as string;
    expect(date).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(Math.abs(Date.parse(date) - now())).toBeLessThan(5000);
    expect(t.headers['x-lh-version']).toBe('2.0');
    const bodyHash = createHash('sha256').update(t.body, 'utf8').digest('base64');
    const signature = createHmac('sha256', Buffer.from(SECRET, 'base64')).update(`POST\n${bodyHash}\n${date}\n2.0\n${TOKEN_PATH}`, 'utf8').digest('base64');
    expect(t.headers.authorization).toBe(`LINKHUB ${LINK_ID} ${signature}`);
    expect(fake.violations).toEqual([]);
  });

  it('signed with the wrong SecretKey is refused: not retryable, Linkhub code, nothing else sent', async () => {
    const wrong = randomBytes(32).toString('base64');
    const e = await aggregatorError(adapter({ secretKey: wrong }).listDeposits(newAccount(), WINDOW));
    expect({ code: e.code, retryable: e.retryable }).toEqual({ code: String(FAKE_POPBILL_CODES.badSignature), retryable: false });
    expect(fake.requests.map((r) => [r.path, r.status])).toEqual([[TOKEN_PATH, 401]]);
    expect(e.message).not.toContain(wrong);
  });

  it('for a merchant that is not a Popbill member is refused: not retryable, Popbill code -10000012', async () => {
    const e = await aggregatorError(adapter().listDeposits(newAccount('KB_KOOKMIN', '1112223334'), WINDOW));
    expect({ code: e.code, retryable: e.retryable }).toEqual({ code: '-10000012', retryable: false });
    expect(apiRequests()).toEqual([]);
  });

  it('is reused until a minute before its expiration, and each CorpNum has its own', async () => {
    const popbill = adapter();
    const account = newAccount();
    await popbill.listDeposits(account, WINDOW);
    await popbill.listDeposits(account, WINDOW);
    expect(tokenRequests()).toHaveLength(1);
    const first = fake.issuedTokens.at(-1)!;
    expect(new Set(apiRequests().map((r) => r.headers.authorization))).toEqual(new Set([`Bearer ${first}`]));

    clockOffset = fake.tokenTtlMs - 120_000;
    await popbill.listDeposits(account, WINDOW);
    expect(tokenRequests()).toHaveLength(1);

    clockOffset = fake.tokenTtlMs - 30_000;
    fake.requests.length = 0;
    await popbill.listDeposits(account, WINDOW);
    expect(tokenRequests()).toHaveLength(1);
    const second = fake.issuedTokens.at(-1)!;
    expect(second).not.toBe(first);
    expect(new Set(apiRequests().map((r) => r.headers.authorization))).toEqual(new Set([`Bearer ${second}`]));

    fake.requests.length = 0;
    await popbill.listDeposits(newAccount('SHINHAN', CORP_2), WINDOW);
    await popbill.listDeposits(account, WINDOW);
    expect(tokenRequests().map((r) => JSON.parse(r.body).access_id)).toEqual([CORP_2]);
  });

  it('that Popbill stops accepting before its expiry is replaced once (401), and the poll succeeds', async () => {
    const popbill = adapter();
    const account = newAccount();
    addRows(account, [{ trdt: '20260702101500', accIn: '5000', remark1: '김철수' }]);
    await popbill.listDeposits(account, WINDOW);
    fake.expireTokens();
    fake.requests.length = 0;
    const rows = await popbill.listDeposits(account, WINDOW);
    expect(rows.map((r) => r.amount)).toEqual([5000]);
    expect(fake.requests.map((r) => [r.method, r.path.replace(/\d{18}/, '{jobID}'), r.status])).toEqual([
      ['POST', JOB_PATH, 401],
      ['POST', TOKEN_PATH, 200],
      ['POST', JOB_PATH, 200],
      ['GET', '/EasyFin/Bank/{jobID}/State', 200],
      ['GET', '/EasyFin/Bank/{jobID}/State', 200],
      ['GET', '/EasyFin/Bank/{jobID}/State', 200],
      ['GET', '/EasyFin/Bank/{jobID}', 200],
    ]);
  });

  it("request answered 502 by Linkhub is retryable (HTTP_502 without Popbill's body)", async () => {
    fake.failNext(1, { path: TOKEN_PATH, status: 502, body: '<html>Bad Gateway</html>' });
    const e = await aggregatorError(adapter().listDeposits(newAccount(), WINDOW));
    expect({ code: e.code, retryable: e.retryable }).toEqual({ code: 'HTTP_502', retryable: true });
  });
});

describe('the job', () => {
  it("is RequestJob, GetJobState until jobState 3, then Search — paths, queries and headers as Popbill's SDKs send them", async () => {
    const account = newAccount();
    addRows(account, [{ trdt: '20260703090000', accIn: '12000', remark1: '이영희' }]);
    await adapter().listDeposits(account, WINDOW);
    const api = apiRequests();
    const jobId = searchRequests()[0].path.split('/').at(-1)!;
    expect(api.map((r) => `${r.method} ${r.path}`)).toEqual([
      `POST ${JOB_PATH}`,
      `GET /EasyFin/Bank/${jobId}/State`,
      `GET /EasyFin/Bank/${jobId}/State`,
      `GET /EasyFin/Bank/${jobId}/State`,
      `GET /EasyFin/Bank/${jobId}`,
    ]);
    expect(api[0].query).toEqual({ BankCode: '0004', AccountNumber: account.accountNumber, SDate: '20260701', EDate: '20260704' });
    expect(api[4].query).toEqual({ TradeType: 'I', Page: '1', PerPage: '1000', Order: 'A' });
    for (const r of api) {
      expect(r.headers.authorization).toBe(`Bearer ${fake.issuedTokens.at(-1)}`);
      expect(r.headers['x-pb-version']).toBe('1.0');
    }
    expect(fake.violations).toEqual([]);
  });

  it.each([
    ['KB_KOOKMIN', '0004'],
    ['SHINHAN', '0088'],
    ['WOORI', '0020'],
    ['HANA', '0081'],
    ['NH_NONGHYUP', '0011'],
    ['IBK', '0003'],
  ])('reads a %s account as Popbill institution %s', async (provider, bankCode) => {
    await adapter().listDeposits(newAccount(provider as BankProviderId), WINDOW);
    expect(jobRequests().map((r) => r.query.BankCode)).toEqual([bankCode]);
  });

  it.each(['KAKAOBANK', 'TOSSBANK'])('refuses a %s account (not an EasyFinBank institution) without a call', async (provider) => {
    const e = await aggregatorError(adapter().listDeposits(newAccount(provider as BankProviderId), WINDOW));
    expect({ code: e.code, retryable: e.retryable }).toEqual({ code: 'UNSUPPORTED_BANK', retryable: false });
    expect(fake.requests).toEqual([]);
  });

  it('covers a window longer than a month with jobs of at most 28 days (Popbill collects a month at most per job)', async () => {
    const account = newAccount();
    addRows(account, [
      { trdt: '20260714120000', accIn: '4000', tid: 'T4' },
      { trdt: '20260603120000', accIn: '1000', tid: 'T1' },
      { trdt: '20260629000000', accIn: '3000', tid: 'T3' },
      { trdt: '20260628235959', accIn: '2000', tid: 'T2' },
    ]);
    const rows = await adapter().listDeposits(account, { from: '2026-06-01', to: '2026-07-15' });
    expect(jobRequests().map((r) => [r.query.SDate, r.query.EDate, r.status])).toEqual([
      ['20260601', '20260628', 200],
      ['20260629', '20260715', 200],
    ]);
    expect(rows.map((r) => [r.rowId, r.amount])).toEqual([
      ['T1', 1000],
      ['T2', 2000],
      ['T3', 3000],
      ['T4', 4000],
    ]);
  });

  it.each([
    [{ from: '2026-07-05', to: '2026-07-04' }],
    [{ from: '2026-02-30', to: '2026-03-01' }],
    [{ from: '20260701', to: '2026-07-04' }],
  ])('refuses the window %j without a call (INVALID_WINDOW)', async (window) => {
    const e = await aggregatorError(adapter().listDeposits(newAccount(), window));
    expect({ code: e.code, retryable: e.retryable }).toEqual({ code: 'INVALID_WINDOW', retryable: false });
    expect(fake.requests).toEqual([]);
  });
});

describe('the rows', () => {
  it('are read from every page, oldest first', async () => {
    fake.maxPerPage = 2;
    const account = newAccount();
    addRows(
      account,
      [5, 1, 4, 2, 3].map((n) => ({ trdt: `2026070${Math.min(n, 4)}1${n}0000`, accIn: String(n * 1000), tid: `P${n}` })),
    );
    const rows = await adapter().listDeposits(account, WINDOW);
    expect(searchRequests().map((r) => r.query.Page)).toEqual(['1', '2', '3']);
    expect(rows.map((r) => r.rowId)).toEqual(['P1', 'P2', 'P3', 'P4', 'P5']);
  });

  it('of a job Popbill pages past 100 pages fail the poll after the first page (TOO_MANY_ROWS, not retryable)', async () => {
    fake.maxPerPage = 1;
    const account = newAccount();
    addRows(account, Array.from({ length: 101 }, (_, i) => ({ trdt: `20260702${String(Math.floor(i / 60)).padStart(2, '0')}${String(i % 60).padStart(2, '0')}00`, accIn: '1000' })));
    const e = await aggregatorError(adapter().listDeposits(account, WINDOW));
    expect({ code: e.code, retryable: e.retryable }).toEqual({ code: 'TOO_MANY_ROWS', retryable: false });
    expect(searchRequests()).toHaveLength(1);
  });

  it('leave out withdrawals, even when Popbill lists them despite TradeType=I', async () => {
    fake.ignoreTradeType = true;
    const account = newAccount();
    addRows(account, [
      { trdt: '20260701100000', accIn: '10,000', tid: 'IN1' },
      { trdt: '20260701110000', accIn: '0', accOut: '5,000', tid: 'OUT1' },
      { trdt: '20260701120000', accIn: '', accOut: '3000', tid: 'OUT2' },
      { trdt: '20260701130000', accIn: 8000, accOut: 0, tid: 'IN2' },
    ]);
    const rows = await adapter().listDeposits(account, WINDOW);
    expect(rows.map((r) => r.rowId)).toEqual(['IN1', 'IN2']);
  });

  it('carry the Korean booking time (trdt, yyyyMMddHHmmss in Asia/Seoul) as an instant', async () => {
    const account = newAccount();
    addRows(account, [
      { trdt: '20260704151800', accIn: '1000', tid: 'AFTERNOON' },
      { trdt: '20260702000500', accIn: '1000', tid: 'AFTER_MIDNIGHT' },
    ]);
    const rows = await adapter().listDeposits(account, WINDOW);
    expect(rows.map((r) => [r.rowId, r.occurredAt.toISOString()])).toEqual([
      ['AFTER_MIDNIGHT', '2026-07-01T15:05:00.000Z'],
      ['AFTERNOON', '2026-07-04T06:18:00.000Z'],
    ]);
  });

  it('read amounts and balances given as strings with or without separators, or as numbers', async () => {
    const account = newAccount();
    addRows(account, [
      { trdt: '20260701090000', accIn: '10,000', balance: '1,320,000', remark1: ' 홍길동 ', tid: 'A' },
      { trdt: '20260701090100', accIn: '25000', balance: '1345000', remark1: '(주)한빛', tid: 'B' },
      { trdt: '20260701090200', accIn: 7000, balance: '', remark1: '', tid: 'C' },
      { trdt: '20260701090300', accIn: '3,000.00', balance: '-50,000', remark1: '박민수', tid: 'D' },
    ]);
    expect(await adapter().listDeposits(account, WINDOW)).toEqual([
      { rowId: 'A', occurredAt: new Date('2026-07-01T00:00:00Z'), amount: 10000, depositorName: '홍길동', balanceAfter: 1320000 },
      { rowId: 'B', occurredAt: new Date('2026-07-01T00:01:00Z'), amount: 25000, depositorName: '(주)한빛', balanceAfter: 1345000 },
      { rowId: 'C', occurredAt: new Date('2026-07-01T00:02:00Z'), amount: 7000, depositorName: '', balanceAfter: null },
      { rowId: 'D', occurredAt: new Date('2026-07-01T00:03:00Z'), amount: 3000, depositorName: '박민수', balanceAfter: -50000 },
    ]);
  });

  it.each([
    ['a trdt that is not a clock time', { trdt: '20260701256000', accIn: '1000' }],
    ['an amount with a fraction of a won', { trdt: '20260701120000', accIn: '12.5' }],
    ['an amount that is not a number', { trdt: '20260701120000', accIn: 'ten' }],
    ['no tid', { trdt: '20260701120000', accIn: '1000', tid: '' }],
  ])('fail the poll when a deposit cannot be read (%s): BAD_RESPONSE, retryable', async (_what, row) => {
    // Popbill classifies rows itself; the fake could not tell these are deposits, so it lists every row.
    fake.ignoreTradeType = true;
    const account = newAccount();
    addRows(account, [row]);
    const e = await aggregatorError(adapter().listDeposits(account, WINDOW));
    expect({ code: e.code, retryable: e.retryable }).toEqual({ code: 'BAD_RESPONSE', retryable: true });
  });
});

describe('errors', () => {
  it.each([
    ['503 with an HTML page', { status: 503, body: '<html>Service Unavailable</html>' }, { code: 'HTTP_503', retryable: true }],
    ["500 with Popbill's error", { status: 500, body: { code: -99999999, message: '서버 오류' } }, { code: '-99999999', retryable: true }],
    ["400 with Popbill's error", { status: 400, body: { code: -89000003, message: '잘못된 요청' } }, { code: '-89000003', retryable: false }],
  ])('RequestJob answered %s → %j', async (_what, fault, expected) => {
    fake.failNext(1, { path: JOB_PATH, ...fault });
    const e = await aggregatorError(adapter().listDeposits(newAccount(), WINDOW));
    expect({ code: e.code, retryable: e.retryable }).toEqual(expected);
  });

  it('an account not registered with Popbill is not retryable', async () => {
    const account: HistoryAccount = { feedId: 'hfd_unregistered', provider: 'WOORI', accountNumber: '99988877766', corpNum: CORP };
    const e = await aggregatorError(adapter().listDeposits(account, WINDOW));
    expect({ code: e.code, retryable: e.retryable }).toEqual({ code: String(FAKE_POPBILL_CODES.accountNotRegistered), retryable: false });
    expect(e.message).toContain('not registered');
  });

  it("an account whose bank credentials Popbill can no longer use is not retryable", async () => {
    const account = newAccount('HANA');
    fake.expireCredentials(CORP, '0081', account.accountNumber);
    const e = await aggregatorError(adapter().listDeposits(account, WINDOW));
    expect({ code: e.code, retryable: e.retryable }).toEqual({ code: String(FAKE_POPBILL_CODES.credentialsExpired), retryable: false });
  });

  it('a 429 with a long Retry-After is retryable with retryAfterMs, and not retried by the adapter', async () => {
    fake.failNext(1, { path: JOB_PATH, status: 429, headers: { 'retry-after': '30' } });
    const e = await aggregatorError(adapter().listDeposits(newAccount(), WINDOW));
    expect({ code: e.code, retryable: e.retryable, retryAfterMs: e.retryAfterMs }).toEqual({ code: String(FAKE_POPBILL_CODES.rateLimited), retryable: true, retryAfterMs: 30_000 });
    expect(jobRequests()).toHaveLength(1);
  });

  it('a 429 with a short Retry-After is waited out and the call sent again', async () => {
    fake.failNext(1, { path: JOB_PATH, status: 429, headers: { 'retry-after': '1' } });
    const account = newAccount();
    addRows(account, [{ trdt: '20260701120000', accIn: '1000' }]);
    const started = performance.now();
    expect(await adapter().listDeposits(account, WINDOW)).toHaveLength(1);
    expect(performance.now() - started).toBeGreaterThanOrEqual(990);
    expect(jobRequests().map((r) => r.status)).toEqual([429, 200]);
  });

  it('calls are paced minCallIntervalMs apart, so a Popbill limit of one call per 30 ms is never hit', async () => {
    fake.limitCallRate(30);
    const account = newAccount();
    addRows(account, [{ trdt: '20260701120000', accIn: '1000' }]);
    // Paced well apart from the limit, so that one request slower on its way than the next cannot arrive within 30 ms of it.
    await adapter({ minCallIntervalMs: 250 }).listDeposits(account, WINDOW);
    expect(fake.requests.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const gaps = fake.requests.slice(1).map((r, i) => r.at - fake.requests[i].at);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(30);
  });

  it('a job Popbill fails (jobState 3, negative errorCode) is retryable with its code and reason; nothing is searched', async () => {
    fake.failJobs(1, -89000050, '은행 점검 시간입니다');
    const e = await aggregatorError(adapter().listDeposits(newAccount(), WINDOW));
    expect({ code: e.code, retryable: e.retryable }).toEqual({ code: '-89000050', retryable: true });
    expect(e.message).toContain('은행 점검 시간입니다');
    expect(searchRequests()).toEqual([]);
  });

  it('a job that never finishes ends in JOB_TIMEOUT (retryable) after jobTimeoutMs of polls', async () => {
    fake.pollsToFinish = Infinity;
    const started = performance.now();
    const e = await aggregatorError(adapter({ pollIntervalMs: 50, jobTimeoutMs: 600 }).listDeposits(newAccount(), WINDOW));
    const elapsed = performance.now() - started;
    expect({ code: e.code, retryable: e.retryable }).toEqual({ code: 'JOB_TIMEOUT', retryable: true });
    // At the job timeout (a poll that would end past it is not waited for), not long after (loose for a loaded machine).
    expect(elapsed).toBeGreaterThanOrEqual(600 - 50);
    expect(elapsed).toBeLessThan(3000);
    // Polled again, never faster than the interval (600 / 50 + the first).
    expect(stateRequests().length).toBeGreaterThanOrEqual(2);
    expect(stateRequests().length).toBeLessThanOrEqual(13);
    expect(searchRequests()).toEqual([]);
  });

  it('a Popbill slower than timeoutMs is a TIMEOUT, retryable, within the bound', async () => {
    fake.failNext(1, { path: JOB_PATH, delayMs: 5000 });
    const started = performance.now();
    const e = await aggregatorError(adapter({ timeoutMs: 150 }).listDeposits(newAccount(), WINDOW));
    expect({ code: e.code, retryable: e.retryable }).toEqual({ code: 'TIMEOUT', retryable: true });
    // Not the 5 s answer.
    expect(performance.now() - started).toBeLessThan(2500);
  });

  it.each([
    ['larger than 4 MB', { status: 200, body: `{"jobID":"${'1'.repeat(18)}","pad":"${'x'.repeat(4 * 1024 * 1024)}"}` }],
    ['not JSON', { status: 200, body: '<html>OK</html>' }],
    ['JSON without a jobID', { status: 200, body: { code: 1 } }],
  ])('an answer %s is BAD_RESPONSE, retryable', async (_what, fault) => {
    fake.failNext(1, { path: JOB_PATH, ...fault });
    const e = await aggregatorError(adapter().listDeposits(newAccount(), WINDOW));
    expect({ code: e.code, retryable: e.retryable }).toEqual({ code: 'BAD_RESPONSE', retryable: true });
  });

  it('a Popbill that cannot be reached is NETWORK, retryable', async () => {
    const e = await aggregatorError(adapter({ apiUrl: 'http://127.0.0.1:1' }).listDeposits(newAccount(), WINDOW));
    expect({ code: e.code, retryable: e.retryable }).toEqual({ code: 'NETWORK', retryable: true });
  });

  it.each([
    [null, 'NO_CORP_NUM'],
    ['  ', 'NO_CORP_NUM'],
    ['12345', 'INVALID_CORP_NUM'],
  ])('a feed whose CorpNum is %j is refused without a call (%s, not retryable)', async (corpNum, code) => {
    const e = await aggregatorError(adapter().listDeposits({ ...newAccount(), corpNum }, WINDOW));
    expect({ code: e.code, retryable: e.retryable }).toEqual({ code, retryable: false });
    expect(fake.requests).toEqual([]);
  });

  it('a CorpNum written with hyphens is sent as its 10 digits', async () => {
    await adapter().listDeposits({ ...newAccount(), corpNum: '123-45-67890' }, WINDOW);
    expect(tokenRequests().map((r) => JSON.parse(r.body).access_id)).toEqual([CORP]);
  });
});

describe('the abort signal', () => {
  /** Aborts as soon as `ready()` holds (checked every 2 ms), calling `then` just before. */
  function abortWhen(controller: AbortController, ready: () => boolean, then: () => void): void {
    const timer = setInterval(() => {
      if (!ready()) return;
      clearInterval(timer);
      then();
      controller.abort();
    }, 2);
  }

  it('already aborted: nothing is sent (ABORTED, retryable)', async () => {
    const controller = new AbortController();
    controller.abort();
    const e = await aggregatorError(adapter().listDeposits(newAccount(), WINDOW, controller.signal));
    expect({ code: e.code, retryable: e.retryable }).toEqual({ code: 'ABORTED', retryable: true });
    expect(fake.requests).toEqual([]);
  });

  it('aborting while the job is polled stops the poll at once, and nothing more is sent', async () => {
    fake.pollsToFinish = Infinity;
    const controller = new AbortController();
    let abortedAt = 0;
    abortWhen(controller, () => stateRequests().length >= 2, () => (abortedAt = performance.now()));
    const e = await aggregatorError(adapter({ pollIntervalMs: 2000, jobTimeoutMs: 60_000 }).listDeposits(newAccount(), WINDOW, controller.signal));
    expect(e.code).toBe('ABORTED');
    // Well before the next poll would be due (2 s): the wait between polls is cut short, not sat out.
    expect(performance.now() - abortedAt).toBeLessThan(1500);
    // A poll already on its way may still arrive; none is sent after the abort (another would have come by now).
    await new Promise((r) => setTimeout(r, 2500));
    expect(fake.requests.filter((r) => r.at > abortedAt + 200)).toEqual([]);
  });

  it('aborting during a slow answer cancels the request without waiting for timeoutMs', async () => {
    fake.failNext(1, { path: JOB_PATH, delayMs: 20_000 });
    const controller = new AbortController();
    let abortedAt = 0;
    abortWhen(controller, () => jobRequests().length === 1, () => (abortedAt = performance.now()));
    const e = await aggregatorError(adapter({ timeoutMs: 10_000 }).listDeposits(newAccount(), WINDOW, controller.signal));
    expect(e.code).toBe('ABORTED');
    // Not after the 20 s answer, nor the 10 s timeout.
    expect(performance.now() - abortedAt).toBeLessThan(5000);
    expect(jobRequests().map((r) => r.status)).toEqual([undefined]);
  });
});

describe('configuration', () => {
  it.each([
    [false, 'https://auth.linkhub.co.kr/POPBILL/Token', 'https://popbill.linkhub.co.kr'],
    [true, 'https://auth.linkhub.co.kr/POPBILL_TEST/Token', 'https://popbill-test.linkhub.co.kr'],
  ])('test=%s: the token from %s, the API at %s', async (test, tokenUrl, apiOrigin) => {
    const urls: string[] = [];
    const stub: typeof fetch = async (input) => {
      const url = String(input);
      urls.push(url);
      const json = (body: object) => new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
      if (url.endsWith('/Token')) return json({ session_token: 'stub-session-token-123', expiration: new Date(Date.now() + 3_600_000).toISOString() });
      if (url.includes('/EasyFin/Bank/BankAccount')) return json({ jobID: '0'.repeat(18) });
      if (url.includes('/State')) return json({ jobState: '3', errorCode: 1 });
      return json({ code: 1, total: 0, perPage: 1000, pageNum: 1, pageCount: 0, list: [] });
    };
    const popbill = new PopbillAggregator({ linkId: LINK_ID, secretKey: SECRET, test, fetch: stub, pollIntervalMs: 1, minCallIntervalMs: 0 });
    expect(await popbill.listDeposits({ feedId: 'hfd_cfg', provider: 'IBK', accountNumber: '123456789', corpNum: CORP }, WINDOW)).toEqual([]);
    expect(urls).toEqual([
      tokenUrl,
      `${apiOrigin}/EasyFin/Bank/BankAccount?BankCode=0003&AccountNumber=123456789&SDate=20260701&EDate=20260704`,
      `${apiOrigin}/EasyFin/Bank/${'0'.repeat(18)}/State`,
      `${apiOrigin}/EasyFin/Bank/${'0'.repeat(18)}?TradeType=I&Page=1&PerPage=1000&Order=A`,
    ]);
  });

  it('refuses a SecretKey that is not base64, and a missing LinkID', () => {
    expect(() => new PopbillAggregator({ linkId: LINK_ID, secretKey: 'not base64 at all!' })).toThrow(/base64/);
    expect(() => new PopbillAggregator({ linkId: '', secretKey: SECRET })).toThrow(/linkId/);
  });
});

describe('secrets', () => {
  it("are scrubbed from Popbill's messages that echo them", async () => {
    const popbill = adapter();
    const account = newAccount();
    await popbill.listDeposits(account, WINDOW);
    const token = fake.issuedTokens.at(-1)!;
    fake.failNext(1, { path: JOB_PATH, status: 400, body: { code: -89000003, message: `token ${token} key ${SECRET} refused` } });
    const e = await aggregatorError(popbill.listDeposits(account, WINDOW));
    expect(e.message).toBe('Popbill refused RequestJob (HTTP 400, -89000003: token [redacted] key [redacted] refused).');
  });

  it('appear in no error caught above, nor in the adapter as logged', () => {
    expect(caught.length).toBeGreaterThan(20);
    const secrets = [SECRET, ...fake.issuedTokens];
    for (const e of caught) {
      const text = `${e.message} ${inspect(e)}`;
      for (const s of secrets) expect(text).not.toContain(s);
    }
    expect(inspect(adapter(), { depth: 5 })).not.toContain(SECRET);
    expect(JSON.stringify(adapter())).not.toContain(SECRET);
  });
});
