/**
 * The payment side of a shop order's confirmation (src/domain/shops/shop-orders.ts has the whole life): written in
 * the paying transaction, so it depends on nothing that depends on invoices.
 */
import type { Invoice } from '../../generated/prisma/client.ts';
import { asRaw, noteJobsQueued, type Sql } from '../deps.ts';
import { newId } from '../ids.ts';
import { addHistory } from '../invoices/history.ts';
import { isShopLinked } from './reserved-metadata.ts';

/**
 * In a payment's transaction (deposit, mark-as-paid, dashboard match): a linked invoice's order becomes CONFIRMING and
 * its `shop.confirm` job is queued — or, when the shop already has it confirmed (paid, un-matched, paid again), its
 * attention is cleared. Nothing for an invoice without a shop link (no query at all).
 */
export async function queueShopConfirmation(db: Sql, invoice: Pick<Invoice, 'id' | 'metadata'>, now: Date): Promise<void> {
  if (!isShopLinked(invoice.metadata)) return;
  const q = asRaw(db);
  noteJobsQueued(q);
  const rows = await q<{ id: string; state: string }>(
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
     )
     SELECT id, state::text FROM o`,
    [invoice.id, now.toISOString(), newId('job')],
  );
  if (rows[0]?.state === 'CONFIRMING') await addHistory(q, invoice.id, 'shop_order_confirmation_requested', now, null, { shopOrderId: rows[0].id });
}

