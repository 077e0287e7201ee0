/**
 * Cash receipts: the list (server-side paging, the API's filters kept in the address), the issue form for a paid
 * invoice (/dashboard/receipts/new) and a receipt's detail (/dashboard/receipts/crt_...).
 */
import { useQuery } from '@urql/preact';
import { useState } from 'preact/hooks';
import { graphql } from '../../graphql.ts';
import { kst, t, won, type Lang } from '../../i18n.ts';
import { navigate, onLink, useLocation } from '../../router.ts';
import type { ScreenProps } from '../../screens.ts';
import { ErrorNote, PAGE_SIZE, Pager, refusalOf } from '../../ui.tsx';
import { ReceiptDetail } from './detail.tsx';
import { IssueForm } from './issue.tsx';
import { addressOf, filtersOf, LIST, listRefusal, receiptFilterOf, STATUSES, TYPES, type Filters, type ReceiptType, type Status } from './filters.ts';
import { InvoiceLink, ReceiptLink } from './parts.tsx';
import { w } from './words.ts';

const ReceiptsQuery = graphql(`
  query DashboardReceipts($offset: Int!, $limit: Int!, $filter: CashReceiptFilter) {
    cashReceiptPage(offset: $offset, limit: $limit, filter: $filter) {
      totalItems
      items { id status kind type identifier amount supplyCost tax partial relatedInvoiceId originalId issuedAt }
    }
  }
`);

/** The filter form: applied on submit (a date half typed is not a query), kept in the address. */
function FilterForm({ lang, filters }: { lang: Lang; filters: Filters }) {
  const [draft, setDraft] = useState(filters);
  const set = (patch: Partial<Filters>) => setDraft({ ...draft, ...patch });
  const apply = (e: Event) => {
    e.preventDefault();
    navigate(addressOf({ ...draft, q: draft.q.trim(), offset: 0 }));
  };
  return (
    <form class="inline receipt-filters" role="search" aria-label={w(lang, 'filters')} onSubmit={apply}>
      <label>
        {t(lang, 'status')}
        <select value={draft.status ?? ''} onChange={(e) => set({ status: (e.currentTarget.value || null) as Status | null })}>
          <option value="">{w(lang, 'anyStatus')}</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {w(lang, s)}
            </option>
          ))}
        </select>
      </label>
      <label>
        {w(lang, 'purpose')}
        <select value={draft.type ?? ''} onChange={(e) => set({ type: (e.currentTarget.value || null) as ReceiptType | null })}>
          <option value="">{w(lang, 'anyType')}</option>
          {TYPES.map((x) => (
            <option key={x} value={x}>
              {w(lang, x)}
            </option>
          ))}
        </select>
      </label>
      <label>
        {w(lang, 'dateAfter')}
        <input type="date" value={draft.from} onInput={(e) => set({ from: e.currentTarget.value })} />
      </label>
      <label>
        {w(lang, 'dateBefore')}
        <input type="date" value={draft.to} onInput={(e) => set({ to: e.currentTarget.value })} />
      </label>
      <label>
        {w(lang, 'search')}
        <input type="search" value={draft.q} onInput={(e) => set({ q: e.currentTarget.value })} />
      </label>
      <button type="submit">{w(lang, 'apply')}</button>
      <button type="button" class="link" onClick={() => navigate(LIST)}>
        {w(lang, 'reset')}
      </button>
    </form>
  );
}

function ReceiptList({ lang }: { lang: Lang }) {
  const { search } = useLocation();
  const filters = filtersOf(search);
  const [result] = useQuery({ query: ReceiptsQuery, variables: { offset: filters.offset, limit: PAGE_SIZE, filter: receiptFilterOf(filters) } });
  const page = result.data?.cashReceiptPage;
  const refusal = refusalOf(result);
  return (
    <section aria-labelledby="receipts-title" class="receipts-screen">
      <h2 id="receipts-title">{t(lang, 'receipts')}</h2>
      <p>
        <a class="button-link" href={`${LIST}/new`} onClick={onLink(`${LIST}/new`)}>
          {w(lang, 'issueNew')}
        </a>
      </p>
      {/* Keyed by the address: Back and Forward show the filters they lead to. */}
      <FilterForm key={addressOf(filters)} lang={lang} filters={filters} />
      {refusal && <ErrorNote lang={lang} prefix={w(lang, 'listFailed')} refusal={listRefusal(lang, refusal)} />}
      {!page && result.fetching && <p>{t(lang, 'loading')}</p>}
      {page && page.items.length === 0 && <p>{w(lang, 'noReceipts')}</p>}
      {page && page.items.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">{w(lang, 'receipt')}</th>
              <th scope="col">{t(lang, 'status')}</th>
              <th scope="col">{w(lang, 'kind')}</th>
              <th scope="col">{w(lang, 'purpose')}</th>
              <th scope="col" class="num">
                {t(lang, 'amount')}
              </th>
              <th scope="col" class="num">
                {w(lang, 'supplyCost')}
              </th>
              <th scope="col" class="num">
                {w(lang, 'vat')}
              </th>
              <th scope="col">{w(lang, 'invoice')}</th>
              <th scope="col">{w(lang, 'requestedAt')}</th>
            </tr>
          </thead>
          <tbody>
            {page.items.map((r) => (
              <tr key={r.id} data-receipt-id={r.id}>
                <th scope="row">
                  <ReceiptLink id={r.id} />
                </th>
                <td data-status={r.status}>{w(lang, r.status)}</td>
                <td data-kind={r.kind}>
                  {w(lang, r.kind)}
                  {r.partial && ` (${w(lang, 'partialNote')})`}
                </td>
                <td>
                  {w(lang, r.type)} {r.identifier}
                </td>
                <td class="num">{won(lang, r.amount)}</td>
                <td class="num">{won(lang, r.supplyCost)}</td>
                <td class="num">{won(lang, r.tax)}</td>
                <td>{r.relatedInvoiceId && <InvoiceLink id={r.relatedInvoiceId} />}</td>
                <td>{kst(r.issuedAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {page && (
        <Pager lang={lang} label={t(lang, 'receipts')} offset={filters.offset} total={page.totalItems} onOffset={(offset) => navigate(addressOf({ ...filters, offset }))} />
      )}
    </section>
  );
}

export default function ReceiptsScreen({ lang, rest }: ScreenProps) {
  if (rest === '' || rest === '/') return <ReceiptList lang={lang} />;
  if (rest === '/new') return <IssueForm lang={lang} />;
  const id = rest.slice(1);
  return <ReceiptDetail key={id} lang={lang} id={id} />;
}
