/**
 * Deposits (spec: Transaction object; contract: POST /bank-notifications, matchTransaction, unmatchTransaction,
 * setTransactionHidden). A bank notification is stored once per (account, notificationId); a 1-won deposit whose
 * depositor name is the account's verification code verifies it (stored hidden, never matched); any other deposit
 * is matched to at most one invoice in the same transaction that stores it.
 */
import { z } from 'zod';
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
import { autoIssueForPaidInvoice } from '../cash-receipts/cash-receipts.ts';
import { enqueueEmail, paidEmail } from '../email/email.ts';
import { parseOffsetPage } from '../paging.ts';
import { isUniqueViolation } from '../prisma-errors.ts';
import { codePoints, fail, parseRequest } from '../request-schema.ts';
import { sha256Hex } from '../secrets.ts';
import { SqlWhere, likeContains } from '../sql.ts';
import { MAX_WON, searchNormalize } from '../validation.ts';
import { decideMatch, removeBrackets, type AutoMatchMethod } from './name-matching.ts';

export interface BankNotification {
  notificationId: string;
  depositorName: string;
  amount: number;
  receivedAt: Date;
}

const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

const invalid = (field: string, rule: string) => ({ error: fail('VALIDATION_FAILED', `${field} must be ${rule}.`) });

/** A bank notification body (POST /bank-notifications): notificationId 1-200, depositorName 1-100, amount 1..MAX_WON, receivedAt ISO 8601 with zone. */
export const bankNotificationSchema = z.object(
  {
    notificationId: z
      .string(invalid('notificationId', 'a string of 1-200 characters'))
      .min(1)
      .max(200)
      .meta({ description: 'Unique per bank account; the same id again returns the first transaction and changes nothing.' }),
    depositorName: z
      .string(invalid('depositorName', 'a string of 1-100 characters'))
      .refine((v) => v.trim().length >= 1 && codePoints(v) <= 100, invalid('depositorName', 'a string of 1-100 characters'))
      .transform((v) => v.trim())
      .meta({ description: 'Depositor name as the bank reports it (surrounding spaces are removed).', minLength: 1, maxLength: 100 }),
    amount: z.number({ error: fail('INVALID_AMOUNT') }).int().min(1).max(MAX_WON).meta({ description: 'Won, greater than 0.' }),
    receivedAt: z
      .string(invalid('receivedAt', 'an ISO 8601 time with a zone, e.g. 2026-11-21T19:00:00+09:00'))
      .regex(ISO_WITH_ZONE)
      .transform((v) => new Date(v))
      .refine((at) => !Number.isNaN(at.getTime()), invalid('receivedAt', 'an ISO 8601 time with a zone, e.g. 2026-11-21T19:00:00+09:00'))
      .meta({ description: 'Deposit time per the bank, ISO 8601 with a zone, e.g. `2026-11-21T19:00:00+09:00`.' }),
  },
  { error: fail('BAD_REQUEST') },
);

/** Validates a bank notification body: notificationId 1-200, depositorName 1-100, amount 1..MAX_WON, receivedAt ISO 8601 with zone. */
export function parseBankNotification(raw: unknown): BankNotification {
  return parseRequest(bankNotificationSchema, raw);
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
    deps.observe?.matchOutcome(matchOutcomeOf(transaction));
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

/** The outcome of matching a stored deposit, for metrics. */
export function matchOutcomeOf(t: Transaction): string {
  if (t.verification) return 'VERIFICATION';
  if (t.matchMethod) return t.matchMethod;
  const reason = (t.matchNote as { reason?: string } | null)?.reason;
  return reason ?? 'NONE';
}

/**
 * Pending, unexpired invoices of the workspace with the deposit's amount that can receive on its account and whose
 * name could match it — fetched through indexes, never by scanning every invoice of that amount:
 *  - EXACT hits are the invoices named exactly like the deposit (index on workspace, name, amount, status); when there
 *    are any, they decide;
 *  - otherwise: invoices whose bracket-free name equals the deposit's bracket-free name (BRACKET_REMOVAL, index on
 *    customerNameBare), and, when the deposit's name has exactly the bank's truncation length, invoices whose name
 *    starts with it (NAME_PREFIX, text_pattern_ops index). decideMatch() then picks among them.
 */
export async function matchCandidates(tx: Tx, trx: Pick<Transaction, 'workspaceId' | 'bankAccountId' | 'amount' | 'description'>, truncation: number, now: Date): Promise<Invoice[]> {
  const depositName = trx.description;
  const base = `SELECT * FROM "Invoice"
     WHERE "workspaceId" = $1 AND amount = $2 AND status = 'PENDING' AND ("expiresAt" IS NULL OR "expiresAt" > $3::timestamptz)
       AND (cardinality("bankAccountIds") = 0 OR $4 = ANY("bankAccountIds"))`;
  const params = [trx.workspaceId, trx.amount, now.toISOString(), trx.bankAccountId];
  const exact = await tx.$queryRawUnsafe<Invoice[]>(`${base} AND "customerName" = $5 ORDER BY "createdAt" LIMIT 50`, ...params, depositName);
  if (exact.length > 0) return exact;
  const bare = removeBrackets(depositName);
  const prefix = [...depositName].length === truncation ? likePrefix(depositName) : null;
  if (bare.length === 0 && prefix === null) return [];
  return tx.$queryRawUnsafe<Invoice[]>(
    `${base} AND (("customerNameBare" = $5 AND $5 <> '') OR ($6::text IS NOT NULL AND "customerName" LIKE $6::text)) ORDER BY "createdAt" LIMIT 50`,
    ...params,
    bare,
    prefix,
  );
}

/** A LIKE pattern matching names that start with `prefix` (wildcards in it escaped). */
function likePrefix(prefix: string): string {
  return prefix.replace(/[\\%_]/g, (c) => '\\' + c) + '%';
}

/**
 * Matches a just-stored deposit (spec: States — matching deposit). One deposit pays at most one invoice (this runs
 * once, in the transaction that stores it); one invoice is paid by at most one deposit (the pending → paid update is
 * conditional, and `matchedInvoiceId` is unique). Ambiguity leaves the deposit unmatched with the candidates noted.
 */
async function matchDeposit(deps: Deps, tx: Tx, trx: Transaction, provider: string, now: Date): Promise<Transaction> {
  const truncation = findBankProvider(provider)?.depositorNameLength ?? Number.POSITIVE_INFINITY;
  for (let attempt = 1; ; attempt++) {
    const candidates = await matchCandidates(tx, trx, truncation, now);
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
    // The pending → paid update is conditional on the invoice still being what was matched: still pending and
    // unexpired, and with the amount, name and receiving accounts it was chosen for. A concurrent deposit or
    // mark-as-paid that paid it first, a cancel, or a PATCH that changed it (committed between the candidate read and
    // this update: PostgreSQL re-checks the condition on the row as it is now) makes it match nothing.
    const candidate = decision.candidate;
    const won = await tx.invoice.updateMany({
      where: {
        id: candidate.id,
        status: 'PENDING',
        amount: trx.amount,
        customerName: candidate.customerName,
        bankAccountIds: { equals: candidate.bankAccountIds },
        OR: [{ expiresAt: null }, { expiresAt: { gt: now } }],
      },
      data: { status: 'PAID', paidAt: now, paidTrigger: 'DEPOSIT', updatedAt: now },
    });
    if (won.count === 1) return completeMatch(deps, tx, trx, candidate.id, decision.method, now, null);
    // Still pending, so it was edited under us: match again against what is committed now (a few times at most; after
    // that the deposit stays unmatched, for a manual match).
    const current = await tx.invoice.findUnique({ where: { id: candidate.id }, select: { status: true } });
    if (current?.status === 'PENDING') {
      if (attempt < 3) continue;
      return trx;
    }
    // Paid by another deposit first (or canceled): this deposit stays unmatched, noted (nothing else was written).
    return tx.transaction.update({
      where: { id: trx.id },
      data: { matchNote: { reason: 'ALREADY_PAID', candidateInvoiceIds: [candidate.id], message: 'The matching invoice was paid by another deposit.' } },
    });
  }
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
  await autoIssueForPaidInvoice(tx, invoice, now);
  await queuePaidEmail(tx, invoice, now);
  await recordEvents(tx, trx.workspaceId, [
    invoiceEvent('invoice.paid', invoice, now, { trigger: 'DEPOSIT', transaction: transactionSnapshot(matched) }),
  ]);
  return matched;
}

/**
 * The buyer's "payment received" e-mail on a deposit match (spec: optional paid e-mail if enabled in the dashboard;
 * never on mark-as-paid), queued in the payment's transaction.
 */
async function queuePaidEmail(tx: Tx, invoice: Invoice, now: Date): Promise<void> {
  if (!invoice.customerEmail) return;
  const workspace = await tx.workspace.findUnique({ where: { id: invoice.workspaceId }, select: { name: true, paidEmailEnabled: true } });
  if (!workspace?.paidEmailEnabled) return;
  const content = paidEmail({ workspaceName: workspace.name, customerName: invoice.customerName, amount: invoice.amount, invoiceNumber: invoice.number, paidAt: (invoice.paidAt ?? now).toISOString() });
  await enqueueEmail(tx, { ...content, to: invoice.customerEmail, workspaceId: invoice.workspaceId, kind: 'invoice_paid', invoiceId: invoice.id, now });
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

/** Loads a deposit the principal may see: malformed or missing → TRANSACTION_NOT_FOUND; another workspace's → FOREIGN_TRANSACTION; outside the key's accounts → OUT_OF_SCOPE. */
export async function loadTransactionFor(db: Tx | Deps['prisma'], p: Principal, id: unknown): Promise<Transaction> {
  if (!isId('transaction', id)) throw new DomainError('TRANSACTION_NOT_FOUND');
  const t = await db.transaction.findUnique({ where: { id } });
  if (!t || t.deletedAt) throw new DomainError('TRANSACTION_NOT_FOUND');
  if (t.workspaceId !== p.workspaceId) throw new DomainError('FOREIGN_TRANSACTION');
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
