/**
 * GraphQL simulateShopOrder's payWithinHours (src/graphql/shop/shop.type.ts): absent is the default 72 hours, an explicit
 * null an order the simulated shop never cancels unpaid (no pay-by deadline, so its invoice does not expire), a number
 * that many hours; out of range is refused. Literal arguments and variables alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { dbLabel, startTestApp, type TestApp } from '../helpers/app.ts';
import { until } from '../helpers/wait.ts';

const START = `mutation($i: StartShopInstallInput!) { startShopInstall(input: $i) { __typename ... on ShopInstallPayload { authorizeUrl connection { id } } ... on DomainError { code message } } }`;
const SIMULATE = `mutation($i: SimulateShopOrderInput!) { simulateShopOrder(input: $i) { __typename ... on SimulatedShopOrderPayload { order { id orderedAt payBy } } ... on DomainError { code message } } }`;
const ORDERS = `query($c: ID!) { shopConnection(id: $c) { orders { orderId state invoice { id expiresAt } } } }`;

const HOUR = 3600_000;

describe(`simulateShopOrder payWithinHours on ${dbLabel}`, () => {
  let t: TestApp;
  let m: Bootstrapped;
  let connectionId: string;
  const gql = (q: string, v: Record<string, unknown> = {}) => t.client.gql(q, v, m.sessionToken);
  const deadlineHours = (order: { orderedAt: string; payBy: string | null }) => (order.payBy === null ? null : (Date.parse(order.payBy) - Date.parse(order.orderedAt)) / HOUR);

  beforeAll(async () => {
    t = await startTestApp({ env: { SHOP_SYNC_INTERVAL_MS: '3600000' } });
    m = await bootstrap(t.client);
    const r = await gql(START, { i: { platform: 'SIMULATED', shopId: 'pay-within' } });
    expect(r.startShopInstall.__typename).toBe('ShopInstallPayload');
    connectionId = r.startShopInstall.connection.id;
    const authorize = await fetch(new URL(r.startShopInstall.authorizeUrl, t.url), { redirect: 'manual' });
    expect(authorize.status).toBe(302);
    const done = await fetch(new URL(authorize.headers.get('location')!, t.url), { headers: { accept: 'application/json' } });
    expect(done.status).toBe(200);
  });
  afterAll(() => t?.stop());

  it('variables: absent = 72 hours, null = no deadline, a number = that many hours', async () => {
    const place = async (buyerName: string, extra: Record<string, unknown>) => {
      const r = await gql(SIMULATE, { i: { connectionId, buyerName, amount: 1000, ...extra } });
      expect(r.simulateShopOrder.__typename).toBe('SimulatedShopOrderPayload');
      return r.simulateShopOrder.order as { id: string; orderedAt: string; payBy: string | null };
    };
    const absent = await place('기본기한', {});
    const never = await place('기한없음', { payWithinHours: null });
    const five = await place('다섯시간', { payWithinHours: 5 });
    expect(deadlineHours(absent)).toBe(72);
    expect(never.payBy).toBeNull();
    expect(deadlineHours(five)).toBe(5);

    // The imported invoices: one expiring with the order's deadline, one that never expires.
    const orders = await until(
      async () => (await gql(ORDERS, { c: connectionId })).shopConnection.orders as { orderId: string; state: string; invoice: { expiresAt: string | null } | null }[],
      (os) => [absent, never].every((o) => os.find((x) => x.orderId === o.id)?.state === 'LINKED'),
    );
    expect(orders.find((o) => o.orderId === never.id)!.invoice!.expiresAt).toBeNull();
    // The invoice expires 10 minutes before the shop's deadline (PAY_BY_MARGIN_MS in src/domain/shops/shop-orders.ts).
    expect(Date.parse(orders.find((o) => o.orderId === absent.id)!.invoice!.expiresAt!)).toBe(Date.parse(absent.payBy!) - 10 * 60_000);
  });

  it('literal arguments: an explicit null is kept, an absent field is the default', async () => {
    const literal = async (fields: string) => {
      const r = await gql(
        `mutation($c: ID!) { simulateShopOrder(input: {connectionId: $c, buyerName: "리터럴", amount: 2000${fields}}) { __typename ... on SimulatedShopOrderPayload { order { id orderedAt payBy } } ... on DomainError { code message } } }`,
        { c: connectionId },
      );
      expect(r.simulateShopOrder.__typename).toBe('SimulatedShopOrderPayload');
      return r.simulateShopOrder.order as { orderedAt: string; payBy: string | null };
    };
    expect((await literal(', payWithinHours: null')).payBy).toBeNull();
    expect(deadlineHours(await literal(''))).toBe(72);
  });

  it('out of range is refused', async () => {
    for (const payWithinHours of [0, 8761]) {
      const r = await gql(SIMULATE, { i: { connectionId, buyerName: '범위밖', amount: 3000, payWithinHours } });
      expect(r.simulateShopOrder).toMatchObject({ __typename: 'DomainError', code: 'VALIDATION_FAILED' });
    }
  });
});
