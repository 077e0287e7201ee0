/**
 * The webhook payloads (rest-compat/shared/webhook-payloads.ts) for the OpenAPI 3.1 `webhooks` section: one envelope
 * `{id, type, createdAt, workspaceId, data}` whose invoice and deposit are in the wire format of the webhook's
 * version — v1 objects and timestamps for V1 webhooks, v2 objects and Unix seconds for V2 webhooks. Every event type a
 * webhook receives (src/domain/webhooks/routing.ts) is here, the shop_order events and transaction.received (V2 only)
 * among them.
 */
import { z } from 'zod';
import { RECEIPT_STATUSES } from '../../src/domain/cash-receipts/reads.ts';
import { SHOP_PLATFORMS } from '../../src/domain/shops/shop-port.ts';
import { DEPOSIT_UNMATCHED_REASONS, type DepositUnmatchedReason } from '../../src/domain/deposits/deposit-row.ts';
import { DepositSource, ShopOrderState } from '../../src/generated/prisma/enums.ts';
import { RECEIPT_KINDS } from '../shared/statuses.ts';
import { V1_TIME_PATTERN, V1Invoice, V1Transaction, V2Invoice, idOf } from './components.ts';

const v1Time = z.string().regex(V1_TIME_PATTERN).meta({ description: 'ISO 8601, written `.000+00:00`.' });
const unixSeconds = z.int().meta({ description: 'Unix seconds.' });

const envelope = (id: string, version: 'V1' | 'V2', type: string, data: z.ZodType, description: string) =>
  z
    .object({
      id: idOf('event', 'The event id; also the `webhook-id` header, the same on every retry and replay.'),
      type: z.literal(type),
      createdAt: version === 'V1' ? v1Time : unixSeconds,
      workspaceId: idOf('workspace'),
      data,
    })
    .meta({ id, description });

const trigger = z.enum(['DEPOSIT', 'API_CALL']).meta({ description: 'DEPOSIT: a deposit matched (automatically or by hand); API_CALL: mark-as-paid.' });
const reason = z.string().nullable().meta({ description: 'The v2 cancel reason, or null.' });

/** The deposit of a V2 invoice.paid (v2 timestamps; the account as it was when the deposit arrived). */
const V2Transaction = z
  .object({
    id: idOf('transaction'),
    bankAccount: z.record(z.string(), z.unknown()).meta({ description: 'The receiving account as it was when the deposit arrived.' }),
    matchedInvoiceId: idOf('invoice').nullable(),
    matchMethod: z.string().nullable().meta({ description: 'EXACT, BRACKET_REMOVAL, NAME_PREFIX or MANUAL (new values may appear).' }),
    amount: z.int(),
    description: z.string().meta({ description: 'Depositor name.' }),
    receivedAt: unixSeconds,
    matchedAt: unixSeconds.nullable(),
    createdAt: unixSeconds,
  })
  .meta({ id: 'V2WebhookTransaction', description: 'A deposit in a V2 webhook payload.' });

/** The deposit of a transaction.received (V2 webhooks): the invoice.paid deposit, and how it reached the service. */
const V2ReceivedTransaction = V2Transaction.extend({
  source: z.enum(Object.values(DepositSource)).meta({ description: 'NOTIFICATION (POST /bank-notifications), TEXT (a forwarded deposit text, POST /bank-texts) or HISTORY (the account\'s history).' }),
}).meta({ id: 'V2WebhookReceivedTransaction', description: 'A deposit in a V2 transaction.received payload.' });

/** What became of a deposit as it was stored (src/domain/deposits/deposit-row.ts, depositMatchOutcome). */
const DepositMatch = z
  .discriminatedUnion('status', [
    z
      .object({
        status: z.literal('MATCHED'),
        invoiceId: idOf('invoice', 'The invoice it paid (its invoice.paid follows this event).'),
        method: z.string().meta({ description: 'EXACT, BRACKET_REMOVAL or NAME_PREFIX (new values may appear).', examples: ['EXACT'] }),
      })
      .meta({ id: 'WebhookDepositMatched', description: 'The deposit paid an invoice.' }),
    z
      .object({
        status: z.literal('UNMATCHED'),
        reason: z.enum(Object.keys(DEPOSIT_UNMATCHED_REASONS) as [DepositUnmatchedReason, ...DepositUnmatchedReason[]]).meta({
          description: Object.entries(DEPOSIT_UNMATCHED_REASONS)
            .map(([k, v]) => `${k}: ${v}`)
            .join(' '),
        }),
        candidateInvoiceIds: z.array(idOf('invoice')).meta({ description: 'The invoices it could pay (AMBIGUOUS, TOO_MANY_CANDIDATES, ALREADY_PAID), for a match by hand; empty for the other reasons.' }),
      })
      .meta({ id: 'WebhookDepositUnmatched', description: 'The deposit paid no invoice: why, and what it could have paid.' }),
  ])
  .meta({ id: 'WebhookDepositMatch', description: 'The match outcome when the deposit was stored.' });

/** A cash receipt as the receipt events carry it (the stored record, ISO 8601 timestamps). */
const ReceiptSnapshot = z
  .looseObject({
    id: idOf('cashReceipt'),
    status: z.enum(RECEIPT_STATUSES),
    kind: z.enum(RECEIPT_KINDS),
    amount: z.int(),
    relatedInvoiceId: idOf('invoice').nullable(),
    ntsConfirmNum: z.string().nullable(),
    issuedAt: z.string().meta({ format: 'date-time' }),
  })
  .meta({ id: 'WebhookCashReceipt', description: 'The cash receipt record (more fields may be present).' });

/**
 * A shop order as the shop_order events carry it (src/domain/shops/shop-orders.ts, shopOrderSnapshot), `confirmedAt`
 * in Unix seconds like every v2 time (rest-compat/shared/webhook-payloads.ts). Closed, as the wire objects are.
 */
const WebhookShopOrder = z
  .object({
    id: idOf('shopOrder'),
    platform: z.enum(SHOP_PLATFORMS).meta({ description: 'The shop platform: CAFE24, or SIMULATED (the simulated shop).' }),
    connectionId: idOf('shopConnection', 'The `shc_` connection (the connected shop) the order was imported from.'),
    orderId: z.string().meta({ description: "The shop's order id." }),
    invoiceId: idOf('invoice', 'The invoice the order became (also `data.invoice`).'),
    state: z.enum(Object.values(ShopOrderState)).meta({
      description: "The order's state here (ShopOrderState in the GraphQL schema): CONFIRMED for shop_order.confirmed and shop_order.attention_needed, FAILED for shop_order.confirmation_failed.",
    }),
    attention: z
      .string()
      .nullable()
      .meta({ description: 'Why the merchant must look at the order, or null: PAYMENT_WITHDRAWN (its invoice was un-matched after the shop was told it was paid).' }),
    confirmAttempts: z.int().meta({ description: 'Deposit confirmations sent to the shop so far.' }),
    error: z
      .object({ code: z.string().meta({ description: "The shop's error code (or ours when it gave none)." }), message: z.string().meta({ description: 'What the shop said.' }) })
      .nullable()
      .meta({ description: 'Why the last confirmation failed, or null.' }),
    confirmedAt: unixSeconds.nullable().meta({ description: 'When the shop confirmed the deposit (Unix seconds), or null.' }),
  })
  .meta({ id: 'WebhookShopOrder', description: 'The shop order (Shop integrations) of a shop_order event.' });

// Data objects are open: an event may carry more details (e.g. invoice.updated's changedFields) than listed.
const data = (shape: z.ZodRawShape) => z.looseObject(shape);

export interface WebhookEvent {
  type: string;
  summary: string;
  payloads: z.ZodType[];
}

export const WEBHOOK_EVENTS: WebhookEvent[] = [
  {
    type: 'invoice.created',
    summary: 'An invoice was created (V1 and V2 webhooks).',
    payloads: [
      envelope('V1InvoiceCreatedEvent', 'V1', 'invoice.created', data({ invoice: V1Invoice }), 'invoice.created to a V1 webhook.'),
      envelope('V2InvoiceCreatedEvent', 'V2', 'invoice.created', data({ invoice: V2Invoice }), 'invoice.created to a V2 webhook.'),
    ],
  },
  {
    type: 'invoice.paid',
    summary: 'An invoice was paid by a deposit or by mark-as-paid (V1 and V2 webhooks).',
    payloads: [
      envelope('V1InvoicePaidEvent', 'V1', 'invoice.paid', data({ invoice: V1Invoice, trigger, transaction: V1Transaction.nullable() }), 'invoice.paid to a V1 webhook.'),
      envelope('V2InvoicePaidEvent', 'V2', 'invoice.paid', data({ invoice: V2Invoice, trigger, transaction: V2Transaction.nullable() }), 'invoice.paid to a V2 webhook.'),
    ],
  },
  {
    type: 'invoice.updated',
    summary: 'A pending invoice was changed with PATCH /v2/invoices/{id} (V2 webhooks).',
    payloads: [
      envelope(
        'V2InvoiceUpdatedEvent',
        'V2',
        'invoice.updated',
        data({
          invoice: V2Invoice,
          changedFields: z.array(z.string()).meta({ description: 'The invoice fields that changed.' }),
          guideEmailSent: z.boolean().meta({ description: 'Whether the payment-guide e-mail was sent.' }),
        }),
        'invoice.updated to a V2 webhook.',
      ),
    ],
  },
  {
    type: 'invoice.canceled',
    summary: 'An invoice was canceled (v2 cancel or v1 delete; V2 webhooks).',
    payloads: [envelope('V2InvoiceCanceledEvent', 'V2', 'invoice.canceled', data({ invoice: V2Invoice, reason }), 'invoice.canceled to a V2 webhook.')],
  },
  {
    type: 'invoice.deleted',
    summary: 'An invoice was deleted or canceled (v1 delete or v2 cancel; V1 webhooks).',
    payloads: [envelope('V1InvoiceDeletedEvent', 'V1', 'invoice.deleted', data({ invoice: V1Invoice, reason }), 'invoice.deleted to a V1 webhook.')],
  },
  {
    type: 'receipt.issued',
    summary: 'The tax authority issued a cash receipt (V2 webhooks).',
    payloads: [envelope('V2ReceiptIssuedEvent', 'V2', 'receipt.issued', data({ cashReceipt: ReceiptSnapshot }), 'receipt.issued to a V2 webhook.')],
  },
  {
    type: 'receipt.failed',
    summary: 'The tax authority refused a cash receipt (V2 webhooks).',
    payloads: [envelope('V2ReceiptFailedEvent', 'V2', 'receipt.failed', data({ cashReceipt: ReceiptSnapshot }), 'receipt.failed to a V2 webhook.')],
  },
  {
    type: 'shop_order.confirmed',
    summary: "A paid shop order's deposit was confirmed at its shop (Shop integrations; V2 webhooks).",
    payloads: [
      envelope('V2ShopOrderConfirmedEvent', 'V2', 'shop_order.confirmed', data({ invoice: V2Invoice, shopOrder: WebhookShopOrder }), 'shop_order.confirmed to a V2 webhook.'),
    ],
  },
  {
    type: 'shop_order.confirmation_failed',
    summary: "The shop refused a paid order's deposit confirmation, or could not be reached until the retries ran out: the order is FAILED, `shopOrder.error` says why (Shop integrations; V2 webhooks).",
    payloads: [
      envelope(
        'V2ShopOrderConfirmationFailedEvent',
        'V2',
        'shop_order.confirmation_failed',
        data({ invoice: V2Invoice, shopOrder: WebhookShopOrder }),
        'shop_order.confirmation_failed to a V2 webhook.',
      ),
    ],
  },
  {
    type: 'shop_order.attention_needed',
    summary: "A shop order's invoice was un-matched after the shop was told it was paid: `shopOrder.attention` says why (Shop integrations; V2 webhooks).",
    payloads: [
      envelope(
        'V2ShopOrderAttentionNeededEvent',
        'V2',
        'shop_order.attention_needed',
        data({ invoice: V2Invoice, shopOrder: WebhookShopOrder }),
        'shop_order.attention_needed to a V2 webhook.',
      ),
    ],
  },
  {
    type: 'transaction.received',
    summary:
      'A deposit was stored — from a bank notification, a forwarded deposit text or the account history — with its match outcome (V2 webhooks). A matched deposit\'s invoice.paid follows it. Not for 1-won verification deposits, and once per deposit however often it is announced.',
    payloads: [
      envelope(
        'V2TransactionReceivedEvent',
        'V2',
        'transaction.received',
        data({ transaction: V2ReceivedTransaction, match: DepositMatch }),
        'transaction.received to a V2 webhook.',
      ),
    ],
  },
];
