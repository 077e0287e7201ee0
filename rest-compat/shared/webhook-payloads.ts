/**
 * Webhook payloads, one envelope for both versions: { id, type, createdAt, workspaceId, data: { invoice, trigger?,
 * transaction?, shopOrder?, match?, ... } }, the objects and timestamps in the webhook version's wire format; `trigger`
 * on invoice.paid, `shopOrder` on the shop_order events (V2 only; its `confirmedAt` in Unix seconds like every v2
 * time); transaction.received (V2 only) carries the deposit (the invoice.paid deposit plus its `source`) and its
 * `match` outcome. Other data keys are copied through.
 */
import type { Event } from '../../src/generated/prisma/client.ts';
import { webhookEventType, type WebhookVersionName } from '../../src/domain/webhooks/routing.ts';
import { v1Invoice, v1Time, v1Transaction, type GqlTransaction } from '../v1/wire.ts';
import { v2Invoice, v2Time, type InvoiceView } from '../v2/wire.ts';

interface InvoiceSnapshot extends InvoiceView {
  workspaceId: string;
  issuerId: string;
}

interface EventData {
  invoice?: InvoiceSnapshot;
  trigger?: string;
  transaction?: (GqlTransaction & { bankAccount: GqlTransaction['bankAccount'] & { ownerId?: string }; source?: string }) | null;
  reason?: string | null;
  /** The shop_order events' order (src/domain/shops/shop-orders.ts, shopOrderSnapshot): `confirmedAt` ISO 8601. */
  shopOrder?: { confirmedAt?: string | null; [k: string]: unknown } | null;
  [k: string]: unknown;
}

/** The JSON body delivered to a webhook of `version` for `event` (null when that version does not receive it). */
export function webhookPayload(event: Pick<Event, 'id' | 'type' | 'workspaceId' | 'createdAt' | 'data'>, version: WebhookVersionName, ownerId: string): Record<string, unknown> | null {
  const type = webhookEventType(version, event.type);
  if (!type) return null;
  const d = event.data as EventData;
  const data: Record<string, unknown> = {};
  if (d.invoice) {
    data.invoice =
      version === 'V1'
        ? v1Invoice({ ...d.invoice, paid: d.invoice.status === 'PAID', metadata: (d.invoice.metadata as Record<string, string> | null) ?? null }, ownerId)
        : v2Invoice(d.invoice);
  }
  if (event.type === 'invoice.paid') {
    data.trigger = d.trigger ?? null;
    data.transaction = d.transaction ? (version === 'V1' ? v1Transaction(d.transaction, ownerId) : v2TransactionFromSnapshot(d.transaction)) : null;
  }
  if (event.type === 'transaction.received' && d.transaction) {
    // V2 only (routing.ts): the deposit as invoice.paid shows it, and how it arrived; `match` is copied through.
    data.transaction = { ...v2TransactionFromSnapshot(d.transaction), source: d.transaction.source ?? null };
  }
  if (event.type === 'invoice.canceled' || event.type === 'invoice.deleted') data.reason = d.reason ?? null;
  if (d.shopOrder) data.shopOrder = { ...d.shopOrder, confirmedAt: version === 'V1' ? v1Time(d.shopOrder.confirmedAt) : v2Time(d.shopOrder.confirmedAt) };
  for (const [k, v] of Object.entries(d)) if (!(k in data) && k !== 'invoice') data[k] = v;
  return {
    id: event.id,
    type,
    createdAt: version === 'V1' ? v1Time(event.createdAt) : v2Time(event.createdAt),
    workspaceId: event.workspaceId,
    data,
  };
}

function v2TransactionFromSnapshot(t: GqlTransaction) {
  return {
    id: t.id,
    bankAccount: t.bankAccount,
    matchedInvoiceId: t.matchedInvoiceId,
    matchMethod: t.matchMethod,
    amount: t.amount,
    description: t.description,
    receivedAt: v2Time(t.receivedAt),
    matchedAt: v2Time(t.matchedAt),
    createdAt: v2Time(t.createdAt),
  };
}
