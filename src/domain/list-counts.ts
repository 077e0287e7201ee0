/**
 * The exact number of rows a list filter matches, from the counts kept per workspace (ListCount, kept by triggers in
 * the same transaction as every change of a row: prisma/migrations/*_list_counts) instead of counting the rows.
 *
 * The list's own WHERE clause is evaluated on "pseudo-rows" made of the counter rows: each counter row stands for the
 * rows of one cell (an invoice's status, receiving accounts and UTC day of expiry; a deposit's account, matched and
 * hidden; a receipt's status and type) and carries those columns under the table's column names, so the clause the
 * list built for the rows ("workspaceId", status, "expiresAt", "bankAccountIds", "deletedAt", hidden, ...) selects the
 * cells it selects the rows of. A list may use this only when its clause names no other column (no search, no dates).
 *
 * An invoice's EXPIRED depends on the time: a day's cell stands for its rows by the start of that day, which is on the
 * same side of `now` as every expiry of that day, except for today's (the day `now` falls on). Today's invoices are
 * counted from the rows (index on workspaceId, expiresAt), in the same statement, so the sum is of one snapshot.
 *
 * Days long past all read alike (expired), so foldPastExpiryDays merges their cells into one per status and accounts,
 * dated -infinity: a workspace's invoice counters are then its future days, the last two, and a handful, not a row
 * per day of its history (two years of invoices: ~4,500 rows to sum per count, 6 ms; folded ~110). The triggers know
 * nothing of it: a later change of an invoice of a folded day bumps that day's cell again (re-created, maybe
 * negative), which reads as past like the folded one, and is folded at the next run. So the sums stay exact whatever
 * the order.
 */
import type { SqlAccess } from './deps.ts';

/** The tables listed by pageOfIds (workspace-rows.ts; the name is written into the SQL, so only these). */
export type ListedTable = 'Invoice' | 'Transaction' | 'CashReceipt';

/** Each list's cells as rows with the table's column names (`n` rows each). */
const PSEUDO_ROWS: Record<ListedTable, string> = {
  Invoice: `SELECT n, "workspaceId", k1 AS status, CASE WHEN k2 = '' THEN '{}'::text[] ELSE string_to_array(k2, ',') END AS "bankAccountIds",
                   CASE WHEN "expiryDay" = 'infinity' THEN NULL ELSE "expiryDay" END AS "expiresAt"
              FROM "ListCount" WHERE list = 'Invoice'`,
  Transaction: `SELECT n, "workspaceId", k1 AS "bankAccountId", CASE WHEN k2 LIKE 'M%' THEN '' END AS "matchedInvoiceId", k2 LIKE '%H' AS hidden,
                       NULL::timestamptz AS "deletedAt"
                  FROM "ListCount" WHERE list = 'Transaction'`,
  CashReceipt: `SELECT n, "workspaceId", k1 AS status, k2 AS type, NULL::timestamptz AS "deletedAt" FROM "ListCount" WHERE list = 'CashReceipt'`,
};

/** The start of the UTC day `now` falls on (the day whose invoices are counted from the rows). */
export function utcDayOf(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

/**
 * A statement returning `n`, the number of rows of `table` matching `where` (whose parameters are the first
 * `paramCount`), with its extra parameters. `now` is the time the clause's expiry conditions were written for.
 */
export function countedStatement(table: ListedTable, where: string, paramCount: number, now: Date): { text: string; extra: unknown[] } {
  if (table !== 'Invoice') return { text: `SELECT coalesce(sum(n), 0) AS n FROM (${PSEUDO_ROWS[table]}) c WHERE ${where}`, extra: [] };
  const day = `$${paramCount + 1}::timestamptz`;
  return {
    text: `SELECT (SELECT coalesce(sum(n), 0) FROM (${PSEUDO_ROWS.Invoice} AND "expiryDay" <> ${day}) c WHERE ${where})
                + (SELECT count(*) FROM "Invoice" WHERE (${where}) AND "expiresAt" >= ${day} AND "expiresAt" < ${day} + interval '1 day') AS n`,
    extra: [utcDayOf(now).toISOString()],
  };
}

/** Days of expiry before this many days before today are folded (the two last stay per day: clocks differ a little). */
const FOLD_AFTER_DAYS = 2;

/**
 * Folds the invoice counters of expiry days long past into one cell per (status, accounts) and workspace (see the top
 * of this file). Per workspace one transaction that first takes the workspace's row, as every writer of invoice
 * counters does before them (the event sequence or the invoice number): so it waits for none of them in turn.
 * Returns the number of counter rows folded away.
 */
export async function foldPastExpiryDays(sql: SqlAccess, now: Date): Promise<number> {
  const cutoff = new Date(utcDayOf(now).getTime() - FOLD_AFTER_DAYS * 86_400_000).toISOString();
  const workspaces = await sql.query<{ workspaceId: string }>(
    `SELECT DISTINCT "workspaceId" FROM "ListCount" WHERE list = 'Invoice' AND "expiryDay" < $1::timestamptz AND "expiryDay" <> '-infinity'`,
    [cutoff],
  );
  let folded = 0;
  for (const { workspaceId } of workspaces) {
    folded += await sql.transaction(async (q) => {
      const [ws] = await q.query(`SELECT 1 FROM "Workspace" WHERE id = $1 FOR NO KEY UPDATE`, [workspaceId]);
      if (!ws) return 0;
      const [row] = await q.query<{ folded: number }>(
        `WITH gone AS (
           DELETE FROM "ListCount"
            WHERE "workspaceId" = $1 AND list = 'Invoice' AND "expiryDay" < $2::timestamptz AND "expiryDay" <> '-infinity'
           RETURNING k1, k2, shard, n
         ), merged AS (
           INSERT INTO "ListCount" AS c ("workspaceId", list, k1, k2, "expiryDay", shard, n)
           SELECT $1, 'Invoice', k1, k2, '-infinity', shard, sum(n) FROM gone GROUP BY k1, k2, shard ORDER BY k1, k2, shard
           ON CONFLICT ("workspaceId", list, k1, k2, "expiryDay", shard) DO UPDATE SET n = c.n + EXCLUDED.n
         )
         SELECT count(*)::int AS folded FROM gone`,
        [workspaceId, cutoff],
      );
      return row?.folded ?? 0;
    });
  }
  return folded;
}
