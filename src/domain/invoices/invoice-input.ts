/**
 * Invoice field rules (spec: POST /v1/invoices body, Limits, Errors) as zod schemas. One parser for every face: REST
 * bodies arrive as untyped JSON and GraphQL inputs as typed values; both go through here and get the spec's codes,
 * checked in the order of the spec's table. The same schemas describe the bodies in /openapi.json.
 */
import { z } from 'zod';
import { CASH_RECEIPT_TYPES, identifierFits, type CashReceiptTypeName } from '../cash-receipts/identifier.ts';
import { isAcceptableInvoiceName, nameLength } from '../deposits/depositor-name.ts';
import { parseDuration, MAX_EXPIRY_MS } from '../duration.ts';
import type { ErrorCode } from '../errors.ts';
import { codePoints, fail, onWire, optionalBody, parseRequest } from '../request-schema.ts';
import { EMAIL_RE, MAX_WON, isPlainObject, searchNormalize } from '../validation.ts';
import { RESERVED_METADATA_MESSAGE, reservedMetadataKey } from '../shops/reserved-metadata.ts';

export interface CustomerInput {
  name: string;
  email: string | null;
  phoneNumber: string | null;
}

export interface CashReceiptRequest {
  type: CashReceiptTypeName;
  identifier: string;
}

export interface CreateInvoiceInput {
  bankAccountIds: string[];
  customer: CustomerInput;
  amount: number;
  cashReceipt: CashReceiptRequest | null;
  /** Milliseconds from now; null = never expires. */
  expireAfterMs: number | null;
  /** An absolute expiry instead (a shop order's own deadline); requests give expireAfter. */
  expiresAt?: Date | null;
  metadata: Record<string, string> | null;
}

export const METADATA_LIMITS = { pairs: 5, keyLength: 64, valueLength: 1024 } as const;
export const CUSTOMER_NAME_MAX = 16;

const E = (code: ErrorCode) => ({ error: fail(code) });

/**
 * customer.name: 1-16 characters (code points of its comparison form, after NFC: NFD 홍길동 is 3), no whitespace, and
 * nothing a bank deposit cannot carry or a reader cannot see (control and format characters, Hangul fillers,
 * variation selectors; a combining mark at the start: depositor-name.ts isAcceptableInvoiceName).
 */
export const customerNameSchema = z
  .string(E('INVALID_CUSTOMER_NAME'))
  .refine((v) => nameLength(v) >= 1 && nameLength(v) <= CUSTOMER_NAME_MAX && !/\s/u.test(v) && isAcceptableInvoiceName(v), E('INVALID_CUSTOMER_NAME'))
  .meta({
    description:
      'Depositor name: 1-16 characters, no spaces, no invisible characters (control or format characters such as zero-width spaces, soft hyphens and bidi marks; Hangul fillers; variation selectors), not beginning with a combining mark. Must equal the name on the bank notification.',
    minLength: 1,
    maxLength: CUSTOMER_NAME_MAX,
    pattern: '^\\S+$',
  });

/** customer.email: 5-255 characters of e-mail shape; null/absent = none. */
export const customerEmailSchema = z
  .string(E('INVALID_EMAIL'))
  .min(5)
  .max(255)
  .regex(EMAIL_RE)
  .nullish()
  .transform((v) => v ?? null)
  .meta({ description: 'Buyer e-mail, 5-255 characters.' });

/** customer.phoneNumber: digits only, 10-11 digits; null/absent = none. */
export const customerPhoneNumberSchema = z
  .string(E('INVALID_PHONE_NUMBER'))
  .regex(/^\d{10,11}$/)
  .nullish()
  .transform((v) => v ?? null)
  .meta({ description: 'Buyer phone number, digits only (10-11 digits).' });

/** amount: a whole number of won, greater than 0, that fits the column. */
export const amountSchema = z.number(E('INVALID_AMOUNT')).int().min(1).max(MAX_WON).meta({ description: 'Amount in won, greater than 0.' });

/** cashReceipt: `type` in the enum (else BAD_REQUEST in v1) and an identifier that fits it. */
export const cashReceiptRequestSchema = z
  .object(
    {
      type: z.enum(CASH_RECEIPT_TYPES, E('INVALID_CASH_RECEIPT_TYPE')),
      identifier: z
        .string(E('INVALID_CASH_RECEIPT_IDENTIFIER'))
        .meta({ description: 'PERSONAL: phone number (10-11 digits); CORPORATE: business registration number (10 digits); no hyphens.', pattern: '^\\d{10,11}$' }),
    },
    E('INVALID_CASH_RECEIPT_TYPE'),
  )
  .refine((c) => identifierFits(c.type, c.identifier), { ...E('INVALID_CASH_RECEIPT_IDENTIFIER'), path: ['identifier'] })
  .meta({ description: 'A cash receipt to issue when the invoice is paid.' });

/** cashReceipt as a request field: null/absent = none. */
export const optionalCashReceiptSchema = cashReceiptRequestSchema.nullish().transform((v): CashReceiptRequest | null => v ?? null);

/** expireAfter: a duration above zero and at most 365 days (milliseconds); absent/null = never expires. */
export const expireAfterSchema = z
  .string(E('INVALID_DURATION'))
  .transform((v, ctx) => {
    const ms = parseDuration(v);
    if (ms === null || ms <= 0) ctx.issues.push({ code: 'custom', input: v, message: fail('INVALID_DURATION') });
    else if (ms > MAX_EXPIRY_MS) ctx.issues.push({ code: 'custom', input: v, message: fail('EXPIRE_AFTER_EXCEEDS_MAXIMUM') });
    else return ms;
    return z.NEVER;
  })
  .nullish()
  .transform((v) => v ?? null)
  .meta({
    description: 'Time until the invoice expires, at most 365 days: ISO 8601 (`PT30M`, `P1DT6H20M`, `P1W`) or short form (`30m`, `1d 6h 20m`, `7d`). Omitted = never expires.',
  });

/**
 * metadata: string keys to string values; at most 5 pairs, keys ≤ 64 and values ≤ 1024 characters; absent/null = none.
 * Checked over the raw object (zod's record skips a `__proto__` key, which must stay a plain key here), so its wire
 * JSON Schema is registered from the same limits.
 */
export const metadataSchema = onWire(
  z
    .unknown()
    .optional()
    .transform((v, ctx): Record<string, string> | null => {
    if (v === undefined || v === null) return null;
    const issue = (code: ErrorCode, path: string[] = []) => (ctx.issues.push({ code: 'custom', input: v, path, message: fail(code) }), z.NEVER);
    if (!isPlainObject(v)) return issue('INVALID_METADATA');
    const entries = Object.entries(v);
    if (entries.some(([, value]) => typeof value !== 'string')) return issue('INVALID_METADATA');
    if (entries.length > METADATA_LIMITS.pairs) return issue('METADATA_KEY_VALUE_PAIR_LIMIT_EXCEEDED');
    for (const [key, value] of entries) {
      if (codePoints(key) > METADATA_LIMITS.keyLength) return issue('METADATA_KEY_LENGTH_LIMIT_EXCEEDED', [key]);
      if (codePoints(value as string) > METADATA_LIMITS.valueLength) return issue('METADATA_VALUE_LENGTH_LIMIT_EXCEEDED', [key]);
    }
    // Keys under the shop integrations' prefixes are the service's own links (src/domain/shops/reserved-metadata.ts).
    const reserved = reservedMetadataKey(Object.fromEntries(entries));
    if (reserved !== null) return (ctx.issues.push({ code: 'custom', input: v, path: [reserved], message: fail('INVALID_METADATA', RESERVED_METADATA_MESSAGE) }), z.NEVER);
    // Own properties only, on a fresh object: `__proto__` stays a plain key, never a prototype.
    const out: Record<string, string> = {};
    for (const [key, value] of entries) Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
    return out;
  }),
  {
    type: ['object', 'null'],
    description: 'String keys to string values: at most 5 pairs, keys up to 64 and values up to 1024 characters; keys starting with cafe24_ or shoplink_ are reserved for shop integrations (refused).',
    maxProperties: METADATA_LIMITS.pairs,
    propertyNames: { type: 'string', maxLength: METADATA_LIMITS.keyLength },
    additionalProperties: { type: 'string', maxLength: METADATA_LIMITS.valueLength },
  },
);

/** bankAccountIds: an array of at most 100 strings (empty = all accounts); duplicates removed. */
export const bankAccountIdsSchema = z
  .array(z.string(E('INVALID_BANK_ACCOUNT_IDS')), E('INVALID_BANK_ACCOUNT_IDS'))
  .max(100)
  .transform((v) => [...new Set(v)])
  .meta({ description: 'Receiving bank account ids (`bac_...`); an empty array means every registered account.' });

/** Where the invoice fields report errors raised on an item (an id in bankAccountIds reports at the field). */
export const INVOICE_REPORT_AT = { INVALID_BANK_ACCOUNT_IDS: ['bankAccountIds'] } as const;

/** The create-invoice body (spec: POST /v1/invoices), fields in the spec's order. */
export const createInvoiceSchema = z.object(
  {
    bankAccountIds: bankAccountIdsSchema,
    customer: z.preprocess(
      (v) => v ?? {},
      z.object({ name: customerNameSchema, email: customerEmailSchema, phoneNumber: customerPhoneNumberSchema }, E('INVALID_CUSTOMER_NAME')),
    ),
    amount: amountSchema,
    cashReceipt: optionalCashReceiptSchema,
    expireAfter: expireAfterSchema,
    metadata: metadataSchema,
  },
  E('BAD_REQUEST'),
);

/** Parses a create-invoice request in the spec's field order. */
export function parseCreateInvoiceInput(raw: unknown): CreateInvoiceInput {
  const { bankAccountIds, customer, amount, cashReceipt, expireAfter, metadata } = parseRequest(createInvoiceSchema, raw, { reportAt: INVOICE_REPORT_AT });
  return { bankAccountIds, customer, amount, cashReceipt, expireAfterMs: expireAfter, metadata };
}

/** Longest cancel reason of an invoice, in characters (spec: POST /v2/invoices/{id}/cancel). */
export const CANCEL_REASON_MAX = 200;

/** The invoice cancel request (spec: POST /v2/invoices/{id}/cancel): optional `reason` of up to 200 characters (220020 beyond). */
export const cancelInvoiceRequestSchema = optionalBody({
  reason: z
    .string({ error: fail('BAD_REQUEST') })
    .refine((v) => codePoints(v) <= CANCEL_REASON_MAX, { error: fail('CANCEL_REASON_TOO_LONG') })
    .nullish()
    .transform((v) => v ?? null)
    .meta({ description: 'Shown in the dashboard and as cancelReason; up to 200 characters.', maxLength: CANCEL_REASON_MAX }),
});

/** Parses an invoice cancel request: reason a string of up to 200 characters, or absent. */
export function parseCancelInvoiceRequest(raw: unknown): { reason: string | null } {
  return parseRequest(cancelInvoiceRequestSchema, raw);
}

/** The lower-cased, hyphen-free text the list search looks in: name, e-mail, phone, cash-receipt identifier. */
export function invoiceSearchText(i: { customerName: string; customerEmail: string | null; customerPhoneNumber: string | null; cashReceiptIdentifier: string | null }): string {
  return [i.customerName, i.customerEmail, i.customerPhoneNumber, i.cashReceiptIdentifier]
    .filter((x): x is string => !!x)
    .map(searchNormalize)
    .join('\u0001');
}
