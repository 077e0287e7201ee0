/**
 * Deposits arriving (spec: POST /bank-notifications): a notification is stored once per (account, notificationId); a
 * verification deposit verifies its account; any other is matched to at most one invoice as it is stored.
 */
import { isShopLinked } from '../shops/reserved-metadata.ts';
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
import { depositInsertSql, isVerificationDeposit, matchOutcomeOf, newDeposit, truncationOf, type DepositOrigin } from './deposit-row.ts';
import { depositNameKey } from './depositor-name.ts';
import { matchDeposit, unmatchedNote } from './match-deposit.ts';
import { matchedDepositWrites } from './matched-deposit-writer.ts';
import { decideMatch } from './name-matching.ts';

/**
 * ingestBankNotification (POST /bank-notifications), authenticated by the account's notification token: the stored
 * deposit and whether it is new (the same notificationId again returns the first and changes nothing).
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
  // The hot path, so on the driver: one round trip reads the account, its workspace's e-mail setting, an earlier copy
  // of this notification and the EXACT candidates; the common cases then take one statement, the others a transaction.
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
      'id' in first ? first : await inRawTransaction(deps, (q) => storeDeposit(q, account, notification, deps.clock.now(), first.lostCandidateId));
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
 * The common cases in one statement: a deposit that matches nothing or several invoices is stored noted; one that
 * matches exactly one goes to the matched-deposit writer. `{ fallBack }`, with nothing written, asks for storeDeposit.
 */
async function storeDepositInOneStatement(
  deps: Deps,
  account: BankAccount,
  workspace: PaidEmailSettings,
  n: BankNotification,
  read: { now: Date; exact: Invoice[] },
): Promise<Transaction | { fallBack: true; lostCandidateId?: string }> {
  // A verification deposit, an account that cannot receive, or (below) an invoice that also gets a cash receipt.
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
  // Its cash receipt or its shop order's confirmation is written by the general path (deposit-payment.ts).
  if (candidate.cashReceiptType || isShopLinked(candidate.metadata)) return { fallBack: true };
  const matched: Transaction = { ...deposit, matchedInvoiceId: candidate.id, matchMethod: decision.method, matchedAt: now };
  return matchedDepositWrites(deps).submit(account.workspaceId, { deposit, matched, candidate, method: decision.method, now, mail: paidEmailFor(paidByDeposit(candidate, now), workspace, now) });
}

/**
 * Stores a new deposit in the caller's transaction: a verification deposit is stored hidden, never matched, and
 * verifies its account; any other deposit on a verified, active account is matched (matchDeposit). `origin`: a
 * deposit announced by a text or found in the history (announced-deposits.ts).
 */
export async function storeDeposit(
  q: RawQuery,
  account: BankAccount,
  n: BankNotification,
  now: Date,
  lostCandidateId?: string,
  origin?: DepositOrigin,
): Promise<Transaction> {
  const isVerification = isVerificationDeposit(account, n);
  const s = new SqlParams();
  const [trx] = await q<Transaction>(depositInsertSql(s, newDeposit(account, n, now, { verification: isVerification, origin })), s.values);
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
