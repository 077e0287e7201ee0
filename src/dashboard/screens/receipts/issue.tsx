/**
 * Issuing a paid invoice's cash receipt (issueInvoiceCashReceipt): the invoice found by name or id among the paid ones,
 * the purpose — income deduction to a phone number, expense proof to a business number — and the number. The
 * receipt is for the invoice's amount; the API judges every rule and the form shows its refusal in words.
 */
import { useMutation, useQuery } from '@urql/preact';
import { useState } from 'preact/hooks';
import { graphql } from '../../graphql.ts';
import { t, won, type Lang } from '../../i18n.ts';
import { navigate, onLink, useLocation } from '../../router.ts';
import { digitsOf, LIST } from './parts.tsx';
import { RefusalNote, receiptRefusalOf, type ReceiptRefusal } from './refusal.tsx';
import { w } from './words.ts';

const PaidInvoicesQuery = graphql(`
  query DashboardReceiptInvoices($search: String) {
    invoicePage(offset: 0, limit: 20, filter: { statuses: [PAID], search: $search }) {
      items { id number amount paidAt customer { name } cashReceipt { type identifier } }
    }
  }
`);

const IssueMutation = graphql(`
  mutation DashboardIssueInvoiceReceipt($input: IssueInvoiceCashReceiptInput!) {
    issueInvoiceCashReceipt(input: $input) {
      __typename
      ... on CashReceiptPayload { cashReceipt { id } }
      ... on DomainError { code message data }
    }
  }
`);

type ReceiptType = 'PERSONAL' | 'CORPORATE';

export function IssueForm({ lang }: { lang: Lang }) {
  const { search } = useLocation();
  const [query, setQuery] = useState(search.get('invoice') ?? '');
  const [invoiceId, setInvoiceId] = useState(search.get('invoice') ?? '');
  const [type, setType] = useState<ReceiptType>('PERSONAL');
  const [identifier, setIdentifier] = useState('');
  const [refusal, setRefusal] = useState<ReceiptRefusal | null>(null);
  const [{ data, fetching }] = useQuery({ query: PaidInvoicesQuery, variables: { search: query.trim() || null } });
  const [{ fetching: issuing }, issue] = useMutation(IssueMutation);
  const invoices = data?.invoicePage.items ?? [];
  // The invoice chosen, while the search still lists it (a new search may leave it out: then none is chosen).
  const chosen = invoices.some((i) => i.id === invoiceId) ? invoiceId : '';

  const choose = (id: string) => {
    setInvoiceId(id);
    // The receipt the buyer asked for at the invoice's creation, if any: the usual answer.
    const asked = invoices.find((i) => i.id === id)?.cashReceipt;
    if (asked) {
      setType(asked.type);
      setIdentifier(asked.identifier);
    }
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    setRefusal(null);
    const r = await issue({ input: { invoiceId: chosen, type, identifier: digitsOf(identifier) } });
    const refused = receiptRefusalOf(r, 'issueInvoiceCashReceipt');
    if (refused) return setRefusal(refused);
    const issued = r.data?.issueInvoiceCashReceipt;
    if (issued?.__typename === 'CashReceiptPayload') navigate(`${LIST}/${issued.cashReceipt.id}`);
  };

  return (
    <section aria-labelledby="issue-title" class="receipts-screen">
      <p>
        <a href={LIST} onClick={onLink(LIST)}>
          ← {w(lang, 'back')}
        </a>
      </p>
      <h2 id="issue-title">{w(lang, 'issueTitle')}</h2>
      <p class="hint">{w(lang, 'issueHint')}</p>
      <form class="receipt-panel" onSubmit={submit}>
        <label>
          {w(lang, 'findInvoice')}
          <input type="search" value={query} onInput={(e) => setQuery(e.currentTarget.value)} />
        </label>
        <label>
          {w(lang, 'paidInvoice')}
          <select required value={chosen} onChange={(e) => choose(e.currentTarget.value)}>
            <option value="">{fetching && !data ? t(lang, 'loading') : invoices.length ? w(lang, 'chooseInvoice') : w(lang, 'noPaidInvoices')}</option>
            {invoices.map((i) => (
              <option key={i.id} value={i.id}>
                #{i.number} {i.customer.name} {won(lang, i.amount)}
              </option>
            ))}
          </select>
        </label>
        <fieldset>
          <legend>{w(lang, 'purpose')}</legend>
          {(['PERSONAL', 'CORPORATE'] as const).map((x) => (
            <label key={x} class="check">
              <input type="radio" name="receipt-type" value={x} checked={type === x} onChange={() => setType(x)} />
              {w(lang, x)}
            </label>
          ))}
        </fieldset>
        <label>
          {w(lang, type === 'PERSONAL' ? 'phone' : 'corpNum')}
          <input required inputMode="numeric" autoComplete="off" value={identifier} onInput={(e) => setIdentifier(e.currentTarget.value)} />
        </label>
        <button type="submit" disabled={issuing}>
          {issuing ? w(lang, 'issuing') : w(lang, 'issue')}
        </button>
        <RefusalNote lang={lang} prefix={w(lang, 'issueFailed')} refusal={refusal} />
      </form>
    </section>
  );
}
