/** Invoices: the workspace's list, live (server-side paging). */
import { useQuery } from '@urql/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { graphql } from '../../graphql.ts';
import { kst, t, won, type Lang } from '../../i18n.ts';
import { followInvoiceEvents } from '../../live.ts';
import type { ScreenProps } from '../../screens.ts';
import { PAGE_SIZE, Pager } from '../../ui.tsx';

const InvoicesQuery = graphql(`
  query DashboardInvoices($offset: Int!, $limit: Int!) {
    invoicePage(offset: $offset, limit: $limit) {
      totalItems
      items { id number status amount createdAt customer { name } }
    }
  }
`);

function Invoices({ lang }: { lang: Lang }) {
  const [offset, setOffset] = useState(0);
  const [{ data, fetching }, refetch] = useQuery({ query: InvoicesQuery, variables: { offset, limit: PAGE_SIZE } });
  // A change of any invoice (created, paid, canceled...) reads the page shown again: what the list shows is never
  // stale. One subscription for the list's lifetime, whichever page it shows.
  const reread = useRef(refetch);
  reread.current = refetch;
  useEffect(() => {
    const again = () => reread.current({ requestPolicy: 'network-only' });
    // Connected (again): read the page once more, for what changed before the subscription was in place.
    return followInvoiceEvents(again, again);
  }, []);
  const page = data?.invoicePage;
  return (
    <section aria-labelledby="invoices-title">
      <h2 id="invoices-title">{t(lang, 'invoices')}</h2>
      {!page && fetching && <p>{t(lang, 'loading')}</p>}
      {page && page.items.length === 0 && <p>{t(lang, 'none')}</p>}
      {page && page.items.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">{t(lang, 'number')}</th>
              <th scope="col">{t(lang, 'depositor')}</th>
              <th scope="col" class="num">
                {t(lang, 'amount')}
              </th>
              <th scope="col">{t(lang, 'status')}</th>
              <th scope="col">{t(lang, 'createdAt')}</th>
            </tr>
          </thead>
          <tbody>
            {page.items.map((i) => (
              <tr key={i.id} data-invoice-id={i.id}>
                <td>{i.number}</td>
                <td>{i.customer.name}</td>
                <td class="num">{won(lang, i.amount)}</td>
                <td data-status={i.status}>{t(lang, i.status)}</td>
                <td>{kst(i.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {page && <Pager lang={lang} label={t(lang, 'invoices')} offset={offset} total={page.totalItems} onOffset={setOffset} />}
    </section>
  );
}


export default function InvoicesScreen({ lang }: ScreenProps) {
  return <Invoices lang={lang} />;
}
