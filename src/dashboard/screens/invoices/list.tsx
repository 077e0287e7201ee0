/**
 * The invoice list: every filter of the REST list (GET /v1/invoices: search, paid, expired, dates in KST; GET
 * /v2/invoices: statuses, canceled ones listed) read by the server with its paging, kept in the address's query string
 * under the REST names (a reload, back and forward keep them), and live.
 */
import { useQuery } from '@urql/preact';
import { graphql } from '../../graphql.ts';
import { kst, t, won, type Lang } from '../../i18n.ts';
import { followInvoiceEvents, useRereadOn } from '../../live.ts';
import { navigate, onLink } from '../../router.ts';
import { PAGE_SIZE, Pager } from '../../ui.tsx';
import { filterOf, flag, listStateOf, narrowed, queryOf, STATUSES, type ListState, type Status } from './filters.ts';
import { INVOICES_PATH, invoicePath, invoiceRefusalOf, RefusalNote } from './parts.tsx';
import { w } from './words.ts';

const InvoicesQuery = graphql(`
  query DashboardInvoices($offset: Int!, $limit: Int!, $filter: InvoiceFilter) {
    invoicePage(offset: $offset, limit: $limit, filter: $filter) {
      totalItems
      items { id number status amount createdAt expiresAt customer { name } }
    }
  }
`);

function FlagSelect({ label, name, value, yes, no, any }: { label: string; name: string; value: boolean | null; yes: string; no: string; any: string }) {
  return (
    <label>
      {label}
      <select name={name} defaultValue={value === null ? '' : String(value)}>
        <option value="">{any}</option>
        <option value="true">{yes}</option>
        <option value="false">{no}</option>
      </select>
    </label>
  );
}

/** The filters' form: applied on submit (the address changes, so the browser's history keeps each step). */
function Filters({ lang, state }: { lang: Lang; state: ListState }) {
  const apply = (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const text = (name: string) => String(form.get(name) ?? '').trim();
    const next: ListState = {
      search: text('search'),
      statuses: form.getAll('status').map(String) as Status[],
      paid: flag(text('paid')),
      expired: flag(text('expired')),
      dateAfter: text('dateAfter'),
      dateBefore: text('dateBefore'),
      hideCanceled: form.get('hideCanceled') === 'on',
      offset: 0,
    };
    navigate(INVOICES_PATH + queryOf(next));
  };
  return (
    <form role="search" aria-label={w(lang, 'filters')} class="inline invoice-filters" onSubmit={apply}>
      <label>
        {w(lang, 'search')}
        <input type="search" name="search" defaultValue={state.search} placeholder={w(lang, 'searchHint')} size={36} />
      </label>
      <fieldset>
        <legend>{w(lang, 'statusFilter')}</legend>
        {STATUSES.map((s) => (
          <label class="check" key={s}>
            <input type="checkbox" name="status" value={s} defaultChecked={state.statuses.includes(s)} />
            {t(lang, s)}
          </label>
        ))}
      </fieldset>
      <FlagSelect label={w(lang, 'paidFilter')} name="paid" value={state.paid} yes={w(lang, 'paidYes')} no={w(lang, 'paidNo')} any={w(lang, 'any')} />
      <FlagSelect label={w(lang, 'expiredFilter')} name="expired" value={state.expired} yes={w(lang, 'expiredYes')} no={w(lang, 'expiredNo')} any={w(lang, 'any')} />
      <label>
        {w(lang, 'dateAfter')}
        <input type="date" name="dateAfter" defaultValue={state.dateAfter} />
      </label>
      <label>
        {w(lang, 'dateBefore')}
        <input type="date" name="dateBefore" defaultValue={state.dateBefore} />
      </label>
      <label class="check">
        <input type="checkbox" name="hideCanceled" defaultChecked={state.hideCanceled} />
        {w(lang, 'hideCanceled')}
      </label>
      <button type="submit">{w(lang, 'apply')}</button>
      {narrowed(state) && (
        <a href={INVOICES_PATH} onClick={onLink(INVOICES_PATH)}>
          {w(lang, 'clearFilters')}
        </a>
      )}
    </form>
  );
}

export function InvoiceList({ lang, search }: { lang: Lang; search: URLSearchParams }) {
  const state = listStateOf(search);
  const query = queryOf(state);
  const [result, refetch] = useQuery({ query: InvoicesQuery, variables: { offset: state.offset, limit: PAGE_SIZE, filter: filterOf(state) } });
  const { data, fetching } = result;
  // A change of any invoice (created, paid, canceled...) reads the page shown again: what the list shows is never
  // stale. One subscription for the list's lifetime, whichever page and filters it shows.
  // Connected (again): read the page once more, for what changed before the subscription was in place.
  useRereadOn((again) => followInvoiceEvents(again, again), refetch, fetching);
  const refusal = invoiceRefusalOf(result, 'invoicePage');
  const page = refusal ? undefined : data?.invoicePage;
  return (
    <section aria-labelledby="invoices-title" class="invoices-screen">
      <h2 id="invoices-title">{t(lang, 'invoices')}</h2>
      <p>
        <a href={`${INVOICES_PATH}/new`} onClick={onLink(`${INVOICES_PATH}/new`)} class="button-link">
          {w(lang, 'newInvoice')}
        </a>
      </p>
      {/* Keyed by the query: back and forward show the filters of the address, not the last ones typed. */}
      <Filters key={query} lang={lang} state={state} />
      <RefusalNote lang={lang} refusal={refusal} />
      {!page && !refusal && fetching && <p>{t(lang, 'loading')}</p>}
      {page && page.items.length === 0 && <p>{narrowed(state) ? w(lang, 'noMatch') : t(lang, 'none')}</p>}
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
              <th scope="col">{w(lang, 'expiresAt')}</th>
            </tr>
          </thead>
          <tbody>
            {page.items.map((i) => (
              <tr key={i.id} data-invoice-id={i.id}>
                <td>
                  <a href={invoicePath(i.id)} onClick={onLink(invoicePath(i.id))}>
                    #{i.number}
                  </a>
                </td>
                <td>{i.customer.name}</td>
                <td class="num">{won(lang, i.amount)}</td>
                <td data-status={i.status}>{t(lang, i.status)}</td>
                <td>{kst(i.createdAt)}</td>
                <td>{i.expiresAt ? kst(i.expiresAt) : w(lang, 'never')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {page && (
        <Pager lang={lang} label={t(lang, 'invoices')} offset={state.offset} total={page.totalItems} onOffset={(offset) => navigate(INVOICES_PATH + queryOf({ ...state, offset }))} />
      )}
    </section>
  );
}
