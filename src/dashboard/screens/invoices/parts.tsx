/**
 * Pieces the Invoices screen's list, forms and detail share: a refusal in words (with the invoice it names), the
 * receiving accounts, the cash receipt to issue on payment.
 */
import type { CombinedError } from '@urql/core';
import { useState } from 'preact/hooks';
import { graphql, type ResultOf } from '../../graphql.ts';
import type { Lang } from '../../i18n.ts';
import { onLink } from '../../router.ts';
import { refusalOf, type Refusal } from '../../ui.tsx';
import { refusalWords, w } from './words.ts';

export const INVOICES_PATH = '/dashboard/invoices';
export const invoicePath = (id: string) => `${INVOICES_PATH}/${encodeURIComponent(id)}`;

/** A refusal and its details: INVOICE_ALREADY_EXISTS names the pending invoice in the way (invoiceId, number). */
export interface InvoiceRefusal extends Refusal {
  data: unknown;
}

/** refusalOf, keeping the DomainError's `data` (the mutation's selection must include it). */
export function invoiceRefusalOf(result: { error?: CombinedError | undefined; data?: unknown }, field: string): InvoiceRefusal | null {
  const refusal = refusalOf(result, field);
  if (!refusal) return null;
  const value = (result.data as Record<string, { __typename?: string; data?: unknown } | undefined> | null | undefined)?.[field];
  return { ...refusal, data: value?.__typename === 'DomainError' ? value.data : result.error?.graphQLErrors[0]?.extensions?.data };
}

/** A refusal shown in words with its code; a conflict links to the invoice it conflicts with. */
export function RefusalNote({ lang, refusal }: { lang: Lang; refusal: InvoiceRefusal | null }) {
  if (!refusal) return null;
  const existing = refusal.data as { invoiceId?: unknown; number?: unknown } | null | undefined;
  const existingId = typeof existing?.invoiceId === 'string' ? existing.invoiceId : null;
  return (
    <p role="alert" class="error" data-code={refusal.code}>
      {w(lang, 'refused')}: {refusalWords(lang, refusal.code, refusal.message)} ({refusal.code})
      {existingId && (
        <>
          {' '}
          <a href={invoicePath(existingId)} onClick={onLink(invoicePath(existingId))}>
            {w(lang, 'seeExisting')} #{String(existing?.number ?? '')}
          </a>
        </>
      )}
    </p>
  );
}

export const BankAccountsQuery = graphql(`
  query DashboardInvoiceAccounts {
    bankAccounts { id alias number provider verifiedAt active deletedAt }
  }
`);

export type BankAccountRow = ResultOf<typeof BankAccountsQuery>['bankAccounts'][number];

/** An account as the merchant knows it: alias, bank and number. */
export const accountName = (a: Pick<BankAccountRow, 'alias' | 'provider' | 'number'>) => `${a.alias} (${a.provider} ${a.number})`;

/**
 * The receiving accounts as checkboxes named bankAccountIds (none checked = every account, as the API reads an empty
 * list). An account not verified or not in use cannot receive: shown, not choosable.
 */
export function AccountsField({ lang, accounts, chosen }: { lang: Lang; accounts: readonly BankAccountRow[]; chosen: readonly string[] }) {
  return (
    <fieldset>
      <legend>{w(lang, 'receivingAccounts')}</legend>
      {accounts
        .filter((a) => !a.deletedAt)
        .map((a) => {
          const usable = !!a.verifiedAt && a.active;
          return (
            <label class="check" key={a.id}>
              <input type="checkbox" name="bankAccountIds" value={a.id} defaultChecked={chosen.includes(a.id)} disabled={!usable && !chosen.includes(a.id)} />
              {accountName(a)}
              {!a.verifiedAt ? ` — ${w(lang, 'notVerified')}` : !a.active ? ` — ${w(lang, 'inactive')}` : ''}
            </label>
          );
        })}
      <p class="hint">{w(lang, 'accountsHint')}</p>
    </fieldset>
  );
}

/** The cash receipt's kind and number; the number is asked for only when a kind is chosen. */
export function CashReceiptFields({ lang, type, identifier }: { lang: Lang; type: string | null; identifier: string | null }) {
  const [chosen, setChosen] = useState(type ?? '');
  return (
    <>
      <label>
        {w(lang, 'cashReceiptType')}
        <select name="cashReceiptType" value={chosen} onChange={(e) => setChosen((e.currentTarget as HTMLSelectElement).value)}>
          <option value="">{w(lang, 'cashReceiptNone')}</option>
          <option value="PERSONAL">{w(lang, 'PERSONAL')}</option>
          <option value="CORPORATE">{w(lang, 'CORPORATE')}</option>
        </select>
      </label>
      {chosen && (
        <label>
          {w(lang, 'cashReceiptIdentifier')}
          <input name="cashReceiptIdentifier" inputMode="numeric" required defaultValue={identifier ?? ''} autocomplete="off" />
        </label>
      )}
    </>
  );
}
