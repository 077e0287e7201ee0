/**
 * The merchant dashboard (README, "The dashboard"): a web app over this service's GraphQL API, served at /dashboard.
 * This first screen set: log in, the invoice list (server-side paging), log out, Korean or English.
 */
import './styles.css';
import { Provider, useMutation, useQuery } from '@urql/preact';
import { render } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { dashboardClient, logIn, logOut } from './client.ts';
import { graphql } from './graphql.ts';
import { keepLang, kst, storedLang, t, won, type Lang } from './i18n.ts';
import { followInvoiceEvents } from './live.ts';

const ViewerQuery = graphql(`
  query DashboardViewer {
    viewer {
      kind
      account { email name }
      workspace { name }
    }
  }
`);

const InvoicesQuery = graphql(`
  query DashboardInvoices($offset: Int!, $limit: Int!) {
    invoicePage(offset: $offset, limit: $limit) {
      totalItems
      items { id number status amount createdAt customer { name } }
    }
  }
`);

const DepositsQuery = graphql(`
  query DashboardDeposits($offset: Int!, $limit: Int!) {
    transactionPage(offset: $offset, limit: $limit) {
      totalItems
      items {
        id
        amount
        description
        receivedAt
        matchedInvoiceId
        matchMethod
        matchNote
        matchCandidates { id number status amount customer { name } }
      }
    }
  }
`);

const MatchMutation = graphql(`
  mutation DashboardMatch($input: MatchTransactionInput!) {
    matchTransaction(input: $input) {
      transaction { id matchedInvoiceId matchMethod }
    }
  }
`);

const PAGE_SIZE = 20;

type Section = 'invoices' | 'deposits';

/** The section a path under /dashboard names (the app routes in the browser). */
function sectionOf(path: string): Section {
  return path.startsWith('/dashboard/deposits') ? 'deposits' : 'invoices';
}

/** A list's paging: how many in all, the previous and the next page (PAGE_SIZE each, read by the server). */
function Pager({ lang, label, offset, total, onOffset }: { lang: Lang; label: string; offset: number; total: number; onOffset: (offset: number) => void }) {
  return (
    <nav aria-label={label} class="pager">
      <span>
        {t(lang, 'total')} {total}
      </span>
      <button type="button" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - PAGE_SIZE))}>
        {t(lang, 'previous')}
      </button>
      <button type="button" disabled={offset + PAGE_SIZE >= total} onClick={() => onOffset(offset + PAGE_SIZE)}>
        {t(lang, 'next')}
      </button>
    </nav>
  );
}

function LoginForm({ lang, onDone }: { lang: Lang; onDone: () => void }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    setBusy(true);
    const r = await logIn(String(form.get('email') ?? ''), String(form.get('password') ?? ''));
    setBusy(false);
    if (r.ok) onDone();
    else setError(t(lang, r.code === 'TOO_MANY_REQUESTS' ? 'tooManyAttempts' : 'loginFailed'));
  };
  return (
    <form class="card" onSubmit={submit} aria-labelledby="login-title">
      <h1 id="login-title">{t(lang, 'title')}</h1>
      <label>
        {t(lang, 'email')}
        <input name="email" type="email" autocomplete="username" required />
      </label>
      <label>
        {t(lang, 'password')}
        <input name="password" type="password" autocomplete="current-password" required />
      </label>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <button type="submit" disabled={busy}>
        {t(lang, 'logIn')}
      </button>
    </form>
  );
}

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

/** Why an unmatched deposit stayed so, in words (the match note's reason), or nothing when it names none. */
function reasonOf(lang: Lang, note: unknown): string {
  const reason = (note as { reason?: unknown } | null)?.reason;
  return reason === 'AMBIGUOUS' || reason === 'TOO_MANY_CANDIDATES' || reason === 'ALREADY_PAID' ? t(lang, reason) : '';
}

function Deposits({ lang }: { lang: Lang }) {
  const [offset, setOffset] = useState(0);
  const [{ data, fetching }, refetch] = useQuery({ query: DepositsQuery, variables: { offset, limit: PAGE_SIZE } });
  const [, match] = useMutation(MatchMutation);
  const [error, setError] = useState<string | null>(null);
  const matchTo = async (transactionId: string, invoiceId: string) => {
    setError(null);
    const r = await match({ input: { transactionId, invoiceId } });
    if (r.error) setError(`${t(lang, 'matchFailed')}: ${r.error.graphQLErrors[0]?.message ?? r.error.message}`);
    refetch({ requestPolicy: 'network-only' });
  };
  const page = data?.transactionPage;
  return (
    <section aria-labelledby="deposits-title">
      <h2 id="deposits-title">{t(lang, 'deposits')}</h2>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {!page && fetching && <p>{t(lang, 'loading')}</p>}
      {page && page.items.length === 0 && <p>{t(lang, 'noDeposits')}</p>}
      {page && page.items.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">{t(lang, 'depositor')}</th>
              <th scope="col" class="num">
                {t(lang, 'amount')}
              </th>
              <th scope="col">{t(lang, 'receivedAt')}</th>
              <th scope="col">{t(lang, 'match')}</th>
            </tr>
          </thead>
          <tbody>
            {page.items.map((d) => (
              <tr key={d.id} data-transaction-id={d.id}>
                <td>{d.description}</td>
                <td class="num">{won(lang, d.amount)}</td>
                <td>{kst(d.receivedAt)}</td>
                <td data-matched={d.matchedInvoiceId ? 'true' : 'false'}>
                  {d.matchedInvoiceId ? (
                    `${t(lang, 'matched')} (${d.matchMethod})`
                  ) : (
                    <div class="candidates">
                      <span>
                        {t(lang, 'unmatched')} {reasonOf(lang, d.matchNote)}
                      </span>
                      {d.matchCandidates
                        .filter((c) => c.status === 'PENDING' || c.status === 'EXPIRED')
                        .map((c) => (
                          <button
                            type="button"
                            key={c.id}
                            data-candidate-id={c.id}
                            aria-label={`${t(lang, 'matchTo')}: #${c.number} ${c.customer.name} ${won(lang, c.amount)}`}
                            onClick={() => matchTo(d.id, c.id)}
                          >
                            #{c.number} {c.customer.name}
                          </button>
                        ))}
                    </div>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {page && <Pager lang={lang} label={t(lang, 'deposits')} offset={offset} total={page.totalItems} onOffset={setOffset} />}
    </section>
  );
}

function App() {
  const [lang, setLang] = useState<Lang>(storedLang());
  const [session, setSession] = useState(0);
  const client = useMemo(() => dashboardClient(), [session]);
  const chooseLang = (l: Lang) => {
    keepLang(l);
    setLang(l);
    document.documentElement.lang = l;
  };
  return (
    <Provider value={client}>
      <header>
        <span class="brand">{t(lang, 'title')}</span>
        <label class="lang">
          {t(lang, 'language')}
          <select value={lang} onChange={(e) => chooseLang((e.currentTarget as HTMLSelectElement).value as Lang)}>
            <option value="ko">한국어</option>
            <option value="en">English</option>
          </select>
        </label>
      </header>
      <Signed lang={lang} onSession={() => setSession((n) => n + 1)} />
    </Provider>
  );
}

function Signed({ lang, onSession }: { lang: Lang; onSession: () => void }) {
  const [{ data, error, fetching }] = useQuery({ query: ViewerQuery });
  if (fetching && !data) return <p>{t(lang, 'loading')}</p>;
  if (!data?.viewer || error) return <main><LoginForm lang={lang} onDone={onSession} /></main>;
  const out = async () => {
    await logOut();
    onSession();
  };
  return (
    <main>
      <p class="who">
        {data.viewer.workspace.name} · {data.viewer.account?.email}{' '}
        <button type="button" onClick={out}>
          {t(lang, 'logOut')}
        </button>
      </p>
      <Sections lang={lang} />
    </main>
  );
}

function Sections({ lang }: { lang: Lang }) {
  const [section, setSection] = useState<Section>(sectionOf(location.pathname));
  useEffect(() => {
    const back = () => setSection(sectionOf(location.pathname));
    addEventListener('popstate', back);
    return () => removeEventListener('popstate', back);
  }, []);
  const go = (s: Section) => (e: Event) => {
    e.preventDefault();
    history.pushState(null, '', s === 'invoices' ? '/dashboard' : `/dashboard/${s}`);
    setSection(s);
  };
  return (
    <>
      <nav aria-label={t(lang, 'sections')} class="sections">
        <a href="/dashboard" aria-current={section === 'invoices' ? 'page' : undefined} onClick={go('invoices')}>
          {t(lang, 'invoices')}
        </a>
        <a href="/dashboard/deposits" aria-current={section === 'deposits' ? 'page' : undefined} onClick={go('deposits')}>
          {t(lang, 'deposits')}
        </a>
      </nav>
      {section === 'invoices' ? <Invoices lang={lang} /> : <Deposits lang={lang} />}
    </>
  );
}

document.documentElement.lang = storedLang();
render(<App />, document.getElementById('app')!);
