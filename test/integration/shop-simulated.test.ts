/**
 * Shop integrations through the running service with the simulated shop: the install, an order becoming an invoice,
 * its payment confirming the order at the shop exactly once, conflicts, cancellations in the shop, the reserved
 * metadata prefixes, un-matching after confirmation, mark-as-paid, and an imported invoice's amount, name, accounts and
 * expiry refused on every face (SHOP_LINKED_INVOICE).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { dbLabel, startTestApp, type TestApp } from '../helpers/app.ts';
import { until } from '../helpers/wait.ts';

const START = `mutation($i: StartShopInstallInput!) { startShopInstall(input: $i) { __typename ... on ShopInstallPayload { authorizeUrl connection { id state } } ... on DomainError { code message } } }`;
const SIMULATE = `mutation($i: SimulateShopOrderInput!) { simulateShopOrder(input: $i) { __typename ... on SimulatedShopOrderPayload { order { id status } } ... on DomainError { code message } } }`;
const CANCEL_IN_SHOP = `mutation($c: ID!, $o: String!) { cancelSimulatedShopOrder(connectionId: $c, orderId: $o) { __typename ... on SimulatedShopOrderPayload { order { id status } } } }`;
const SYNC = `mutation($c: ID!) { syncShopOrders(connectionId: $c) { __typename ... on ShopSyncPayload { imported waiting refused canceledInShop connection { lastSyncAt lastSyncError } } ... on DomainError { code message } } }`;
const ORDERS = `query($c: ID!) { shopConnection(id: $c) { state orders { id orderId state reason attention confirmAttempts error { code message } invoice { id status metadata customer { name } amount expiresAt } } } }`;
const SHOP_SIDE = `query($c: ID!) { simulatedShopOrders(connectionId: $c) { id status confirmCalls paidAt } }`;
const INVOICE = `query($id: ID!) { invoice(id: $id) { id status shopOrder { state orderId attention confirmedAt error { code } } history { type data } } }`;

describe(`shop integration with the simulated shop on ${dbLabel}`, () => {
  let t: TestApp;
  let m: Bootstrapped;
  let connectionId: string;
  const gql = (q: string, v: Record<string, unknown> = {}) => t.client.gql(q, v, m.sessionToken);
  const shopSide = async () => (await gql(SHOP_SIDE, { c: connectionId })).simulatedShopOrders as { id: string; status: string; confirmCalls: number }[];
  const orders = async () => (await gql(ORDERS, { c: connectionId })).shopConnection.orders as any[];
  const order = async (orderId: string) => (await orders()).find((o) => o.orderId === orderId);
  const place = async (buyerName: string, amount: number, extra: Record<string, unknown> = {}) => {
    const r = await gql(SIMULATE, { i: { connectionId, buyerName, amount, ...extra } });
    expect(r.simulateShopOrder.__typename).toBe('SimulatedShopOrderPayload');
    return r.simulateShopOrder.order.id as string;
  };

  beforeAll(async () => {
    t = await startTestApp({ env: { SHOP_SYNC_INTERVAL_MS: '3600000' } });
    m = await bootstrap(t.client);
  });
  afterAll(() => t?.stop());

  it('installs through the authorize URL and its callback; the state is single-use', async () => {
    const r = await gql(START, { i: { platform: 'SIMULATED', shopId: 'Demo-Shop' } });
    expect(r.startShopInstall.__typename).toBe('ShopInstallPayload');
    expect(r.startShopInstall.connection.state).toBe('INSTALLING');
    connectionId = r.startShopInstall.connection.id;
    const authorize = await fetch(new URL(r.startShopInstall.authorizeUrl, t.url), { redirect: 'manual' });
    expect(authorize.status).toBe(302);
    const callback = new URL(authorize.headers.get('location')!, t.url);
    const done = await fetch(callback, { headers: { accept: 'application/json' } });
    expect(done.status).toBe(200);
    expect((await done.json()).connection).toMatchObject({ id: connectionId, state: 'CONNECTED', shopId: 'demo-shop' });
    const again = await fetch(callback, { headers: { accept: 'application/json' } });
    expect(again.status).toBe(400);
    expect((await again.json()).message).toContain("start it again");
    const list = await gql(`{ shopConnections { id platform shopId state } }`);
    expect(list.shopConnections).toEqual([{ id: connectionId, platform: 'SIMULATED', shopId: 'demo-shop', state: 'CONNECTED' }]);
  });

  it('an order becomes one invoice (importing twice changes nothing), and its deposit confirms the order at the shop once', async () => {
    const orderId = await place('홍 길동', 25_000);
    const imported = await until(() => order(orderId), (o) => o?.state === 'LINKED');
    expect(imported.invoice).toMatchObject({ status: 'PENDING', amount: 25_000, customer: { name: '홍길동' }, metadata: { shoplink_connection: connectionId, shoplink_order_id: orderId } });
    expect(imported.invoice.expiresAt).not.toBeNull();
    const resync = await gql(SYNC, { c: connectionId });
    expect(resync.syncShopOrders).toMatchObject({ imported: 0, waiting: 0, refused: 0 });
    expect((await orders()).filter((o) => o.orderId === orderId)).toHaveLength(1);

    await t.client.deposit(m.bankAccount.notificationToken, { depositorName: '홍길동', amount: 25_000 });
    const confirmed = await until(() => order(orderId), (o) => o?.state === 'CONFIRMED');
    expect(confirmed.invoice.status).toBe('PAID');
    expect(confirmed.confirmAttempts).toBe(1);
    const atShop = (await shopSide()).find((o) => o.id === orderId)!;
    expect(atShop).toMatchObject({ status: 'PAID', confirmCalls: 1 });
    const inv = await gql(INVOICE, { id: imported.invoice.id });
    expect(inv.invoice.shopOrder).toMatchObject({ state: 'CONFIRMED', orderId });
    expect(inv.invoice.history.map((h: { type: string }) => h.type)).toEqual(expect.arrayContaining(['created', 'paid', 'shop_order_confirmation_requested', 'shop_order_confirmed']));
    const v2 = await t.client.request('GET', `/v2/invoices/${imported.invoice.id}`, { token: m.apiKey.secret });
    expect(v2.status).toBe(200);
    expect(JSON.stringify(v2.body)).toContain('shop_order_confirmed');
  });

  it('mark-as-paid confirms the linked order too (spec: linked shop order marked deposit-confirmed)', async () => {
    const orderId = await place('김철수', 7_000);
    const linked = await until(() => order(orderId), (o) => o?.state === 'LINKED');
    const r = await t.client.request('POST', `/v1/invoices/${linked.invoice.id}/mark-as-paid`, { token: m.apiKey.secret });
    expect(r.status).toBe(200);
    await until(() => order(orderId), (o) => o?.state === 'CONFIRMED');
    expect((await shopSide()).find((o) => o.id === orderId)).toMatchObject({ status: 'PAID', confirmCalls: 1 });
  });

  it('a second order of the same buyer and amount waits for the first, then is imported', async () => {
    const first = await place('이영희', 12_000);
    const second = await place('이영희', 12_000);
    const a = await until(() => order(first), (o) => o?.state === 'LINKED');
    const b = await until(() => order(second), (o) => o?.state === 'WAITING');
    expect(b.reason).toBe(a.invoice.id);
    expect(b.invoice).toBeNull();
    // One deposit pays the first; that payment makes the shop's sync due at once, which imports the second (no sync
    // asked for), and the next deposit pays it.
    await t.client.deposit(m.bankAccount.notificationToken, { depositorName: '이영희', amount: 12_000 });
    await until(() => order(first), (o) => o?.state === 'CONFIRMED');
    const linked = await until(() => order(second), (o) => o?.state === 'LINKED');
    expect(linked.invoice.status).toBe('PENDING');
    await t.client.deposit(m.bankAccount.notificationToken, { depositorName: '이영희', amount: 12_000 });
    await until(() => order(second), (o) => o?.state === 'CONFIRMED');
  });

  it('an order canceled in the shop cancels its unpaid invoice at the next sync; paying a canceled order fails at the shop', async () => {
    const orderId = await place('박민수', 9_900);
    const linked = await until(() => order(orderId), (o) => o?.state === 'LINKED');
    await gql(CANCEL_IN_SHOP, { c: connectionId, o: orderId });
    const canceled = await until(() => order(orderId), (o) => o?.state === 'CANCELED_IN_SHOP');
    expect(canceled.invoice.status).toBe('CANCELED');
    const v2 = await t.client.request('GET', `/v2/invoices/${linked.invoice.id}`, { token: m.apiKey.secret });
    expect(v2.status).toBe(200);
    expect(JSON.stringify(v2.body)).toContain('"SHOP_INTEGRATION"');

    // Canceled in the shop and paid here before the next sync: the shop refuses, the order is FAILED with its error.
    const other = await place('최지우', 4_400);
    const l2 = await until(() => order(other), (o) => o?.state === 'LINKED');
    await t.app.deps.prisma.simulatedShopOrder.update({ where: { id: other }, data: { status: 'CANCELED' } });
    await t.client.request('POST', `/v1/invoices/${l2.invoice.id}/mark-as-paid`, { token: m.apiKey.secret });
    const failed = await until(() => order(other), (o) => o?.state === 'FAILED');
    expect(failed.error.code).toBe('ORDER_CANCELED');
    const events = await t.client.gql(`query($i: ID!) { events(invoiceId: $i) { type } }`, { i: l2.invoice.id }, m.sessionToken);
    expect(events.events.map((e: { type: string }) => e.type)).toContain('shop_order.confirmation_failed');
  });

  it("canceling the invoice leaves the shop's order alone (spec: v2 cancel)", async () => {
    const orderId = await place('정하늘', 3_300);
    const linked = await until(() => order(orderId), (o) => o?.state === 'LINKED');
    const r = await t.client.request('POST', `/v2/invoices/${linked.invoice.id}/cancel`, { token: m.apiKey.secret, body: { reason: 'buyer asked' } });
    expect(r.status).toBe(200);
    expect((await shopSide()).find((o) => o.id === orderId)).toMatchObject({ status: 'AWAITING_DEPOSIT', confirmCalls: 0 });
  });

  it('un-matching a paid invoice after the shop confirmed asks for attention; paying again clears it', async () => {
    const orderId = await place('한결', 5_500);
    await until(() => order(orderId), (o) => o?.state === 'LINKED');
    const dep = await t.client.deposit(m.bankAccount.notificationToken, { depositorName: '한결', amount: 5_500 });
    const confirmed = await until(() => order(orderId), (o) => o?.state === 'CONFIRMED');
    const trxId = dep.body.transactionId;
    const unmatch = await gql(`mutation($id: ID!) { unmatchTransaction(id: $id) { __typename } }`, { id: trxId });
    expect(unmatch.unmatchTransaction.__typename).not.toBe('DomainError');
    const attention = await order(orderId);
    expect(attention).toMatchObject({ state: 'CONFIRMED', attention: 'PAYMENT_WITHDRAWN' });
    expect((await shopSide()).find((o) => o.id === orderId)).toMatchObject({ status: 'PAID', confirmCalls: 1 });
    await t.client.request('POST', `/v1/invoices/${confirmed.invoice.id}/mark-as-paid`, { token: m.apiKey.secret });
    const cleared = await order(orderId);
    expect(cleared).toMatchObject({ state: 'CONFIRMED', attention: null });
    expect((await shopSide()).find((o) => o.id === orderId)!.confirmCalls).toBe(1);
  });

  it('refuses merchant metadata under the reserved prefixes, on v1, v2 and GraphQL alike', async () => {
    for (const key of ['cafe24_order_id', 'shoplink_x']) {
      const body = { bankAccountIds: [], customer: { name: '메타' }, amount: 100, metadata: { [key]: '1' } };
      const v1 = await t.client.request('POST', '/v1/invoices', { token: m.apiKey.secret, body });
      expect(v1.status).toBe(400);
      expect(v1.body.code).toBe('BAD_REQUEST');
      const g = await t.client.gql(
        `mutation($i: CreateInvoiceInput!) { createInvoice(input: $i) { __typename ... on DomainError { code message } } }`,
        { i: body },
        m.apiKey.secret,
      );
      expect(g.createInvoice).toMatchObject({ code: 'INVALID_METADATA' });
      expect(g.createInvoice.message).toContain('reserved for shop integrations');
    }
    const ok = await t.client.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds: [], customer: { name: '메타' }, amount: 100, metadata: { shop: 'x', cafe24: 'y', order_id: 'z' } } });
    expect(ok.status).toBe(201);
  });

  /** An on-demand sync (the worker may be syncing the shop at this moment: CONFLICT, tried again). */
  const syncNow = async () => {
    for (;;) {
      const r = await gql(SYNC, { c: connectionId });
      if (r.syncShopOrders.code !== 'CONFLICT') return r.syncShopOrders;
      await new Promise((res) => setTimeout(res, 50));
    }
  };
  const trx = (id: string) => t.app.deps.prisma.transaction.findUniqueOrThrow({ where: { id } });

  it("a deposit that arrived before its order was imported pays the order's invoice at the import; the shop is told once", async () => {
    const early = await t.client.deposit(m.bankAccount.notificationToken, { depositorName: '문채원', amount: 16_500 });
    expect(early.status).toBe(201);
    expect((await trx(early.body.transactionId)).matchedInvoiceId).toBeNull();
    const orderId = await place('문채원', 16_500);
    const confirmed = await until(() => order(orderId), (o) => o?.state === 'CONFIRMED');
    expect(confirmed.invoice.status).toBe('PAID');
    expect((await trx(early.body.transactionId)).matchedInvoiceId).toBe(confirmed.invoice.id);
    expect((await shopSide()).find((o) => o.id === orderId)).toMatchObject({ status: 'PAID', confirmCalls: 1 });
  });

  it("a waiting order's own transfer, sent while it waited, pays it once the first order is paid (that payment makes the sync due now)", async () => {
    const first = await place('서지우', 14_000);
    const second = await place('서지우', 14_000);
    await until(() => order(first), (o) => o?.state === 'LINKED');
    await until(() => order(second), (o) => o?.state === 'WAITING');
    // The shop held by a lease (as another instance's sync would), so nothing is imported until the test lets go.
    const hold = () =>
      t.app.db.sql.query(`UPDATE "ShopConnection" SET "syncLeaseUntil" = now() + interval '1 hour', "nextSyncAt" = now() + interval '1 hour' WHERE id = $1 AND "syncLeaseUntil" IS NULL RETURNING id`, [connectionId]);
    await until(hold, (rows) => rows.length === 1);
    let d2: Awaited<ReturnType<typeof t.client.deposit>>;
    try {
      const d1 = await t.client.deposit(m.bankAccount.notificationToken, { depositorName: '서지우', amount: 14_000 });
      d2 = await t.client.deposit(m.bankAccount.notificationToken, { depositorName: '서지우', amount: 14_000 });
      const paidFirst = await until(() => order(first), (o) => o?.state === 'CONFIRMED');
      expect((await trx(d1.body.transactionId)).matchedInvoiceId).toBe(paidFirst.invoice.id);
      expect((await trx(d2.body.transactionId)).matchedInvoiceId).toBeNull();
      expect((await order(second)).state).toBe('WAITING');
      const due = await t.app.deps.prisma.shopConnection.findUniqueOrThrow({ where: { id: connectionId } });
      expect(due.nextSyncAt!.getTime()).toBeLessThanOrEqual(Date.now());
    } finally {
      await t.app.db.sql.query(`UPDATE "ShopConnection" SET "syncLeaseUntil" = NULL, "nextSyncAt" = LEAST("nextSyncAt", now()) WHERE id = $1`, [connectionId]);
      t.app.workers.shopSync.wake();
    }
    const paidSecond = await until(() => order(second), (o) => o?.state === 'CONFIRMED');
    expect((await trx(d2.body.transactionId)).matchedInvoiceId).toBe(paidSecond.invoice.id);
    expect((await shopSide()).filter((o) => o.id === first || o.id === second).map((o) => [o.status, o.confirmCalls])).toEqual([['PAID', 1], ['PAID', 1]]);
  });

  it('an order paid in the shop itself, or deleted there: PAID_IN_SHOP / CANCELED_IN_SHOP (reason NOT_FOUND), its invoice canceled', async () => {
    const paid = await place('유재석', 17_000);
    const gone = await place('강호동', 17_100);
    const linkedPaid = await until(() => order(paid), (o) => o?.state === 'LINKED');
    const linkedGone = await until(() => order(gone), (o) => o?.state === 'LINKED');
    // The merchant marks the first paid in the shop's own admin; the second is deleted there.
    await t.app.deps.prisma.simulatedShopOrder.update({ where: { id: paid }, data: { status: 'PAID' } });
    await t.app.deps.prisma.simulatedShopOrder.delete({ where: { id: gone } });
    // Paid in the shop: closed at once. Deleted there: counted at the first check, closed at the second.
    expect(await syncNow()).toMatchObject({ __typename: 'ShopSyncPayload', canceledInShop: 0 });
    expect(await order(gone)).toMatchObject({ state: 'LINKED', reason: null, invoice: { status: 'PENDING' } });
    expect((await t.app.deps.prisma.shopOrder.findFirstOrThrow({ where: { connectionId, orderId: gone } })).missingChecks).toBe(1);
    expect(await syncNow()).toMatchObject({ __typename: 'ShopSyncPayload', canceledInShop: 1 });
    expect(await order(paid)).toMatchObject({ state: 'PAID_IN_SHOP', invoice: { status: 'CANCELED' } });
    expect(await order(gone)).toMatchObject({ state: 'CANCELED_IN_SHOP', reason: 'NOT_FOUND', invoice: { status: 'CANCELED' } });
    const reasons = await t.app.deps.prisma.invoice.findMany({ where: { id: { in: [linkedPaid.invoice.id, linkedGone.invoice.id] } }, select: { id: true, cancelReason: true } });
    expect(Object.fromEntries(reasons.map((r) => [r.id, r.cancelReason]))).toEqual({ [linkedPaid.invoice.id]: 'Paid in the shop.', [linkedGone.invoice.id]: 'Deleted in the shop.' });
    // The buyer's transfer afterwards pays nothing.
    const late = await t.client.deposit(m.bankAccount.notificationToken, { depositorName: '유재석', amount: 17_000 });
    expect((await trx(late.body.transactionId)).matchedInvoiceId).toBeNull();
  });

  it("a shop order's invoice follows the order: its amount, depositor name, receiving accounts and expiry cannot be changed on any face (SHOP_LINKED_INVOICE); e-mail, phone and cash receipt can", async () => {
    const orderId = await place('주문따름', 21_000);
    const linked = await until(() => order(orderId), (o) => o?.state === 'LINKED');
    const invoiceId = linked.invoice.id as string;
    const message = "This invoice is a shop order's: change the order in the shop (the amount, the depositor name, the receiving accounts and the expiry follow the order).";
    const patch = (body: unknown) => t.client.request('PATCH', `/v2/invoices/${invoiceId}`, { token: m.apiKey.secret, body });
    const nowS = Math.floor(Date.now() / 1000);
    for (const body of [
      { amount: 1000 },
      { customer: { name: '다른사람' } },
      { bankAccountIds: [m.bankAccount.id] },
      { expiresAt: null },
      { expiresAt: nowS + 3 * 86_400 },
      { extendDays: 1 },
      { amount: 1000, customer: { email: 'buyer@example.com' } },
    ]) {
      expect(await patch(body), JSON.stringify(body)).toMatchObject({ status: 409, body: { code: '260011', data: null } });
    }
    const UPDATE = `mutation($id: ID!, $i: UpdateInvoiceInput!) { updateInvoice(id: $id, input: $i) { __typename ... on DomainError { code message } } }`;
    for (const token of [m.sessionToken, m.apiKey.secret]) {
      const g = await t.client.gql(UPDATE, { id: invoiceId, i: { amount: 1000, expiresAt: null } }, token);
      expect(g.updateInvoice).toEqual({ __typename: 'DomainError', code: 'SHOP_LINKED_INVOICE', message });
    }
    const api = await fetch(`${t.url}/api/update-invoice`, {
      method: 'POST',
      headers: { authorization: `Bearer ${m.apiKey.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: invoiceId, input: { customer: { name: '다른사람' } } }),
    });
    expect(JSON.stringify(await api.json())).toContain('SHOP_LINKED_INVOICE');
    // Nothing changed; the order still pays at its own amount, name and deadline.
    const after = (await orders()).find((o) => o.orderId === orderId);
    expect(after.invoice).toMatchObject({ amount: 21_000, customer: { name: '주문따름' }, expiresAt: linked.invoice.expiresAt });
    // What the order does not decide stays editable; the order's own values sent again are no change.
    const ok = await patch({ customer: { email: 'buyer@example.com', phoneNumber: '01012345678' }, cashReceipt: { type: 'PERSONAL', identifier: '01012345678' } });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({ amount: 21_000, customer: { name: '주문따름', email: 'buyer@example.com', phoneNumber: '01012345678' } });
    expect((await patch({ amount: 21_000, customer: { name: '주문따름' }, bankAccountIds: [] })).status).toBe(200);
    // A merchant's own invoice is edited as before.
    const own = await t.client.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds: [], customer: { name: '직접청구' }, amount: 21_000 } });
    expect((await t.client.request('PATCH', `/v2/invoices/${own.body.data.id}`, { token: m.apiKey.secret, body: { amount: 1000, extendDays: 1 } })).status).toBe(200);
  });

  it("an imported invoice expires 10 minutes before the shop's own deadline", async () => {
    const orderId = await place('마감손님', 18_000, { payWithinHours: 1 });
    const linked = await until(() => order(orderId), (o) => o?.state === 'LINKED');
    const atShop = await t.app.deps.prisma.simulatedShopOrder.findUniqueOrThrow({ where: { id: orderId } });
    expect(Date.parse(linked.invoice.expiresAt)).toBe(atShop.payBy!.getTime() - 10 * 60_000);
  });

  it('shop connections belong to their workspace', async () => {
    const other = await bootstrap(t.client);
    expect(other.sessionToken).not.toBe(m.sessionToken);
    const r = await t.client.graphql(ORDERS, { c: connectionId }, other.sessionToken);
    expect(r.errors?.[0]?.extensions?.code).toBe('SHOP_CONNECTION_NOT_FOUND');
    const sim = await t.client.gql(SIMULATE, { i: { connectionId, buyerName: '침입자', amount: 1 } }, other.sessionToken);
    expect(sim.simulateShopOrder).toMatchObject({ code: 'SHOP_CONNECTION_NOT_FOUND' });
  });
});
