/**
 * Deposits the bank announced in its own words — a forwarded text (bank-text-intake.ts) or a row of the account's
 * history found by polling (history/history-polling.ts) — stored once, whichever source tells first (README, "One
 * deposit, however often announced").
 *
 * The identity of such a deposit: the account, the amount, the minute, and the balance after it; the depositor name
 * instead of the balance when the bank gave none. It becomes the deposit's notificationId, so the same text twice (a
 * forwarder that retries, SMS and push alike) is one deposit, and a history row of the same minute and balance is the
 * deposit its text announced. The name is left out when the balance is known because texts and histories do not
 * always spell it alike (a bank cuts it shorter in its texts): the balance after a deposit already tells two deposits
 * of the same amount and minute apart.
 *
 * Where the identity cannot see that two announcements are one deposit — an SMS with the balance and a push without
 * it, a push timed when the phone received it, a text without a balance and its history row — the deposit announced
 * earlier is looked for (earlierAnnouncement): same account and amount, within SAME_DEPOSIT_WINDOW_MS, the same balance
 * when both show one, else names that may be one (namesMayBeOne: equal, or one cut short of the other). A text pairs
 * only with a deposit no text of its channel (SMS, PUSH) announced yet, and a history row only with one no row was
 * found for: two genuine deposits of the same amount and name a minute apart, each announced by its SMS, stay two.
 * A history row is one deposit of its own: its aggregator's id (historyRowId) is never given to a deposit that has
 * another's.
 *
 * Both sources take the account's deposit lock (a transaction-scoped advisory lock) around the look-up and the
 * insert, so announcements of one deposit arriving at the same moment, on several instances, are stored once.
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

/** The fewest characters a name cut short by a bank may keep and still be taken for the full name. */
export const MIN_CUT_NAME = 3;

/**
 * Whether two spellings of a depositor name may be one person's: equal in their comparison form, or one the other cut
 * short (a prefix of at least MIN_CUT_NAME characters: `홍길동(테스트상` of `홍길동(테스트상점)`).
 */
export function namesMayBeOne(a: string, b: string): boolean {
  const [x, y] = [depositNameKey(a), depositNameKey(b)];
  if (x === y) return true;
  const [short, long] = x.length <= y.length ? [x, y] : [y, x];
  return [...short].length >= MIN_CUT_NAME && long.startsWith(short);
}

/** Whether a stored deposit is the one `d` announces: by balance when both show one, else by name. */
function sameDeposit(stored: Transaction, d: AnnouncedDeposit): boolean {
  if (stored.balanceAfter !== null && d.balanceAfter !== null) return stored.balanceAfter === d.balanceAfter;
  return namesMayBeOne(stored.description, d.depositorName);
}

/**
 * The deposit announced earlier that `d` announces again (see the header), or null. Two texts with the same balance
 * are one deposit whatever their channels; where a name decides, a text pairs only with a deposit no text of its
 * channel announced yet.
 */
async function earlierAnnouncement(q: RawQuery, accountId: string, d: AnnouncedDeposit, origin: DepositOrigin): Promise<Transaction | null> {
  const notYetThisSource = origin.source === 'TEXT' ? 'true' : `source <> 'HISTORY' AND "historyRowId" IS NULL`;
  const rows = await q<Transaction>(
    `SELECT * FROM "Transaction"
      WHERE "bankAccountId" = $1 AND amount = $2::int AND "deletedAt" IS NULL AND verification = false AND ${notYetThisSource}
        AND "receivedAt" > $3::timestamptz - make_interval(secs => $4::int / 1000.0) AND "receivedAt" < $3::timestamptz + make_interval(secs => $4::int / 1000.0)
      ORDER BY abs(extract(epoch FROM "receivedAt" - $3::timestamptz)), "createdAt"`,
    [accountId, d.amount, d.occurredAt.toISOString(), SAME_DEPOSIT_WINDOW_MS],
  );
  const byBalance = (t: Transaction) => t.balanceAfter !== null && d.balanceAfter !== null;
  return rows.find((t) => sameDeposit(t, d) && (origin.source !== 'TEXT' || byBalance(t) || !t.textChannels.includes(origin.channel))) ?? null;
}

/** Records on a stored deposit that this source announced it too. */
async function noteAnnouncedAgain(q: RawQuery, t: Transaction, origin: DepositOrigin, now: Date): Promise<Transaction> {
  const [after] =
    origin.source === 'TEXT'
      ? await q<Transaction>(
          `UPDATE "Transaction" SET "textAnnouncedAt" = coalesce("textAnnouncedAt", $2::timestamptz), "balanceAfter" = coalesce("balanceAfter", $3::float8),
                  "textChannels" = CASE WHEN $4::text = ANY("textChannels") THEN "textChannels" ELSE array_append("textChannels", $4::text) END
            WHERE id = $1 RETURNING *`,
          [t.id, now.toISOString(), origin.balanceAfter, origin.channel],
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
      // A history row polled again is its deposit, as it stands.
      if (origin.source === 'HISTORY') {
        const [polled] = await q<Transaction>(`SELECT * FROM "Transaction" WHERE "bankAccountId" = $1 AND "historyRowId" = $2`, [account.id, origin.historyRowId]);
        if (polled) return { transaction: polled, created: false, invoicesCreatedMeanwhile: false };
      }
      const [same] = await q<Transaction>(`SELECT * FROM "Transaction" WHERE "bankAccountId" = $1 AND "notificationId" = $2`, [account.id, notificationId]);
      // Another history row of the same identity (two deposits of one amount and balance in a minute, a withdrawal
      // between them; or a bank that shows no balance): a deposit of its own, under an identity of its own.
      const otherRow = origin.source === 'HISTORY' && same?.historyRowId != null;
      const earlier = otherRow ? null : (same ?? (await earlierAnnouncement(q, account.id, d, origin)));
      if (earlier) return { transaction: await noteAnnouncedAgain(q, earlier, origin, now), created: false, invoicesCreatedMeanwhile: false };
      const storedId = otherRow ? `${notificationId}:${createHash('sha256').update(origin.historyRowId, 'utf8').digest('hex').slice(0, 16)}` : notificationId;
      const n = { notificationId: storedId, depositorName: d.depositorName, amount: d.amount, receivedAt: d.occurredAt };
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
