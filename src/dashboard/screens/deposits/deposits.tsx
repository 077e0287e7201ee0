/** Deposits: why each unmatched deposit stayed so, its candidate invoices, matched by hand in one click. */
import { useMutation, useQuery } from '@urql/preact';
import { useState } from 'preact/hooks';
import { graphql } from '../../graphql.ts';
import { kst, t, won, type Lang } from '../../i18n.ts';
import type { ScreenProps } from '../../screens.ts';
import { PAGE_SIZE, Pager } from '../../ui.tsx';

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


export default function DepositsScreen({ lang }: ScreenProps) {
  return <Deposits lang={lang} />;
}
