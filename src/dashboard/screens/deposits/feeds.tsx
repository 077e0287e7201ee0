/**
 * The account-history feeds (README, "Account history"): each account's history read through an aggregator at
 * intervals, so a deposit whose text the phone lost is still found. Where each stands (a feed the aggregator refused for
 * good NEEDS_ATTENTION, with why), paused, resumed, polled now, disconnected; an account connected through one of the
 * aggregators this service offers.
 */
import { useMutation, useQuery } from '@urql/preact';
import { useState } from 'preact/hooks';
import { graphql, type ResultOf } from '../../graphql.ts';
import { kst, t, type Lang } from '../../i18n.ts';
import { refusalOf, type Refusal } from '../../ui.tsx';
import { AccountsQuery, accountLabel } from './accounts.ts';
import { fill, w } from './words.ts';

const FeedsQuery = graphql(`
  query DashboardHistoryFeeds {
    historyFeeds { id bankAccountId aggregator state lastPolledAt nextPollAt lastRows lastNew lastError }
    historyAggregators
  }
`);

const ConnectMutation = graphql(`
  mutation DashboardConnectFeed($input: ConnectHistoryFeedInput!) {
    connectHistoryFeed(input: $input) {
      __typename
      ... on HistoryFeedPayload { feed { id state } }
      ... on DomainError { code message }
    }
  }
`);

const PauseMutation = graphql(`
  mutation DashboardPauseFeed($id: ID!) {
    pauseHistoryFeed(id: $id) {
      __typename
      ... on HistoryFeedPayload { feed { id state } }
      ... on DomainError { code message }
    }
  }
`);

const ResumeMutation = graphql(`
  mutation DashboardResumeFeed($id: ID!) {
    resumeHistoryFeed(id: $id) {
      __typename
      ... on HistoryFeedPayload { feed { id state } }
      ... on DomainError { code message }
    }
  }
`);

const PollMutation = graphql(`
  mutation DashboardPollFeed($id: ID!) {
    pollHistoryNow(feedId: $id) {
      __typename
      ... on HistoryPollPayload { rows created feed { id lastPolledAt } }
      ... on DomainError { code message }
    }
  }
`);

const DisconnectMutation = graphql(`
  mutation DashboardDisconnectFeed($id: ID!) {
    disconnectHistoryFeed(id: $id) {
      __typename
      ... on HistoryFeedPayload { feed { id } }
      ... on DomainError { code message }
    }
  }
`);

type Aggregator = ResultOf<typeof FeedsQuery>['historyAggregators'][number];

export default function Feeds({ lang }: { lang: Lang }) {
  const [{ data, fetching }, refetch] = useQuery({ query: FeedsQuery, requestPolicy: 'cache-and-network' });
  const [{ data: accounts }] = useQuery({ query: AccountsQuery });
  const [, connect] = useMutation(ConnectMutation);
  const [, pause] = useMutation(PauseMutation);
  const [, resume] = useMutation(ResumeMutation);
  const [, poll] = useMutation(PollMutation);
  const [, disconnect] = useMutation(DisconnectMutation);
  const [done, setDone] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  /** Shows what an action did (or why it was refused) and reads the feeds again. */
  const after = (refusal: Refusal | null, message: string) => {
    setDone(refusal ? null : message);
    setFailure(refusal ? `${w(lang, 'feedFailed')}: ${refusal.message} (${refusal.code})` : null);
    refetch({ requestPolicy: 'network-only' });
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const aggregator = String(form.get('aggregator')) as Aggregator;
    const r = await connect({ input: { bankAccountId: String(form.get('bankAccountId')), aggregator } });
    after(refusalOf(r, 'connectHistoryFeed'), w(lang, 'connected'));
  };
  const pollNow = async (id: string) => {
    const r = await poll({ id });
    const result = r.data?.pollHistoryNow;
    after(refusalOf(r, 'pollHistoryNow'), result?.__typename === 'HistoryPollPayload' ? fill(w(lang, 'polled'), { rows: result.rows, created: result.created }) : '');
  };
  const feeds = data?.historyFeeds;
  const usable = accounts?.bankAccounts.filter((a) => a.active) ?? [];
  return (
    <section aria-labelledby="feeds-title">
      <h3 id="feeds-title">{w(lang, 'feeds')}</h3>
      <p class="hint">{w(lang, 'feedsIntro')}</p>
      {done && <p role="status">{done}</p>}
      {failure && (
        <p role="alert" class="error">
          {failure}
        </p>
      )}
      {!feeds && fetching && <p>{t(lang, 'loading')}</p>}
      {feeds && feeds.length === 0 && <p>{w(lang, 'noFeeds')}</p>}
      {feeds && feeds.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">{w(lang, 'account')}</th>
              <th scope="col">{w(lang, 'aggregator')}</th>
              <th scope="col">{w(lang, 'state')}</th>
              <th scope="col">{w(lang, 'lastPoll')}</th>
              <th scope="col">{w(lang, 'nextPoll')}</th>
              <th scope="col">{w(lang, 'lastResult')}</th>
              <th scope="col">{w(lang, 'actions')}</th>
            </tr>
          </thead>
          <tbody>
            {feeds.map((f) => {
              const account = accountLabel(accounts?.bankAccounts, f.bankAccountId);
              return (
                <tr key={f.id} data-feed-id={f.id}>
                  <th scope="row">{account}</th>
                  <td>{w(lang, f.aggregator)}</td>
                  <td data-state={f.state}>
                    {w(lang, f.state)}
                    {f.state === 'NEEDS_ATTENTION' && <p class="error">{fill(w(lang, 'needsAttention'), { error: f.lastError ?? '' })}</p>}
                  </td>
                  <td>{f.lastPolledAt ? kst(f.lastPolledAt) : w(lang, 'never')}</td>
                  <td>{f.nextPollAt ? kst(f.nextPollAt) : '—'}</td>
                  <td>
                    {f.lastPolledAt && fill(w(lang, 'rowsNew'), { rows: f.lastRows, created: f.lastNew })}
                    {f.lastError && f.state !== 'NEEDS_ATTENTION' && <p class="error">{fill(w(lang, 'lastError'), { error: f.lastError })}</p>}
                  </td>
                  <td>
                    <div class="candidates">
                      {f.state === 'ACTIVE' ? (
                        <button type="button" aria-label={`${w(lang, 'pause')}: ${account}`} onClick={async () => after(refusalOf(await pause({ id: f.id }), 'pauseHistoryFeed'), w(lang, 'PAUSED'))}>
                          {w(lang, 'pause')}
                        </button>
                      ) : (
                        <button type="button" aria-label={`${w(lang, 'resume')}: ${account}`} onClick={async () => after(refusalOf(await resume({ id: f.id }), 'resumeHistoryFeed'), w(lang, 'ACTIVE'))}>
                          {w(lang, 'resume')}
                        </button>
                      )}
                      <button type="button" aria-label={`${w(lang, 'pollNow')}: ${account}`} disabled={f.state !== 'ACTIVE'} onClick={() => pollNow(f.id)}>
                        {w(lang, 'pollNow')}
                      </button>
                      <button
                        type="button"
                        aria-label={`${w(lang, 'disconnect')}: ${account}`}
                        onClick={async () => after(refusalOf(await disconnect({ id: f.id }), 'disconnectHistoryFeed'), w(lang, 'disconnected'))}
                      >
                        {w(lang, 'disconnect')}
                      </button>
                    </div>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <h4 id="connect-feed-title">{w(lang, 'connect')}</h4>
      {accounts && usable.length === 0 ? (
        <p>{w(lang, 'noAccounts')}</p>
      ) : (
        <form class="inline" aria-labelledby="connect-feed-title" onSubmit={submit}>
          <label>
            {w(lang, 'account')}
            <select name="bankAccountId" required>
              {usable.map((a) => (
                <option key={a.id} value={a.id}>
                  {accountLabel(usable, a.id)}
                </option>
              ))}
            </select>
          </label>
          <label>
            {w(lang, 'aggregator')}
            <select name="aggregator" required>
              {(data?.historyAggregators ?? []).map((name) => (
                <option key={name} value={name}>
                  {w(lang, name)}
                </option>
              ))}
            </select>
          </label>
          <button type="submit">{w(lang, 'connectButton')}</button>
        </form>
      )}
    </section>
  );
}
