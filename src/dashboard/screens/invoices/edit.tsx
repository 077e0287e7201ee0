/**
 * Editing a pending invoice (updateInvoice, the fields of PATCH /v2/invoices/{id}): only what the merchant changed is
 * sent, as PATCH sends only its fields; the payment-guide e-mail goes again on request when the amount or the expiry
 * changes (the API's rule).
 */
import { useMutation } from '@urql/preact';
import { useState } from 'preact/hooks';
import { graphql } from '../../graphql.ts';
import { t, type Lang } from '../../i18n.ts';
import { changesOf, toKstLocal, type Editable } from './form.ts';
import { AccountsField, CashReceiptFields, invoiceRefusalOf, RefusalNote, type BankAccountRow, type InvoiceRefusal } from './parts.tsx';
import { w } from './words.ts';

const UpdateInvoiceMutation = graphql(`
  mutation DashboardUpdateInvoice($id: ID!, $input: UpdateInvoiceInput!) {
    updateInvoice(id: $id, input: $input) {
      __typename
      ... on InvoicePayload { invoice { id amount updatedAt } }
      ... on DomainError { code message field data }
    }
  }
`);

export function EditInvoice({ lang, invoice, accounts, onDone, onClose }: { lang: Lang; invoice: Editable; accounts: readonly BankAccountRow[]; onDone: () => void; onClose: () => void }) {
  const [{ fetching }, update] = useMutation(UpdateInvoiceMutation);
  const [refusal, setRefusal] = useState<InvoiceRefusal | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    setRefusal(null);
    const result = await update({ id: invoice.id, input: changesOf(invoice, new FormData(e.currentTarget as HTMLFormElement)) });
    const refused = invoiceRefusalOf(result, 'updateInvoice');
    if (refused) setRefusal(refused);
    else onDone();
  };
  return (
    <form class="panel" onSubmit={submit} aria-labelledby="invoice-edit-title">
      <h3 id="invoice-edit-title">{w(lang, 'editTitle')}</h3>
      <label>
        {w(lang, 'depositorName')}
        <input name="name" required maxLength={16} pattern="\S+" defaultValue={invoice.customer.name} autocomplete="off" />
      </label>
      <label>
        {w(lang, 'amountWon')}
        <input name="amount" type="number" required min={1} step={1} defaultValue={String(invoice.amount)} />
      </label>
      <AccountsField lang={lang} accounts={accounts} chosen={invoice.bankAccountIds} />
      <label>
        {w(lang, 'buyerEmail')}
        <input name="email" type="email" defaultValue={invoice.customer.email ?? ''} autocomplete="off" />
      </label>
      <label>
        {w(lang, 'buyerPhone')}
        <input name="phoneNumber" type="tel" inputMode="numeric" defaultValue={invoice.customer.phoneNumber ?? ''} autocomplete="off" />
      </label>
      <label>
        {w(lang, 'expiresAtLabel')}
        <input name="expiresAt" type="datetime-local" defaultValue={invoice.expiresAt ? toKstLocal(invoice.expiresAt) : ''} />
      </label>
      <label>
        {w(lang, 'extendDays')}
        <input name="extendDays" type="number" min={1} max={365} step={1} />
      </label>
      {invoice.expiresAt && (
        <label class="check">
          <input type="checkbox" name="removeExpiry" />
          {w(lang, 'removeExpiry')}
        </label>
      )}
      <CashReceiptFields lang={lang} type={invoice.cashReceipt?.type ?? null} identifier={invoice.cashReceipt?.identifier ?? null} />
      <label class="check">
        <input type="checkbox" name="resendGuideEmail" aria-describedby="invoice-resend-hint" />
        {w(lang, 'resendGuideEmail')}
      </label>
      <p id="invoice-resend-hint" class="hint">
        {w(lang, 'resendHint')}
      </p>
      <RefusalNote lang={lang} refusal={refusal} />
      <div class="actions">
        <button type="submit" disabled={fetching}>
          {t(lang, 'save')}
        </button>
        <button type="button" class="secondary" onClick={onClose}>
          {t(lang, 'close')}
        </button>
      </div>
    </form>
  );
}
