/**
 * A cash-receipt refusal in the merchant's words: the API's code (and its `data.reason`, which says which rule refused)
 * turned into what to do about it, with a link where the fix is elsewhere (Settings, the receipt in the way).
 */
import type { CombinedError } from '@urql/core';
import type { Lang } from '../../i18n.ts';
import { onLink } from '../../router.ts';
import { refusalOf } from '../../ui.tsx';
import { receiptNamed, sentence, type ReceiptRefusal } from './refusals.ts';
import { w } from './words.ts';

export type { ReceiptRefusal };

/** The refusal in a mutation's outcome (a DomainError member, with its data, or a GraphQL error), or null. */
export function receiptRefusalOf(result: { error?: CombinedError | undefined; data?: unknown }, field: string): ReceiptRefusal | null {
  const value = (result.data as Record<string, unknown> | null | undefined)?.[field] as { __typename?: string; code?: string; message?: string; data?: unknown } | undefined;
  if (!result.error && value?.__typename === 'DomainError') {
    return { code: value.code ?? 'ERROR', message: value.message ?? '', data: (value.data as Record<string, unknown> | null) ?? null };
  }
  const r = refusalOf(result, field);
  return r && { ...r, data: null };
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
