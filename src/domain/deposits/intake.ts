/**
 * Deposits arriving (spec: POST /bank-notifications): a notification is stored once per (account, notificationId); a
 * verification deposit verifies its account; any other is matched to at most one invoice as it is stored.
 */
import type { BankAccount, Invoice, Transaction } from '../../generated/prisma/client.ts';
import { inRawTransaction, poolQuery, type Deps, type RawQuery } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { invoiceFromJson } from '../invoices/invoices.ts';
import { isUniqueViolation } from '../prisma-errors.ts';
import { sha256Hex } from '../secrets.ts';
import { SqlParams } from '../sql.ts';
import { parseBankNotification, type BankNotification } from './bank-notification.ts';
import { exactCandidatesSql, matchCandidates } from './candidates.ts';
import { paidByDeposit, paidEmailFor, type PaidEmailSettings } from './deposit-payment.ts';
import { depositInsertSql, isVerificationDeposit, matchOutcomeOf, newDeposit, truncationOf } from './deposit-row.ts';
import { depositNameKey } from './depositor-name.ts';
import { matchDeposit, unmatchedNote } from './match-deposit.ts';
import { matchedDepositWrites } from './matched-deposit-writer.ts';
import { decideMatch } from './name-matching.ts';

/**
 * ingestBankNotification (POST /bank-notifications): authenticated by the account's notification token. Returns the
 * stored transaction and whether it was new; the same notificationId again returns the first one and changes nothing.
 *
 * The hot path of the service (every deposit of every merchant), so it runs on the driver, not the ORM (which took a
 * dozen statements and ~11-15 ms of CPU per deposit; test/bench/README.md): one read for the account, an earlier
 * copy of the notification and the exact-name candidates, then — in the common cases — one statement that stores the
 * deposit and, when it matches, pays the invoice and writes its history line, the buyer's e-mail and the
 * `invoice.paid` event (atomic: one statement is one transaction), which live subscribers get at once. The other
 * cases (a verification deposit, an invoice that also gets a cash receipt, an invoice changed since it was read)
 * take one transaction of several statements.
 */
export async function ingestBankNotification(deps: Deps, token: string | null, raw: unknown): Promise<{ transaction: Transaction; created: boolean }> {
  if (!token) throw new DomainError('UNAUTHENTICATED');
  // The body is checked first but its error is reported after authentication (a bad token never learns about the body).
  let n: BankNotification | null = null;
  let invalid: unknown = null;
  try {
    n = parseBankNotification(raw);
  } catch (e) {
    invalid = e;
  }
  // One round trip: the account, its workspace's e-mail setting, an earlier copy of this notification, and the
  // invoices named exactly like the depositor, compared normalised (the candidates that decide when there are any;
  // see matchCandidates).
  const now = deps.clock.now();
  const s = new SqlParams();
  const tokenHash = s.p(sha256Hex(token));
  const notificationId = s.p(n?.notificationId ?? null);
  const exact = exactCandidatesSql(s, { workspaceId: 'a."workspaceId"', bankAccountId: 'a.id', amount: s.p(n?.amount ?? 0, '::int'), name: s.p(depositNameKey(n?.depositorName ?? '')), now });
  const [row] = await deps.sql.query<BankAccount & { existingTransactionId: string | null; workspaceName: string; paidEmailEnabled: boolean; exactCandidates: Record<string, unknown>[] }>(
    `SELECT a.*, t.id AS "existingTransactionId", w.name AS "workspaceName", w."paidEmailEnabled",
            (SELECT coalesce(jsonb_agg(to_jsonb(c) ORDER BY c."createdAt"), '[]'::jsonb) FROM (${exact}) c) AS "exactCandidates"
       FROM "BankAccount" a
       JOIN "Workspace" w ON w.id = a."workspaceId"
       LEFT JOIN "Transaction" t ON t."bankAccountId" = a.id AND t."notificationId" = ${notificationId}
      WHERE a."notificationTokenHash" = ${tokenHash}`,
    s.values,
    { prepare: true },
  );
  if (!row || row.deletedAt) throw new DomainError('UNAUTHENTICATED');
  if (invalid || !n) throw invalid;
  const { existingTransactionId, workspaceName, paidEmailEnabled, exactCandidates, ...account } = row;
  if (existingTransactionId) return { transaction: await storedTransaction(deps, existingTransactionId), created: false };
  const notification = n;
  try {
    const first = await storeDepositInOneStatement(deps, account, { name: workspaceName, paidEmailEnabled }, notification, {
      now,
      exact: exactCandidates.map(invoiceFromJson),
    });
    const transaction =
      'id' in first ? first : await inRawTransaction(deps, (q) => storeDeposit(deps, q, account, notification, deps.clock.now(), first.lostCandidateId));
    deps.observe?.matchOutcome(matchOutcomeOf(transaction));
    return { transaction, created: true };
  } catch (e) {
    if (isUniqueViolation(e, 'notificationId')) {
      // The same notification arrived twice at once and the other one stored it first.
      const [first] = await deps.sql.query<{ id: string }>(`SELECT id FROM "Transaction" WHERE "bankAccountId" = $1 AND "notificationId" = $2`, [
        account.id,
        notification.notificationId,
      ]);
      if (first) return { transaction: await storedTransaction(deps, first.id), created: false };
    }
    throw e;
  }
}

async function storedTransaction(deps: Deps, id: string): Promise<Transaction> {
  const [stored] = await deps.sql.query<Transaction>(`SELECT * FROM "Transaction" WHERE id = $1`, [id]);
  if (!stored) throw new Error(`deposit ${id} vanished`);
  return stored;
}

/**
 * The common cases in one statement (no BEGIN/COMMIT round trips): the candidates are read first; then a deposit that
 * matches nothing or several invoices is stored (noted), and one that matches exactly one invoice is stored together
 * with paying it, its history line, the buyer's e-mail and its `invoice.paid` event — all or nothing (in a statement
 * shared with the workspace's other matched deposits that arrive meanwhile: matchedDepositWrites). Returns
 * `{ fallBack }`, having written nothing, when the deposit needs the full transaction (storeDeposit): a verification
 * deposit, an account that does not match, an invoice that also gets a cash receipt, or one that changed (or was paid
 * by another deposit: `lostCandidateId`) since it was read.
 */
async function storeDepositInOneStatement(
  deps: Deps,
  account: BankAccount,
  workspace: PaidEmailSettings,
  n: BankNotification,
  read: { now: Date; exact: Invoice[] },
): Promise<Transaction | { fallBack: true; lostCandidateId?: string }> {
  if (isVerificationDeposit(account, n) || !account.verifiedAt || !account.active) return { fallBack: true };
  const now = read.now;
  const deposit = newDeposit(account, n, now, { verification: false });
  const truncation = truncationOf(account);
  const found = await matchCandidates(poolQuery(deps), deposit, truncation, now, read.exact);
  const decision = decideMatch(deposit.description, found.candidates, truncation, { complete: found.complete });
  const s = new SqlParams();
  if (decision.kind !== 'MATCH') {
    deposit.matchNote = unmatchedNote(decision);
    const [stored] = await deps.sql.query<Transaction>(depositInsertSql(s, deposit), s.values, { prepare: true });
    if (!stored) throw new Error('deposit insert returned nothing');
    return stored;
  }
  const candidate = decision.candidate;
  if (candidate.cashReceiptType) return { fallBack: true };
  const matched: Transaction = { ...deposit, matchedInvoiceId: candidate.id, matchMethod: decision.method, matchedAt: now };
  return matchedDepositWrites(deps).submit(account.workspaceId, { deposit, matched, candidate, method: decision.method, now, mail: paidEmailFor(paidByDeposit(candidate, now), workspace, now) });
}

/**
 * Stores a new deposit in the caller's transaction: a verification deposit (1 won, named with the account's code) is
 * stored hidden and never matched, and verifies the account if it is not yet; any other deposit on a verified, active
 * account is matched.
 */
async function storeDeposit(deps: Deps, q: RawQuery, account: BankAccount, n: BankNotification, now: Date, lostCandidateId?: string): Promise<Transaction> {
  const isVerification = isVerificationDeposit(account, n);
  const s = new SqlParams();
  const [trx] = await q<Transaction>(depositInsertSql(s, newDeposit(account, n, now, { verification: isVerification })), s.values);
  if (!trx) throw new Error('deposit insert returned nothing');
  if (isVerification) {
    if (!account.verifiedAt) {
      await q(`UPDATE "BankAccount" SET "verifiedAt" = $2::timestamptz, "updatedAt" = $2::timestamptz WHERE id = $1 AND "verifiedAt" IS NULL`, [account.id, now.toISOString()]);
    }
    return trx;
  }
  if (!account.verifiedAt || !account.active) return trx;
  return matchDeposit(q, trx, truncationOf(account), now, lostCandidateId);
}
