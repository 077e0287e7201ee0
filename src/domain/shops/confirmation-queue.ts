/**
 * The payment side of a shop order's confirmation (src/domain/shops/shop-orders.ts has the whole life): written in
 * the paying transaction, so it depends on nothing that depends on invoices.
 */
import type { Invoice } from '../../generated/prisma/client.ts';
import { asRaw, noteJobsQueued, noteShopSyncDue, type Sql } from '../deps.ts';
import { newId } from '../ids.ts';
import { addHistory } from '../invoices/history.ts';
import { isShopLinked } from './reserved-metadata.ts';

/**
 * In a payment's transaction (deposit, mark-as-paid, dashboard match): a linked invoice's order becomes CONFIRMING and
 * its `shop.confirm` job is queued — or, when the shop already has it confirmed (paid, un-matched, paid again), its
 * attention is cleared. Orders WAITING for this invoice (a second order of the same buyer and amount) are imported
 * at the next sync: their connections' syncs are made due now (the shop-sync worker is woken after the commit), so
 * the buyer's second transfer finds its invoice. Whatever the due time was: a sync running (or being claimed at this
 * moment) may have tried those orders before this payment commits, and the due time it did not claim is kept when it
 * ends, which runs it again at once; a claim not yet made waits for this row's update, and then sees the payment.
 * Nothing for an invoice without a shop link (no query at all).
 */
export async function queueShopConfirmation(db: Sql, invoice: Pick<Invoice, 'id' | 'metadata'>, now: Date): Promise<void> {
  if (!isShopLinked(invoice.metadata)) return;
  const q = asRaw(db);
  noteJobsQueued(q);
  const [row] = await q<{ id: string | null; state: string | null; due: number }>(
    `WITH o AS (
       UPDATE "ShopOrder" SET state = CASE WHEN state = 'CONFIRMED' THEN state ELSE 'CONFIRMING'::"ShopOrderState" END,
              attention = NULL, "attentionAt" = NULL,
              "confirmRequestedAt" = CASE WHEN state = 'CONFIRMED' THEN "confirmRequestedAt" ELSE $2::timestamptz END,
              "confirmErrorCode" = CASE WHEN state = 'CONFIRMED' THEN "confirmErrorCode" END,
              "confirmErrorMessage" = CASE WHEN state = 'CONFIRMED' THEN "confirmErrorMessage" END,
              "updatedAt" = $2::timestamptz
        WHERE "invoiceId" = $1 AND state IN ('LINKED', 'CONFIRMING', 'CONFIRMED', 'FAILED')
       RETURNING id, state
     ), job AS (
       INSERT INTO "Job" (id, kind, payload, "runAt", "createdAt", "updatedAt")
       SELECT $3, 'shop.confirm', jsonb_build_object('shopOrderId', o.id), $2::timestamptz, $2::timestamptz, $2::timestamptz FROM o WHERE o.state = 'CONFIRMING'
     ), due AS (
       UPDATE "ShopConnection" c SET "nextSyncAt" = $2::timestamptz
        WHERE c.state = 'CONNECTED'
          AND c."workspaceId" = (SELECT "workspaceId" FROM "ShopOrder" WHERE "invoiceId" = $1)
          AND EXISTS (SELECT 1 FROM "ShopOrder" w WHERE w."connectionId" = c.id AND w.state = 'WAITING' AND w.reason = $1)
       RETURNING c.id
     )
     SELECT o.id, o.state::text AS state, (SELECT count(*)::int FROM due) AS due FROM (VALUES (1)) one LEFT JOIN o ON true`,
    [invoice.id, now.toISOString(), newId('job')],
  );
  if (row && row.due > 0) noteShopSyncDue(q);
  if (row?.state === 'CONFIRMING') await addHistory(q, invoice.id, 'shop_order_confirmation_requested', now, null, { shopOrderId: row.id });
}
