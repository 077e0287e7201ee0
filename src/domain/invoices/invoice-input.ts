/**
 * Invoice field rules (spec: POST /v1/invoices body, Limits, Errors). One parser for every face: REST bodies arrive
 * as untyped JSON and GraphQL inputs as typed values; both go through here and get the spec's codes, checked in the
 * order of the spec's table.
 */
import { identifierFits, isCashReceiptType, type CashReceiptTypeName } from '../cash-receipts/identifier.ts';
import { parseDuration, MAX_EXPIRY_MS } from '../duration.ts';
import { DomainError } from '../errors.ts';
import { EMAIL_RE, MAX_WON, isPlainObject } from '../validation.ts';

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
  metadata: Record<string, string> | null;
}

export const METADATA_LIMITS = { pairs: 5, keyLength: 64, valueLength: 1024 } as const;
export const CUSTOMER_NAME_MAX = 16;

/** customer.name: 1-16 characters (code points), no whitespace. */
export function parseCustomerName(v: unknown): string {
  if (typeof v !== 'string') throw new DomainError('INVALID_CUSTOMER_NAME', { path: ['customer', 'name'] });
  const len = [...v].length;
  if (len < 1 || len > CUSTOMER_NAME_MAX || /\s/u.test(v)) throw new DomainError('INVALID_CUSTOMER_NAME', { path: ['customer', 'name'] });
  return v;
}

/** customer.email: 5-255 characters of e-mail shape; null/absent clears. */
export function parseEmail(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string' || v.length < 5 || v.length > 255 || !EMAIL_RE.test(v)) {
    throw new DomainError('INVALID_EMAIL', { path: ['customer', 'email'] });
  }
  return v;
}

/** customer.phoneNumber: digits only, 10-11 digits; null/absent clears. */
export function parsePhoneNumber(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string' || !/^\d{10,11}$/.test(v)) throw new DomainError('INVALID_PHONE_NUMBER', { path: ['customer', 'phoneNumber'] });
  return v;
}

/** amount: a whole number of won, greater than 0, that fits the column. */
export function parseAmount(v: unknown): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v <= 0 || v > MAX_WON) throw new DomainError('INVALID_AMOUNT', { path: ['amount'] });
  return v;
}

/** cashReceipt: `type` in the enum (else BAD_REQUEST) and an identifier that fits it; null/absent = none. */
export function parseCashReceiptRequest(v: unknown): CashReceiptRequest | null {
  if (v === undefined || v === null) return null;
  if (!isPlainObject(v)) throw new DomainError('INVALID_CASH_RECEIPT_TYPE', { path: ['cashReceipt'] });
  if (!isCashReceiptType(v.type)) throw new DomainError('INVALID_CASH_RECEIPT_TYPE', { path: ['cashReceipt', 'type'] });
  if (!identifierFits(v.type, v.identifier)) throw new DomainError('INVALID_CASH_RECEIPT_IDENTIFIER', { path: ['cashReceipt', 'identifier'] });
  return { type: v.type, identifier: v.identifier };
}

/** expireAfter: a duration above zero and at most 365 days; absent/null = never expires. */
export function parseExpireAfter(v: unknown): number | null {
  if (v === undefined || v === null) return null;
  const ms = typeof v === 'string' ? parseDuration(v) : null;
  if (ms === null || ms <= 0) throw new DomainError('INVALID_DURATION', { path: ['expireAfter'] });
  if (ms > MAX_EXPIRY_MS) throw new DomainError('EXPIRE_AFTER_EXCEEDS_MAXIMUM', { path: ['expireAfter'] });
  return ms;
}

/** metadata: string keys to string values; at most 5 pairs, keys ≤ 64 and values ≤ 1024 characters. */
export function parseMetadata(v: unknown): Record<string, string> | null {
  if (v === undefined || v === null) return null;
  if (!isPlainObject(v)) throw new DomainError('INVALID_METADATA', { path: ['metadata'] });
  const entries = Object.entries(v);
  for (const [, value] of entries) {
    if (typeof value !== 'string') throw new DomainError('INVALID_METADATA', { path: ['metadata'] });
  }
  if (entries.length > METADATA_LIMITS.pairs) throw new DomainError('METADATA_KEY_VALUE_PAIR_LIMIT_EXCEEDED', { path: ['metadata'] });
  for (const [key, value] of entries) {
    if ([...key].length > METADATA_LIMITS.keyLength) throw new DomainError('METADATA_KEY_LENGTH_LIMIT_EXCEEDED', { path: ['metadata', key] });
    if ([...(value as string)].length > METADATA_LIMITS.valueLength) throw new DomainError('METADATA_VALUE_LENGTH_LIMIT_EXCEEDED', { path: ['metadata', key] });
  }
  // Own properties only, on a fresh object: `__proto__` stays a plain key, never a prototype.
  const out: Record<string, string> = {};
  for (const [key, value] of entries) Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  return out;
}

/** bankAccountIds: an array of strings (empty = all accounts); duplicates removed. */
export function parseBankAccountIds(v: unknown): string[] {
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string') || v.length > 100) {
    throw new DomainError('INVALID_BANK_ACCOUNT_IDS', { path: ['bankAccountIds'] });
  }
  return [...new Set(v as string[])];
}

/** Parses a create-invoice request in the spec's field order. */
export function parseCreateInvoiceInput(raw: unknown): CreateInvoiceInput {
  if (!isPlainObject(raw)) throw new DomainError('BAD_REQUEST');
  const bankAccountIds = parseBankAccountIds(raw.bankAccountIds);
  const customer = raw.customer;
  if (customer !== undefined && customer !== null && !isPlainObject(customer)) {
    throw new DomainError('INVALID_CUSTOMER_NAME', { path: ['customer'] });
  }
  const c = (customer ?? {}) as Record<string, unknown>;
  const name = parseCustomerName(c.name);
  const email = parseEmail(c.email);
  const phoneNumber = parsePhoneNumber(c.phoneNumber);
  const amount = parseAmount(raw.amount);
  const cashReceipt = parseCashReceiptRequest(raw.cashReceipt);
  const expireAfterMs = parseExpireAfter(raw.expireAfter);
  const metadata = parseMetadata(raw.metadata);
  return { bankAccountIds, customer: { name, email, phoneNumber }, amount, cashReceipt, expireAfterMs, metadata };
}

/** The lower-cased, hyphen-free text the list search looks in: name, e-mail, phone, cash-receipt identifier. */
export function invoiceSearchText(i: { customerName: string; customerEmail: string | null; customerPhoneNumber: string | null; cashReceiptIdentifier: string | null }): string {
  return [i.customerName, i.customerEmail, i.customerPhoneNumber, i.cashReceiptIdentifier]
    .filter((x): x is string => !!x)
    .map((x) => x.replace(/-/g, '').toLowerCase())
    .join('\u0001');
}
