/**
 * Reconciliation: the last 30 Korean days of deposits as a chart (received, matched automatically, matched by hand,
 * unmatched, with their amounts), all accounts or one, from the API's depositReconciliation; the same figures as a
 * table; and the CSV export of invoices, deposits and cash receipts for a range of days.
 */
import { useQuery } from '@urql/preact';
import { useMemo, useState } from 'preact/hooks';
import { graphql } from '../../graphql.ts';
import { t, type Lang } from '../../i18n.ts';
import type { ScreenProps } from '../../screens.ts';
import { ErrorNote, refusalOf } from '../../ui.tsx';
import { DayChart, DayTable, type Measure } from './chart.tsx';
import { figuresByDay, lastDays } from './days.ts';
import { ExportForm } from './export.tsx';
import { w } from './words.ts';

const AccountsQuery = graphql(`
  query DashboardReconciliationAccounts {
    bankAccounts { id alias number }
  }
`);

const ReconciliationQuery = graphql(`
  query DashboardReconciliation($dateAfter: String!, $dateBefore: String!, $bankAccountId: ID) {
    depositReconciliation(dateAfter: $dateAfter, dateBefore: $dateBefore, bankAccountId: $bankAccountId) {
      date
      bankAccountId
      deposits { count amount }
      matchedAutomatically { count amount }
      matchedByHand { count amount }
      unmatched { count amount }
    }
  }
`);

function DayView({ lang }: { lang: Lang }) {
  // The 30 days end today in Korea, whatever the browser's zone; fixed while the screen is open.
  const days = useMemo(() => lastDays(new Date()), []);
  const [account, setAccount] = useState('');
  const [measure, setMeasure] = useState<Measure>('count');
  const [accounts] = useQuery({ query: AccountsQuery });
  const [result] = useQuery({
    query: ReconciliationQuery,
    variables: { dateAfter: days[0]!, dateBefore: days[days.length - 1]!, bankAccountId: account || null },
  });
  const figures = useMemo(() => (result.data ? figuresByDay(days, result.data.depositReconciliation) : null), [days, result.data]);
  return (
    <section aria-labelledby="recon-chart-title">
      <h3 id="recon-chart-title">{w(lang, 'chartTitle')}</h3>
      <div class="recon-controls">
        <label>
          {w(lang, 'account')}
          <select value={account} onChange={(e) => setAccount((e.currentTarget as HTMLSelectElement).value)}>
            <option value="">{w(lang, 'allAccounts')}</option>
            {accounts.data?.bankAccounts.map((a) => (
              <option key={a.id} value={a.id}>
                {a.alias} ({a.number})
              </option>
            ))}
          </select>
        </label>
        <label>
          {w(lang, 'measure')}
          <select value={measure} onChange={(e) => setMeasure((e.currentTarget as HTMLSelectElement).value as Measure)}>
            <option value="count">{w(lang, 'byCount')}</option>
            <option value="amount">{w(lang, 'byAmount')}</option>
          </select>
        </label>
      </div>
      <ErrorNote lang={lang} refusal={refusalOf(result) ?? refusalOf(accounts)} />
      {!figures && result.fetching && <p>{t(lang, 'loading')}</p>}
      {figures && (
        <>
          <DayChart lang={lang} days={figures} measure={measure} />
          {figures.every((d) => d.deposits.count === 0) && <p>{w(lang, 'noDeposits')}</p>}
          <DayTable lang={lang} days={figures} />
        </>
      )}
    </section>
  );
}

export default function ReconciliationScreen({ lang }: ScreenProps) {
  return (
    <section aria-labelledby="screen-title">
      <h2 id="screen-title">{t(lang, 'reconciliation')}</h2>
      <DayView lang={lang} />
      <ExportForm lang={lang} />
    </section>
  );
}
