/**
 * The deposit reconciliation (README, "Reconciliation"): per Korean day and receiving account, how the deposits
 * arrived and what became of them — the figures a merchant checks against the bank statement, and the dashboard
 * charts. A day is the Korean calendar day of the deposit's time per the bank (receivedAt); 1-won verification
 * deposits and deleted deposits are not counted.
 *
 * - `notified`: arrived by the bank notification feed (POST /bank-notifications).
 * - `announcedByText`: a forwarded text announced it (first, or after the history found it).
 * - `foundByPolling`: the polled history listed it; `polledOnly`: the history found it and no text ever announced it
 *   (the texts the phone lost, repaired by polling).
 * - `matchedAutomatically` (EXACT, BRACKET_REMOVAL, NAME_PREFIX), `matchedByHand` (MANUAL: the dashboard or the API),
 *   `unmatched`.
 * Each is a count and a sum of won.
 */
import type { Principal } from '../auth/principal.ts';
import { requirePrincipal } from '../auth/rules.ts';
import { kstDayStart } from '../dates.ts';
import type { Deps } from '../deps.ts';
import { DomainError } from '../errors.ts';

/** The longest range one query covers (a quarter). */
export const RECONCILIATION_MAX_DAYS = 92;

export interface Tally {
  count: number;
  amount: number;
}

export interface ReconciliationDay {
  date: string;
  bankAccountId: string;
  deposits: Tally;
  notified: Tally;
  announcedByText: Tally;
  foundByPolling: Tally;
  polledOnly: Tally;
  matchedAutomatically: Tally;
  matchedByHand: Tally;
  unmatched: Tally;
}

const BUCKETS = {
  deposits: 'true',
  notified: `source = 'NOTIFICATION'`,
  announcedByText: `"textAnnouncedAt" IS NOT NULL`,
  foundByPolling: `"historySeenAt" IS NOT NULL`,
  polledOnly: `"historySeenAt" IS NOT NULL AND "textAnnouncedAt" IS NULL AND source = 'HISTORY'`,
  matchedAutomatically: `"matchedInvoiceId" IS NOT NULL AND "matchMethod" <> 'MANUAL'`,
  matchedByHand: `"matchedInvoiceId" IS NOT NULL AND "matchMethod" = 'MANUAL'`,
  unmatched: `"matchedInvoiceId" IS NULL`,
} as const satisfies Record<Exclude<keyof ReconciliationDay, 'date' | 'bankAccountId'>, string>;

/**
 * depositReconciliation: the days from `dateAfter` to `dateBefore` (KST, inclusive, at most RECONCILIATION_MAX_DAYS),
 * optionally of one account; a key limited to some accounts sees those (OUT_OF_SCOPE for another account). Days without
 * deposits are left out; newest
 * day first, then by account.
 */
export async function depositReconciliation(
  deps: Deps,
  principal: Principal | null,
  args: { dateAfter: string; dateBefore: string; bankAccountId?: string | null },
): Promise<ReconciliationDay[]> {
  const p = requirePrincipal(principal);
  const from = kstDayStart(args.dateAfter);
  const to = kstDayStart(args.dateBefore);
  if (!from || !to) throw new DomainError('INVALID_DATE_RANGE_FORMAT', { path: [from ? 'dateBefore' : 'dateAfter'] });
  const days = (to.getTime() - from.getTime()) / 86_400_000 + 1;
  if (days < 1) throw new DomainError('VALIDATION_FAILED', { message: 'dateAfter must not be after dateBefore.', path: ['dateAfter'] });
  if (days > RECONCILIATION_MAX_DAYS) throw new DomainError('VALIDATION_FAILED', { message: `The range may cover at most ${RECONCILIATION_MAX_DAYS} days.`, path: ['dateBefore'] });
  const accounts = p.bankAccountIds === null ? null : [...p.bankAccountIds];
  // A filter outside a limited key's accounts is refused, as the deposit lists refuse it (transaction-reads.ts).
  if (args.bankAccountId != null && accounts !== null && !accounts.includes(args.bankAccountId)) throw new DomainError('OUT_OF_SCOPE', { path: ['bankAccountId'] });
  const columns = Object.entries(BUCKETS)
    .map(([name, when]) => `count(*) FILTER (WHERE ${when})::int AS "${name}Count", coalesce(sum(amount) FILTER (WHERE ${when}), 0)::float8 AS "${name}Amount"`)
    .join(',\n            ');
  const rows = await deps.sql.query<Record<string, unknown> & { date: string; bankAccountId: string }>(
    `SELECT to_char((("receivedAt" AT TIME ZONE 'UTC') + interval '9 hours')::date, 'YYYY-MM-DD') AS date, "bankAccountId",
            ${columns}
       FROM "Transaction"
      WHERE "workspaceId" = $1 AND "deletedAt" IS NULL AND verification = false
        AND "receivedAt" >= $2::timestamptz AND "receivedAt" < $3::timestamptz
        AND ($4::text IS NULL OR "bankAccountId" = $4) AND ($5::text[] IS NULL OR "bankAccountId" = ANY($5::text[]))
      GROUP BY 1, 2
      ORDER BY 1 DESC, 2`,
    [p.workspaceId, from.toISOString(), new Date(to.getTime() + 86_400_000).toISOString(), args.bankAccountId ?? null, accounts],
  );
  return rows.map((r) => {
    const day = { date: r.date, bankAccountId: r.bankAccountId } as ReconciliationDay;
    for (const name of Object.keys(BUCKETS) as (keyof typeof BUCKETS)[]) day[name] = { count: Number(r[`${name}Count`]), amount: Number(r[`${name}Amount`]) };
    return day;
  });
}
