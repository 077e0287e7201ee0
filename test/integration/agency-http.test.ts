/**
 * The HTTP cash-receipt agency adapter (src/events/agency/http-agency.ts) against a local fake agency
 * (test/helpers/fake-agency.ts): (a) each port method over signed HTTP — issue, pending, result, cancellation, e-mail,
 * signature checks, timeouts, 5xx and unreachable agencies mapped to the port's failures; (b) the whole service built
 * with the adapter: a direct receipt and a paid invoice's receipt become ISSUED through the fake, a rejection FAILED,
 * agency failures render as with the simulated agency.
 */
import { inspect } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, ServiceClient, type Bootstrapped } from '../../src/cli/client.ts';
import { loadConfig } from '../../src/config/config.ts';
import { AgencyError, type AgencyIssueRequest, type CashReceiptAgency } from '../../src/domain/cash-receipts/agency.ts';
import { newId } from '../../src/domain/ids.ts';
import { httpAgency, stringToSign, wireMgtKey } from '../../src/events/agency/http-agency.ts';
import { buildApp, type App } from '../../src/http/app.ts';
import { dbLabel, freshDatabase } from '../helpers/app.ts';
import { checkResponse } from '../helpers/openapi-check.ts';
import { FAKE_CODES, FAKE_NTS_REJECT_CODE, startFakeAgency, type FakeAgency } from '../helpers/fake-agency.ts';
import { until } from '../helpers/wait.ts';

const LINK_ID = 'BANKTRANSFER';
const SECRET = 'test-secret-key-9f8e7d6c5b4a39281706';
const CORP = '1234567890';
const UNIT_TIMEOUT_MS = 500;


async function agencyError(p: Promise<unknown>): Promise<AgencyError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(AgencyError);
  return e as AgencyError;
}

function approval(over: Partial<AgencyIssueRequest> = {}): AgencyIssueRequest {
  return { mgtKey: newId('cashReceipt'), corpNum: CORP, tradeType: 'APPROVAL', type: 'PERSONAL', identifier: '01012345678', amount: 11_000, supplyCost: 10_000, tax: 1000, requestedAt: new Date(), ...over };
}

const query = (agency: CashReceiptAgency, r: AgencyIssueRequest) => agency.queryResult({ mgtKey: r.mgtKey, corpNum: r.corpNum, identifier: r.identifier, requestedAt: r.requestedAt });

describe('HTTP agency adapter against the fake agency', () => {
  let fake: FakeAgency;
  let agency: CashReceiptAgency;
  beforeAll(async () => {
    fake = await startFakeAgency({ linkId: LINK_ID, secretKey: SECRET, autoSettle: false });
    agency = httpAgency({ baseUrl: fake.url, linkId: LINK_ID, secretKey: SECRET, timeoutMs: UNIT_TIMEOUT_MS });
  });
  afterEach(() => {
    fake.autoSettle = false;
  });
  afterAll(() => fake?.close());

  it('issue registers a signed approval under the management key; PENDING until the tax authority answers; then ISSUED', async () => {
    const r = approval({ requestedAt: new Date('2025-03-01T15:30:00Z') });
    await agency.issue(r);
    const stored = fake.find(wireMgtKey(r.mgtKey))!;
    expect(wireMgtKey(r.mgtKey)).toBe(r.mgtKey.slice(4));
    expect(stored).toMatchObject({ corpNum: CORP, tradeType: '승인거래', tradeUsage: '소득공제용', identityNum: '01012345678', totalAmount: 11_000, supplyCost: 10_000, tax: 1000, tradeDT: '20250302003000', stateCode: 300 });
    const sent = fake.requests.at(-1)!;
    expect(sent).toMatchObject({ method: 'POST', path: `/popbill/Cashbill/${CORP}`, status: 200 });
    expect(sent.headers['x-pb-signature']).toMatch(/^LINKHUB BANKTRANSFER [A-Za-z0-9+/]{43}=$/);
    expect(sent.headers['content-type']).toMatch(/^application\/json/);

    expect(await query(agency, r)).toEqual({ state: 'PENDING' });
    expect(await query(agency, r)).toEqual({ state: 'PENDING' });
    const settled = fake.settle(wireMgtKey(r.mgtKey));
    expect(await query(agency, r)).toEqual({ state: 'ISSUED', ntsConfirmNum: settled.confirmNum, ntsResultCode: '0000' });
    expect(settled.confirmNum).toMatch(/^[A-Z0-9]{9}$/);
  });

  it('the tax authority rejects: FAILED with its result code and message; CORPORATE is 지출증빙용', async () => {
    const r = approval({ type: 'CORPORATE', identifier: '0100009123' });
    await agency.issue(r);
    expect(fake.find(wireMgtKey(r.mgtKey))!.tradeUsage).toBe('지출증빙용');
    expect(await query(agency, r)).toEqual({ state: 'PENDING' });
    fake.settle(wireMgtKey(r.mgtKey));
    expect(await query(agency, r)).toEqual({ state: 'FAILED', ntsResultCode: FAKE_NTS_REJECT_CODE, message: expect.stringContaining('refused') });
  });

  it('a result that settles by itself later (autoSettle after a delay) is picked up by a later query', async () => {
    fake.autoSettle = true;
    fake.settleAfterMs = 150;
    const r = approval();
    await agency.issue(r);
    expect(await query(agency, r)).toEqual({ state: 'PENDING' });
    expect(await until(() => query(agency, r), (q) => q.state === 'ISSUED', 5_000)).toMatchObject({ state: 'ISSUED' });
  });

  it('issuing the same management key twice is idempotent (the job may run again after a crash)', async () => {
    const r = approval();
    await agency.issue(r);
    await agency.issue(r);
    expect(fake.requests.filter((q) => q.method === 'POST' && q.body.includes(wireMgtKey(r.mgtKey))).map((q) => q.status)).toEqual([200, 400]);
    expect([...fake.receipts.values()].filter((x) => x.mgtKey === wireMgtKey(r.mgtKey))).toHaveLength(1);
  });

  it('cancel: a 취소거래 with its own key pointing at the original key and confirmation number, settled like an approval', async () => {
    const o = approval({ amount: 10_000, supplyCost: 9091, tax: 909 });
    await agency.issue(o);
    const confirm = fake.settle(wireMgtKey(o.mgtKey)).confirmNum!;
    const c = approval({ tradeType: 'CANCEL', amount: 3000, supplyCost: 2727, tax: 273, original: { mgtKey: o.mgtKey, ntsConfirmNum: confirm } });
    await agency.issue(c);
    expect(fake.find(wireMgtKey(c.mgtKey))).toMatchObject({ tradeType: '취소거래', orgMgtKey: wireMgtKey(o.mgtKey), orgConfirmNum: confirm, totalAmount: 3000 });
    expect(await query(agency, c)).toEqual({ state: 'PENDING' });
    fake.settle(wireMgtKey(c.mgtKey));
    expect(await query(agency, c)).toMatchObject({ state: 'ISSUED', ntsResultCode: '0000' });

    // The agency refuses a cancellation whose original it does not know: the port's failure, with the agency's code.
    const orphan = approval({ tradeType: 'CANCEL', original: { mgtKey: newId('cashReceipt'), ntsConfirmNum: 'TB9999999' } });
    const e = await agencyError(agency.issue(orphan));
    expect(e.code).toBe(String(FAKE_CODES.originalMismatch));
    expect(fake.find(wireMgtKey(orphan.mgtKey))).toBeUndefined();
  });

  it('send e-mail: accepted for an issued receipt; the agency refusing (fail.example) or not knowing the key is an AgencyError', async () => {
    const r = approval();
    await agency.issue(r);
    fake.settle(wireMgtKey(r.mgtKey));
    await agency.sendEmail({ mgtKey: r.mgtKey, corpNum: CORP, email: 'buyer@example.com' });
    expect(fake.find(wireMgtKey(r.mgtKey))!.emails).toEqual(['buyer@example.com']);
    const failed = await agencyError(agency.sendEmail({ mgtKey: r.mgtKey, corpNum: CORP, email: 'buyer@fail.example' }));
    expect(failed).toMatchObject({ code: String(FAKE_CODES.emailFailed), message: expect.stringContaining('fail.example') });
    const unknown = await agencyError(agency.sendEmail({ mgtKey: newId('cashReceipt'), corpNum: CORP, email: 'buyer@example.com' }));
    expect(unknown.code).toBe(String(FAKE_CODES.notFound));
  });

  it('the agency refusing the registration (0100008...) is an AgencyError with its code and message; nothing is stored', async () => {
    const r = approval({ identifier: '01000081234' });
    const e = await agencyError(agency.issue(r));
    expect(e).toMatchObject({ code: String(FAKE_CODES.identityRefused), message: expect.stringContaining('0100008') });
    expect(fake.find(wireMgtKey(r.mgtKey))).toBeUndefined();
  });

  describe('signatures', () => {
    it('a wrong secret key is refused by the fake (401) and reported as an AgencyError; nothing is stored', async () => {
      const wrong = httpAgency({ baseUrl: fake.url, linkId: LINK_ID, secretKey: 'not-the-secret', timeoutMs: UNIT_TIMEOUT_MS });
      const r = approval();
      const e = await agencyError(wrong.issue(r));
      expect(e).toMatchObject({ code: String(FAKE_CODES.badSignature), message: 'Signature mismatch.' });
      expect(fake.requests.at(-1)!.status).toBe(401);
      expect(fake.find(wireMgtKey(r.mgtKey))).toBeUndefined();
      const other = httpAgency({ baseUrl: fake.url, linkId: 'SOMEONE_ELSE', secretKey: SECRET });
      expect((await agencyError(other.queryResult({ mgtKey: r.mgtKey, corpNum: CORP, identifier: r.identifier, requestedAt: new Date() }))).code).toBe(String(FAKE_CODES.badSignature));
    });

    it('a body, path or date changed after signing is refused', async () => {
      const tamper = (change: (url: string, init: RequestInit) => [string, RequestInit]) =>
        httpAgency({ baseUrl: fake.url, linkId: LINK_ID, secretKey: SECRET, fetch: ((url: URL, init: RequestInit) => fetch(...change(String(url), init))) as typeof fetch });
      const body = tamper((url, init) => [url, { ...init, body: String(init.body).replace('"11000"', '"99000"') }]);
      expect((await agencyError(body.issue(approval()))).message).toContain('x-pb-content-sha256');
      const path = tamper((url, init) => [url.replace(CORP, '9999999999'), init]);
      expect((await agencyError(path.issue(approval()))).message).toBe('Signature mismatch.');
      const stale = new Date(Date.now() - 10 * 60_000).toISOString();
      const date = tamper((url, init) => [url, { ...init, headers: { ...(init.headers as Record<string, string>), 'x-pb-date': stale } }]);
      expect((await agencyError(date.issue(approval()))).message).toBe('Signature mismatch.');
      expect(fake.requests.slice(-3).map((q) => q.status)).toEqual([401, 401, 401]);
    });

    it('the fake accepts a request signed by hand with the documented scheme (the header documents the wire contract)', async () => {
      const { createHash, createHmac } = await import('node:crypto');
      const path = `/popbill/Cashbill/${CORP}/unknownkey`;
      const date = new Date().toISOString();
      const sha = createHash('sha256').update('').digest('base64');
      const sig = createHmac('sha256', SECRET).update(stringToSign('GET', sha, date, LINK_ID, path)).digest('base64');
      const res = await fetch(new URL(path, fake.url), { headers: { 'x-pb-date': date, 'x-pb-content-sha256': sha, 'x-pb-signature': `LINKHUB ${LINK_ID} ${sig}` } });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ code: FAKE_CODES.notFound, message: expect.any(String) });
    });

    it('the secret key is never sent, never in an error, never visible on the adapter object', async () => {
      const wrong = httpAgency({ baseUrl: fake.url, linkId: LINK_ID, secretKey: 'another-secret-value-123', timeoutMs: UNIT_TIMEOUT_MS });
      const e = await agencyError(wrong.issue(approval()));
      for (const text of [inspect(agency, { depth: 10, showHidden: true }), JSON.stringify(agency), inspect(e), JSON.stringify(fake.requests)]) {
        expect(text).not.toContain(SECRET);
        expect(text).not.toContain('another-secret-value-123');
      }
    });
  });

  describe('failures of the call itself → the port failure (code -99999999), like the simulated agency', () => {
    it('an issue that gets no answer within timeoutMs fails (and is checked: the agency does not have it)', async () => {
      fake.next('issue', { hang: true });
      const r = approval();
      const started = Date.now();
      const e = await agencyError(agency.issue(r));
      expect(e).toMatchObject({ code: '-99999999', message: expect.stringMatching(/did not answer within 500 ms/) });
      expect(Date.now() - started).toBeLessThan(3000);
      expect(fake.find(wireMgtKey(r.mgtKey))).toBeUndefined();
      expect(fake.requests.at(-1)).toMatchObject({ method: 'GET', status: 404 });
    });

    it('a result query that hangs throws (the settle job retries); so does a hanging e-mail', async () => {
      const r = approval();
      await agency.issue(r);
      fake.next('query', { hang: true });
      expect((await agencyError(query(agency, r))).code).toBe('-99999999');
      expect(await query(agency, r)).toEqual({ state: 'PENDING' });
      fake.settle(wireMgtKey(r.mgtKey));
      fake.next('email', { hang: true });
      expect((await agencyError(agency.sendEmail({ mgtKey: r.mgtKey, corpNum: CORP, email: 'a@example.com' }))).message).toMatch(/did not answer/);
    });

    it('5xx without an agency code → -99999999 naming the status; 5xx with one → that code', async () => {
      fake.next('issue', { status: 503 });
      const r = approval();
      expect(await agencyError(agency.issue(r))).toMatchObject({ code: '-99999999', message: expect.stringContaining('HTTP 503') });
      expect(fake.find(wireMgtKey(r.mgtKey))).toBeUndefined();
      fake.next('issue', { refuse: -10000001, message: 'Agency maintenance.', status: 500 });
      expect(await agencyError(agency.issue(approval()))).toMatchObject({ code: '-10000001', message: 'Agency maintenance.' });
      fake.next('query', { status: 502 });
      expect((await agencyError(query(agency, r))).message).toContain('HTTP 502');
      fake.next('email', { status: 500, body: '{"code": -99000001, "message": "mail server down"}' });
      expect(await agencyError(agency.sendEmail({ mgtKey: r.mgtKey, corpNum: CORP, email: 'a@example.com' }))).toMatchObject({ code: '-99000001', message: 'mail server down' });
    });

    it('a 5xx after the agency registered the receipt is not a failure: the check finds it registered', async () => {
      fake.next('issue', { storeThenStatus: 500 });
      const r = approval();
      await agency.issue(r);
      expect(fake.find(wireMgtKey(r.mgtKey))).toMatchObject({ stateCode: 300 });
      expect(await query(agency, r)).toEqual({ state: 'PENDING' });
    });

    it('an unreachable agency fails every call', async () => {
      const port = await new Promise<number>((resolve) => {
        const s = createServer();
        s.listen(0, '127.0.0.1', () => {
          const p = (s.address() as { port: number }).port;
          s.close(() => resolve(p));
        });
      });
      const down = httpAgency({ baseUrl: `http://127.0.0.1:${port}`, linkId: LINK_ID, secretKey: SECRET, timeoutMs: UNIT_TIMEOUT_MS });
      const r = approval();
      expect(await agencyError(down.issue(r))).toMatchObject({ code: '-99999999', message: expect.stringContaining('could not be reached') });
      expect((await agencyError(query(down, r))).code).toBe('-99999999');
      expect((await agencyError(down.sendEmail({ mgtKey: r.mgtKey, corpNum: CORP, email: 'a@example.com' }))).code).toBe('-99999999');
    });

    it('a management key that cannot fit the agency is refused before calling', async () => {
      const before = fake.requests.length;
      expect((await agencyError(agency.issue(approval({ mgtKey: 'x'.repeat(30) })))).code).toBe('-99999999');
      expect(fake.requests.length).toBe(before);
    });
  });
});

describe(`the service with the HTTP agency on ${dbLabel}`, () => {
  let fake: FakeAgency;
  let app: App;
  let client: ServiceClient;
  let m: Bootstrapped;
  let drop: () => Promise<void>;
  let dataDir: string;

  beforeAll(async () => {
    fake = await startFakeAgency({ linkId: LINK_ID, secretKey: SECRET, autoSettle: true });
    const fresh = await freshDatabase();
    drop = fresh.drop;
    dataDir = mkdtempSync(join(tmpdir(), 'agency-http-'));
    const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'silent', AGENCY_SIM_DELAY_MS: '0', RATE_LIMIT_PER_SECOND: '0' });
    app = await buildApp(config, {
      database: fresh.database,
      logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
      agency: httpAgency({ baseUrl: fake.url, linkId: LINK_ID, secretKey: SECRET, timeoutMs: 1000 }),
    });
    client = new ServiceClient((await app.start()).url);
    client.onResponse = (r) => void checkResponse(r.method, r.path, r.status, r.body);
    m = await bootstrap(client);
  });
  afterAll(async () => {
    await app?.stop({ graceMs: 100 });
    await fake?.close();
    await drop?.();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });
  afterEach(() => {
    fake.autoSettle = true;
  });

  const issue = (body: unknown) => client.request('POST', '/v1/cash-receipts', { token: m.apiKey.secret, body });
  const getV2 = (id: string) => client.request('GET', `/v2/cash-receipts/${id}`, { token: m.apiKey.secret });
  const settled = (id: string) => until(() => getV2(id), (r) => r.body.data?.status !== 'PENDING');
  const key = (receiptId: string) => wireMgtKey(receiptId);

  it('POST /v1/cash-receipts → 201 PENDING, registered at the agency; PENDING while the agency has no result; ISSUED with its confirmation number', async () => {
    fake.autoSettle = false;
    const r = await issue({ type: 'PERSONAL', identifier: '01012345678', amount: 11_000 });
    expect(r).toMatchObject({ status: 201, body: { code: 'CREATED', data: { status: 'PENDING', ntsConfirmNum: null } } });
    const id = r.body.data.id as string;
    expect(fake.find(key(id))).toMatchObject({ corpNum: '1234567890', tradeType: '승인거래', identityNum: '01012345678', totalAmount: 11_000, supplyCost: 10_000, tax: 1000, stateCode: 300 });

    // The settle job asks; the agency has no result yet; the receipt stays PENDING.
    await until(async () => fake.queries(key(id)), (n) => n >= 1);
    expect((await getV2(id)).body.data.status).toBe('PENDING');
    const confirmNum = fake.settle(key(id)).confirmNum;
    const s = await settled(id);
    expect(s.body.data).toMatchObject({ status: 'ISSUED', ntsConfirmNum: confirmNum, ntsResultCode: '0000' });
    expect((await client.request('GET', `/v1/cash-receipts/${id}`, { token: m.apiKey.secret })).body.data).toMatchObject({ status: 'ISSUED', ntsConfirmNum: confirmNum });
  });

  it('a paid invoice with cashReceipt: the receipt is registered by the job and becomes ISSUED via the agency', async () => {
    const inv = await client.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds: [], customer: { name: '에이전시' }, amount: 33_000, cashReceipt: { type: 'CORPORATE', identifier: '2223334444' } } });
    expect(inv.status).toBe(201);
    expect((await client.deposit(m.bankAccount.notificationToken, { depositorName: '에이전시', amount: 33_000 })).status).toBe(201);
    const list = () => client.request('GET', `/v1/cash-receipts?offset=0&limit=10&search=${inv.body.data.id}`, { token: m.apiKey.secret }).then((x) => x.body.data as { id: string; status: string; ntsConfirmNum: string | null }[]);
    const rs = await until(list, (x) => x.length === 1 && x[0].status === 'ISSUED');
    expect(rs).toEqual([expect.objectContaining({ status: 'ISSUED', relatedInvoiceId: inv.body.data.id, amount: 33_000 })]);
    expect(fake.find(key(rs[0].id))).toMatchObject({ tradeUsage: '지출증빙용', identityNum: '2223334444', totalAmount: 33_000, stateCode: 304, confirmNum: rs[0].ntsConfirmNum });
  });

  it('the tax authority rejects (0100009...): FAILED with the agency’s result code', async () => {
    const r = await issue({ type: 'PERSONAL', identifier: '01000091234', amount: 500 });
    expect(r.status).toBe(201);
    const s = await settled(r.body.data.id);
    expect(s.body.data).toMatchObject({ status: 'FAILED', ntsConfirmNum: null, ntsResultCode: FAKE_NTS_REJECT_CODE });
    expect(fake.find(key(r.body.data.id))!.stateCode).toBe(305);
  });

  it('the agency refusing, timing out or answering 5xx → v1 500 AGENCY_API_FAILED, the receipt FAILED (as with the simulated agency)', async () => {
    const refused = await issue({ type: 'PERSONAL', identifier: '01000081234', amount: 600 });
    expect(refused).toMatchObject({ status: 500, body: { code: 'AGENCY_API_FAILED', data: null } });
    fake.next('issue', { hang: true });
    const timedOut = await issue({ type: 'PERSONAL', identifier: '01077778888', amount: 700 });
    expect(timedOut).toMatchObject({ status: 500, body: { code: 'AGENCY_API_FAILED', data: null } });
    fake.next('issue', { status: 503 });
    const down = await issue({ type: 'PERSONAL', identifier: '01077779999', amount: 800 });
    expect(down).toMatchObject({ status: 500, body: { code: 'AGENCY_API_FAILED', data: null } });
    for (const identifier of ['01000081234', '01077778888', '01077779999']) {
      const list = await client.request('GET', `/v1/cash-receipts?offset=0&limit=10&identifier=${identifier}`, { token: m.apiKey.secret });
      expect(list.body.data).toEqual([expect.objectContaining({ status: 'FAILED' })]);
    }
  });

  it('v2: cancel registers a 취소거래 at the agency; reissue with an agency failure → 422 240008; send-email via the agency, fail.example → 502 240009', async () => {
    const o = await issue({ type: 'PERSONAL', identifier: '01055556666', amount: 10_000 });
    const original = (await settled(o.body.data.id)).body.data;
    expect(original.status).toBe('ISSUED');
    const c = await client.request('POST', `/v2/cash-receipts/${original.id}/cancel`, { token: m.apiKey.secret, body: { reason: '부분 취소', amount: 4000 } });
    expect(c.status).toBe(200);
    expect(fake.find(key(c.body.data.id))).toMatchObject({ tradeType: '취소거래', orgMgtKey: key(original.id), orgConfirmNum: original.ntsConfirmNum, totalAmount: 4000 });
    expect((await settled(c.body.data.id)).body.data).toMatchObject({ status: 'ISSUED', kind: 'CANCELLATION' });

    const f = await issue({ type: 'PERSONAL', identifier: '01000095555', amount: 7000 });
    await settled(f.body.data.id);
    const bad = await client.request('POST', `/v2/cash-receipts/${f.body.data.id}/reissue`, { token: m.apiKey.secret, body: { identifier: '01000087777' } });
    expect(bad).toMatchObject({ status: 422, body: { code: '240008', data: { status: 'FAILED', identifier: '01000087777' } } });

    const send = (email: string) => client.request('POST', `/v2/cash-receipts/${original.id}/send-email`, { token: m.apiKey.secret, body: { email } });
    expect(await send('buyer@example.com')).toMatchObject({ status: 200, body: { code: '10001' } });
    expect(fake.find(key(original.id))!.emails).toEqual(['buyer@example.com']);
    expect(await send('buyer@fail.example')).toMatchObject({ status: 502, body: { code: '240009', data: { code: String(FAKE_CODES.emailFailed), message: expect.stringContaining('fail.example') } } });
  });

  it('every request the service sent was signed and accepted; the secret never crossed the wire', () => {
    expect(fake.requests.length).toBeGreaterThan(10);
    expect(fake.requests.filter((q) => q.status === 401)).toEqual([]);
    expect(JSON.stringify(fake.requests)).not.toContain(SECRET);
  });
});
