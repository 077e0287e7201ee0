/**
 * Deposits: the list with the API's filters (in the address, paged by the server, live), why each unmatched deposit
 * stayed so and its candidate invoices, matched by hand in one click; un-match, hide and unhide. Below it, the bank
 * texts no parser understood (/texts) and the account-history feeds (/feeds).
 */
import { useMutation, useQuery } from '@urql/preact';
import { useState } from 'preact/hooks';
import { graphql } from '../../graphql.ts';
import { kst, t, won, type Lang } from '../../i18n.ts';
import { navigate, onLink, useLocation } from '../../router.ts';
import type { ScreenProps } from '../../screens.ts';
import { ErrorNote, PAGE_SIZE, Pager, refusalOf } from '../../ui.tsx';
import { AccountsQuery, accountLabel } from './accounts.ts';
import BankTexts from './bank-texts.tsx';
import Feeds from './feeds.tsx';
import { BASE, filterOf, listAddress, reasonOf, SOURCES, unmatchRefusal } from './filters.ts';
import { useRereadOn } from '../../live.ts';
import { followDepositsReceived } from './live-deposits.ts';
import { w } from './words.ts';

const DepositsQuery = graphql(`
  query DashboardDeposits($offset: Int!, $limit: Int!, $filter: TransactionFilter) {
    transactionPage(offset: $offset, limit: $limit, filter: $filter) {
      totalItems
      items {
        id
        amount
        description
        receivedAt
        hidden
        verification
        source
        bankAccount { alias number }
        matchedInvoiceId
        matchedInvoice { number }
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

const UnmatchMutation = graphql(`
  mutation DashboardUnmatch($id: ID!) {
    unmatchTransaction(id: $id) {
      transaction { id matchedInvoiceId }
    }
  }
`);

const HideMutation = graphql(`
  mutation DashboardHideDeposit($id: ID!, $hidden: Boolean!) {
    setTransactionHidden(id: $id, hidden: $hidden) {
      transaction { id hidden }
    }
  }
`);

/** One <select> of the filter form: its options, the address's value selected (uncontrolled: typing is never undone). */
function Choice({ label, name, current, options }: { label: string; name: string; current: string; options: readonly (readonly [string, string])[] }) {
  return (
    <label>
      {label}
      <select name={name}>
        {options.map(([value, text]) => (
          <option key={value} value={value} selected={value === current}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
}

function Filters({ lang, params }: { lang: Lang; params: URLSearchParams }) {
  const [{ data: accounts }] = useQuery({ query: AccountsQuery });
  const submit = (e: Event) => {
    e.preventDefault();
    // The form's fields carry the API's names: the address is the form, minus the page (a new filter starts at 0).
    const form = new FormData(e.currentTarget as HTMLFormElement);
    navigate(listAddress(new URLSearchParams([...form].map(([k, v]) => [k, String(v)]))));
  };
  const value = (name: string) => params.get(name) ?? '';
  // Keyed by the address: going back or forward shows that address's filter in the fields.
  return (
    <form key={params.toString()} class="inline" aria-label={w(lang, 'filters')} onSubmit={submit}>
      <Choice
        label={w(lang, 'matchedFilter')}
        name="matched"
        current={value('matched')}
        options={[
          ['', w(lang, 'any')],
          ['true', w(lang, 'matchedOnly')],
          ['false', w(lang, 'unmatchedOnly')],
        ]}
      />
      <Choice
        label={w(lang, 'hiddenFilter')}
        name="hidden"
        current={value('hidden') || 'false'}
        options={[
          ['false', w(lang, 'shownOnly')],
          ['true', w(lang, 'hiddenOnly')],
          ['all', w(lang, 'any')],
        ]}
      />
      <Choice
        label={w(lang, 'account')}
        name="bankAccountId"
        current={value('bankAccountId')}
        options={[['', w(lang, 'allAccounts')], ...(accounts?.bankAccounts ?? []).map((a) => [a.id, accountLabel(accounts?.bankAccounts, a.id)] as const)]}
      />
      <label>
        {w(lang, 'dateAfter')}
        <input type="date" name="dateAfter" defaultValue={value('dateAfter')} />
      </label>
      <label>
        {w(lang, 'dateBefore')}
        <input type="date" name="dateBefore" defaultValue={value('dateBefore')} />
      </label>
      <label>
        {w(lang, 'search')}
        <input type="search" name="search" defaultValue={value('search')} />
      </label>
      <label>
        {w(lang, 'amountFilter')}
        <input type="text" inputMode="numeric" name="amount" defaultValue={value('amount')} />
      </label>
      <Choice label={w(lang, 'source')} name="source" current={value('source')} options={[['', w(lang, 'anySource')], ...SOURCES.map((s) => [s, w(lang, s)] as const)]} />
      <button type="submit">{w(lang, 'apply')}</button>
      <a href={BASE} onClick={onLink(BASE)}>
        {w(lang, 'clear')}
      </a>
    </form>
  );
}

function DepositList({ lang }: { lang: Lang }) {
  const { search: params } = useLocation();
  const { filter, offset, problem } = filterOf(params);
  const [{ data, fetching, error: readError }, refetch] = useQuery({ query: DepositsQuery, variables: { offset, limit: PAGE_SIZE, filter }, pause: problem !== null });
  const [, match] = useMutation(MatchMutation);
  const [, unmatch] = useMutation(UnmatchMutation);
  const [, setHidden] = useMutation(HideMutation);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  // A deposit stored anywhere (bank notification, text, history) reads the page shown again: one subscription for the
  // list's lifetime, whatever filter or page it shows.
  useRereadOn((again) => followDepositsReceived(again, again), refetch, fetching);
  const after = (message: string | null, failure: string | null) => {
    setDone(message);
    setError(failure);
    refetch({ requestPolicy: 'network-only' });
  };
  const matchTo = async (transactionId: string, invoiceId: string) => {
    setError(null);
    const r = await match({ input: { transactionId, invoiceId } });
    after(null, r.error ? `${t(lang, 'matchFailed')}: ${r.error.graphQLErrors[0]?.message ?? r.error.message}` : null);
  };
  const unmatchOne = async (id: string) => {
    const r = await unmatch({ id });
    const refusal = refusalOf(r);
    after(refusal ? null : w(lang, 'unmatched'), refusal ? `${w(lang, 'unmatchFailed')}: ${unmatchRefusal(lang, refusal, r.error?.graphQLErrors[0]?.extensions?.data)}` : null);
  };
  const hideOne = async (id: string, hidden: boolean) => {
    const refusal = refusalOf(await setHidden({ id, hidden }));
    after(null, refusal ? `${w(lang, 'hideFailed')}: ${refusal.message} (${refusal.code})` : null);
  };
  const page = problem ? undefined : data?.transactionPage;
  const toPage = (next: number) => {
    const p = new URLSearchParams(params);
    p.set('offset', String(next));
    navigate(listAddress(p));
  };
  return (
    <>
      <Filters lang={lang} params={params} />
      <p class="hint deposits-live">{w(lang, 'live')}</p>
      {problem && (
        <p role="alert" class="error">
          {w(lang, problem)}
        </p>
      )}
      <ErrorNote lang={lang} refusal={readError ? refusalOf({ error: readError }) : null} prefix={w(lang, 'listFailed')} />
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {done && <p role="status">{done}</p>}
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
              <th scope="col">{w(lang, 'account')}</th>
              <th scope="col">{w(lang, 'source')}</th>
              <th scope="col">{t(lang, 'match')}</th>
              <th scope="col">{w(lang, 'actions')}</th>
            </tr>
          </thead>
          <tbody>
            {page.items.map((d) => {
              const what = `${d.description} ${won(lang, d.amount)} ${kst(d.receivedAt)}`;
              return (
                <tr key={d.id} data-transaction-id={d.id}>
                  <td>
                    {d.description}
                    {d.hidden && ` (${w(lang, 'hiddenMark')})`}
                  </td>
                  <td class="num">{won(lang, d.amount)}</td>
                  <td>{kst(d.receivedAt)}</td>
                  <td>{d.bankAccount.alias || d.bankAccount.number}</td>
                  <td>{w(lang, d.source)}</td>
                  <td data-matched={d.matchedInvoiceId ? 'true' : 'false'}>
                    {d.verification ? (
                      w(lang, 'verification')
                    ) : d.matchedInvoiceId ? (
                      `${t(lang, 'matched')} (${d.matchMethod})${d.matchedInvoice ? ` #${d.matchedInvoice.number}` : ''}`
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
                  <td>
                    <div class="candidates">
                      {d.matchedInvoiceId && (
                        <button type="button" aria-label={`${w(lang, 'unmatch')}: ${what}`} onClick={() => unmatchOne(d.id)}>
                          {w(lang, 'unmatch')}
                        </button>
                      )}
                      <button type="button" aria-label={`${w(lang, d.hidden ? 'unhide' : 'hide')}: ${what}`} onClick={() => hideOne(d.id, !d.hidden)}>
                        {w(lang, d.hidden ? 'unhide' : 'hide')}
                      </button>
                    </div>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {page && <Pager lang={lang} label={t(lang, 'deposits')} offset={offset} total={page.totalItems} onOffset={toPage} />}
    </>
  );
}

/** The screen's own pages: the list, the bank texts, the feeds. */
const PAGES = [
  { rest: '', word: 'list' },
  { rest: '/texts', word: 'texts' },
  { rest: '/feeds', word: 'feeds' },
] as const;

export default function DepositsScreen({ lang, rest }: ScreenProps) {
  const current = PAGES.find((p) => p.rest === rest);
  return (
    <section aria-labelledby="deposits-title">
      <h2 id="deposits-title">{t(lang, 'deposits')}</h2>
      <nav aria-label={w(lang, 'pages')} class="sections">
        {PAGES.map((p) => (
          <a key={p.rest} href={BASE + p.rest} aria-current={p === current ? 'page' : undefined} onClick={onLink(BASE + p.rest)}>
            {w(lang, p.word)}
          </a>
        ))}
      </nav>
      {!current && <p role="alert">{t(lang, 'notFound')}</p>}
      {current?.rest === '' && <DepositList lang={lang} />}
      {current?.rest === '/texts' && <BankTexts lang={lang} />}
      {current?.rest === '/feeds' && <Feeds lang={lang} />}
    </section>
  );
}
