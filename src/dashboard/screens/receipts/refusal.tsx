/**
 * A cash-receipt refusal in the merchant's words: the API's code (and its `data.reason`, which says which rule refused)
 * turned into what to do about it, with a link where the fix is elsewhere (Settings, the receipt in the way).
 */
import type { CombinedError } from '@urql/core';
import type { Lang } from '../../i18n.ts';
import { onLink } from '../../router.ts';
import { refusalOf } from '../../ui.tsx';
import { w } from './words.ts';

export interface ReceiptRefusal {
  code: string;
  message: string;
  data: Record<string, unknown> | null;
}

/** The refusal in a mutation's outcome (a DomainError member, with its data, or a GraphQL error), or null. */
export function receiptRefusalOf(result: { error?: CombinedError | undefined; data?: unknown }, field: string): ReceiptRefusal | null {
  const value = (result.data as Record<string, unknown> | null | undefined)?.[field] as { __typename?: string; code?: string; message?: string; data?: unknown } | undefined;
  if (!result.error && value?.__typename === 'DomainError') {
    return { code: value.code ?? 'ERROR', message: value.message ?? '', data: (value.data as Record<string, unknown> | null) ?? null };
  }
  const r = refusalOf(result, field);
  return r && { ...r, data: null };
}

type Explained = Parameters<typeof w>[1];
const EXPLAINED_CODES: readonly string[] = [
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
function sentence(lang: Lang, r: ReceiptRefusal): string {
  const reason = typeof r.data?.reason === 'string' ? r.data.reason : null;
  if (reason && EXPLAINED_REASONS.includes(reason)) return w(lang, reason as Explained);
  if (r.code === 'RECEIPT_INVALID_IDENTIFIER') return w(lang, 'INVALID_CASH_RECEIPT_IDENTIFIER');
  if (EXPLAINED_CODES.includes(r.code)) return w(lang, r.code as Explained);
  return r.message;
}

/** The receipt a refusal points at: the one in the invoice's way, or the one a failed agency call left FAILED. */
function receiptNamed(r: ReceiptRefusal): string | null {
  if (typeof r.data?.cashReceiptId === 'string') return r.data.cashReceiptId;
  const receipt = r.data?.receipt as { id?: unknown } | undefined;
  return typeof receipt?.id === 'string' ? receipt.id : null;
}

/** A refusal shown to the merchant (role=alert), with the code for support and the way out when it is elsewhere. */
export function RefusalNote({ lang, prefix, refusal }: { lang: Lang; prefix: string; refusal: ReceiptRefusal | null }) {
  if (!refusal) return null;
  const other = receiptNamed(refusal);
  return (
    <div role="alert" class="error" data-code={refusal.code}>
      <p class="error">
        {prefix}: {sentence(lang, refusal)} ({refusal.code})
      </p>
      {refusal.code === 'BUSINESS_INFO_NOT_REGISTERED' && (
        <a href="/dashboard/settings" onClick={onLink('/dashboard/settings')}>
          {w(lang, 'toSettings')}
        </a>
      )}
      {other && (
        <a href={`/dashboard/receipts/${other}`} onClick={onLink(`/dashboard/receipts/${other}`)}>
          {w(lang, 'seeReceipt')}
        </a>
      )}
    </div>
  );
}
