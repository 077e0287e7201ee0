/**
 * Deposits arriving (spec: POST /bank-notifications): a notification is stored once per (account, notificationId); a
 * verification deposit verifies its account; any other is matched to at most one invoice as it is stored.
 */
import { isShopLinked } from '../shops/reserved-metadata.ts';
import type { BankAccount, Invoice, Transaction } from '../../generated/prisma/client.ts';
import { inRawTransaction, poolQuery, type Deps, type RawQuery } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { recordEvents } from '../events/outbox.ts';
import { invoiceFromJson } from '../invoices/invoices.ts';
import { isUniqueViolation } from '../prisma-errors.ts';
import { sha256Hex } from '../secrets.ts';
import { SqlParams } from '../sql.ts';
import { parseBankNotification, type BankNotification } from './bank-notification.ts';
import { exactCandidatesSql, matchCandidates } from './candidates.ts';
import { paidByDeposit, paidEmailFor, type PaidEmailSettings } from './deposit-payment.ts';
import { depositInsertSql, isVerificationDeposit, matchOutcomeOf, newDeposit, transactionReceivedEvent, truncationOf, type DepositOrigin } from './deposit-row.ts';
import { depositNameKey } from './depositor-name.ts';
import { DepositMatchedMeanwhile, matchDeposit, unmatchedNote } from './match-deposit.ts';
import type { InvoicesCreatedMeanwhile, MatchedDepositResult } from './matched-deposit-statement.ts';
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
  const [row] = await deps.sql.query<
    BankAccount & { existingTransactionId: string | null; workspaceName: string; paidEmailEnabled: boolean; invoiceSeq: number; exactCandidates: Record<string, unknown>[] }
  >(
    `SELECT a.*, t.id AS "existingTransactionId", w.name AS "workspaceName", w."paidEmailEnabled", w."invoiceSeq",
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
  const { existingTransactionId, workspaceName, paidEmailEnabled, invoiceSeq, exactCandidates, ...account } = row;
  if (existingTransactionId) return { transaction: await storedTransaction(deps, existingTransactionId), created: false };
  const notification = n;
  try {
    const first = await storeDepositInOneStatement(deps, account, { name: workspaceName, paidEmailEnabled }, notification, {
      now,
      exact: exactCandidates.map(invoiceFromJson),
      invoiceSeq: Number(invoiceSeq),
    });
    const stored: StoredDeposit =
      'id' in first
        ? { transaction: first, invoicesCreatedMeanwhile: false }
        : 'stored' in first
          ? { transaction: first.stored, invoicesCreatedMeanwhile: true }
          : await inRawTransaction(deps, (q) => storeDeposit(q, account, notification, deps.clock.now(), first.lostCandidateId));
    const transaction = await matchAgainAfterCommit(deps, account, stored);
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

/**
 * A deposit as stored, and whether an invoice was created after its candidates were read and before it was stored
 * (its transaction.received event took the workspace's lock after that invoice's creation committed): then neither saw
 * the other, and its matching runs again once it is committed (matchAgainAfterCommit).
 */
export interface StoredDeposit {
  transaction: Transaction;
  invoicesCreatedMeanwhile: boolean;
}

/**
 * The deposit's matching run again after its commit, when an invoice was created while it was being stored (see
 * StoredDeposit): a shop order imported at that moment (whose own look-back after its commit may have run before this
 * deposit committed), or any invoice whose creation committed first — the deposit is stored after it, so it may pay
 * it. In a transaction of its own, locking as any match does (the invoice, then the deposit); a deposit matched
 * meanwhile (by hand, or by that look-back) is left as it is. The deposit as it stands after.
 */
export async function matchAgainAfterCommit(deps: Deps, account: BankAccount, stored: StoredDeposit): Promise<Transaction> {
  const trx = stored.transaction;
  if (!stored.invoicesCreatedMeanwhile || trx.matchedInvoiceId || trx.verification) return trx;
  try {
    return await inRawTransaction(deps, async (q) => {
      const [current] = await q<Transaction>(`SELECT * FROM "Transaction" WHERE id = $1 AND "matchedInvoiceId" IS NULL AND "deletedAt" IS NULL`, [trx.id]);
      return current ? matchDeposit(q, current, truncationOf(account), deps.clock.now()) : trx;
    });
  } catch (e) {
    if (!(e instanceof DepositMatchedMeanwhile)) throw e;
    return storedTransaction(deps, trx.id);
  }
}

async function storedTransaction(deps: Deps, id: string): Promise<Transaction> {
  const [stored] = await deps.sql.query<Transaction>(`SELECT * FROM "Transaction" WHERE id = $1`, [id]);
  if (!stored) throw new Error(`deposit ${id} vanished`);
  return stored;
}

/**
 * The common cases in one statement, through the deposit writer (a burst of one workspace's deposits shares one): a
 * deposit that matches nothing or several invoices is stored noted, with its `transaction.received`; one that matches
 * exactly one is stored with its payment, its `transaction.received` and `invoice.paid`. `{ fallBack }`, with nothing
 * written, asks for storeDeposit.
 */
async function storeDepositInOneStatement(
  deps: Deps,
  account: BankAccount,
  workspace: PaidEmailSettings,
  n: BankNotification,
  read: { now: Date; exact: Invoice[]; invoiceSeq: number },
): Promise<Transaction | InvoicesCreatedMeanwhile | { fallBack: true; lostCandidateId?: string }> {
  // A verification deposit, an account that cannot receive, or (below) an invoice that also gets a cash receipt.
  if (isVerificationDeposit(account, n) || !account.verifiedAt || !account.active) return { fallBack: true };
  const now = read.now;
  const deposit = newDeposit(account, n, now, { verification: false });
  const truncation = truncationOf(account);
  const found = await matchCandidates(poolQuery(deps), deposit, truncation, now, read.exact);
  const decision = decideMatch(deposit.description, found.candidates, truncation, { complete: found.complete });
  if (decision.kind !== 'MATCH') {
    deposit.matchNote = unmatchedNote(decision);
    return asStored(await matchedDepositWrites(deps).submit(account.workspaceId, { deposit, now, invoiceSeqAtRead: read.invoiceSeq }));
  }
  const candidate = decision.candidate;
  // Its cash receipt or its shop order's confirmation is written by the general path (deposit-payment.ts).
  if (candidate.cashReceiptType || isShopLinked(candidate.metadata)) return { fallBack: true };
  const matched: Transaction = { ...deposit, matchedInvoiceId: candidate.id, matchMethod: decision.method, matchedAt: now };
  return matchedDepositWrites(deps).submit(account.workspaceId, { deposit, matched, candidate, method: decision.method, now, mail: paidEmailFor(paidByDeposit(candidate, now), workspace, now) });
}

/** An unmatched deposit as the writer stored it (it never falls back: nothing it pays could have changed). */
function asStored(r: MatchedDepositResult): Transaction | InvoicesCreatedMeanwhile {
  if ('fallBack' in r) throw new Error('an unmatched deposit fell back');
  return r;
}

/**
 * Stores a new deposit in the caller's transaction: a verification deposit is stored hidden, never matched, and
 * verifies its account; any other deposit on a verified, active account is matched (matchDeposit), and every deposit
 * but a verification deposit writes its `transaction.received` event in the same transaction. `origin`: a deposit
 * announced by a text or found in the history (announced-deposits.ts).
 */
export async function storeDeposit(
  q: RawQuery,
  account: BankAccount,
  n: BankNotification,
  now: Date,
  lostCandidateId?: string,
  origin?: DepositOrigin,
): Promise<StoredDeposit> {
  const isVerification = isVerificationDeposit(account, n);
  const s = new SqlParams();
  const [trx] = await q<Transaction>(depositInsertSql(s, newDeposit(account, n, now, { verification: isVerification, origin })), s.values);
  if (!trx) throw new Error('deposit insert returned nothing');
  if (isVerification) {
    // No transaction.received: the service's own check of the account, not money for the merchant.
    if (!account.verifiedAt) {
      await q(`UPDATE "BankAccount" SET "verifiedAt" = $2::timestamptz, "updatedAt" = $2::timestamptz WHERE id = $1 AND "verifiedAt" IS NULL`, [account.id, now.toISOString()]);
    }
    return { transaction: trx, invoicesCreatedMeanwhile: false };
  }
  if (!account.verifiedAt || !account.active) {
    await recordEvents(q, trx.workspaceId, [transactionReceivedEvent(trx, false, now)]);
    return { transaction: trx, invoicesCreatedMeanwhile: false };
  }
  // The invoices created before the candidates are read are seen; one created after, before this transaction holds the
  // workspace's lock (its events), is not: then the matching runs again after the commit (StoredDeposit).
  const before = await invoiceSeqOf(q, trx.workspaceId);
  const matched = await matchDeposit(q, trx, truncationOf(account), now, lostCandidateId, { received: true });
  return { transaction: matched, invoicesCreatedMeanwhile: !matched.matchedInvoiceId && (await invoiceSeqOf(q, trx.workspaceId)) > before };
}

async function invoiceSeqOf(q: RawQuery, workspaceId: string): Promise<number> {
  const [w] = await q<{ invoiceSeq: number }>(`SELECT "invoiceSeq" FROM "Workspace" WHERE id = $1`, [workspaceId]);
  return Number(w?.invoiceSeq ?? 0);
}
