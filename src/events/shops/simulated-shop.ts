/**
 * The simulated shop (README, Shop integrations; documented like the simulated agency): a shop platform that lives in
 * this service's database, for the tour and the tests. Each connection of a simulated shop is its own sandbox: its
 * orders (SimulatedShopOrder) are created by `simulateShopOrder` for that connection only, so no workspace can see or
 * feed another's. The install is approved at once (the authorize URL is this service's own
 * `/shops/simulated/authorize`, which sends the browser straight back with a code); access tokens last two hours and
 * are refreshed like Cafe24's, so the refresh path runs here too.
 *
 * Rules: an order is AWAITING_DEPOSIT until a deposit confirmation makes it PAID (a repeated confirmation of a PAID
 * order succeeds and changes nothing; every call is counted in `confirmCalls`); a CANCELED order refuses confirmation
 * with ORDER_CANCELED; an order past its `payBy` is canceled by the shop (as Cafe24's auto-cancel does) when it is
 * next read. A listing returns at most SIMULATED_AWAITING_MAX orders, the oldest first (as many as a simulated shop
 * may hold awaiting their deposit).
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../../domain/clock.ts';
import type { SqlAccess } from '../../domain/deps.ts';
import { SIMULATED_AWAITING_MAX } from '../../domain/shops/simulated-orders.ts';
import { ShopApiError, type AwaitingOrder, type ShopAdapter, type ShopOrderStatus, type ShopSession, type ShopTokens } from '../../domain/shops/shop-port.ts';

const SHOP_ID_RE = /^[a-z0-9][a-z0-9-]{1,39}$/;
const ACCESS_TTL_MS = 2 * 3600_000;
const REFRESH_TTL_MS = 14 * 86_400_000;
/** The code the simulated approval hands back (the state nonce is what binds it to the install). */
export const SIMULATED_APPROVAL_CODE = 'simulated-approval';

interface SimOrderRow {
  id: string;
  buyerName: string;
  amount: number;
  status: string;
  buyerEmail: string | null;
  orderedAt: Date;
  payBy: Date | null;
}

export function simulatedShop(sql: SqlAccess, clock: Clock): ShopAdapter {
  const tokens = (): ShopTokens => {
    const now = clock.now().getTime();
    return {
      accessToken: `simat_${randomBytes(18).toString('base64url')}`,
      accessTokenExpiresAt: new Date(now + ACCESS_TTL_MS),
      refreshToken: `simrt_${randomBytes(18).toString('base64url')}`,
      refreshTokenExpiresAt: new Date(now + REFRESH_TTL_MS),
      scopes: ['orders.read', 'orders.write'],
    };
  };
  /** Orders past their deadline are canceled by the shop, as a platform's auto-cancel would. */
  const autoCancel = (session: ShopSession) =>
    sql.query(`UPDATE "SimulatedShopOrder" SET status = 'CANCELED' WHERE "shopId" = $1 AND status = 'AWAITING_DEPOSIT' AND "payBy" <= $2::timestamptz`, [
      session.connectionId,
      clock.now().toISOString(),
    ]);
  return {
    platform: 'SIMULATED',
    normalizeShopId: (raw) => {
      const id = raw.trim().toLowerCase();
      return SHOP_ID_RE.test(id) ? id : null;
    },
    authorizeUrl: (shopId, state) => `/shops/simulated/authorize?${new URLSearchParams({ shop_id: shopId, state })}`,
    async exchangeCode(_shopId, code) {
      if (code !== SIMULATED_APPROVAL_CODE) throw new ShopApiError('invalid_grant', 'The authorization code is not one the simulated shop gave.', { retryable: false, status: 400 });
      return tokens();
    },
    async refresh() {
      return tokens();
    },
    async listAwaitingOrders(session, since, until) {
      await autoCancel(session);
      const rows = await sql.query<SimOrderRow>(
        `SELECT * FROM "SimulatedShopOrder" WHERE "shopId" = $1 AND status = 'AWAITING_DEPOSIT' AND "orderedAt" >= $2::timestamptz AND "orderedAt" <= $3::timestamptz ORDER BY "orderedAt", id LIMIT ${SIMULATED_AWAITING_MAX}`,
        [session.connectionId, since.toISOString(), until.toISOString()],
      );
      return rows.map(
        (r): AwaitingOrder => ({ orderId: r.id, depositorName: r.buyerName, amount: r.amount, orderedAt: new Date(r.orderedAt), payBy: r.payBy ? new Date(r.payBy) : null, buyerEmail: r.buyerEmail }),
      );
    },
    async orderStatuses(session, orderIds) {
      await autoCancel(session);
      const rows = await sql.query<{ id: string; status: string }>(`SELECT id, status FROM "SimulatedShopOrder" WHERE "shopId" = $1 AND id = ANY($2::text[])`, [
        session.connectionId,
        [...orderIds],
      ]);
      const found = new Map(rows.map((r) => [r.id, r.status as ShopOrderStatus]));
      return new Map(orderIds.map((id) => [id, found.get(id) ?? 'NOT_FOUND']));
    },
    async confirmDeposit(session, orderId) {
      const [row] = await sql.query<{ status: string }>(
        `UPDATE "SimulatedShopOrder" SET "confirmCalls" = "confirmCalls" + 1,
                status = CASE WHEN status = 'AWAITING_DEPOSIT' THEN 'PAID' ELSE status END,
                "paidAt" = CASE WHEN status = 'AWAITING_DEPOSIT' THEN $3::timestamptz ELSE "paidAt" END
          WHERE "shopId" = $1 AND id = $2 RETURNING status`,
        [session.connectionId, orderId, clock.now().toISOString()],
      );
      if (!row) throw new ShopApiError('ORDER_NOT_FOUND', `The simulated shop has no order ${orderId}.`, { retryable: false, status: 404 });
      if (row.status === 'CANCELED') throw new ShopApiError('ORDER_CANCELED', `Order ${orderId} was canceled in the shop.`, { retryable: false, status: 422 });
    },
  };
}
