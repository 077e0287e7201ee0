/**
 * The response objects of /openapi.json as zod schemas, one per wire format (rest-compat/v1/wire.ts,
 * rest-compat/v2/wire.ts, rest-compat/shared/webhook-payloads.ts). Each has an `id`: it becomes a component
 * (`#/components/schemas/<id>`). Objects are closed (no fields beyond these), so the integration tests, which check every
 * response against the document, notice a field added to a wire format and not here.
 */
import { z } from 'zod';
import { CASH_RECEIPT_TYPES } from '../../src/domain/cash-receipts/identifier.ts';
import { BANK_PROVIDERS } from '../../src/domain/bank-accounts/bank-providers.ts';
import { ID_PREFIXES, type IdKind } from '../../src/domain/ids.ts';
import { onWire } from '../../src/domain/request-schema.ts';
import { RECEIPT_STATUSES } from '../../src/domain/cash-receipts/reads.ts';
import { INVOICE_STATUSES, RECEIPT_KINDS, V1_RECEIPT_STATUSES } from '../shared/statuses.ts';

/** An identifier of one kind: its prefix and 24 characters of [a-z0-9] (spec: Identifier format). */
export const idOf = (kind: IdKind, description?: string) =>
  z
    .string()
    .regex(new RegExp(`^${ID_PREFIXES[kind]}[a-z0-9]{24}$`))
    .meta({ description: description ?? `\`${ID_PREFIXES[kind]}...\``, examples: [`${ID_PREFIXES[kind]}${'0'.repeat(24)}`] });

/** A secret of one kind (`oat_` access tokens): its prefix and random [a-z0-9]. */
export const secretOf = (kind: IdKind, description: string) =>
  z
    .string()
    .regex(new RegExp(`^${ID_PREFIXES[kind]}[a-z0-9]+$`))
    .meta({ description });

/**
 * A field that is always null (a readable object's `deletedAt`, an error's `data`), spelled `{type: [like, "null"],
 * const: null}`: exactly `{type: "null"}` makes the field vanish from openapi-fetch's response types.
 */
export const alwaysNull = (like: 'string' | 'object', description?: string) => onWire(description ? z.null().meta({ description }) : z.null(), { type: [like, 'null'], const: null });

/** v1's timestamp text: second precision, `.000` milliseconds, zone `+00:00`. */
export const V1_TIME_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000\+00:00$/;

/** A v1 timestamp: second precision, `.000` milliseconds, zone `+00:00` (spec: Versioning, current v1 behavior). */
const v1Time = z
  .string()
  .regex(V1_TIME_PATTERN)
  .meta({ description: 'ISO 8601, second precision, written `.000+00:00`.', examples: ['2026-11-21T10:00:00.000+00:00'] });

/** A v2 timestamp: Unix seconds. */
const unixSeconds = z.int().meta({ description: 'Unix seconds.', examples: [1795255200] });

const cashReceiptType = z.enum(CASH_RECEIPT_TYPES).meta({ description: 'PERSONAL (income deduction) or CORPORATE (expense proof).' });

const customer = z
  .object({
    name: z.string().meta({ description: 'Depositor name.' }),
    email: z.string().nullable().meta({ description: 'Buyer e-mail.' }),
    phoneNumber: z.string().nullable().meta({ description: 'Buyer phone number.' }),
  })
  .meta({ id: 'Customer', description: 'The buyer: depositor name, e-mail and phone.' });

const invoiceCashReceipt = z
  .object({ type: cashReceiptType, identifier: z.string().meta({ description: 'Phone number (PERSONAL) or business number (CORPORATE).' }) })
  .meta({ id: 'InvoiceCashReceipt', description: 'The cash receipt issued when the invoice is paid.' });

const metadata = z.record(z.string(), z.string()).nullable().meta({ description: 'String keys to string values given at creation.' });

// ───────────────────────────── v1 ─────────────────────────────

export const V1Invoice = z
  .object({
    id: idOf('invoice'),
    issuerId: idOf('account', 'The workspace owner\'s account id.'),
    bankAccountIds: z.array(idOf('bankAccount')).meta({ description: 'Receiving accounts; empty = all registered accounts.' }),
    customer,
    cashReceipt: invoiceCashReceipt.nullable(),
    amount: z.int().meta({ description: 'Won.' }),
    paid: z.boolean().meta({ description: 'Paid flag (an expired invoice reads false).' }),
    metadata,
    issuedAt: v1Time,
    expiresAt: v1Time.nullable().meta({ description: 'Expiry; null = never expires.' }),
    deletedAt: alwaysNull('string', 'Always null for a readable invoice.'),
  })
  .meta({ id: 'V1Invoice', description: 'An invoice (order) in the v1 wire format.' });

const matchMethod = z
  .string()
  .nullable()
  .meta({ description: 'EXACT, BRACKET_REMOVAL, NAME_PREFIX or MANUAL (new values may appear); null when unmatched.', examples: ['EXACT'] });

/**
 * The deposit and its receiving account in a face's wire format — v1's ISO text or v2's Unix seconds — with the same
 * fields in the same order.
 */
function transactionSchemas(face: 'V1' | 'V2', time: z.ZodType, deletedAt: z.ZodType) {
  const unixNote = face === 'V2' ? ' (v2: Unix seconds)' : '';
  const bankAccount = z
    .object({
      id: idOf('bankAccount'),
      active: z.boolean(),
      ownerId: idOf('account', 'The workspace owner\'s account id.'),
      alias: z.string().meta({ description: 'Dashboard alias (as it was when the deposit arrived).' }),
      provider: z.enum(BANK_PROVIDERS.map((p) => p.id) as [string, ...string[]]).meta({ description: 'The bank.' }),
      type: z.enum(['PERSONAL', 'CORPORATE']),
      number: z.string().meta({ description: 'Account number without hyphens.' }),
      createdAt: time,
      verifiedAt: time.nullable().meta({ description: 'When the 1-won verification completed.' }),
      deletedAt,
    })
    .meta({ id: `${face}BankAccount`, description: `The receiving bank account, as it was when the deposit arrived${unixNote}.` });
  const transaction = z
    .object({
      id: idOf('transaction'),
      bankAccount,
      matchedInvoiceId: idOf('invoice').nullable(),
      matchMethod,
      amount: z.int().meta({ description: 'Won.' }),
      description: z.string().meta({ description: 'Depositor name from the bank notification.' }),
      hidden: z.boolean().meta({ description: 'Hidden in the dashboard.' }),
      receivedAt: time.meta({ description: 'Deposit time per the bank.' }),
      matchedAt: time.nullable().meta({ description: 'When it was matched to an invoice.' }),
      createdAt: time.meta({ description: 'When the service stored it.' }),
      deletedAt,
    })
    .meta({
      id: `${face}Transaction`,
      description: face === 'V1' ? 'A deposit (transaction) in the v1 wire format.' : 'A deposit (transaction) in the v2 wire format: the v1 fields, timestamps in Unix seconds.',
    });
  return { bankAccount, transaction };
}

export const { bankAccount: V1BankAccount, transaction: V1Transaction } = transactionSchemas('V1', v1Time, alwaysNull('string'));

export const V1CashReceipt = z
  .object({
    id: idOf('cashReceipt'),
    status: z.enum(V1_RECEIPT_STATUSES).meta({ description: 'A receipt fully canceled through v2 reads REVOKED.' }),
    issuerId: idOf('account', 'The workspace owner\'s account id.'),
    corpNum: z.string().meta({ description: 'Issuing business registration number (10 digits).' }),
    type: cashReceiptType,
    identifier: z.string(),
    amount: z.int().meta({ description: 'Won, VAT included.' }),
    relatedInvoiceId: idOf('invoice').nullable(),
    ntsConfirmNum: z.string().nullable().meta({ description: 'Tax-authority confirmation number; null until issued.' }),
    ntsResultCode: z.string().nullable().meta({ description: 'Tax-authority result code; null while pending.' }),
    issuedAt: v1Time.meta({ description: 'When the issuance was requested.' }),
    revokedAt: v1Time.nullable(),
    deletedAt: v1Time.nullable(),
  })
  .meta({ id: 'V1CashReceipt', description: 'A cash receipt in the v1 wire format.' });

// ───────────────────────────── v2 ─────────────────────────────

export const Actor = z
  .object({
    type: z.string().meta({ description: 'SECRET_API_KEY, READ_ONLY_API_KEY, OAUTH_APP or DASHBOARD.' }),
    accountId: idOf('account').nullable(),
    apiKeyId: idOf('apiKey').nullable(),
    name: z.string().meta({ description: 'Name of the key, app or account.' }),
  })
  .meta({ id: 'Actor', description: 'Who made a change.' });

export const V2InvoiceHistoryEntry = z
  .object({
    type: z.string().meta({ description: 'created, paid, updated, canceled, deleted, unmatched, guide_email_sent, ...' }),
    actor: Actor.nullable().meta({ description: 'Who did it; null for the system.' }),
    data: z.record(z.string(), z.unknown()).nullable().meta({ description: 'Details of the change.' }),
    createdAt: unixSeconds,
  })
  .meta({ id: 'V2InvoiceHistoryEntry', description: 'One change in the life of an invoice.' });

const v2InvoiceFields = {
  id: idOf('invoice'),
  number: z.int().meta({ description: 'Sequence number of the invoice in the workspace.' }),
  status: z.enum(INVOICE_STATUSES).meta({ description: 'EXPIRED is judged against the clock.' }),
  bankAccountIds: z.array(idOf('bankAccount')).meta({ description: 'Receiving accounts; empty = all registered accounts.' }),
  customer,
  cashReceipt: invoiceCashReceipt.nullable(),
  amount: z.int().meta({ description: 'Won.' }),
  metadata,
  expiresAt: unixSeconds.nullable().meta({ description: 'Unix seconds; null = never expires.' }),
  paidAt: unixSeconds.nullable(),
  canceledAt: unixSeconds.nullable(),
  cancelReason: z.string().nullable().meta({ description: 'Reason given at cancel.' }),
  canceledBy: Actor.nullable().meta({ description: 'Who canceled it.' }),
  guideEmailSentAt: unixSeconds.nullable().meta({ description: 'When the payment-guide e-mail was last sent.' }),
  createdAt: unixSeconds,
  updatedAt: unixSeconds,
};

export const V2Invoice = z.object(v2InvoiceFields).meta({ id: 'V2Invoice', description: 'An invoice in the v2 wire format (lists and writes; no history).' });

export const V2InvoiceWithHistory = z
  .object({ ...v2InvoiceFields, history: z.array(V2InvoiceHistoryEntry).meta({ description: 'Changes, oldest first.' }) })
  .meta({ id: 'V2InvoiceWithHistory', description: 'An invoice in the v2 wire format with its history (single reads).' });

export const { bankAccount: V2BankAccount, transaction: V2Transaction } = transactionSchemas('V2', unixSeconds, unixSeconds.nullable().meta({ description: 'Always null for a readable object.' }));

export const V2CashReceipt = z
  .object({
    id: idOf('cashReceipt'),
    status: z.enum(RECEIPT_STATUSES),
    kind: z.enum(RECEIPT_KINDS),
    issuerId: idOf('account', 'The workspace owner\'s account id.'),
    corpNum: z.string().meta({ description: 'Issuing business registration number (10 digits).' }),
    type: cashReceiptType,
    identifier: z.string(),
    amount: z.int().meta({ description: 'Won, VAT included.' }),
    supplyCost: z.int().meta({ description: 'Amount without VAT (amount × 10/11 rounded half up).' }),
    tax: z.int().meta({ description: 'VAT (amount − supplyCost).' }),
    relatedInvoiceId: idOf('invoice').nullable(),
    originalId: idOf('cashReceipt').nullable().meta({ description: 'For a cancellation receipt: the original.' }),
    partial: z.boolean().meta({ description: 'A partial cancellation.' }),
    cancelReason: z.string().nullable(),
    canceledAmount: z.int().meta({ description: 'On an original: won canceled so far.' }),
    remainingAmount: z.int().meta({ description: 'On an original: won not canceled yet.' }),
    reissuedFromId: idOf('cashReceipt').nullable().meta({ description: 'On a reissued receipt: the failed original.' }),
    reissuedToId: idOf('cashReceipt').nullable().meta({ description: 'On a failed original: its reissue.' }),
    selfIssued: z.boolean(),
    ntsConfirmNum: z.string().nullable().meta({ description: 'Tax-authority confirmation number; null until issued.' }),
    ntsResultCode: z.string().nullable(),
    issuedAt: unixSeconds,
    revokedAt: unixSeconds.nullable(),
    canceledAt: unixSeconds.nullable(),
    deletedAt: unixSeconds.nullable(),
  })
  .meta({ id: 'V2CashReceipt', description: 'A cash receipt in the v2 wire format.' });

// ───────────────────────────── OAuth and bank notifications ─────────────────────────────

export const OAuthToken = z
  .object({ access_token: secretOf('oauthAccessToken', 'The access token (`oat_...`); use it as `Authorization: Bearer`.'), token_type: z.literal('Bearer') })
  .meta({ id: 'OAuthToken', description: 'RFC 6749 access token response.' });

export const OAuthRevoked = z.object({}).meta({ id: 'OAuthRevoked', description: 'RFC 7009: the same empty answer whether or not a token was revoked.' });

export const BankNotificationAccepted = z
  .object({ transactionId: idOf('transaction') })
  .meta({ id: 'BankNotificationAccepted', description: 'The stored deposit (the first one again for a repeated notificationId).' });

export const BankTextAccepted = z
  .object({
    bankTextId: idOf('bankText', 'The stored text (`btx_...`): every text is stored, whatever it says.'),
    outcome: z.enum(['DEPOSIT', 'DUPLICATE', 'NOT_A_DEPOSIT', 'UNRECOGNIZED', 'REFUSED']).meta({
      description:
        'DEPOSIT: a new deposit (201). DUPLICATE: a deposit already stored (the same one announced again). NOT_A_DEPOSIT: a withdrawal, a balance notice, an advertisement... UNRECOGNIZED: no parser understood it (kept for the merchant). REFUSED: a deposit text of another bank or another account number.',
    }),
    transactionId: idOf('transaction').nullable().meta({ description: 'The deposit it announced (DEPOSIT, DUPLICATE).' }),
    kind: z.string().nullable().meta({ description: 'NOT_A_DEPOSIT: WITHDRAWAL, BALANCE, ADVERTISEMENT or OTHER; REFUSED: BANK_MISMATCH or ACCOUNT_MISMATCH.' }),
    reason: z.string().nullable().meta({ description: 'Why it is not a deposit, in words.' }),
  })
  .meta({ id: 'BankTextAccepted', description: 'What became of a forwarded text. Every outcome is final: the forwarder need not send it again.' });
