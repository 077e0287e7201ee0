/**
 * The simulated shop's side (src/events/shops/simulated-shop.ts): a merchant (or the tour's CLI) places and cancels
 * orders in a simulated shop they connected, as a buyer would in a real one. Placing an order makes the connection's
 * sync due at once, so it becomes an invoice within a moment. A simulated shop holds at most
 * SIMULATED_AWAITING_MAX orders awaiting their deposit (a sandbox, not a place to pile up work for the service),
 * counted and inserted under a lock of the shop's, so concurrent requests cannot pass the cap together.
 */
import { randomInt } from 'node:crypto';
import type { SimulatedShopOrder } from '../../generated/prisma/client.ts';
import type { Principal } from '../auth/principal.ts';
import { assertCanWrite, requirePrincipal } from '../auth/rules.ts';
import { inRawTransaction, type Deps } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { isUniqueViolation } from '../prisma-errors.ts';
import { MAX_WON } from '../validation.ts';
import { loadShopConnectionFor } from './connections.ts';

/** Orders awaiting their deposit a simulated shop holds at most (its listing returns no more either). */
export const SIMULATED_AWAITING_MAX = 1000;

/** A simulated order id, as Cafe24 writes its own: the KST order day and 7 digits (20261126-0001234). */
export function simulatedOrderId(now: Date): string {
  const kstDay = new Date(now.getTime() + 9 * 3600_000).toISOString().slice(0, 10).replace(/-/g, '');
  return `${kstDay}-${String(randomInt(0, 10_000_000)).padStart(7, '0')}`;
}

/**
 * Creates a row under a new id, drawn again when it is taken (`create` fails with a unique violation, or answers null:
 * an insert that skipped a taken id): ids are random in a space of 10 million a day, shared by every simulated shop of
 * the service, so two orders may draw the same one.
 */
export async function withFreshId<T>(nextId: () => string, create: (id: string) => Promise<T | null>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      const row = await create(nextId());
      if (row !== null) return row;
      if (attempt >= attempts) throw new Error(`no free simulated order id after ${attempts} draws`);
    } catch (e) {
      if (attempt >= attempts || !isUniqueViolation(e)) throw e;
    }
  }
}

export interface SimulatedOrderRequest {
  connectionId: unknown;
  buyerName: unknown;
  amount: unknown;
  /** Hours until the shop cancels the order unpaid (its auto-cancel deadline); default 72, null = never. */
  payWithinHours?: unknown;
  buyerEmail?: unknown;
}

async function simulatedConnection(deps: Deps, p: Principal, id: unknown) {
  const c = await loadShopConnectionFor(deps, p, id);
  if (c.platform !== 'SIMULATED') throw new DomainError('SHOP_NOT_SIMULATED');
  return c;
}

/** simulateShopOrder: a bank-transfer order awaiting its deposit in the simulated shop. */
export async function simulateShopOrder(deps: Deps, principal: Principal | null, r: SimulatedOrderRequest): Promise<SimulatedShopOrder> {
  const p = requirePrincipal(principal);
  assertCanWrite(p);
  const c = await simulatedConnection(deps, p, r.connectionId);
  if (typeof r.buyerName !== 'string' || r.buyerName.trim().length === 0 || [...r.buyerName].length > 40) {
    throw new DomainError('VALIDATION_FAILED', { message: 'buyerName must be 1-40 characters.', path: ['buyerName'] });
  }
  if (typeof r.amount !== 'number' || !Number.isInteger(r.amount) || r.amount < 1 || r.amount > MAX_WON) throw new DomainError('INVALID_AMOUNT', { path: ['amount'] });
  const hours = r.payWithinHours === undefined ? 72 : r.payWithinHours;
  if (hours !== null && (typeof hours !== 'number' || !Number.isInteger(hours) || hours < 1 || hours > 8760)) {
    throw new DomainError('VALIDATION_FAILED', { message: 'payWithinHours must be a whole number from 1 to 8760, or null.', path: ['payWithinHours'] });
  }
  if (r.buyerEmail != null && (typeof r.buyerEmail !== 'string' || r.buyerEmail.length > 255)) throw new DomainError('VALIDATION_FAILED', { message: 'buyerEmail must be a string.', path: ['buyerEmail'] });
  const now = deps.clock.now();
  const buyerName = r.buyerName.trim();
  const amount = r.amount;
  const buyerEmail = (r.buyerEmail as string | null | undefined) ?? null;
  const payBy = hours === null ? null : new Date(now.getTime() + (hours as number) * 3600_000);
  const order = await inRawTransaction(deps, async (q) => {
    // The count and the insert under the shop's lock (held to the commit): one request at a time per shop.
    await q(`SELECT pg_advisory_xact_lock(hashtextextended($1, 13))::text`, [`simulated-shop-orders\u0001${c.id}`]);
    const [awaiting] = await q<{ n: number }>(
      `SELECT count(*)::int AS n FROM "SimulatedShopOrder" WHERE "shopId" = $1 AND status = 'AWAITING_DEPOSIT' AND ("payBy" IS NULL OR "payBy" > $2::timestamptz)`,
      [c.id, now.toISOString()],
    );
    if ((awaiting?.n ?? 0) >= SIMULATED_AWAITING_MAX) {
      throw new DomainError('VALIDATION_FAILED', {
        message: `A simulated shop holds at most ${SIMULATED_AWAITING_MAX.toLocaleString('en-US')} orders awaiting their deposit; pay or cancel some first.`,
        path: ['connectionId'],
      });
    }
    // A taken id is skipped (not a unique violation, which would end the transaction) and drawn again.
    return withFreshId(
      () => simulatedOrderId(now),
      async (id) =>
        (
          await q<SimulatedShopOrder>(
            `INSERT INTO "SimulatedShopOrder" (id, "shopId", "buyerName", amount, status, "buyerEmail", "orderedAt", "payBy")
             VALUES ($1, $2, $3, $4::int, 'AWAITING_DEPOSIT', $5, $6::timestamptz, $7::timestamptz) ON CONFLICT (id) DO NOTHING RETURNING *`,
            [id, c.id, buyerName, amount, buyerEmail, now.toISOString(), payBy?.toISOString() ?? null],
          )
        )[0] ?? null,
    );
  });
  if (c.state === 'CONNECTED') {
    await deps.prisma.shopConnection.update({ where: { id: c.id }, data: { nextSyncAt: now } });
    deps.onShopSyncDue?.();
  }
  return order;
}

/** cancelSimulatedShopOrder: the buyer (or the shop) cancels the order; the next sync cancels its unpaid invoice. */
export async function cancelSimulatedShopOrder(deps: Deps, principal: Principal | null, r: { connectionId: unknown; orderId: unknown }): Promise<SimulatedShopOrder> {
  const p = requirePrincipal(principal);
  assertCanWrite(p);
  const c = await simulatedConnection(deps, p, r.connectionId);
  const order = typeof r.orderId === 'string' ? await deps.prisma.simulatedShopOrder.findFirst({ where: { id: r.orderId, shopId: c.id } }) : null;
  if (!order) throw new DomainError('SHOP_ORDER_NOT_FOUND');
  if (order.status !== 'AWAITING_DEPOSIT') return order;
  const canceled = await deps.prisma.simulatedShopOrder.update({ where: { id: order.id }, data: { status: 'CANCELED' } });
  await deps.prisma.shopConnection.update({ where: { id: c.id }, data: { nextSyncAt: deps.clock.now() } });
  deps.onShopSyncDue?.();
  return canceled;
}

/** The simulated shop's orders of a connection, newest first (what the shop's own admin would show). */
export async function listSimulatedShopOrders(deps: Deps, principal: Principal | null, connectionId: unknown): Promise<SimulatedShopOrder[]> {
  const p = requirePrincipal(principal);
  const c = await simulatedConnection(deps, p, connectionId);
  return deps.prisma.simulatedShopOrder.findMany({ where: { shopId: c.id }, orderBy: [{ orderedAt: 'desc' }, { id: 'desc' }], take: 100 });
}
