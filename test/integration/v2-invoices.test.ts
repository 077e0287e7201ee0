/** REST v2 invoices: GET one (with history) and list, PATCH with every rule and code, cancel. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addVerifiedBankAccount, bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { OffsetClock } from '../../src/domain/clock.ts';
import { dbLabel, startTestApp, type TestApp } from '../helpers/app.ts';

const DAY = 86_400;

describe(`REST v2 invoices on ${dbLabel}`, () => {
  let t: TestApp;
  let m: Bootstrapped;
  const clock = new OffsetClock();
  beforeAll(async () => {
    t = await startTestApp({ clock });
    m = await bootstrap(t.client);
  });
  afterAll(() => t?.stop());

  const nowS = () => Math.floor(clock.now().getTime() / 1000);
  let seq = 0;
  const create = async (extra: Record<string, unknown> = {}, token = m.apiKey.secret) => {
    const r = await t.client.request('POST', '/v1/invoices', { token, body: { bankAccountIds: [], customer: { name: `브이투${seq++}` }, amount: 1000 + seq, ...extra } });
    expect(r.status).toBe(201);
    return r.body.data.id as string;
  };
  const patch = (id: string, body: unknown, token = m.apiKey.secret) => t.client.request('PATCH', `/v2/invoices/${id}`, { token, body });
  const get = (id: string) => t.client.request('GET', `/v2/invoices/${id}`, { token: m.apiKey.secret });

  it('GET /v2/invoices/{id}: the v2 object with number, status, Unix seconds and history', async () => {
    const id = await create({ expireAfter: '1d', customer: { name: '조회', email: 'a@example.com' } });
    const r = await get(id);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      code: '10001',
      data: expect.objectContaining({
        id,
        number: expect.any(Number),
        status: 'PENDING',
        amount: expect.any(Number),
        expiresAt: expect.any(Number),
        updatedAt: expect.any(Number),
        createdAt: expect.any(Number),
        guideEmailSentAt: null,
        canceledAt: null,
        cancelReason: null,
        canceledBy: null,
        customer: { name: '조회', email: 'a@example.com', phoneNumber: null },
        history: [{ type: 'created', actor: { type: 'SECRET_API_KEY', accountId: null, apiKeyId: m.apiKey.id, name: 'default' }, data: null, createdAt: expect.any(Number) }],
      }),
    });
    expect(r.body.data.expiresAt - r.body.data.createdAt).toBe(DAY);
  });

  it('GET /v2/invoices lists newest first with totalItems and a status filter', async () => {
    const a = await create();
    const b = await create();
    await t.client.request('POST', `/v1/invoices/${b}/mark-as-paid`, { token: m.apiKey.secret });
    const paid = await t.client.request('GET', '/v2/invoices?offset=0&limit=100&status=PAID', { token: m.apiKey.secret });
    expect(paid.body.data.map((x: { id: string }) => x.id)).toContain(b);
    expect(paid.body.data.every((x: { status: string }) => x.status === 'PAID')).toBe(true);
    const all = await t.client.request('GET', '/v2/invoices?limit=2', { token: m.apiKey.secret });
    expect(all.body.data.map((x: { id: string }) => x.id)).toEqual([b, a]);
    expect(all.body.totalItems).toBeGreaterThanOrEqual(2);
    expect(all.body.data[0].history).toBeUndefined();
  });

  describe('PATCH /v2/invoices/{id}', () => {
    it('changes only the sent fields; null clears e-mail, phone, cash receipt and expiry; no history in the response; emits invoice.updated', async () => {
      const id = await create({ customer: { name: '수정전', email: 'x@example.com', phoneNumber: '01012345678' }, cashReceipt: { type: 'PERSONAL', identifier: '01012345678' }, expireAfter: '2d' });
      const r = await patch(id, { amount: 7777, customer: { email: null, phoneNumber: null }, cashReceipt: null, expiresAt: null });
      expect(r.status).toBe(200);
      expect(r.body.data).toMatchObject({ id, amount: 7777, customer: { name: '수정전', email: null, phoneNumber: null }, cashReceipt: null, expiresAt: null, status: 'PENDING' });
      expect(r.body.data.history).toBeUndefined();
      const events = await t.client.gql(`query($id: ID!) { events(invoiceId: $id) { type } }`, { id }, m.apiKey.secret);
      expect(events.events.map((e: { type: string }) => e.type)).toEqual(['invoice.created', 'invoice.updated']);
      const h = await get(id);
      expect(h.body.data.history.map((x: { type: string }) => x.type)).toEqual(['created', 'updated']);
    });

    it('expiresAt sets the expiry; extendDays extends from the current expiry and wins over expiresAt', async () => {
      const id = await create({ expireAfter: '1d' });
      const e1 = (await get(id)).body.data.expiresAt;
      const requested = nowS() + 10 * DAY;
      const r = await patch(id, { expiresAt: requested });
      expect(r.body.data.expiresAt).toBe(requested);
      const r2 = await patch(id, { extendDays: 2, expiresAt: nowS() + 3 * DAY });
      expect(r2.body.data.expiresAt).toBe(requested + 2 * DAY);
      expect(e1).toBeLessThan(r2.body.data.expiresAt);
      const none = await create();
      const r3 = await patch(none, { extendDays: 5 });
      expect(Math.abs(r3.body.data.expiresAt - (nowS() + 5 * DAY))).toBeLessThanOrEqual(2);
    });

    it.each([
      ['no field', {}, 422, '30009'],
      ['only resendGuideEmail', { resendGuideEmail: true }, 422, '30009'],
      ['name with a space', { customer: { name: '홍 길동' } }, 422, '220002'],
      ['name null', { customer: { name: null } }, 422, '220002'],
      ['bad e-mail', { customer: { email: 'nope' } }, 422, '220003'],
      ['bad phone', { customer: { phoneNumber: '123' } }, 422, '220004'],
      ['amount 0', { amount: 0 }, 422, '220005'],
      ['expiresAt in the past', { expiresAt: 1000 }, 422, '220006'],
      ['expiresAt beyond 365 days', { expiresAt: Math.floor(Date.now() / 1000) + 400 * DAY }, 422, '220006'],
      ['extendDays 0', { extendDays: 0 }, 422, '220007'],
      ['extendDays 366', { extendDays: 366 }, 422, '220007'],
      ['bankAccountIds not a list', { bankAccountIds: 'bac_x' }, 422, '220008'],
      ['unknown bank account', { bankAccountIds: ['bac_' + 'z'.repeat(24)] }, 422, '220008'],
      ['cashReceipt identifier unfit', { cashReceipt: { type: 'CORPORATE', identifier: '123' } }, 422, '220009'],
    ])('%s → %d %s', async (_n, body, status, code) => {
      const id = await create();
      expect(await patch(id, body)).toMatchObject({ status, body: { code, data: null } });
    });

    it('an unverified account → 220018; another workspace’s account or a limited key’s outside account → 403 80002', async () => {
      const unverified = await addVerifiedBankAccount(t.client, m.sessionToken, { verify: false });
      const id = await create();
      expect(await patch(id, { bankAccountIds: [unverified.id] })).toMatchObject({ status: 422, body: { code: '220018' } });
      const other = await bootstrap(t.client);
      expect(await patch(id, { bankAccountIds: [other.bankAccount.id] })).toMatchObject({ status: 403, body: { code: '80002' } });
      const limited = await t.client.gql(`mutation($i: CreateApiKeyInput!) { createApiKey(input: $i) { secret } }`, { i: { name: 'l', bankAccountIds: [m.bankAccount.id] } }, m.sessionToken);
      const inScope = await create({ bankAccountIds: [m.bankAccount.id] });
      expect(await patch(inScope, { bankAccountIds: [] }, limited.createApiKey.secret)).toMatchObject({ status: 403, body: { code: '80002' } });
      expect(await patch(id, { amount: 5 }, limited.createApiKey.secret)).toMatchObject({ status: 403, body: { code: '80002' } });
      expect((await patch(inScope, { amount: 5 }, limited.createApiKey.secret)).status).toBe(200);
    });

    it('a change that collides with another pending invoice → 409 220010 with its invoiceId and number', async () => {
      const a = await create({ customer: { name: '충돌' }, amount: 9999 });
      const b = await create({ customer: { name: '충돌' }, amount: 9998 });
      const r = await patch(b, { amount: 9999 });
      const number = (await get(a)).body.data.number;
      expect(r).toMatchObject({ status: 409, body: { code: '220010', data: { invoiceId: a, number } } });
      expect((await get(b)).body.data.amount).toBe(9998);
    });

    it('paid, canceled or expired invoices cannot be updated → 409 220011', async () => {
      const paid = await create();
      await t.client.request('POST', `/v1/invoices/${paid}/mark-as-paid`, { token: m.apiKey.secret });
      expect((await patch(paid, { amount: 1 })).body).toEqual({ code: '220011', data: null });
      const canceled = await create();
      await t.client.request('POST', `/v2/invoices/${canceled}/cancel`, { token: m.apiKey.secret, body: {} });
      expect((await patch(canceled, { amount: 1 })).body).toEqual({ code: '220011', data: null });
      const expiring = await create({ expireAfter: '1m' });
      clock.advance(2 * 60_000);
      expect((await patch(expiring, { amount: 1 })).body).toEqual({ code: '220011', data: null });
    });

    it('ids and credentials: 220001 malformed id, 20014 unknown, 290006 bad key, 290007 read-only, 30007 unreadable JSON', async () => {
      const id = await create();
      expect(await patch('ivc_bad', { amount: 1 })).toMatchObject({ status: 422, body: { code: '220001', data: null } });
      expect(await patch('ivc_' + 'q'.repeat(24), { amount: 1 })).toMatchObject({ status: 404, body: { code: '20014', data: null } });
      expect(await patch(id, { amount: 1 }, 'sk_live_nope')).toMatchObject({ status: 401, body: { code: '290006', data: null } });
      const ro = await t.client.gql(`mutation { createApiKey(input: {name: "ro", readOnly: true}) { secret } }`, {}, m.sessionToken);
      expect(await patch(id, { amount: 1 }, ro.createApiKey.secret)).toMatchObject({ status: 403, body: { code: '290007', data: null } });
      const raw = await t.client.request('PATCH', `/v2/invoices/${id}`, { token: m.apiKey.secret, rawBody: '{', headers: { 'content-type': 'application/json' } });
      expect(raw).toMatchObject({ status: 422, body: { code: '30007', data: null } });
    });

    describe('resendGuideEmail', () => {
      const emails = async () => (await t.client.gql(`{ emails { kind to text invoiceId } }`, {}, m.sessionToken)).emails as { kind: string; to: string; text: string; invoiceId: string }[];

      it('sends the payment guide when amount or expiry changed (amount, accounts, expiry in it); guideEmailSentAt set', async () => {
        const id = await create({ customer: { name: '안내', email: 'guide@example.com' }, expireAfter: '3d', bankAccountIds: [m.bankAccount.id] });
        const r = await patch(id, { amount: 12_000, resendGuideEmail: true });
        expect(r.body.data.guideEmailSentAt).toEqual(expect.any(Number));
        const mail = (await emails()).find((e) => e.invoiceId === id)!;
        expect(mail).toMatchObject({ kind: 'payment_guide', to: 'guide@example.com' });
        expect(mail.text).toContain('12,000원');
        expect(mail.text).toContain(m.bankAccount.number);
        expect(mail.text).toContain('입금 기한');
      });

      it('no e-mail when amount and expiry are unchanged', async () => {
        const id = await create({ customer: { name: '무변경', email: 'same@example.com' }, expireAfter: '3d' });
        const r = await patch(id, { customer: { phoneNumber: '01099998888' }, resendGuideEmail: true });
        expect(r.status).toBe(200);
        expect(r.body.data.guideEmailSentAt).toBeNull();
        expect((await emails()).some((e) => e.invoiceId === id)).toBe(false);
      });

      it('no expiry → 409 220023; no usable receiving account → 409 220022', async () => {
        const id = await create({ customer: { name: '기한없음', email: 'n@example.com' } });
        expect((await patch(id, { amount: 5, resendGuideEmail: true })).body).toEqual({ code: '220023', data: null });
        const lonely = await bootstrap(t.client);
        await t.app.db.sql.query(`UPDATE "BankAccount" SET "verifiedAt" = NULL WHERE "workspaceId" = $1`, [lonely.workspaceId]);
        const inv = await t.client.request('POST', '/v1/invoices', { token: lonely.apiKey.secret, body: { bankAccountIds: [], customer: { name: '계좌없음', email: 'n@example.com' }, amount: 1, expireAfter: '1d' } });
        expect((await patch(inv.body.data.id, { amount: 5, resendGuideEmail: true }, lonely.apiKey.secret)).body).toEqual({ code: '220022', data: null });
      });
    });
  });

  describe('POST /v2/invoices/{id}/cancel', () => {
    const cancel = (id: string, body?: unknown, token = m.apiKey.secret) => t.client.request('POST', `/v2/invoices/${id}/cancel`, { token, body });

    it('CANCELED with reason, canceledAt and canceledBy; invisible to v1 afterwards; listed in v2 as CANCELED', async () => {
      const id = await create();
      const r = await cancel(id, { reason: '고객 요청' });
      expect(r.status).toBe(200);
      expect(r.body.data).toMatchObject({
        id,
        status: 'CANCELED',
        cancelReason: '고객 요청',
        canceledAt: expect.any(Number),
        canceledBy: { type: 'SECRET_API_KEY', accountId: null, apiKeyId: m.apiKey.id, name: 'default' },
      });
      expect(await t.client.request('GET', `/v1/invoices/${id}`, { token: m.apiKey.secret })).toMatchObject({ status: 404, body: { code: 'INVOICE_NOT_FOUND' } });
      const list = await t.client.request('GET', '/v2/invoices?offset=0&limit=100&status=CANCELED', { token: m.apiKey.secret });
      expect(list.body.data.map((x: { id: string }) => x.id)).toContain(id);
    });

    it('no body is fine (reason null); an expired invoice can be canceled', async () => {
      const id = await create({ expireAfter: '1m' });
      clock.advance(2 * 60_000);
      expect((await cancel(id)).body.data).toMatchObject({ status: 'CANCELED', cancelReason: null });
    });

    it('paid or canceled → 409 220011; reason over 200 characters → 422 220020; malformed id → 220001', async () => {
      const paid = await create();
      await t.client.request('POST', `/v1/invoices/${paid}/mark-as-paid`, { token: m.apiKey.secret });
      expect((await cancel(paid, {})).body).toEqual({ code: '220011', data: null });
      const id = await create();
      expect((await cancel(id, { reason: 'x'.repeat(201) })).body).toEqual({ code: '220020', data: null });
      expect((await cancel(id, { reason: 'x'.repeat(200) })).status).toBe(200);
      expect((await cancel(id, {})).body).toEqual({ code: '220011', data: null });
      expect((await cancel('nope', {})).body).toEqual({ code: '220001', data: null });
    });

    it('a new invoice with the same name and amount may be created after a cancel', async () => {
      const id = await create({ customer: { name: '재생성' }, amount: 4242 });
      await cancel(id, {});
      const again = await t.client.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds: [], customer: { name: '재생성' }, amount: 4242 } });
      expect(again.status).toBe(201);
    });
  });
});
