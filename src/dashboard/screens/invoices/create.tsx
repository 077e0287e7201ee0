/**
 * A new invoice (createInvoice, the rules of POST /v1/invoices): depositor name, amount, receiving accounts, the buyer's
 * e-mail and phone, an expiry and the cash receipt to issue on payment. A pending invoice of the same name and amount
 * in the way (INVOICE_ALREADY_EXISTS) is shown with a link to it.
 */
import { useMutation, useQuery } from '@urql/preact';
import { useState } from 'preact/hooks';
import { graphql, type VariablesOf } from '../../graphql.ts';
import { t, type Lang } from '../../i18n.ts';
import { navigate, onLink } from '../../router.ts';
import { cashReceiptOf, optionalText } from './form.ts';
import { AccountsField, BankAccountsQuery, CashReceiptFields, INVOICES_PATH, invoicePath, invoiceRefusalOf, RefusalNote, type InvoiceRefusal } from './parts.tsx';
import { w } from './words.ts';

const CreateInvoiceMutation = graphql(`
  mutation DashboardCreateInvoice($input: CreateInvoiceInput!) {
    createInvoice(input: $input) {
      __typename
      ... on InvoicePayload { invoice { id } }
      ... on DomainError { code message field data }
    }
  }
`);

type CreateInput = VariablesOf<typeof CreateInvoiceMutation>['input'];
export function CreateInvoice({ lang }: { lang: Lang }) {
  const [{ data: accounts }] = useQuery({ query: BankAccountsQuery });
  const [{ fetching }, create] = useMutation(CreateInvoiceMutation);
  const [refusal, setRefusal] = useState<InvoiceRefusal | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    setRefusal(null);
    const email = optionalText(form, 'email');
    const phoneNumber = optionalText(form, 'phoneNumber');
    const input: CreateInput = {
      customer: { name: String(form.get('name') ?? '').trim(), ...(email ? { email } : {}), ...(phoneNumber ? { phoneNumber: phoneNumber.replace(/-/g, '') } : {}) },
      amount: Number(form.get('amount')),
      bankAccountIds: form.getAll('bankAccountIds').map(String),
      cashReceipt: cashReceiptOf(form),
      expireAfter: optionalText(form, 'expireAfter'),
    };
    const result = await create({ input });
    const refused = invoiceRefusalOf(result, 'createInvoice');
    if (refused) return setRefusal(refused);
    const created = result.data?.createInvoice;
    if (created?.__typename === 'InvoicePayload') navigate(invoicePath(created.invoice.id));
  };
  return (
    <section aria-labelledby="invoice-create-title" class="invoices-screen">
      <p>
        <a href={INVOICES_PATH} onClick={onLink(INVOICES_PATH)}>
          {w(lang, 'backToList')}
        </a>
      </p>
      <h2 id="invoice-create-title">{w(lang, 'createTitle')}</h2>
      <form class="panel" onSubmit={submit}>
        <label>
          {w(lang, 'depositorName')}
          <input name="name" required maxLength={16} pattern="\S+" autocomplete="off" />
        </label>
        <label>
          {w(lang, 'amountWon')}
          <input name="amount" type="number" required min={1} step={1} inputMode="numeric" />
        </label>
        {accounts && <AccountsField lang={lang} accounts={accounts.bankAccounts} chosen={[]} />}
        <label>
          {w(lang, 'buyerEmail')}
          <input name="email" type="email" autocomplete="off" />
        </label>
        <label>
          {w(lang, 'buyerPhone')}
          <input name="phoneNumber" type="tel" inputMode="numeric" autocomplete="off" />
        </label>
        <label>
          {w(lang, 'expireAfter')}
          <input name="expireAfter" autocomplete="off" />
        </label>
        <CashReceiptFields lang={lang} type={null} identifier={null} />
        <RefusalNote lang={lang} refusal={refusal} />
        <button type="submit" disabled={fetching}>
          {fetching ? t(lang, 'loading') : w(lang, 'create')}
        </button>
      </form>
    </section>
  );
}
