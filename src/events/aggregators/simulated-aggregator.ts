/**
 * The simulated aggregator (README, "Account history"; documented like the simulated shop and agency): an account
 * history that lives in this service's database, for the tour and the tests. Each feed of the simulated aggregator has
 * its own ledger (SimulatedHistoryRow), written only by `simulateHistoryDeposit` for that feed, so no workspace can see
 * or feed another's. A listing returns the ledger's rows booked in the window's Korean days, oldest first, as
 * Popbill's Search does.
 */
import { kstDayStart } from '../../domain/dates.ts';
import type { SqlAccess } from '../../domain/deps.ts';
import { AggregatorError, type AggregatorAdapter, type HistoryRow } from '../../domain/deposits/history/aggregator-port.ts';

export function simulatedAggregator(sql: SqlAccess): AggregatorAdapter {
  return {
    name: 'SIMULATED',
    async listDeposits(account, window) {
      const from = kstDayStart(window.from);
      const to = kstDayStart(window.to);
      if (!from || !to) throw new AggregatorError('BAD_WINDOW', `The window ${window.from}..${window.to} is not two dates.`, { retryable: false });
      const rows = await sql.query<{ rowId: string; occurredAt: Date; amount: number; depositorName: string; balanceAfter: number | null }>(
        `SELECT "rowId", "occurredAt", amount, "depositorName", "balanceAfter" FROM "SimulatedHistoryRow"
          WHERE "feedId" = $1 AND "occurredAt" >= $2::timestamptz AND "occurredAt" < $3::timestamptz ORDER BY "occurredAt", "rowId"`,
        [account.feedId, from.toISOString(), new Date(to.getTime() + 86_400_000).toISOString()],
      );
      return rows.map(
        (r): HistoryRow => ({
          rowId: r.rowId,
          occurredAt: new Date(r.occurredAt),
          amount: r.amount,
          depositorName: r.depositorName,
          balanceAfter: r.balanceAfter === null ? null : Number(r.balanceAfter),
        }),
      );
    },
  };
}
