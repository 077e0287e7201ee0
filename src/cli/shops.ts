/**
 * The CLI's shop commands (README tour, step 7): connect a simulated shop, place an order in it as a buyer would and
 * wait until it is an invoice, and show an order on both sides (ours and the shop's).
 */
import { ServiceError, type ServiceClient } from './client.ts';

type Refusal = { __typename: 'DomainError'; code: string; message: string };

function payloadOf<T extends { __typename: string }>(field: string, r: T | Refusal): T {
  if (r.__typename === 'DomainError') throw new ServiceError(`${field}: ${(r as Refusal).code} ${(r as Refusal).message}`, 200, r);
  return r as T;
}

/** Starts a simulated shop's install and follows its approval (the simulated shop approves at once): the connection. */
export async function connectSimulatedShop(client: ServiceClient, sessionToken: string, shopId: string) {
  const r = await client.gql<{ startShopInstall: { __typename: string; authorizeUrl: string } | Refusal }>(
    `mutation($i: StartShopInstallInput!) { startShopInstall(input: $i) { __typename ... on ShopInstallPayload { authorizeUrl } ... on DomainError { code message } } }`,
    { i: { platform: 'SIMULATED', shopId } },
    sessionToken,
  );
  const { authorizeUrl } = payloadOf('startShopInstall', r.startShopInstall) as { authorizeUrl: string; __typename: string };
  // The browser's part: the approval page redirects to the callback, which completes the install.
  const approval = await fetch(new URL(authorizeUrl, client.baseUrl), { redirect: 'manual' });
  const location = approval.headers.get('location');
  if (approval.status !== 302 || !location) throw new ServiceError(`the simulated approval answered ${approval.status}`, approval.status, null);
  const done = await fetch(new URL(location, client.baseUrl), { headers: { accept: 'application/json' } });
  const body = (await done.json()) as { connection?: { id: string; platform: string; shopId: string; state: string }; message?: string };
  if (!done.ok || !body.connection) throw new ServiceError(`the install callback answered ${done.status}: ${body.message ?? ''}`, done.status, body);
  return body.connection;
}

const ORDER_FIELDS = `id orderId state reason attention confirmAttempts confirmedAt error { code message } invoice { id number status amount customer { name } expiresAt }`;

/** Our side of one order of a connection (null until it is imported). */
export async function shopOrder(client: ServiceClient, token: string, connectionId: string, orderId: string) {
  const r = await client.gql<{ shopConnection: { orders: { orderId: string }[] } }>(
    `query($c: ID!) { shopConnection(id: $c) { orders(first: 100) { ${ORDER_FIELDS} } } }`,
    { c: connectionId },
    token,
  );
  return (r.shopConnection.orders.find((o) => o.orderId === orderId) as Record<string, any> | undefined) ?? null;
}

/** The simulated shop's side of one order. */
export async function simulatedShopSide(client: ServiceClient, token: string, connectionId: string, orderId: string) {
  const r = await client.gql<{ simulatedShopOrders: { id: string; status: string; confirmCalls: number; paidAt: string | null }[] }>(
    `query($c: ID!) { simulatedShopOrders(connectionId: $c) { id status confirmCalls paidAt } }`,
    { c: connectionId },
    token,
  );
  return r.simulatedShopOrders.find((o) => o.id === orderId) ?? null;
}

/** Waits (up to `ms`) until `ok` holds for the order on our side; returns it as last seen. */
export async function waitForShopOrder(client: ServiceClient, token: string, connectionId: string, orderId: string, ok: (o: Record<string, any> | null) => boolean, ms = 10_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const o = await shopOrder(client, token, connectionId, orderId);
    if (ok(o) || Date.now() > deadline) return o;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Places an order in a simulated shop and waits until the service has imported it (an invoice, or WAITING/REFUSED). */
export async function simulateShopOrder(client: ServiceClient, token: string, a: { connectionId: string; buyerName: string; amount: number; payWithinHours?: number }) {
  const r = await client.gql<{ simulateShopOrder: { __typename: string; order: { id: string; status: string } } | Refusal }>(
    `mutation($i: SimulateShopOrderInput!) { simulateShopOrder(input: $i) { __typename ... on SimulatedShopOrderPayload { order { id status } } ... on DomainError { code message } } }`,
    { i: a },
    token,
  );
  const placed = payloadOf('simulateShopOrder', r.simulateShopOrder) as { order: { id: string; status: string }; __typename: string };
  const imported = await waitForShopOrder(client, token, a.connectionId, placed.order.id, (o) => o !== null && o.state !== undefined);
  return { shopOrderId: placed.order.id, shop: placed.order, imported };
}
