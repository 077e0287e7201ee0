/**
 * A shop order's life here (README, "Shop integrations"; the states are ShopOrderState in the schema):
 *
 *   import ─┬─ LINKED ──(invoice paid)──> CONFIRMING ──(shop said yes)──> CONFIRMED
 *           │     │                          │  ^                             │ (invoice un-matched: attention)
 *           │     │                          │  └──(paid again / retried)── FAILED
 *           │     │                          └──(shop said no / retries ran out)──┘
 *           │     └──(canceled in the shop, invoice unpaid)──> CANCELED_IN_SHOP
 *           ├─ WAITING (another unpaid invoice has the same name and amount) ──(next sync, no conflict)──> LINKED
 *           │     └──(canceled in the shop)──> CANCELED_IN_SHOP
 *           └─ REFUSED (its data cannot make an invoice: the name, the amount, a deadline already past)
 *
 * Importing is idempotent (one row per connection and order id, one invoice per row). A payment of a linked invoice
 * — by a deposit, mark-as-paid or a dashboard match — moves its order to CONFIRMING and queues a `shop.confirm` job in
 * the payment's own transaction; the job tells the shop after the commit, at least once (the shop call is
 * idempotent), with retries and backoff. Canceling the invoice leaves the shop's order alone (spec: v2 cancel).
 */
import type { Invoice, ShopConnection, ShopOrder } from '../../generated/prisma/client.ts';
import type { Principal } from '../auth/principal.ts';
import { assertCanWrite, requirePrincipal } from '../auth/rules.ts';
import { asRaw, inRawTransaction, inTransaction, type Deps, type RawQuery, type Sql } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { recordEvents } from '../events/outbox.ts';
import { addHistory } from '../invoices/history.ts';
import { parseCreateInvoiceInput } from '../invoices/invoice-input.ts';
import { applyInvoiceTransition, effectiveStatus } from '../invoices/invoice-state.ts';
import { insertCheckedInvoice, invoiceEvent } from '../invoices/invoices.ts';
import { MAX_EXPIRY_MS } from '../duration.ts';
import { newId } from '../ids.ts';
import { findInWorkspace } from '../workspace-rows.ts';
import { assertWholeWorkspace, callShop, ShopNotConnected } from './connections.ts';
import { queueShopConfirmation } from './confirmation-queue.ts';
import { isShopLinked, shopLinkMetadata } from './reserved-metadata.ts';
import { ShopApiError, type AwaitingOrder } from './shop-port.ts';

/** Who acts for a shop integration in history lines and `canceledBy`. */
export function shopActor(c: Pick<ShopConnection, 'id' | 'platform' | 'shopId'>) {
  return { type: 'SHOP_INTEGRATION', accountId: null, apiKeyId: null, name: `${c.platform === 'CAFE24' ? 'Cafe24' : 'Simulated shop'} ${c.shopId}`, connectionId: c.id };
}

/** The order as events and the GraphQL API show it. */
export function shopOrderSnapshot(o: ShopOrder, platform: string) {
  return {
    id: o.id,
    platform,
    connectionId: o.connectionId,
    orderId: o.orderId,
    invoiceId: o.invoiceId,
    state: o.state,
    attention: o.attention,
    confirmAttempts: o.confirmAttempts,
    error: o.confirmErrorCode ? { code: o.confirmErrorCode, message: o.confirmErrorMessage } : null,
    confirmedAt: o.confirmedAt?.toISOString() ?? null,
  };
}

export type ImportOutcome = 'IMPORTED' | 'ALREADY_IMPORTED' | 'WAITING' | 'REFUSED';

/** The invoice request an order makes (INVALID_* DomainErrors refuse the order). Spaces are not part of a depositor name. */
function invoiceInputOf(c: ShopConnection, o: Pick<ShopOrder, 'depositorName' | 'amount' | 'buyerEmail' | 'buyerPhone' | 'payBy' | 'orderId'>, now: Date) {
  const customer = { name: o.depositorName.replace(/\s+/gu, '') } as Record<string, unknown>;
  const input = parseCreateInvoiceInput({ bankAccountIds: c.bankAccountIds, customer, amount: o.amount });
  // The buyer's e-mail and phone are kept when they are valid, dropped (never refusing the order) when not.
  for (const [field, value] of [['email', o.buyerEmail], ['phoneNumber', o.buyerPhone]] as const) {
    if (!value) continue;
    try {
      const withField = parseCreateInvoiceInput({ bankAccountIds: [], customer: { ...customer, [field]: value }, amount: o.amount });
      input.customer = { ...input.customer, [field]: withField.customer[field] };
    } catch {
      // not a valid address or number: left out
    }
  }
  if (o.payBy) {
    if (o.payBy.getTime() <= now.getTime()) throw new DomainError('VALIDATION_FAILED', { message: 'PAY_BY_PASSED' });
    input.expiresAt = new Date(Math.min(o.payBy.getTime(), now.getTime() + MAX_EXPIRY_MS));
  }
  input.metadata = shopLinkMetadata(c.platform, c.id, o.orderId);
  return input;
}

/**
 * Links a WAITING (or new) order to a new invoice in the caller's transaction, the order row locked: LINKED, or
 * WAITING with the conflicting invoice's id, or REFUSED with the reason.
 */
async function linkOrder(q: RawQuery, c: ShopConnection, order: ShopOrder, ownerId: string, now: Date): Promise<ImportOutcome> {
  let input;
  try {
    input = invoiceInputOf(c, order, now);
  } catch (e) {
    if (!(e instanceof DomainError)) throw e;
    const reason = e.message === 'PAY_BY_PASSED' ? 'PAY_BY_PASSED' : e.code;
    await q(`UPDATE "ShopOrder" SET state = 'REFUSED', reason = $2, "updatedAt" = $3::timestamptz WHERE id = $1`, [order.id, reason, now.toISOString()]);
    return 'REFUSED';
  }
  try {
    const invoice = await insertCheckedInvoice(q, { workspaceId: c.workspaceId, issuerId: ownerId, createdByApiKeyId: null, actor: shopActor(c) }, input, now);
    await q(`UPDATE "ShopOrder" SET state = 'LINKED', "invoiceId" = $2, reason = NULL, "updatedAt" = $3::timestamptz WHERE id = $1`, [order.id, invoice.id, now.toISOString()]);
    return 'IMPORTED';
  } catch (e) {
    if (!(e instanceof DomainError) || e.code !== 'INVOICE_ALREADY_EXISTS') throw e;
    // Rule (README): the second order of a buyer for the same amount waits until the first one's invoice is paid,
    // canceled or expired; a deposit can then only ever be matched to one of them.
    await q(`UPDATE "ShopOrder" SET state = 'WAITING', reason = $2, "updatedAt" = $3::timestamptz WHERE id = $1`, [order.id, String(e.data?.invoiceId ?? ''), now.toISOString()]);
    return 'WAITING';
  }
}

/** Imports one order: a new row and its invoice, or a WAITING one tried again; anything else is left as it is. */
export async function importShopOrder(deps: Deps, c: ShopConnection, o: AwaitingOrder, ownerId: string): Promise<ImportOutcome> {
  return inRawTransaction(deps, async (q) => {
    const now = deps.clock.now();
    const [inserted] = await q<ShopOrder>(
      `INSERT INTO "ShopOrder" (id, "workspaceId", "connectionId", "orderId", state, "depositorName", amount, "orderedAt", "payBy", "buyerEmail", "buyerPhone", "createdAt", "updatedAt")
       VALUES ($1, $2, $3, $4, 'WAITING', $5, $6::int, $7::timestamptz, $8::timestamptz, $9, $10, $11::timestamptz, $11::timestamptz)
       ON CONFLICT ("connectionId", "orderId") DO NOTHING RETURNING *`,
      [newId('shopOrder'), c.workspaceId, c.id, o.orderId, o.depositorName, o.amount, o.orderedAt.toISOString(), o.payBy?.toISOString() ?? null, o.buyerEmail ?? null, o.buyerPhone ?? null, now.toISOString()],
    );
    const order = inserted ?? (await q<ShopOrder>(`SELECT * FROM "ShopOrder" WHERE "connectionId" = $1 AND "orderId" = $2 FOR UPDATE`, [c.id, o.orderId]))[0];
    if (!order) throw new Error(`shop order ${o.orderId} vanished`);
    if (!inserted && order.state !== 'WAITING') return 'ALREADY_IMPORTED';
    return linkOrder(q, c, order, ownerId, now);
  });
}

export interface SyncResult {
  imported: number;
  waiting: number;
  refused: number;
  canceledInShop: number;
}

/** How far back a first sync looks for orders awaiting their deposit. */
const FIRST_SYNC_DAYS = 14;
/** A later sync looks back this far before the last one (orders the shop listed late); importing twice changes nothing. */
const SYNC_OVERLAP_MS = 24 * 3600_000;
/** Orders whose cancellation at the shop is checked per sync (the unpaid linked and the waiting, newest first). */
const CANCEL_CHECK_LIMIT = 500;

/**
 * One sync of a connected shop: new orders awaiting their deposit become invoices, WAITING orders are tried again, and
 * orders canceled in the shop cancel their unpaid invoices. The caller holds the connection's sync lease.
 */
export async function syncShopOrders(deps: Deps, c: ShopConnection): Promise<SyncResult> {
  const now = deps.clock.now();
  const since = c.lastSyncAt ? new Date(c.lastSyncAt.getTime() - SYNC_OVERLAP_MS) : new Date((c.connectedAt ?? now).getTime() - FIRST_SYNC_DAYS * 86_400_000);
  const result: SyncResult = { imported: 0, waiting: 0, refused: 0, canceledInShop: 0 };
  const [ws] = await deps.sql.query<{ ownerId: string }>(`SELECT "ownerId" FROM "Workspace" WHERE id = $1`, [c.workspaceId]);
  if (!ws) return result;
  const listed = await callShop(deps, c, (shop, session) => shop.listAwaitingOrders(session, since, now));
  for (const o of listed) {
    const outcome = await importShopOrder(deps, c, o, ws.ownerId);
    if (outcome === 'IMPORTED') result.imported++;
    else if (outcome === 'WAITING') result.waiting++;
    else if (outcome === 'REFUSED') result.refused++;
  }
  // The waiting and the unpaid linked orders: canceled in the shop? still awaiting (a waiting one is tried again)?
  const open = await deps.sql.query<ShopOrder & { invoiceStatus: string | null; invoiceExpiresAt: Date | null }>(
    `SELECT o.*, i.status AS "invoiceStatus", i."expiresAt" AS "invoiceExpiresAt" FROM "ShopOrder" o LEFT JOIN "Invoice" i ON i.id = o."invoiceId"
      WHERE o."connectionId" = $1 AND (o.state = 'WAITING' OR (o.state = 'LINKED' AND i.status = 'PENDING'))
      ORDER BY o."createdAt" DESC LIMIT ${CANCEL_CHECK_LIMIT}`,
    [c.id],
  );
  if (open.length === 0) return result;
  const listedIds = new Set(listed.map((o) => o.orderId));
  const statuses = await callShop(deps, c, (shop, session) => shop.orderStatuses(session, open.map((o) => o.orderId)));
  for (const order of open) {
    const status = statuses.get(order.orderId);
    if (status === 'CANCELED') {
      if (await cancelForShop(deps, c, order.id)) result.canceledInShop++;
    } else if (order.state === 'WAITING' && status === 'AWAITING_DEPOSIT' && !listedIds.has(order.orderId)) {
      const outcome = await inRawTransaction(deps, async (q) => {
        const [locked] = await q<ShopOrder>(`SELECT * FROM "ShopOrder" WHERE id = $1 FOR UPDATE`, [order.id]);
        return locked?.state === 'WAITING' ? linkOrder(q, c, locked, ws.ownerId, deps.clock.now()) : 'ALREADY_IMPORTED';
      });
      if (outcome === 'IMPORTED') result.imported++;
    }
  }
  return result;
}

/**
 * An order canceled in the shop: CANCELED_IN_SHOP, and its invoice canceled if still unpaid (by the integration).
 * Locks are taken in the order a payment takes them — the invoice, then its shop order — so a deposit or mark-as-paid
 * of the invoice at this moment waits for this cancellation or this for it, never each for the other (a deadlock).
 */
async function cancelForShop(deps: Deps, c: ShopConnection, orderId: string): Promise<boolean> {
  return inTransaction(deps, async (tx) => {
    const q = asRaw(tx);
    const now = deps.clock.now();
    const [seen] = await q<{ invoiceId: string | null }>(`SELECT "invoiceId" FROM "ShopOrder" WHERE id = $1`, [orderId]);
    if (!seen) return false;
    if (seen.invoiceId) await q(`SELECT id FROM "Invoice" WHERE id = $1 FOR NO KEY UPDATE`, [seen.invoiceId]);
    const [order] = await q<ShopOrder>(`SELECT * FROM "ShopOrder" WHERE id = $1 AND state IN ('WAITING', 'LINKED') FOR UPDATE`, [orderId]);
    // Gone, or linked to an invoice meanwhile (a WAITING order imported by another sync): the next sync decides.
    if (!order || order.invoiceId !== seen.invoiceId) return false;
    if (order.invoiceId) {
      const invoice = await tx.invoice.findUnique({ where: { id: order.invoiceId } });
      // Paid meanwhile: the payment wins (its confirmation will fail at the shop, for the merchant to see).
      if (!invoice || invoice.status !== 'PENDING') return false;
      const actor = shopActor(c);
      const reason = 'Canceled in the shop.';
      const canceled = await applyInvoiceTransition(tx, invoice, 'CANCEL', now, { canceledAt: now, canceledBy: actor, cancelReason: reason });
      await addHistory(tx, canceled.id, 'canceled', now, actor, { reason });
      await recordEvents(tx, canceled.workspaceId, [invoiceEvent('invoice.canceled', canceled, now, { reason })]);
    }
    await q(`UPDATE "ShopOrder" SET state = 'CANCELED_IN_SHOP', "updatedAt" = $2::timestamptz WHERE id = $1`, [order.id, now.toISOString()]);
    return true;
  });
}

// ───────────────────────────── Confirmation ─────────────────────────────

export { queueShopConfirmation } from './confirmation-queue.ts';

/**
 * In the transaction that makes a paid invoice unpaid again (the dashboard's un-match): a shop order already told, or
 * being told, that it was paid needs the merchant's attention (PAYMENT_WITHDRAWN) — the shop order is never
 * un-confirmed. A FAILED one simply goes back to LINKED.
 */
export async function noteShopPaymentWithdrawn(db: Sql, invoice: Invoice, now: Date): Promise<void> {
  if (!isShopLinked(invoice.metadata)) return;
  const q = asRaw(db);
  const [order] = await q<ShopOrder & { platform: string }>(
    `UPDATE "ShopOrder" o SET attention = CASE WHEN o.state IN ('CONFIRMING', 'CONFIRMED') THEN 'PAYMENT_WITHDRAWN' END,
            "attentionAt" = CASE WHEN o.state IN ('CONFIRMING', 'CONFIRMED') THEN $2::timestamptz END,
            state = CASE WHEN o.state = 'FAILED' THEN 'LINKED'::"ShopOrderState" ELSE o.state END, "updatedAt" = $2::timestamptz
       FROM "ShopConnection" c
      WHERE o."invoiceId" = $1 AND c.id = o."connectionId" AND o.state IN ('CONFIRMING', 'CONFIRMED', 'FAILED')
     RETURNING o.*, c.platform::text AS platform`,
    [invoice.id, now.toISOString()],
  );
  // A CONFIRMING order's job decides: not told yet → back to LINKED quietly; told meanwhile → the attention event.
  if (order?.state === 'CONFIRMED') await attentionNeeded(q, order, invoice, now);
}

async function attentionNeeded(q: RawQuery, order: ShopOrder & { platform: string }, invoice: Invoice, now: Date) {
  await addHistory(q, invoice.id, 'shop_order_needs_attention', now, null, { shopOrderId: order.id, attention: order.attention });
  await recordEvents(q, invoice.workspaceId, [shopOrderEvent('shop_order.attention_needed', invoice, order, now)]);
}

/** The job's give-up and a refusal by the shop: FAILED with the shop's error, a history line and the event. */
async function markConfirmationFailed(deps: Deps, shopOrderId: string, code: string, message: string): Promise<void> {
  await inRawTransaction(deps, async (q) => {
    const now = deps.clock.now();
    const [order] = await q<ShopOrder & { platform: string }>(
      `UPDATE "ShopOrder" o SET state = 'FAILED', "confirmErrorCode" = $2, "confirmErrorMessage" = $3, "updatedAt" = $4::timestamptz
         FROM "ShopConnection" c WHERE o.id = $1 AND c.id = o."connectionId" AND o.state = 'CONFIRMING' RETURNING o.*, c.platform::text AS platform`,
      [shopOrderId, code.slice(0, 100), message.slice(0, 1000), now.toISOString()],
    );
    if (!order?.invoiceId) return;
    const [invoice] = await q<Invoice>(`SELECT * FROM "Invoice" WHERE id = $1`, [order.invoiceId]);
    if (!invoice) return;
    await addHistory(q, invoice.id, 'shop_order_confirmation_failed', now, null, { shopOrderId: order.id, error: { code, message } });
    await recordEvents(q, invoice.workspaceId, [shopOrderEvent('shop_order.confirmation_failed', invoice, order, now)]);
  });
}

function shopOrderEvent(type: 'shop_order.confirmed' | 'shop_order.confirmation_failed' | 'shop_order.attention_needed', invoice: Invoice, order: ShopOrder & { platform: string }, now: Date) {
  const base = invoiceEvent(type, invoice, now);
  return { ...base, data: { ...base.data, shopOrder: shopOrderSnapshot(order, order.platform) } };
}

/** A retryable failure of the `shop.confirm` job (the job runner backs off and tries again). */
export class ShopConfirmationPending extends Error {}

/**
 * The `shop.confirm` job: tells the shop that a CONFIRMING order was paid, then records CONFIRMED (once: a conditional
 * update; a repeated job finds it done). A refusal by the shop records FAILED with the shop's error; a failure that
 * may pass (timeout, 429, 5xx, re-authorization needed) is thrown for the job runner's backoff.
 */
export async function confirmShopOrder(deps: Deps, shopOrderId: string): Promise<void> {
  const [row] = await deps.sql.query<ShopOrder & { invoiceStatus: string; platform: ShopConnection['platform']; connectionState: string }>(
    `SELECT o.*, i.status::text AS "invoiceStatus", c.platform, c.state::text AS "connectionState"
       FROM "ShopOrder" o JOIN "Invoice" i ON i.id = o."invoiceId" JOIN "ShopConnection" c ON c.id = o."connectionId" WHERE o.id = $1`,
    [shopOrderId],
  );
  if (!row || row.state !== 'CONFIRMING') return;
  if (row.invoiceStatus !== 'PAID') {
    // Un-matched before the shop was told: nothing to tell it, nothing to look at.
    await deps.sql.query(`UPDATE "ShopOrder" SET state = 'LINKED', attention = NULL, "attentionAt" = NULL, "updatedAt" = $2::timestamptz WHERE id = $1 AND state = 'CONFIRMING'`, [
      shopOrderId,
      deps.clock.now().toISOString(),
    ]);
    return;
  }
  if (row.connectionState === 'DISCONNECTED') return markConfirmationFailed(deps, shopOrderId, 'SHOP_DISCONNECTED', 'The shop was disconnected before the payment could be confirmed there.');
  await deps.sql.query(`UPDATE "ShopOrder" SET "confirmAttempts" = "confirmAttempts" + 1, "updatedAt" = $2::timestamptz WHERE id = $1`, [shopOrderId, deps.clock.now().toISOString()]);
  try {
    await callShop(deps, { id: row.connectionId, platform: row.platform }, (shop, session) => shop.confirmDeposit(session, row.orderId));
  } catch (e) {
    const refused = e instanceof ShopApiError && !e.retryable && !e.authExpired;
    const code = e instanceof ShopApiError ? e.code : e instanceof ShopNotConnected ? 'SHOP_NOT_CONNECTED' : 'ERROR';
    const message = e instanceof Error ? e.message : String(e);
    if (refused) return markConfirmationFailed(deps, shopOrderId, code, message);
    await deps.sql.query(`UPDATE "ShopOrder" SET "confirmErrorCode" = $2, "confirmErrorMessage" = $3, "updatedAt" = $4::timestamptz WHERE id = $1 AND state = 'CONFIRMING'`, [
      shopOrderId,
      code.slice(0, 100),
      message.slice(0, 1000),
      deps.clock.now().toISOString(),
    ]);
    throw new ShopConfirmationPending(`${code}: ${message}`);
  }
  await inRawTransaction(deps, async (q) => {
    const now = deps.clock.now();
    const [done] = await q<ShopOrder & { platform: string }>(
      `UPDATE "ShopOrder" o SET state = 'CONFIRMED', "confirmedAt" = $2::timestamptz, "confirmErrorCode" = NULL, "confirmErrorMessage" = NULL, "updatedAt" = $2::timestamptz
         FROM "ShopConnection" c WHERE o.id = $1 AND c.id = o."connectionId" AND o.state = 'CONFIRMING' RETURNING o.*, c.platform::text AS platform`,
      [shopOrderId, now.toISOString()],
    );
    if (!done?.invoiceId) return;
    const [invoice] = await q<Invoice>(`SELECT * FROM "Invoice" WHERE id = $1`, [done.invoiceId]);
    if (!invoice) return;
    await addHistory(q, invoice.id, 'shop_order_confirmed', now, null, { shopOrderId: done.id });
    await recordEvents(q, invoice.workspaceId, [shopOrderEvent('shop_order.confirmed', invoice, done, now)]);
    // Un-matched while the shop was being told: the shop has it paid, the invoice does not.
    if (done.attention) await attentionNeeded(q, done, invoice, now);
  });
}

/** The job gave up (retries ran out): FAILED with the last error. */
export async function giveUpShopConfirmation(deps: Deps, shopOrderId: string, error: unknown): Promise<void> {
  const [row] = await deps.sql.query<{ confirmErrorCode: string | null; confirmErrorMessage: string | null }>(`SELECT "confirmErrorCode", "confirmErrorMessage" FROM "ShopOrder" WHERE id = $1`, [shopOrderId]);
  await markConfirmationFailed(deps, shopOrderId, row?.confirmErrorCode ?? 'RETRIES_EXHAUSTED', row?.confirmErrorMessage ?? (error instanceof Error ? error.message : 'The shop could not be reached.'));
}

/** retryShopOrderConfirmation: a FAILED order of a paid invoice is confirmed again (CONFIRMING and a new job). */
export async function retryShopOrderConfirmation(deps: Deps, principal: Principal | null, id: unknown): Promise<ShopOrder> {
  const p = requirePrincipal(principal);
  assertCanWrite(p);
  const order = await loadShopOrderFor(deps, p, id);
  return inRawTransaction(deps, async (q) => {
    const now = deps.clock.now();
    const [invoice] = order.invoiceId ? await q<Invoice>(`SELECT * FROM "Invoice" WHERE id = $1 FOR NO KEY UPDATE`, [order.invoiceId]) : [];
    const [current] = await q<ShopOrder>(`SELECT * FROM "ShopOrder" WHERE id = $1 FOR UPDATE`, [order.id]);
    if (!invoice || !current || current.state !== 'FAILED' || effectiveStatus(invoice, now) !== 'PAID') throw new DomainError('SHOP_ORDER_NOT_RETRYABLE');
    await queueShopConfirmation(q, invoice, now);
    const [after] = await q<ShopOrder>(`SELECT * FROM "ShopOrder" WHERE id = $1`, [order.id]);
    return after!;
  });
}

/** An order of the principal's workspace (SHOP_ORDER_NOT_FOUND for a missing or foreign id). */
export async function loadShopOrderFor(deps: Deps, p: Principal, id: unknown): Promise<ShopOrder> {
  assertWholeWorkspace(p);
  return findInWorkspace(p, 'shopOrder', id, { invalid: 'SHOP_ORDER_NOT_FOUND', notFound: 'SHOP_ORDER_NOT_FOUND', foreign: 'SHOP_ORDER_NOT_FOUND' }, (id) =>
    deps.prisma.shopOrder.findUnique({ where: { id } }),
  );
}
