/**
 * Deposits the bank announced in its own words — a forwarded text (bank-text-intake.ts) or a row of the account's
 * history found by polling (history/history-polling.ts) — stored once, whichever source tells first (README, "Deposits
 * by text and by history").
 *
 * The identity of such a deposit: the account, the amount, the minute, and the balance after it; the depositor name
 * instead of the balance when the bank gave none. It becomes the deposit's notificationId, so the same text twice (SMS
 * and push, a forwarder that retries) is one deposit, and a history row of the same minute and balance is the deposit
 * its text announced. The name is left out when the balance is known because the text and the history do not always
 * spell it alike (one bank cuts it shorter in its texts): the balance after a deposit already tells two deposits of the
 * same amount and minute apart.
 *
 * Where the identity cannot see that a text and a history row are one deposit — a text that shows no balance, or a
 * clock that put them in neighbouring minutes — the other source's deposit is looked for: same account and amount,
 * within SAME_DEPOSIT_WINDOW_MS, the same balance (when both have one) or else the same name, not yet announced by a
 * source of this kind. Texts never pair with texts this way, nor rows with rows: two genuine deposits of the same
 * amount and name a minute apart stay two.
 *
 * Both sources take the account's deposit lock (a transaction-scoped advisory lock) around the look-up and the
 * insert, so a text and a history row of one deposit arriving at the same moment, on two instances, are stored once.
 */
import { createHash } from 'node:crypto';
import type { BankAccount, Transaction } from '../../generated/prisma/client.ts';
import { inRawTransaction, type Deps, type RawQuery } from '../deps.ts';
import { isUniqueViolation } from '../prisma-errors.ts';
import { matchOutcomeOf, type DepositOrigin } from './deposit-row.ts';
import { depositNameKey } from './depositor-name.ts';
import { matchAgainAfterCommit, storeDeposit, type StoredDeposit } from './intake.ts';

/** A deposit as a text or a history row announces it. */
export interface AnnouncedDeposit {
  amount: number;
  depositorName: string;
  occurredAt: Date;
  balanceAfter: number | null;
}

/** How far apart a text's minute and its history row's time may be and still be one deposit. */
export const SAME_DEPOSIT_WINDOW_MS = 2 * 60_000;

/** The notificationId a deposit announced by text or found in the history is stored under (see the header). */
export function announcedDepositIdentity(accountId: string, d: AnnouncedDeposit): string {
  const minute = new Date(Math.floor(d.occurredAt.getTime() / 60_000) * 60_000).toISOString();
  const tail = d.balanceAfter !== null ? `balance:${d.balanceAfter}` : `name:${depositNameKey(d.depositorName)}`;
  const key = [accountId, d.amount, minute, tail].join('\u0001');
  return `dep:${createHash('sha256').update(key, 'utf8').digest('hex').slice(0, 40)}`;
}

/** Whether a stored deposit is the one `d` announces, by balance when both have one, else by name. */
function sameDeposit(stored: Transaction, d: AnnouncedDeposit): boolean {
  if (stored.balanceAfter !== null && d.balanceAfter !== null) return stored.balanceAfter === d.balanceAfter;
  return depositNameKey(stored.description) === depositNameKey(d.depositorName);
}

/** The deposit of the other source that `d` announces again (see the header), or null. */
async function otherSourcesDeposit(q: RawQuery, accountId: string, d: AnnouncedDeposit, origin: DepositOrigin): Promise<Transaction | null> {
  const notYetThisSource = origin.source === 'TEXT' ? `source <> 'TEXT' AND "textAnnouncedAt" IS NULL` : `source <> 'HISTORY' AND "historyRowId" IS NULL`;
  const rows = await q<Transaction>(
    `SELECT * FROM "Transaction"
      WHERE "bankAccountId" = $1 AND amount = $2::int AND "deletedAt" IS NULL AND ${notYetThisSource}
        AND "receivedAt" > $3::timestamptz - make_interval(secs => $4::int / 1000.0) AND "receivedAt" < $3::timestamptz + make_interval(secs => $4::int / 1000.0)
      ORDER BY abs(extract(epoch FROM "receivedAt" - $3::timestamptz)), "createdAt"`,
    [accountId, d.amount, d.occurredAt.toISOString(), SAME_DEPOSIT_WINDOW_MS],
  );
  return rows.find((t) => sameDeposit(t, d)) ?? null;
}

/** Records on a stored deposit that this source announced it too. */
async function noteAnnouncedAgain(q: RawQuery, t: Transaction, origin: DepositOrigin, now: Date): Promise<Transaction> {
  const [after] =
    origin.source === 'TEXT'
      ? await q<Transaction>(
          `UPDATE "Transaction" SET "textAnnouncedAt" = coalesce("textAnnouncedAt", $2::timestamptz), "balanceAfter" = coalesce("balanceAfter", $3::float8)
            WHERE id = $1 RETURNING *`,
          [t.id, now.toISOString(), origin.balanceAfter],
        )
      : await q<Transaction>(
          `UPDATE "Transaction" SET "historyRowId" = coalesce("historyRowId", $2), "historySeenAt" = coalesce("historySeenAt", $3::timestamptz),
                  "balanceAfter" = coalesce("balanceAfter", $4::float8)
            WHERE id = $1 RETURNING *`,
          [t.id, origin.historyRowId, now.toISOString(), origin.balanceAfter],
        );
  return after ?? t;
}

/**
 * Stores the deposit a text or a history row announces, or finds the one already stored (see the header): the
 * deposit, and whether it is new.
 */
export async function storeAnnouncedDeposit(
  deps: Deps,
  account: BankAccount,
  d: AnnouncedDeposit,
  origin: DepositOrigin,
): Promise<{ transaction: Transaction; created: boolean }> {
  const notificationId = announcedDepositIdentity(account.id, d);
  const attempt = () =>
    inRawTransaction(deps, async (q): Promise<StoredDeposit & { created: boolean }> => {
      await q(`SELECT pg_advisory_xact_lock(hashtextextended($1, 19))::text AS locked`, [`announced-deposits\u0001${account.id}`]);
      const now = deps.clock.now();
      const [same] = await q<Transaction>(
        `SELECT * FROM "Transaction" WHERE "bankAccountId" = $1 AND ("notificationId" = $2 OR ($3::text IS NOT NULL AND "historyRowId" = $3))
          ORDER BY ("notificationId" = $2) DESC LIMIT 1`,
        [account.id, notificationId, origin.source === 'HISTORY' ? origin.historyRowId : null],
      );
      const earlier = same ?? (await otherSourcesDeposit(q, account.id, d, origin));
      if (earlier) return { transaction: await noteAnnouncedAgain(q, earlier, origin, now), created: false, invoicesCreatedMeanwhile: false };
      const n = { notificationId, depositorName: d.depositorName, amount: d.amount, receivedAt: d.occurredAt };
      return { ...(await storeDeposit(q, account, n, now, undefined, origin)), created: true };
    });
  let stored: StoredDeposit & { created: boolean };
  try {
    stored = await attempt();
  } catch (e) {
    // A bank notification posted with this very notificationId (the JSON feed takes no lock): the stored one stands.
    if (!isUniqueViolation(e, 'notificationId') && !isUniqueViolation(e, 'historyRowId')) throw e;
    stored = await attempt();
  }
  if (!stored.created) return { transaction: stored.transaction, created: false };
  const transaction = await matchAgainAfterCommit(deps, account, stored);
  deps.observe?.matchOutcome(matchOutcomeOf(transaction));
  return { transaction, created: true };
}
