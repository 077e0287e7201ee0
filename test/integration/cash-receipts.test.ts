/**
 * Cash receipts through v1, v2 and GraphQL with the simulated agency: issue, settle, revoke, full and partial cancel,
 * reissue, send-email, every error of the spec, the concurrency case, and auto-issue on payment.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { splitVat } from '../../src/domain/cash-receipts/vat.ts';
import { dbLabel, startTestApp, type TestApp } from '../helpers/app.ts';
import { until } from '../helpers/wait.ts';


describe(`cash receipts on ${dbLabel}`, () => {
  let t: TestApp;
  let m: Bootstrapped;
  let noBiz: Bootstrapped;
  beforeAll(async () => {
    t = await startTestApp();
    [m, noBiz] = await Promise.all([bootstrap(t.client), bootstrap(t.client, { businessInfo: false })]);
  });
  afterAll(() => t?.stop());

  const issue = (body: unknown, token = m.apiKey.secret) => t.client.request('POST', '/v1/cash-receipts', { token, body });
  const getV1 = (id: string) => t.client.request('GET', `/v1/cash-receipts/${id}`, { token: m.apiKey.secret });
  const getV2 = (id: string) => t.client.request('GET', `/v2/cash-receipts/${id}`, { token: m.apiKey.secret });
  const settled = (id: string) => until(() => getV2(id), (r) => r.body.data?.status !== 'PENDING');
  const issued = async (amount: number, identifier = '01012345678', type = 'PERSONAL') => {
    const r = await issue({ type, identifier, amount });
    expect(r.status).toBe(201);
    const s = await settled(r.body.data.id);
    return s.body.data;
  };
  const cancel = (id: string, body: unknown) => t.client.request('POST', `/v2/cash-receipts/${id}/cancel`, { token: m.apiKey.secret, body });

  describe('v1 issue and read', () => {
    it('POST /v1/cash-receipts → 201 CREATED, PENDING, then ISSUED by the tax authority with a 9-character confirmation number', async () => {
      const r = await issue({ type: 'PERSONAL', identifier: '01012345678', amount: 11_000 });
      expect(r.status).toBe(201);
      expect(r.body).toEqual({
        code: 'CREATED',
        data: {
          id: expect.stringMatching(/^crt_[a-z0-9]{24}$/),
          status: 'PENDING',
          issuerId: m.accountId,
          corpNum: '1234567890',
          type: 'PERSONAL',
          identifier: '01012345678',
          amount: 11_000,
          relatedInvoiceId: null,
          ntsConfirmNum: null,
          ntsResultCode: null,
          issuedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000\+00:00$/),
          revokedAt: null,
          deletedAt: null,
        },
      });
      const s = await settled(r.body.data.id);
      expect(s.body.data).toMatchObject({ status: 'ISSUED', ntsConfirmNum: expect.stringMatching(/^[0-9A-F]{9}$/), ntsResultCode: '0000', kind: 'ORIGINAL', supplyCost: 10_000, tax: 1000, remainingAmount: 11_000, canceledAmount: 0 });
      const v1 = await getV1(r.body.data.id);
      expect(v1.body).toMatchObject({ code: 'OK', data: { id: r.body.data.id, status: 'ISSUED' } });
    });

    it('without business info → 404 BUSINESS_INFO_NOT_REGISTERED', async () => {
      expect(await issue({ type: 'PERSONAL', identifier: '01012345678', amount: 1000 }, noBiz.apiKey.secret)).toMatchObject({ status: 404, body: { code: 'BUSINESS_INFO_NOT_REGISTERED', data: null } });
    });

    it.each([
      [{ type: 'OTHER', identifier: '01012345678', amount: 1 }, 400, 'BAD_REQUEST'],
      [{ type: 'PERSONAL', identifier: '0101234', amount: 1 }, 422, 'INVALID_CASH_RECEIPT_IDENTIFIER'],
      [{ type: 'PERSONAL', identifier: '010-1234-5678', amount: 1 }, 422, 'INVALID_CASH_RECEIPT_IDENTIFIER'],
      [{ type: 'CORPORATE', identifier: '01012345678', amount: 1 }, 422, 'INVALID_CASH_RECEIPT_IDENTIFIER'],
      [{ type: 'CORPORATE', identifier: '1234567890', amount: 0 }, 422, 'INVALID_CASH_RECEIPT_AMOUNT'],
      [{ type: 'CORPORATE', identifier: '1234567890', amount: -5 }, 422, 'INVALID_CASH_RECEIPT_AMOUNT'],
    ])('%j → %d %s', async (body, status, code) => {
      expect(await issue(body)).toMatchObject({ status, body: { code, data: null } });
    });

    it('an identifier starting 0100009 is rejected by the tax authority: FAILED', async () => {
      const r = await issue({ type: 'PERSONAL', identifier: '01000091234', amount: 500 });
      expect(r.status).toBe(201);
      expect((await settled(r.body.data.id)).body.data).toMatchObject({ status: 'FAILED', ntsConfirmNum: null, ntsResultCode: 'SIM-REJECT' });
    });

    it('an identifier starting 0100008 makes the agency call fail: 500 AGENCY_API_FAILED, the receipt recorded FAILED', async () => {
      const r = await issue({ type: 'PERSONAL', identifier: '01000081234', amount: 600 });
      expect(r).toMatchObject({ status: 500, body: { code: 'AGENCY_API_FAILED', data: null } });
      const list = await t.client.request('GET', '/v1/cash-receipts?offset=0&limit=10&identifier=01000081234', { token: m.apiKey.secret });
      expect(list.body.totalItems).toBe(1);
      expect(list.body.data[0]).toMatchObject({ status: 'FAILED', amount: 600 });
    });

    it('the list filters: status, type, identifier, corpNum, search (ids exactly, identifier contained, hyphens ignored), dates', async () => {
      const a = await issued(1111, '01099990000');
      const b = await issued(2222, '1112223333', 'CORPORATE');
      const q = (qs: string) => t.client.request('GET', `/v1/cash-receipts?offset=0&limit=100&${qs}`, { token: m.apiKey.secret }).then((r) => r.body);
      expect((await q('identifier=01099990000')).data.map((x: { id: string }) => x.id)).toEqual([a.id]);
      expect((await q('type=CORPORATE&status=ISSUED')).data.map((x: { id: string }) => x.id)).toContain(b.id);
      expect((await q('type=CORPORATE')).data.every((x: { type: string }) => x.type === 'CORPORATE')).toBe(true);
      expect((await q(`search=${a.id}`)).data.map((x: { id: string }) => x.id)).toEqual([a.id]);
      expect((await q('search=111-222')).data.map((x: { id: string }) => x.id)).toEqual([b.id]);
      expect((await q('search=9999')).data.map((x: { id: string }) => x.id)).toEqual([a.id]);
      expect((await q('corpNum=123-45-67890')).totalItems).toBeGreaterThanOrEqual(2);
      expect((await q('corpNum=9999999999')).totalItems).toBe(0);
      const today = new Date(Date.now() + 9 * 3600_000).toISOString().slice(0, 10);
      expect((await q(`dateAfter=${today}&dateBefore=${today}`)).totalItems).toBeGreaterThanOrEqual(2);
      expect((await q('dateBefore=2000-01-01')).totalItems).toBe(0);
      expect(await q('status=CANCELED')).toEqual({ code: 'BAD_REQUEST', data: null });
      expect(await q('dateAfter=2026/01/01')).toEqual({ code: 'INVALID_DATE_RANGE_FORMAT', data: null });
      const all = await q('');
      const issuedAts = all.data.map((x: { issuedAt: string }) => x.issuedAt);
      expect([...issuedAts].sort().reverse()).toEqual(issuedAts);
    });

    it('GET of a missing receipt → 404 CASH_RECEIPT_NOT_FOUND; another workspace’s → 403 INSUFFICIENT_PERMISSIONS (v1), 404 20015 (v2)', async () => {
      expect((await getV1('crt_' + 'a'.repeat(24))).body).toEqual({ code: 'CASH_RECEIPT_NOT_FOUND', data: null });
      const mine = await issued(100);
      const other = await t.client.request('GET', `/v1/cash-receipts/${mine.id}`, { token: noBiz.apiKey.secret });
      expect(other).toMatchObject({ status: 403, body: { code: 'INSUFFICIENT_PERMISSIONS', data: null } });
    });

    it('revoke: only ISSUED receipts; REVOKED with revokedAt; a FAILED one is refused', async () => {
      const r = await issued(3000);
      const rev = await t.client.request('POST', `/v1/cash-receipts/${r.id}/revoke`, { token: m.apiKey.secret });
      expect(rev.status).toBe(200);
      expect(rev.body.data).toMatchObject({ id: r.id, status: 'REVOKED', revokedAt: expect.stringMatching(/\+00:00$/) });
      const again = await t.client.request('POST', `/v1/cash-receipts/${r.id}/revoke`, { token: m.apiKey.secret });
      expect(again.status).toBe(409);
      const failed = await issue({ type: 'PERSONAL', identifier: '01000095555', amount: 10 });
      await settled(failed.body.data.id);
      expect((await t.client.request('POST', `/v1/cash-receipts/${failed.body.data.id}/revoke`, { token: m.apiKey.secret })).status).toBe(409);
    });

    it('read-only keys cannot issue (403); dashboard tokens cannot call v1 (403)', async () => {
      const ro = await t.client.gql(`mutation { createApiKey(input: {name: "ro", readOnly: true}) { secret } }`, {}, m.sessionToken);
      expect(await issue({ type: 'PERSONAL', identifier: '01012345678', amount: 1 }, ro.createApiKey.secret)).toMatchObject({ status: 403, body: { code: 'INSUFFICIENT_PERMISSIONS' } });
      expect(await issue({ type: 'PERSONAL', identifier: '01012345678', amount: 1 }, m.sessionToken)).toMatchObject({ status: 403, body: { code: 'INSUFFICIENT_PERMISSIONS' } });
    });
  });

  describe('v2 cancel', () => {
    it('a full cancel: CANCELLATION receipt (PENDING, then ISSUED) for the whole amount; the original becomes CANCELED', async () => {
      const o = await issued(10_000);
      const r = await cancel(o.id, { reason: '주문 취소' });
      expect(r.status).toBe(200);
      expect(r.body.code).toBe('10001');
      expect(r.body.data).toMatchObject({ kind: 'CANCELLATION', originalId: o.id, partial: false, amount: 10_000, supplyCost: 9091, tax: 909, cancelReason: '주문 취소', status: 'PENDING', issuedAt: expect.any(Number) });
      expect((await getV2(o.id)).body.data).toMatchObject({ status: 'CANCELED', canceledAmount: 10_000, remainingAmount: 0, canceledAt: expect.any(Number) });
      expect((await settled(r.body.data.id)).body.data.status).toBe('ISSUED');
      expect((await getV1(o.id)).body.data.status).toBe('REVOKED');
    });

    it('partial cancels in several steps: amounts and VAT recomputed, the last takes exactly what remains', async () => {
      const o = await issued(10_000);
      const c1 = await cancel(o.id, { reason: '부분', amount: 3000 });
      expect(c1.body.data).toMatchObject({ partial: true, amount: 3000, ...splitVat(3000) });
      expect((await getV2(o.id)).body.data).toMatchObject({ status: 'ISSUED', canceledAmount: 3000, remainingAmount: 7000 });
      const c2 = await cancel(o.id, { reason: '부분', amount: 3333 });
      expect(c2.body.data).toMatchObject({ partial: true, amount: 3333, ...splitVat(3333) });
      const c3 = await cancel(o.id, { reason: '나머지' });
      expect(c3.body.data).toMatchObject({ partial: true, amount: 3667 });
      expect(c1.body.data.supplyCost + c2.body.data.supplyCost + c3.body.data.supplyCost).toBe(o.supplyCost);
      expect(c1.body.data.tax + c2.body.data.tax + c3.body.data.tax).toBe(o.tax);
      expect((await getV2(o.id)).body.data).toMatchObject({ status: 'CANCELED', canceledAmount: 10_000, remainingAmount: 0 });
      expect(await cancel(o.id, { reason: 'x' })).toMatchObject({ status: 409, body: { code: '240006', data: { reason: 'FULLY_CANCELED', message: expect.any(String) } } });
    });

    it('two simultaneous partial cancels can never cancel more than remains', async () => {
      const o = await issued(10_000);
      const rs = await Promise.all([cancel(o.id, { reason: 'a', amount: 6000 }), cancel(o.id, { reason: 'b', amount: 6000 }), cancel(o.id, { reason: 'c', amount: 6000 })]);
      expect(rs.filter((r) => r.status === 200)).toHaveLength(1);
      for (const r of rs.filter((x) => x.status !== 200)) expect(r.body.code).toBe('240004');
      expect((await getV2(o.id)).body.data).toMatchObject({ canceledAmount: 6000, remainingAmount: 4000, status: 'ISSUED' });
    });

    it.each([
      ['bad id', 'crt_bad', { reason: 'x' }, 422, '240001'],
      ['missing receipt', 'crt_' + 'b'.repeat(24), { reason: 'x' }, 404, '20015'],
    ])('%s → the spec code', async (_n, id, body, status, code) => {
      expect(await cancel(id, body)).toMatchObject({ status, body: { code, data: null } });
    });

    it('body errors: missing reason 30007, empty or 101-character reason 240010, amount 0 or above remaining 240004, unreadable JSON 30007', async () => {
      const o = await issued(1000);
      expect((await cancel(o.id, {})).body).toEqual({ code: '30007', data: null });
      expect((await cancel(o.id, { reason: '' })).body).toEqual({ code: '240010', data: null });
      expect((await cancel(o.id, { reason: 'x'.repeat(101) })).body).toEqual({ code: '240010', data: null });
      expect((await cancel(o.id, { reason: 'x'.repeat(100), amount: 0 })).body).toEqual({ code: '240004', data: null });
      expect((await cancel(o.id, { reason: 'x', amount: 1001 })).body).toEqual({ code: '240004', data: null });
      const raw = await t.client.request('POST', `/v2/cash-receipts/${o.id}/cancel`, { token: m.apiKey.secret, rawBody: '{nope', headers: { 'content-type': 'application/json' } });
      expect(raw).toMatchObject({ status: 422, body: { code: '30007', data: null } });
      expect((await getV2(o.id)).body.data).toMatchObject({ status: 'ISSUED', remainingAmount: 1000 });
    });

    it('240006 reasons: NOT_ISSUED for a failed receipt, CANCELLATION_RECEIPT for a cancellation receipt', async () => {
      const failed = await issue({ type: 'PERSONAL', identifier: '01000091111', amount: 10 });
      await settled(failed.body.data.id);
      expect((await cancel(failed.body.data.id, { reason: 'x' })).body).toEqual({ code: '240006', data: { reason: 'NOT_ISSUED', message: expect.any(String) } });
      const o = await issued(500);
      const c = await cancel(o.id, { reason: 'x', amount: 100 });
      expect((await cancel(c.body.data.id, { reason: 'x' })).body.data.reason).toBe('CANCELLATION_RECEIPT');
    });
  });

  describe('v2 reissue', () => {
    const reissue = (id: string, body: unknown) => t.client.request('POST', `/v2/cash-receipts/${id}/reissue`, { token: m.apiKey.secret, body });
    const failedReceipt = async () => {
      const f = await issue({ type: 'PERSONAL', identifier: '01000090000', amount: 7000 });
      await settled(f.body.data.id);
      return f.body.data.id as string;
    };

    it('a FAILED original is reissued once: a new ORIGINAL (PENDING) with reissuedFromId; the original gets reissuedToId', async () => {
      const id = await failedReceipt();
      const r = await reissue(id, { identifier: '01055556666' });
      expect(r.status).toBe(200);
      expect(r.body.data).toMatchObject({ kind: 'ORIGINAL', status: 'PENDING', reissuedFromId: id, amount: 7000, identifier: '01055556666', type: 'PERSONAL', selfIssued: false });
      expect((await getV2(id)).body.data).toMatchObject({ status: 'FAILED', reissuedToId: r.body.data.id });
      expect((await settled(r.body.data.id)).body.data.status).toBe('ISSUED');
      expect((await reissue(id, { identifier: '01055556666' })).body).toEqual({ code: '240007', data: null });
    });

    it('self-issued: identifier 0100001234; not allowed as CORPORATE (240002)', async () => {
      const id = await failedReceipt();
      expect((await reissue(id, { selfIssued: true, type: 'CORPORATE' })).body).toEqual({ code: '240002', data: null });
      const r = await reissue(id, { selfIssued: true });
      expect(r.body.data).toMatchObject({ selfIssued: true, identifier: '0100001234', type: 'PERSONAL' });
    });

    it('errors: 240002 bad type, 240003 missing or unfit identifier, 240007 not failed, 240008 agency failure with the FAILED receipt', async () => {
      const id = await failedReceipt();
      expect((await reissue(id, { type: 'BOTH', identifier: '01012345678' })).body).toEqual({ code: '240002', data: null });
      expect((await reissue(id, {})).body).toEqual({ code: '240003', data: null });
      expect((await reissue(id, { type: 'CORPORATE', identifier: '01012345678' })).body).toEqual({ code: '240003', data: null });
      const ok = await issued(10);
      expect((await reissue(ok.id, { identifier: '01012345678' })).body).toEqual({ code: '240007', data: null });
      const bad = await reissue(id, { identifier: '01000087777' });
      expect(bad.status).toBe(422);
      expect(bad.body).toMatchObject({ code: '240008', data: { status: 'FAILED', reissuedFromId: id, identifier: '01000087777', kind: 'ORIGINAL' } });
    });

    it('the receipt is looked up before the body is judged against it, as in GraphQL: a missing receipt → 404 20015 whatever the identifier; a self-issued reissue ignores a non-text identifier', async () => {
      expect(await reissue('crt_' + 'c'.repeat(24), {})).toMatchObject({ status: 404, body: { code: '20015', data: null } });
      expect(await reissue('crt_' + 'c'.repeat(24), { type: 'BOTH' })).toMatchObject({ status: 422, body: { code: '240002', data: null } });
      const id = await failedReceipt();
      const r = await reissue(id, { selfIssued: true, identifier: 5 });
      expect(r.status).toBe(200);
      expect(r.body.data).toMatchObject({ selfIssued: true, identifier: '0100001234', reissuedFromId: id });
    });

    it('without business info → 409 240005', async () => {
      const id = await failedReceipt();
      await t.app.db.sql.query(`DELETE FROM "BusinessInfo" WHERE "workspaceId" = $1`, [m.workspaceId]);
      try {
        expect(await reissue(id, { identifier: '01012345678' })).toMatchObject({ status: 409, body: { code: '240005', data: null } });
      } finally {
        await t.client.gql(`mutation { registerBusinessInfo(input: {corpNum: "1234567890", companyName: "Example Shop", representativeName: "Hong"}) { workspace { id } } }`, {}, m.sessionToken);
      }
    });
  });

  describe('v2 send-email', () => {
    const send = (id: string, body: unknown) => t.client.request('POST', `/v2/cash-receipts/${id}/send-email`, { token: m.apiKey.secret, body });
    it('an issued receipt → 200 {code: "10001"}', async () => {
      const r = await issued(100);
      expect(await send(r.id, { email: 'buyer@example.com' })).toMatchObject({ status: 200, body: { code: '10001' } });
    });
    it('agency failure (fail.example) → 502 240009 with the agency code and message', async () => {
      const r = await issued(100);
      expect(await send(r.id, { email: 'buyer@fail.example' })).toMatchObject({ status: 502, body: { code: '240009', data: { code: expect.any(String), message: expect.any(String) } } });
    });
    it('errors: 240020 failed receipt, 240018 bad or too long address, 30007 missing', async () => {
      const f = await issue({ type: 'PERSONAL', identifier: '01000092222', amount: 10 });
      await settled(f.body.data.id);
      expect((await send(f.body.data.id, { email: 'a@example.com' })).body).toEqual({ code: '240020', data: null });
      const r = await issued(100);
      expect((await send(r.id, { email: 'not-an-address' })).body).toEqual({ code: '240018', data: null });
      expect((await send(r.id, { email: 'a'.repeat(90) + '@example.com' })).body).toEqual({ code: '240018', data: null });
      expect((await send(r.id, {})).body).toEqual({ code: '30007', data: null });
    });
  });

  describe('auto-issue on payment', () => {
    const receiptsOf = async (invoiceId: string) =>
      (await t.client.request('GET', `/v1/cash-receipts?offset=0&limit=10&search=${invoiceId}`, { token: m.apiKey.secret })).body.data as { id: string; status: string; relatedInvoiceId: string; amount: number }[];

    it('a deposit paying an invoice with cashReceipt issues a receipt for it (relatedInvoiceId)', async () => {
      const inv = await t.client.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds: [], customer: { name: '영수증' }, amount: 33_000, cashReceipt: { type: 'PERSONAL', identifier: '01011112222' } } });
      await t.client.deposit(m.bankAccount.notificationToken, { depositorName: '영수증', amount: 33_000 });
      const rs = await until(() => receiptsOf(inv.body.data.id), (x) => x.length === 1 && x[0].status === 'ISSUED');
      expect(rs).toEqual([expect.objectContaining({ relatedInvoiceId: inv.body.data.id, status: 'ISSUED', amount: 33_000 })]);
    });

    it('mark-as-paid issues it too', async () => {
      const inv = await t.client.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds: [], customer: { name: '수동영수증' }, amount: 44_000, cashReceipt: { type: 'CORPORATE', identifier: '2223334444' } } });
      await t.client.request('POST', `/v1/invoices/${inv.body.data.id}/mark-as-paid`, { token: m.apiKey.secret });
      const rs = await until(() => receiptsOf(inv.body.data.id), (x) => x.length === 1 && x[0].status === 'ISSUED');
      expect(rs[0]).toMatchObject({ relatedInvoiceId: inv.body.data.id, amount: 44_000 });
    });

    it('without business info no receipt is issued, and the invoice history says why', async () => {
      const inv = await t.client.request('POST', '/v1/invoices', { token: noBiz.apiKey.secret, body: { bankAccountIds: [], customer: { name: '사업자없음' }, amount: 55_000, cashReceipt: { type: 'PERSONAL', identifier: '01011112222' } } });
      await t.client.request('POST', `/v1/invoices/${inv.body.data.id}/mark-as-paid`, { token: noBiz.apiKey.secret });
      const g = await t.client.gql(`query($id: ID!) { invoice(id: $id) { history { type data } } }`, { id: inv.body.data.id }, noBiz.sessionToken);
      expect(g.invoice.history.map((h: { type: string }) => h.type)).toEqual(['created', 'paid', 'cash_receipt_skipped']);
      expect(g.invoice.history[2].data).toEqual({ reason: 'BUSINESS_INFO_NOT_REGISTERED' });
      const list = await t.client.request('GET', '/v1/cash-receipts?offset=0&limit=10', { token: noBiz.apiKey.secret });
      expect(list.body.totalItems).toBe(0);
    });
  });

  describe('GraphQL', () => {
    it('issueCashReceipt and cashReceipt(id) give the same receipt; cancellations are listed on the original', async () => {
      const r = await t.client.gql(`mutation { issueCashReceipt(input: {type: PERSONAL, identifier: "01012341234", amount: 5000}) { ... on CashReceiptPayload { cashReceipt { id status supplyCost tax } } } }`, {}, m.apiKey.secret);
      expect(r.issueCashReceipt.cashReceipt).toMatchObject({ status: 'PENDING', ...splitVat(5000) });
      const id = r.issueCashReceipt.cashReceipt.id;
      await settled(id);
      await t.client.gql(`mutation($id: ID!) { cancelCashReceipt(id: $id, input: {reason: "r", amount: 1000}) { ... on CashReceiptPayload { cashReceipt { id } } } }`, { id }, m.apiKey.secret);
      const g = await t.client.gql(`query($id: ID!) { cashReceipt(id: $id) { status remainingAmount cancellations { amount kind } } }`, { id }, m.apiKey.secret);
      expect(g.cashReceipt).toEqual({ status: 'ISSUED', remainingAmount: 4000, cancellations: [{ amount: 1000, kind: 'CANCELLATION' }] });
    });
  });
});

describe(`a receipt pending at the tax authority on ${dbLabel}`, () => {
  let t: TestApp;
  let m: Bootstrapped;
  beforeAll(async () => {
    t = await startTestApp({ env: { AGENCY_SIM_DELAY_MS: '600000' } });
    m = await bootstrap(t.client);
  });
  afterAll(() => t?.stop());

  it('cannot be canceled yet: 240006 NTS_PENDING; send-email: 240020', async () => {
    const r = await t.client.request('POST', '/v1/cash-receipts', { token: m.apiKey.secret, body: { type: 'PERSONAL', identifier: '01012345678', amount: 1000 } });
    expect(r.body.data.status).toBe('PENDING');
    const c = await t.client.request('POST', `/v2/cash-receipts/${r.body.data.id}/cancel`, { token: m.apiKey.secret, body: { reason: 'x' } });
    expect(c).toMatchObject({ status: 409, body: { code: '240006', data: { reason: 'NTS_PENDING', message: expect.any(String) } } });
    const e = await t.client.request('POST', `/v2/cash-receipts/${r.body.data.id}/send-email`, { token: m.apiKey.secret, body: { email: 'a@example.com' } });
    expect(e.body).toEqual({ code: '240020', data: null });
  });
});
