/**
 * The `webhooks` section of /openapi.json describes what webhooks really receive: every event type, V1 and V2, is
 * produced through the API and each delivered payload validates against the document (ajv).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { dbLabel, startTestApp, type TestApp } from '../helpers/app.ts';
import { checkWebhookPayload } from '../helpers/openapi-check.ts';
import { Receiver } from '../helpers/receiver.ts';
import { until } from '../helpers/wait.ts';

const CREATE = `mutation($input: CreateWebhookInput!) { createWebhook(input: $input) { webhook { id } signingSecret } }`;
const START_SHOP = `mutation($i: StartShopInstallInput!) { startShopInstall(input: $i) { __typename ... on ShopInstallPayload { authorizeUrl connection { id } } ... on DomainError { code message } } }`;
const SIMULATE = `mutation($i: SimulateShopOrderInput!) { simulateShopOrder(input: $i) { __typename ... on SimulatedShopOrderPayload { order { id } } ... on DomainError { code message } } }`;
const SHOP_ORDERS = `query($c: ID!) { shopConnection(id: $c) { orders { id orderId state invoice { id } } } }`;

describe(`webhook payloads against /openapi.json on ${dbLabel}`, () => {
  let t: TestApp;
  let m: Bootstrapped;
  const rx = new Receiver();

  beforeAll(async () => {
    await rx.start();
    t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_DELAYS_MS: '30,30,30,30,30,30' } });
    m = await bootstrap(t.client);
    for (const version of ['V1', 'V2']) await t.client.gql(CREATE, { input: { url: `${rx.url}?v=${version}`, version } }, m.sessionToken);
  });
  afterAll(async () => {
    await t?.stop();
    await rx.stop();
  });

  it('every event of both versions validates: created, paid (deposit and API call), updated, canceled/deleted, receipt issued and failed, transaction received (matched and unmatched)', async () => {
    const key = m.apiKey.secret;
    const create = async (name: string, amount: number, extra: Record<string, unknown> = {}) => {
      const r = await t.client.request('POST', '/v1/invoices', { token: key, body: { bankAccountIds: [], customer: { name }, amount, expireAfter: '1d', ...extra } });
      expect(r.status).toBe(201);
      return r.body.data.id as string;
    };
    // invoice.created + invoice.paid (DEPOSIT) + receipt.issued
    await create('웹훅입금', 1100, { cashReceipt: { type: 'PERSONAL', identifier: '01012345678' }, metadata: { order: '1' } });
    expect((await t.client.deposit(m.bankAccount.notificationToken, { depositorName: '웹훅입금', amount: 1100 })).status).toBe(201);
    // invoice.paid (API_CALL) + receipt.failed (the simulated tax authority refuses 0100009...)
    const marked = await create('웹훅표시', 1200, { cashReceipt: { type: 'PERSONAL', identifier: '01000091234' } });
    expect((await t.client.request('POST', `/v1/invoices/${marked}/mark-as-paid`, { token: key })).status).toBe(200);
    // invoice.updated, then invoice.canceled (V2) / invoice.deleted (V1)
    const changed = await create('웹훅수정', 1300);
    expect((await t.client.request('PATCH', `/v2/invoices/${changed}`, { token: key, body: { amount: 1301 } })).status).toBe(200);
    expect((await t.client.request('POST', `/v2/invoices/${changed}/cancel`, { token: key, body: { reason: 'test' } })).status).toBe(200);

    // transaction.received (V2 only): matched (the deposit above) and unmatched — AMBIGUOUS between two invoices, and
    // NO_CANDIDATE.
    await create('웹훅모호(1)', 1400);
    await create('웹훅모호(2)', 1400);
    expect((await t.client.deposit(m.bankAccount.notificationToken, { depositorName: '웹훅모호', amount: 1400 })).status).toBe(201);
    expect((await t.client.deposit(m.bankAccount.notificationToken, { depositorName: '아무도아님', amount: 1500 })).status).toBe(201);

    const expected = ['invoice.created', 'invoice.paid', 'invoice.updated', 'invoice.canceled', 'invoice.deleted', 'receipt.issued', 'receipt.failed', 'transaction.received'];
    await rx.waitFor(
      (all) =>
        expected.every((type) => all.some((r) => r.json?.type === type)) &&
        all.filter((r) => r.json?.type === 'invoice.paid').length >= 4 &&
        all.filter((r) => r.json?.type === 'transaction.received').length >= 3,
      30_000,
    );
    const types = new Set<string>();
    for (const r of rx.received) {
      checkWebhookPayload(r.json);
      types.add(r.json.type);
    }
    expect([...types].sort()).toEqual([...expected].sort());
    // V1 and V2 shapes both checked: v1 timestamps are text, v2 ones Unix seconds.
    expect(new Set(rx.ofType('invoice.created').map((r) => typeof r.json.createdAt))).toEqual(new Set(['string', 'number']));
    const paid = rx.ofType('invoice.paid').map((r) => r.json.data.trigger);
    expect(new Set(paid)).toEqual(new Set(['DEPOSIT', 'API_CALL']));
    // transaction.received reaches the V2 webhook only (v2 times: a V1 delivery would have text), once per deposit.
    const received = rx.ofType('transaction.received');
    expect(received.map((r) => typeof r.json.createdAt)).toEqual(['number', 'number', 'number']);
    expect(received.map((r) => [r.json.data.match.status, r.json.data.match.reason ?? r.json.data.match.method]).sort()).toEqual([
      ['MATCHED', 'EXACT'],
      ['UNMATCHED', 'AMBIGUOUS'],
      ['UNMATCHED', 'NO_CANDIDATE'],
    ]);
  });

  it('the shop_order events (V2 only) validate: confirmed, confirmation_failed and attention_needed from the simulated shop', async () => {
    const gql = (q: string, v: Record<string, unknown> = {}) => t.client.gql(q, v, m.sessionToken);
    // Connect a simulated shop: the authorize URL redirects to the callback, which completes the install.
    const started = await gql(START_SHOP, { i: { platform: 'SIMULATED', shopId: 'webhook-shop' } });
    expect(started.startShopInstall.__typename).toBe('ShopInstallPayload');
    const connectionId = started.startShopInstall.connection.id as string;
    const authorize = await fetch(new URL(started.startShopInstall.authorizeUrl, t.url), { redirect: 'manual' });
    expect(authorize.status).toBe(302);
    const callback = await fetch(new URL(authorize.headers.get('location')!, t.url), { headers: { accept: 'application/json' } });
    expect(callback.status).toBe(200);
    const linked = async (buyerName: string, amount: number) => {
      const r = await gql(SIMULATE, { i: { connectionId, buyerName, amount } });
      expect(r.simulateShopOrder.__typename).toBe('SimulatedShopOrderPayload');
      const orderId = r.simulateShopOrder.order.id as string;
      const find = async () => ((await gql(SHOP_ORDERS, { c: connectionId })).shopConnection.orders as any[]).find((o) => o.orderId === orderId);
      const o = await until(find, (x) => x?.state === 'LINKED');
      expect(o?.state).toBe('LINKED');
      return { orderId, shopOrderId: o.id as string, invoiceId: o.invoice.id as string };
    };

    // shop_order.confirmed: a deposit pays the order's invoice; then un-matching it: shop_order.attention_needed.
    const paid = await linked('웹훅상점', 2100);
    const dep = await t.client.deposit(m.bankAccount.notificationToken, { depositorName: '웹훅상점', amount: 2100 });
    expect(dep.status).toBe(201);
    await rx.waitFor((all) => all.some((r) => r.json?.type === 'shop_order.confirmed'), 30_000);
    const unmatch = await gql(`mutation($id: ID!) { unmatchTransaction(id: $id) { __typename } }`, { id: dep.body.transactionId });
    expect(unmatch.unmatchTransaction.__typename).not.toBe('DomainError');
    // shop_order.confirmation_failed: the shop refuses to confirm an order canceled on its side.
    const refused = await linked('웹훅거절', 2200);
    await t.app.deps.prisma.simulatedShopOrder.update({ where: { id: refused.orderId }, data: { status: 'CANCELED' } });
    expect((await t.client.request('POST', `/v1/invoices/${refused.invoiceId}/mark-as-paid`, { token: m.apiKey.secret })).status).toBe(200);

    const shopTypes = ['shop_order.confirmed', 'shop_order.attention_needed', 'shop_order.confirmation_failed'];
    await rx.waitFor((all) => shopTypes.every((type) => all.some((r) => r.json?.type === type)), 30_000);
    for (const r of rx.received) checkWebhookPayload(r.json);
    for (const type of shopTypes) {
      const got = rx.ofType(type);
      // Only the V2 webhook receives them (V1 does not), each once.
      expect({ type, deliveries: got.length }).toEqual({ type, deliveries: 1 });
      for (const r of got) {
        checkWebhookPayload(r.json);
        expect(typeof r.json.createdAt).toBe('number');
      }
    }
    const confirmed = rx.ofType('shop_order.confirmed')[0].json;
    expect(confirmed.data.invoice).toMatchObject({ id: paid.invoiceId, status: 'PAID' });
    expect(confirmed.data.shopOrder).toMatchObject({ id: paid.shopOrderId, platform: 'SIMULATED', connectionId, orderId: paid.orderId, invoiceId: paid.invoiceId, state: 'CONFIRMED', error: null });
    // Unix seconds, like every v2 time (the stored event has ISO 8601).
    expect(confirmed.data.shopOrder.confirmedAt).toBeTypeOf('number');
    expect(Math.abs(confirmed.data.shopOrder.confirmedAt - Date.now() / 1000)).toBeLessThan(600);
    expect(rx.ofType('shop_order.attention_needed')[0].json.data.shopOrder).toMatchObject({ id: paid.shopOrderId, state: 'CONFIRMED', attention: 'PAYMENT_WITHDRAWN', confirmedAt: confirmed.data.shopOrder.confirmedAt });
    expect(rx.ofType('shop_order.confirmation_failed')[0].json.data.shopOrder).toMatchObject({ orderId: refused.orderId, state: 'FAILED', error: { code: 'ORDER_CANCELED' }, confirmedAt: null });
  });
});
