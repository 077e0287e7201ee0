/**
 * Deposits (spec: Transaction object; contract: POST /bank-notifications, matchTransaction, unmatchTransaction,
 * setTransactionHidden). A bank notification is stored once per (account, notificationId); a 1-won deposit whose
 * depositor name is the account's verification code verifies it (stored hidden, never matched); any other deposit
 * is matched to at most one invoice in the same transaction that stores it.
 */
import type { Invoice, Transaction } from '../../generated/prisma/client.ts';
import type { Principal } from '../auth/principal.ts';
import { actorOf, assertCanWrite, bankAccountInScope, requirePrincipal, requireSession } from '../auth/rules.ts';
import { bankAccountSnapshot } from '../bank-accounts/bank-accounts.ts';
import { findBankProvider } from '../bank-accounts/bank-providers.ts';
import { parseKstRange } from '../dates.ts';
import { inTransaction, type Deps, type Tx } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { recordEvents } from '../events/outbox.ts';
import { isId, newId } from '../ids.ts';
import { addHistory, invoiceEvent, loadInvoiceFor } from '../invoices/invoices.ts';
import { applyInvoiceTransition, effectiveStatus } from '../invoices/invoice-state.ts';
import { parseOffsetPage } from '../paging.ts';
import { isUniqueViolation } from '../prisma-errors.ts';
import { sha256Hex } from '../secrets.ts';
import { SqlWhere, likeContains } from '../sql.ts';
import { MAX_WON, isPlainObject, searchNormalize } from '../validation.ts';
import { decideMatch, type AutoMatchMethod } from './name-matching.ts';

export interface BankNotification {
  notificationId: string;
  depositorName: string;
  amount: number;
  receivedAt: Date;
}

const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

/** Validates a bank notification body: notificationId 1-200, depositorName 1-100, amount 1..MAX_WON, receivedAt ISO 8601 with zone. */
export function parseBankNotification(raw: unknown): BankNotification {
  if (!isPlainObject(raw)) throw new DomainError('BAD_REQUEST');
  const { notificationId, depositorName, amount, receivedAt } = raw;
  if (typeof notificationId !== 'string' || notificationId.length < 1 || notificationId.length > 200) {
    throw new DomainError('VALIDATION_FAILED', { path: ['notificationId'], message: 'notificationId must be a string of 1-200 characters.' });
  }
  if (typeof depositorName !== 'string' || depositorName.trim().length < 1 || [...depositorName].length > 100) {
    throw new DomainError('VALIDATION_FAILED', { path: ['depositorName'], message: 'depositorName must be a string of 1-100 characters.' });
  }
  if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount <= 0 || amount > MAX_WON) {
    throw new DomainError('INVALID_AMOUNT', { path: ['amount'] });
  }
  const at = typeof receivedAt === 'string' && ISO_WITH_ZONE.test(receivedAt) ? new Date(receivedAt) : null;
  if (!at || Number.isNaN(at.getTime())) {
    throw new DomainError('VALIDATION_FAILED', { path: ['receivedAt'], message: 'receivedAt must be an ISO 8601 time with a zone, e.g. 2026-11-21T19:00:00+09:00.' });
  }
  return { notificationId, depositorName: depositorName.trim(), amount, receivedAt: at };
}

function transactionSearchText(accountNumber: string, depositorName: string): string {
  return [accountNumber, depositorName].map(searchNormalize).join('\u0001');
}

/**
 * ingestBankNotification (POST /bank-notifications): authenticated by the account's notification token. Returns the
 * stored transaction and whether it was new; the same notificationId again returns the first one and changes nothing.
 */
export async function ingestBankNotification(deps: Deps, token: string | null, raw: unknown): Promise<{ transaction: Transaction; created: boolean }> {
  if (!token) throw new DomainError('UNAUTHENTICATED');
  const account = await deps.prisma.bankAccount.findUnique({ where: { notificationTokenHash: sha256Hex(token) } });
  if (!account || account.deletedAt) throw new DomainError('UNAUTHENTICATED');
  const n = parseBankNotification(raw);
  const existing = await deps.prisma.transaction.findUnique({
    where: { bankAccountId_notificationId: { bankAccountId: account.id, notificationId: n.notificationId } },
  });
  if (existing) return { transaction: existing, created: false };
  try {
    const transaction = await inTransaction(deps, async (tx) => {
      const now = deps.clock.now();
      const fresh = await tx.bankAccount.findUniqueOrThrow({ where: { id: account.id } });
      const isVerification = !fresh.verifiedAt && n.amount === 1 && n.depositorName === fresh.verificationCode;
      const trx = await tx.transaction.create({
        data: {
          id: newId('transaction'),
          workspaceId: fresh.workspaceId,
          bankAccountId: fresh.id,
          bankAccountSnapshot: bankAccountSnapshot(fresh),
          notificationId: n.notificationId,
          amount: n.amount,
          description: n.depositorName,
          searchText: transactionSearchText(fresh.number, n.depositorName),
          hidden: isVerification,
          verification: isVerification,
          receivedAt: n.receivedAt,
          createdAt: now,
          updatedAt: now,
        },
      });
      if (isVerification) {
        await tx.bankAccount.update({ where: { id: fresh.id }, data: { verifiedAt: now } });
        return trx;
      }
      if (!fresh.verifiedAt || !fresh.active) return trx;
      return matchDeposit(deps, tx, trx, fresh.provider, now);
    });
    return { transaction, created: true };
  } catch (e) {
    if (isUniqueViolation(e, 'notificationId')) {
      const first = await deps.prisma.transaction.findUnique({
        where: { bankAccountId_notificationId: { bankAccountId: account.id, notificationId: n.notificationId } },
      });
      if (first) return { transaction: first, created: false };
    }
    throw e;
  }
}

/** Pending, unexpired invoices of the workspace with this amount that can receive on this account. */
async function candidateInvoices(tx: Tx, workspaceId: string, bankAccountId: string, amount: number, now: Date): Promise<Invoice[]> {
  return tx.invoice.findMany({
    where: {
      workspaceId,
      amount,
      status: 'PENDING',
      OR: [{ expiresAt: null }, { expiresAt: { gt: now } }],
      AND: [{ OR: [{ bankAccountIds: { isEmpty: true } }, { bankAccountIds: { has: bankAccountId } }] }],
    },
    orderBy: { createdAt: 'asc' },
    take: 200,
  });
}

/**
 * Matches a just-stored deposit (spec: States — matching deposit). One deposit pays at most one invoice (this runs
 * once, in the transaction that stores it); one invoice is paid by at most one deposit (the pending → paid update is
 * conditional, and `matchedInvoiceId` is unique). Ambiguity leaves the deposit unmatched with the candidates noted.
 */
async function matchDeposit(deps: Deps, tx: Tx, trx: Transaction, provider: string, now: Date): Promise<Transaction> {
  const candidates = await candidateInvoices(tx, trx.workspaceId, trx.bankAccountId, trx.amount, now);
  const truncation = findBankProvider(provider)?.depositorNameLength ?? Number.POSITIVE_INFINITY;
  const decision = decideMatch(trx.description, candidates, truncation);
  if (decision.kind === 'NONE') return trx;
  if (decision.kind === 'AMBIGUOUS') {
    return tx.transaction.update({
      where: { id: trx.id },
      data: {
        matchNote: {
          reason: 'AMBIGUOUS',
          method: decision.method,
          candidateInvoiceIds: decision.candidates.map((c) => c.id),
          message: 'More than one pending invoice matches this deposit; match it manually.',
        },
      },
    });
  }
  // A concurrent deposit may pay the same invoice first: the conditional update then matches nothing and this
  // deposit stays unmatched, noted, in a savepoint-free way (we check before writing anything else).
  const won = await tx.invoice.updateMany({
    where: { id: decision.candidate.id, status: 'PENDING', OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] },
    data: { status: 'PAID', paidAt: now, paidTrigger: 'DEPOSIT', updatedAt: now },
  });
  if (won.count === 0) {
    return tx.transaction.update({
      where: { id: trx.id },
      data: { matchNote: { reason: 'ALREADY_PAID', candidateInvoiceIds: [decision.candidate.id], message: 'The matching invoice was paid by another deposit.' } },
    });
  }
  return completeMatch(deps, tx, trx, decision.candidate.id, decision.method, now, null);
}

/** Links deposit and (already paid) invoice, writes history and the invoice.paid event. */
async function completeMatch(
  deps: Deps,
  tx: Tx,
  trx: Transaction,
  invoiceId: string,
  method: AutoMatchMethod | 'MANUAL',
  now: Date,
  actor: unknown,
): Promise<Transaction> {
  const matched = await tx.transaction.update({
    where: { id: trx.id },
    data: { matchedInvoiceId: invoiceId, matchMethod: method, matchedAt: now, matchNote: undefined, updatedAt: now },
  });
  const invoice = await tx.invoice.findUniqueOrThrow({ where: { id: invoiceId } });
  await addHistory(tx, invoiceId, 'paid', now, actor, { trigger: 'DEPOSIT', transactionId: trx.id, matchMethod: method });
  await recordEvents(tx, trx.workspaceId, [
    invoiceEvent('invoice.paid', invoice, now, { trigger: 'DEPOSIT', transaction: transactionSnapshot(matched) }),
  ]);
  return matched;
}

/** The deposit as stored in event payloads (JSON-safe). */
export function transactionSnapshot(t: Transaction) {
  return {
    id: t.id,
    bankAccount: t.bankAccountSnapshot,
    matchedInvoiceId: t.matchedInvoiceId,
    matchMethod: t.matchMethod,
    amount: t.amount,
    description: t.description,
    hidden: t.hidden,
    receivedAt: t.receivedAt.toISOString(),
    matchedAt: t.matchedAt?.toISOString() ?? null,
    createdAt: t.createdAt.toISOString(),
  };
}

/** Loads a deposit the principal may see: malformed or missing or another workspace's → TRANSACTION_NOT_FOUND; outside the key's accounts → OUT_OF_SCOPE. */
export async function loadTransactionFor(db: Tx | Deps['prisma'], p: Principal, id: unknown): Promise<Transaction> {
  if (!isId('transaction', id)) throw new DomainError('TRANSACTION_NOT_FOUND');
  const t = await db.transaction.findUnique({ where: { id } });
  if (!t || t.workspaceId !== p.workspaceId || t.deletedAt) throw new DomainError('TRANSACTION_NOT_FOUND');
  if (!bankAccountInScope(p, t.bankAccountId)) throw new DomainError('OUT_OF_SCOPE');
  return t;
}

export async function getTransaction(deps: Deps, principal: Principal | null, id: unknown) {
  return loadTransactionFor(deps.prisma, requirePrincipal(principal), id);
}

export interface TransactionListFilter {
  offset: unknown;
  limit: unknown;
  search?: string | null;
  bankAccountId?: string | null;
  matched?: boolean | null;
  hidden?: boolean | null;
  dateAfter?: string | null;
  dateBefore?: string | null;
}

/** listTransactions (GET /v1/transactions): filters by createdAt (KST dates), key scope, newest first. */
export async function listTransactionIds(deps: Deps, principal: Principal | null, f: TransactionListFilter): Promise<{ ids: string[]; total: number }> {
  const p = requirePrincipal(principal);
  const page = parseOffsetPage(f.offset, f.limit);
  const range = parseKstRange(f.dateAfter, f.dateBefore);
  if (f.bankAccountId !== undefined && f.bankAccountId !== null && !bankAccountInScope(p, f.bankAccountId)) {
    throw new DomainError('OUT_OF_SCOPE', { path: ['bankAccountId'] });
  }
  const w = new SqlWhere();
  w.and((v) => `"workspaceId" = ${v(p.workspaceId)} AND "deletedAt" IS NULL`);
  if (p.bankAccountIds !== null) w.and((v) => `"bankAccountId" = ANY(${v(p.bankAccountIds, '::text[]')})`);
  if (f.bankAccountId) w.and((v) => `"bankAccountId" = ${v(f.bankAccountId)}`);
  if (f.matched === true) w.and(`"matchedInvoiceId" IS NOT NULL`);
  if (f.matched === false) w.and(`"matchedInvoiceId" IS NULL`);
  if (f.hidden === true) w.and(`hidden`);
  if (f.hidden === false) w.and(`NOT hidden`);
  if (range.from) w.and((v) => `"createdAt" >= ${v(range.from!.toISOString(), '::timestamptz')}`);
  if (range.until) w.and((v) => `"createdAt" < ${v(range.until!.toISOString(), '::timestamptz')}`);
  const raw = f.search ? f.search.replace(/[\u0000-\u001f]/g, '').trim() : '';
  const term = searchNormalize(raw);
  if (term) {
    w.and((v) => {
      const exact = v(raw);
      return `id = ${exact} OR "bankAccountId" = ${exact} OR "matchedInvoiceId" = ${exact} OR "searchText" LIKE ${v(likeContains(term))}`;
    });
  }
  const where = w.toString();
  const countRows = await deps.prisma.$queryRawUnsafe<{ n: bigint }[]>(`SELECT count(*) AS n FROM "Transaction" WHERE ${where}`, ...w.params);
  const rows = await deps.prisma.$queryRawUnsafe<{ id: string }[]>(
    `SELECT id FROM "Transaction" WHERE ${where} ORDER BY "createdAt" DESC, id DESC OFFSET ${page.offset} LIMIT ${page.limit}`,
    ...w.params,
  );
  return { ids: rows.map((r) => r.id), total: Number(countRows[0]?.n ?? 0) };
}

/**
 * matchTransaction (dashboard): links an unmatched deposit to a pending or expired invoice of the same workspace,
 * method MANUAL; the invoice becomes paid (trigger DEPOSIT) and invoice.paid is emitted.
 */
export async function matchTransactionManually(deps: Deps, principal: Principal | null, transactionId: unknown, invoiceId: unknown) {
  const p = requireSession(principal);
  return inTransaction(deps, async (tx) => {
    const trx = await loadTransactionFor(tx, p, transactionId);
    if (trx.matchedInvoiceId) throw new DomainError('TRANSACTION_ALREADY_MATCHED');
    if (trx.verification) throw new DomainError('TRANSACTION_NOT_MATCHABLE', { message: 'A 1-won verification deposit cannot pay an invoice.' });
    const invoice = await loadInvoiceFor(tx, p, invoiceId);
    const now = deps.clock.now();
    const status = effectiveStatus(invoice, now);
    if (status === 'PAID') throw new DomainError('INVOICE_ALREADY_PAID');
    if (status === 'CANCELED') throw new DomainError('INVOICE_CANCELED');
    await applyInvoiceTransition(tx, invoice, 'MARK_AS_PAID', now, { paidAt: now, paidTrigger: 'DEPOSIT' });
    // Lock the deposit row and re-check, so two manual matches of one deposit cannot both win.
    const claimed = await tx.transaction.updateMany({ where: { id: trx.id, matchedInvoiceId: null }, data: { updatedAt: now } });
    if (claimed.count === 0) throw new DomainError('TRANSACTION_ALREADY_MATCHED');
    return completeMatch(deps, tx, trx, invoice.id, 'MANUAL', now, actorOf(p));
  });
}

/** unmatchTransaction (dashboard): the deposit becomes unmatched and its invoice returns to pending. */
export async function unmatchTransaction(deps: Deps, principal: Principal | null, transactionId: unknown) {
  const p = requireSession(principal);
  return inTransaction(deps, async (tx) => {
    const trx = await loadTransactionFor(tx, p, transactionId);
    if (!trx.matchedInvoiceId) throw new DomainError('TRANSACTION_NOT_MATCHED');
    const invoice = await tx.invoice.findUniqueOrThrow({ where: { id: trx.matchedInvoiceId } });
    const now = deps.clock.now();
    const released = await tx.transaction.updateMany({
      where: { id: trx.id, matchedInvoiceId: invoice.id },
      data: { matchedInvoiceId: null, matchMethod: null, matchedAt: null, updatedAt: now },
    });
    if (released.count === 0) throw new DomainError('TRANSACTION_NOT_MATCHED');
    const pending = await applyInvoiceTransition(tx, invoice, 'UNMATCH', now, { paidAt: null, paidTrigger: null });
    await addHistory(tx, invoice.id, 'unmatched', now, actorOf(p), { transactionId: trx.id });
    await recordEvents(tx, p.workspaceId, [invoiceEvent('invoice.unpaid', pending, now, { transactionId: trx.id })]);
    return tx.transaction.findUniqueOrThrow({ where: { id: trx.id } });
  });
}

/** setTransactionHidden (dashboard only; the API cannot change `hidden`). */
export async function setTransactionHidden(deps: Deps, principal: Principal | null, transactionId: unknown, hidden: boolean) {
  const p = requireSession(principal);
  assertCanWrite(p);
  const trx = await loadTransactionFor(deps.prisma, p, transactionId);
  return deps.prisma.transaction.update({ where: { id: trx.id }, data: { hidden, updatedAt: deps.clock.now() } });
}
