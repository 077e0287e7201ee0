/**
 * A cash-receipt refusal in the merchant's words: the API's code (and its `data.reason`, which says which rule refused)
 * turned into what to do about it, and the receipt it points at. Pure: refusal.tsx shows it.
 */
import type { Lang } from '../../i18n.ts';
import { w } from './words.ts';

export interface ReceiptRefusal {
  code: string;
  message: string;
  data: Record<string, unknown> | null;
}

type Explained = Parameters<typeof w>[1];
export const EXPLAINED_CODES: readonly string[] = [
  'BUSINESS_INFO_NOT_REGISTERED',
  'INVALID_CASH_RECEIPT_IDENTIFIER',
  'AGENCY_API_FAILED',
  'INVALID_CASH_RECEIPT_AMOUNT',
  'RECEIPT_CANCEL_REASON_INVALID',
  'RECEIPT_NOT_REISSUABLE',
  'RECEIPT_INVALID_TYPE',
  'RECEIPT_EMAIL_INVALID',
  'RECEIPT_EMAIL_NOT_SENDABLE',
  'AGENCY_EMAIL_FAILED',
] satisfies Explained[];
const EXPLAINED_REASONS: readonly string[] = ['NOT_PAID', 'RECEIPT_EXISTS', 'NTS_PENDING', 'NOT_ISSUED', 'FULLY_CANCELED', 'CANCELLATION_RECEIPT'] satisfies Explained[];

/** The sentence for a refusal: by its reason when the code has several, by its code, else the API's own message. */
export function sentence(lang: Lang, r: ReceiptRefusal): string {
  const reason = typeof r.data?.reason === 'string' ? r.data.reason : null;
  if (reason && EXPLAINED_REASONS.includes(reason)) return w(lang, reason as Explained);
  if (r.code === 'RECEIPT_INVALID_IDENTIFIER') return w(lang, 'INVALID_CASH_RECEIPT_IDENTIFIER');
  if (EXPLAINED_CODES.includes(r.code)) return w(lang, r.code as Explained);
  return r.message;
}

/** The receipt a refusal points at: the one in the invoice's way, or the one a failed agency call left FAILED. */
export function receiptNamed(r: ReceiptRefusal): string | null {
  if (typeof r.data?.cashReceiptId === 'string') return r.data.cashReceiptId;
  const receipt = r.data?.receipt as { id?: unknown } | undefined;
  return typeof receipt?.id === 'string' ? receipt.id : null;
}
