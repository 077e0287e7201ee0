/**
 * Which event types each webhook version receives (spec: Events). V1: invoice.created, invoice.paid, invoice.deleted —
 * a cancel (v2 cancel or v1 delete) is invoice.deleted — and nothing else (the legacy contract). V2: invoice.created,
 * invoice.paid, invoice.updated, invoice.canceled — a cancel (either way) is invoice.canceled; the receipt and
 * shop-order events; and transaction.received (every stored deposit but a 1-won verification deposit).
 */
import type { EventType } from '../events/outbox.ts';

export type WebhookVersionName = 'V1' | 'V2';

const V1: Partial<Record<EventType, string>> = {
  'invoice.created': 'invoice.created',
  'invoice.paid': 'invoice.paid',
  'invoice.deleted': 'invoice.deleted',
  'invoice.canceled': 'invoice.deleted',
};

const V2: Partial<Record<EventType, string>> = {
  'invoice.created': 'invoice.created',
  'invoice.paid': 'invoice.paid',
  'invoice.updated': 'invoice.updated',
  'invoice.canceled': 'invoice.canceled',
  'invoice.deleted': 'invoice.canceled',
  'receipt.issued': 'receipt.issued',
  'receipt.failed': 'receipt.failed',
  // Shop integrations (README, Shop integrations): the invoice and its shop order.
  'shop_order.confirmed': 'shop_order.confirmed',
  'shop_order.confirmation_failed': 'shop_order.confirmation_failed',
  'shop_order.attention_needed': 'shop_order.attention_needed',
  // A deposit stored, with its match outcome (README, Webhooks).
  'transaction.received': 'transaction.received',
};

/** The event type a webhook of `version` receives for a stored event, or null when it receives none. */
export function webhookEventType(version: WebhookVersionName, type: string): string | null {
  return (version === 'V1' ? V1 : V2)[type as EventType] ?? null;
}

/** The type subscribers see in invoiceEvents (contract: created|paid|updated|canceled|deleted). */
export function subscriptionEventType(type: string): string | null {
  return type.startsWith('invoice.') ? type.slice('invoice.'.length) : null;
}

/** The default retry schedule: 6 retries, each 4× the last, from 1 minute to about 17 hours (≈ 23 h in all). */
export const DEFAULT_RETRY_DELAYS_MS = [60_000, 240_000, 960_000, 3_840_000, 15_360_000, 61_440_000];
export const MAX_ATTEMPTS = 7;

/** The stored event types a webhook of `version` receives (for the dispatcher's single statement). */
export function eventTypesFor(version: WebhookVersionName): string[] {
  return Object.keys(version === 'V1' ? V1 : V2);
}
