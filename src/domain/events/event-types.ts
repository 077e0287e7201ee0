/** The event types of the outbox, and an event as committed: what the outbox tells `Deps.onEventsCommitted`. */
export const EVENT_TYPES = [
  'invoice.created',
  'invoice.paid',
  'invoice.updated',
  'invoice.canceled',
  'invoice.deleted',
  'invoice.unpaid',
  'receipt.issued',
  'receipt.failed',
  'shop_order.confirmed',
  'shop_order.confirmation_failed',
  'shop_order.attention_needed',
  'transaction.received',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * The events whose subject is a deposit, not an invoice: `transaction.received` (every stored deposit but a 1-won
 * verification deposit). Recorded with the deposit's account as `bankAccountIds` and, for a matched deposit, the
 * invoice it paid as `invoiceId`; invoice subscriptions (invoiceEvents) leave them out.
 */
export const DEPOSIT_EVENT_TYPES: readonly EventType[] = ['transaction.received'];

/** An event as committed (sequence known), with the subject's row as JSON for live subscribers. */
export interface CommittedEvent {
  id: string;
  workspaceId: string;
  sequence: string;
  type: EventType;
  invoiceId: string | null;
  cashReceiptId: string | null;
  bankAccountIds: string[];
  createdAt: Date;
  /** The invoice's row after the change (JSON-safe: timestamps as ISO strings). */
  invoice?: Record<string, unknown>;
}
