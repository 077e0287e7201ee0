/**
 * The invoice list: every filter of the REST list (GET /v1/invoices: search, paid, expired, dates in KST; GET
 * /v2/invoices: statuses, canceled ones listed) read by the server with its paging, kept in the address's query string
 * under the REST names (a reload, back and forward keep them), and live.
 */
import { useQuery } from '@urql/preact';
import { useEffect, useRef } from 'preact/hooks';
import { graphql, type VariablesOf } from '../../graphql.ts';
import { kst, t, won, type Lang } from '../../i18n.ts';
import { followInvoiceEvents } from '../../live.ts';
import { navigate, onLink } from '../../router.ts';
import { PAGE_SIZE, Pager } from '../../ui.tsx';
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

type InvoiceFilter = NonNullable<VariablesOf<typeof InvoicesQuery>['filter']>;
type Status = NonNullable<InvoiceFilter['statuses']>[number];
const STATUSES: readonly Status[] = ['PENDING', 'EXPIRED', 'PAID', 'CANCELED'];

/** The list's filters and page, as the address's query string holds them. */
export interface ListState {
  search: string;
  statuses: Status[];
  paid: boolean | null;
  expired: boolean | null;
  dateAfter: string;
  dateBefore: string;
  hideCanceled: boolean;
  offset: number;
}

const flag = (v: string | null): boolean | null => (v === 'true' ? true : v === 'false' ? false : null);

/**
 * The state a query string names (REST names: search, status=PENDING,EXPIRED, paid, expired, dateAfter, dateBefore,
 * includeCanceled=false, offset). Dates go to the API as typed, which refuses a malformed one in words.
 */
export function listStateOf(q: URLSearchParams): ListState {
  const offset = Number(q.get('offset') ?? '0');
  return {
    search: q.get('search') ?? '',
    statuses: (q.get('status') ?? '').split(',').filter((s): s is Status => (STATUSES as readonly string[]).includes(s)),
    paid: flag(q.get('paid')),
    expired: flag(q.get('expired')),
    dateAfter: q.get('dateAfter') ?? '',
    dateBefore: q.get('dateBefore') ?? '',
    hideCanceled: q.get('includeCanceled') === 'false',
    offset: Number.isInteger(offset) && offset > 0 ? offset : 0,
  };
}

/** The query string of a state: only what narrows the list. */
export function queryOf(s: ListState): string {
  const q = new URLSearchParams();
  if (s.search) q.set('search', s.search);
  if (s.statuses.length) q.set('status', s.statuses.join(','));
  if (s.paid !== null) q.set('paid', String(s.paid));
  if (s.expired !== null) q.set('expired', String(s.expired));
  if (s.dateAfter) q.set('dateAfter', s.dateAfter);
  if (s.dateBefore) q.set('dateBefore', s.dateBefore);
  if (s.hideCanceled) q.set('includeCanceled', 'false');
  if (s.offset) q.set('offset', String(s.offset));
  const text = q.toString();
  return text ? `?${text}` : '';
}

/** The GraphQL filter of a state (invoicePage reads it as GET /v1/invoices and /v2/invoices read theirs). */
function filterOf(s: ListState): InvoiceFilter {
  return {
    search: s.search || null,
    statuses: s.statuses.length ? s.statuses : null,
    paid: s.paid,
    expired: s.expired,
    dateAfter: s.dateAfter || null,
    dateBefore: s.dateBefore || null,
    includeCanceled: !s.hideCanceled,
  };
}

const narrowed = (s: ListState) => queryOf({ ...s, offset: 0 }) !== '';

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
  const reread = useRef(refetch);
  reread.current = refetch;
  useEffect(() => {
    const again = () => reread.current({ requestPolicy: 'network-only' });
    // Connected (again): read the page once more, for what changed before the subscription was in place.
    return followInvoiceEvents(again, again);
  }, []);
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
