/**
 * Deposits (spec: Transaction object; contract: POST /bank-notifications, matchTransaction, unmatchTransaction,
 * setTransactionHidden). A bank notification is stored once per (account, notificationId); a 1-won deposit whose
 * depositor name is the account's verification code verifies it (stored hidden, never matched); any other deposit
 * is matched to at most one invoice in the same transaction that stores it.
 */
import { z } from 'zod';
import { Prisma, type BankAccount, type Invoice, type Transaction } from '../../generated/prisma/client.ts';
import type { Principal } from '../auth/principal.ts';
import { actorOf, assertCanWrite, bankAccountInScope, invoiceInScope, requirePrincipal, requireSession } from '../auth/rules.ts';
import { bankAccountSnapshot } from '../bank-accounts/bank-accounts.ts';
import { findBankProvider } from '../bank-accounts/bank-providers.ts';
import { parseKstRange, timestampSchema } from '../dates.ts';
import { asRaw, inRawTransaction, inTransaction, poolQuery, rawOf, type Deps, type RawQuery, type Sql, type Tx } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { eventInsertCtes, jsonRow, recordEvents, type CommittedEvent } from '../events/outbox.ts';
import { KeyedBatcher } from '../batching.ts';
import { historyInsertSql, jsonOrNull } from '../invoices/history.ts';
import { isId, newId } from '../ids.ts';
import { addHistory, findConflictingInvoice, invoiceEvent, invoiceFromJson, loadInvoiceFor } from '../invoices/invoices.ts';
import { INVOICE_TRANSITIONS, applyInvoiceTransition, mayStartFrom, transitionFromSql } from '../invoices/invoice-state.ts';
import { autoIssueForPaidInvoice } from '../cash-receipts/cash-receipts.ts';
import { emailInsertCtes, enqueueEmail, paidEmail, type QueuedEmail } from '../email/email.ts';
import { parseOffsetPage } from '../paging.ts';
import { isUniqueViolation } from '../prisma-errors.ts';
import { fail, parseRequest } from '../request-schema.ts';
import { sha256Hex } from '../secrets.ts';
import { SqlParams, SqlWhere, likeContains } from '../sql.ts';
import { MAX_WON, searchNormalize } from '../validation.ts';
import { depositNameKey, nameLength, splitBrackets } from './depositor-name.ts';
import { decideMatch, type AutoMatchMethod, type MatchDecision } from './name-matching.ts';

const DEPOSIT_MATCH = INVOICE_TRANSITIONS.DEPOSIT_MATCH;

export interface BankNotification {
  notificationId: string;
  depositorName: string;
  amount: number;
  receivedAt: Date;
}

const invalid = (field: string, rule: string) => ({ error: fail('VALIDATION_FAILED', `${field} must be ${rule}.`) });

/** A bank notification body (POST /bank-notifications): notificationId 1-200, depositorName 1-100, amount 1..MAX_WON, receivedAt a wire timestamp (dates.ts). */
export const bankNotificationSchema = z.object(
  {
    notificationId: z
      .string(invalid('notificationId', 'a string of 1-200 characters'))
      .min(1)
      .max(200)
      .meta({ description: 'Unique per bank account; the same id again returns the first transaction and changes nothing.' }),
    depositorName: z
      .string(invalid('depositorName', 'a string of 1-100 characters'))
      .refine((v) => v.trim().length >= 1 && nameLength(v) <= 100, invalid('depositorName', 'a string of 1-100 characters'))
      .transform((v) => v.trim())
      .meta({ description: 'Depositor name as the bank reports it (surrounding spaces are removed).', minLength: 1, maxLength: 100 }),
    amount: z.number({ error: fail('INVALID_AMOUNT') }).int().min(1).max(MAX_WON).meta({ description: 'Won, greater than 0.' }),
    receivedAt: timestampSchema('receivedAt').meta({
      description:
        'Deposit time per the bank, ISO 8601 with a zone, e.g. `2026-11-21T19:00:00+09:00`: a real calendar date and time, offset within ±23:59, between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z.',
    }),
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
  return deps.prisma.transaction.findUniqueOrThrow({ where: { id } });
}

/**
 * A verification deposit (spec: 1-won verification): 1 won, named with the account's verification code (compared
 * normalised as deposit names are, depositor-name.ts, and without whitespace, as BRACKET_REMOVAL compares: `937 368`
 * and `９３７３６８` are the code 937368). It verifies an unverified account; verified or not, it is stored hidden and
 * never pays an invoice (not even one named after the code), automatically or by hand.
 */
export function isVerificationDeposit(account: Pick<BankAccount, 'verificationCode'>, d: { amount: number; depositorName: string }): boolean {
  return d.amount === 1 && verificationForm(d.depositorName) === verificationForm(account.verificationCode);
}

/** The form a verification code is compared in: a deposit name's comparison form without whitespace. */
function verificationForm(name: string): string {
  return depositNameKey(name).replace(/\s+/gu, '');
}

/** How many characters of the depositor name the account's bank keeps (NAME_PREFIX matching). */
function truncationOf(account: BankAccount): number {
  return findBankProvider(account.provider)?.depositorNameLength ?? Number.POSITIVE_INFINITY;
}

/** A new deposit row, unmatched, as it will be stored. Exported for tests. */
export function newDeposit(account: BankAccount, n: BankNotification, now: Date, opts: { verification: boolean }): Transaction {
  return {
    id: newId('transaction'),
    workspaceId: account.workspaceId,
    bankAccountId: account.id,
    bankAccountSnapshot: bankAccountSnapshot(account),
    notificationId: n.notificationId,
    amount: n.amount,
    description: n.depositorName,
    searchText: transactionSearchText(account.number, n.depositorName),
    hidden: opts.verification,
    verification: opts.verification,
    matchedInvoiceId: null,
    matchMethod: null,
    matchedAt: null,
    matchNote: null,
    receivedAt: n.receivedAt,
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
  };
}

/**
 * The INSERT of a deposit row, for a statement of the caller's. With `match`, the deposit is stored linked to the
 * invoice an earlier CTE paid (`match.from`, its `id`), and only if that CTE returned a row.
 */
function depositInsertSql(s: SqlParams, d: Transaction, match?: { from: string; method: AutoMatchMethod; at: Date }): string {
  const now = s.p(d.createdAt.toISOString(), '::timestamptz');
  return `INSERT INTO "Transaction" (id, "workspaceId", "bankAccountId", "bankAccountSnapshot", "notificationId", amount, description, "searchText",
                                hidden, verification, "matchNote", "receivedAt", "createdAt", "updatedAt", "matchedInvoiceId", "matchMethod", "matchedAt")
     SELECT ${s.p(d.id)}, ${s.p(d.workspaceId)}, ${s.p(d.bankAccountId)}, ${s.p(JSON.stringify(d.bankAccountSnapshot), '::jsonb')}, ${s.p(d.notificationId)},
            ${s.p(d.amount, '::int')}, ${s.p(d.description)}, ${s.p(d.searchText)}, ${s.p(d.hidden, '::boolean')}, ${s.p(d.verification, '::boolean')},
            ${s.p(jsonOrNull(d.matchNote), '::jsonb')}, ${s.p(d.receivedAt.toISOString(), '::timestamptz')}, ${now}, ${now},
            ${match ? `${match.from}.id, ${s.p(match.method, '::"MatchMethod"')}, ${s.p(match.at.toISOString(), '::timestamptz')} FROM ${match.from}` : 'NULL, NULL, NULL'}
     RETURNING *`;
}

/**
 * The conditional pending → paid update of a matched invoice (RETURNING the paid row): it pays only an invoice that is
 * still what was matched — pending and unexpired, with the amount, name and receiving accounts it was chosen for (a
 * concurrent deposit or mark-as-paid that paid it first, a cancel, or a PATCH committed since the candidate read
 * makes it match nothing: PostgreSQL re-checks the condition on the row as it is now). With `unchangedSince`, also
 * only if nothing else about it changed (its paid row is then known without reading it back).
 */
function payInvoiceSql(s: SqlParams, candidate: Invoice, now: Date, opts: { unchangedSince?: Date } = {}): string {
  const at = s.p(now.toISOString(), '::timestamptz');
  return `UPDATE "Invoice" SET status = '${DEPOSIT_MATCH.to}', "paidAt" = ${at}, "paidTrigger" = 'DEPOSIT', "updatedAt" = ${at}
      WHERE id = ${s.p(candidate.id)} AND ${transitionFromSql('DEPOSIT_MATCH', at)} AND amount = ${s.p(candidate.amount, '::int')}
        AND "customerName" = ${s.p(candidate.customerName)} AND "bankAccountIds" = ${s.p([...candidate.bankAccountIds], '::text[]')}
        ${opts.unchangedSince ? `AND "updatedAt" = ${s.p(opts.unchangedSince.toISOString(), '::timestamptz')}` : ''}
     RETURNING *`;
}

/** The invoice as payInvoiceSql leaves it (for an invoice unchanged since it was read). */
function paidByDeposit(candidate: Invoice, now: Date): Invoice {
  return { ...candidate, status: DEPOSIT_MATCH.to, paidAt: now, paidTrigger: 'DEPOSIT', updatedAt: now };
}

/** The event a deposit paying an invoice emits. */
function paidByDepositEvent(invoice: Invoice, matched: Transaction, now: Date) {
  return invoiceEvent('invoice.paid', invoice, now, { trigger: 'DEPOSIT', transaction: transactionSnapshot(matched) });
}

/** The history line a deposit paying an invoice writes. */
function paidByDepositHistory(matched: Transaction, method: AutoMatchMethod | 'MANUAL') {
  return { trigger: 'DEPOSIT', transactionId: matched.id, matchMethod: method };
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

/** A deposit that matched exactly one invoice, ready to be stored together with paying it. */
export interface MatchedDepositWrite {
  deposit: Transaction;
  /** The deposit as stored when the payment goes through. */
  matched: Transaction;
  candidate: Invoice;
  method: AutoMatchMethod;
  now: Date;
  mail: QueuedEmail | null;
}

/** Deposits matched in one statement per workspace at a time, at most this many together. */
const MATCHED_DEPOSITS_PER_STATEMENT = 64;
/** A statement of matched deposits that has not answered by then fails its deposits with 503 (the bank retries). */
const MATCHED_DEPOSITS_TIMEOUT_MS = 30_000;
type MatchedDepositResult = Transaction | { fallBack: true; lostCandidateId: string };
const matchedDepositBatchers = new WeakMap<Deps, KeyedBatcher<MatchedDepositWrite, MatchedDepositResult>>();

/**
 * The writer of matched deposits, one per app: per workspace, one statement at a time. Each such statement takes the
 * workspace's row lock until it commits (event sequence numbers, src/domain/events/outbox.ts), so deposits of one
 * workspace commit one after another anyway; writing those that arrive meanwhile in the next statement together makes
 * a burst, or the backlog of a database stall, one commit instead of a queue of commits each waiting for the last.
 * Two deposits paying the same invoice never share a statement (PostgreSQL would apply only one of two updates of a
 * row in one statement, without saying which): the second waits for the next one, where it finds the invoice paid.
 */
function matchedDepositWrites(deps: Deps) {
  let batcher = matchedDepositBatchers.get(deps);
  if (!batcher) {
    batcher = new KeyedBatcher((workspaceId, items) => storeMatchedDeposits(deps, workspaceId, items), {
      max: MATCHED_DEPOSITS_PER_STATEMENT,
      timeoutMs: MATCHED_DEPOSITS_TIMEOUT_MS,
      fits: (batch, item) => batch.every((b) => b.candidate.id !== item.candidate.id),
    });
    matchedDepositBatchers.set(deps, batcher);
  }
  return batcher;
}

/**
 * Errors of a statement of several deposits that one of them may have caused alone (the same notification twice,
 * lock order with another writer): each is then written alone, so that the error is only its own. Any other error
 * (the database unreachable, ...) is every deposit's, at once.
 */
const RETRY_ALONE = new Set(['23505', '40P01', '40001']);

/**
 * Stores matched deposits of one workspace (see storeMatchedDepositsInOneStatement); one result per deposit, in order.
 * Exported for tests.
 */
export async function storeMatchedDeposits(deps: Deps, workspaceId: string, items: MatchedDepositWrite[]): Promise<PromiseSettledResult<MatchedDepositResult>[]> {
  if (items.length > 1) {
    try {
      return (await storeMatchedDepositsInOneStatement(deps, workspaceId, items)).map((value) => ({ status: 'fulfilled', value }));
    } catch (e) {
      const code = (e as { code?: unknown })?.code;
      if (typeof code !== 'string' || !RETRY_ALONE.has(code)) return items.map(() => ({ status: 'rejected', reason: e }));
      deps.log.info({ code, deposits: items.length }, 'a statement of several matched deposits failed; writing each alone');
    }
  }
  const out: PromiseSettledResult<MatchedDepositResult>[] = [];
  for (const item of items) {
    try {
      const [value] = await storeMatchedDepositsInOneStatement(deps, workspaceId, [item]);
      out.push({ status: 'fulfilled', value: value! });
    } catch (reason) {
      out.push({ status: 'rejected', reason });
    }
  }
  return out;
}

/**
 * Stores matched deposits of one workspace in one statement (one transaction): for each, the conditional payment of
 * its invoice, the deposit linked to it, the history line, the buyer's e-mail, and the `invoice.paid` event — all or
 * nothing per deposit. A deposit whose invoice changed since it was read (or was paid by another deposit) is not
 * stored: `{ fallBack, lostCandidateId }` (storeDeposit then matches it again). The invoices are locked in id order
 * (the CTEs run in the order written), so two such statements never wait for each other in a cycle; the events are
 * numbered in that order. After the commit, live subscribers hear of the payments, with the invoices as the statement
 * left them; only the statement can throw. Exported for tests.
 */
export async function storeMatchedDepositsInOneStatement(deps: Deps, workspaceId: string, items: readonly MatchedDepositWrite[]): Promise<MatchedDepositResult[]> {
  const order = items.map((_, i) => i).sort((a, b) => (items[a]!.candidate.id < items[b]!.candidate.id ? -1 : items[a]!.candidate.id > items[b]!.candidate.id ? 1 : a - b));
  const sorted = order.map((i) => items[i]!);
  const s = new SqlParams();
  const ctes: string[] = [];
  const events = sorted.map((it) => paidByDepositEvent(paidByDeposit(it.candidate, it.now), it.matched, it.now));
  const stored = (i: number) => `EXISTS (SELECT 1 FROM deposit_${i})`;
  sorted.forEach((it, i) => {
    ctes.push(
      `paid_${i} AS (${payInvoiceSql(s, it.candidate, it.now, { unchangedSince: it.candidate.updatedAt })})`,
      `deposit_${i} AS (${depositInsertSql(s, it.deposit, { from: `paid_${i}`, method: it.method, at: it.now })})`,
      `history_${i} AS (${historyInsertSql(s, { invoiceId: `deposit_${i}."matchedInvoiceId"`, from: `deposit_${i}`, type: 'paid', now: it.now, actor: null, data: paidByDepositHistory(it.matched, it.method) })})`,
    );
    if (it.mail) ctes.push(emailInsertCtes(s, it.mail, { name: `email_${i}`, guard: stored(i) }).sql);
  });
  const eventCtes = eventInsertCtes(s, workspaceId, events, sorted.length === 1 ? { name: 'event', guard: stored(0) } : { name: 'event', guards: sorted.map((_, i) => stored(i)) });
  ctes.push(eventCtes.sql);
  // Each stored deposit answers with its event's sequence only: the row written is `it.matched`, which this process
  // built (parsing the whole row back cost more than the rest of the answer).
  const rows = await deps.sql.query<{ item: number; eventSequence: string | number | bigint | null }>(
    `WITH ${ctes.join(',\n')}
     ${sorted.map((_, i) => `SELECT ${i} AS item, (SELECT sequence FROM event WHERE id = ${s.p(eventCtes.ids[i])}) AS "eventSequence" FROM deposit_${i} d`).join('\n     UNION ALL ')}`,
    s.values,
    // One deposit: two variants of this text (with and without the e-mail), prepared. Several: text of their own.
    { prepare: sorted.length === 1 },
  );
  deps.observe?.matchedDepositBatch?.(sorted.length);
  const byItem = new Map(rows.map(({ item, ...row }) => [Number(item), row]));
  const committed: CommittedEvent[] = [];
  const results = sorted.map((it, i): MatchedDepositResult => {
    const row = byItem.get(i);
    if (!row) return { fallBack: true, lostCandidateId: it.candidate.id };
    const { eventSequence } = row;
    const paid = paidByDeposit(it.candidate, it.now);
    committed.push({
      id: eventCtes.ids[i]!,
      workspaceId,
      sequence: String(eventSequence),
      type: events[i]!.type,
      invoiceId: paid.id,
      cashReceiptId: null,
      bankAccountIds: [...paid.bankAccountIds],
      createdAt: it.now,
      invoice: jsonRow(paid),
    });
    return it.matched;
  });
  try {
    // Committed (in sequence order, which is the order written): live subscribers hear of the payments now.
    if (committed.length > 0) deps.onEventsCommitted(committed);
    if (sorted.some((it, i) => it.mail && byItem.has(i))) deps.onJobsQueued();
  } catch (e) {
    // The deposits are stored: the dispatcher still publishes their events; nothing here may fail their callers.
    deps.log.error({ err: e }, 'telling subscribers of committed deposits failed');
  }
  const inInputOrder: MatchedDepositResult[] = new Array(items.length);
  order.forEach((input, i) => (inInputOrder[input] = results[i]!));
  return inInputOrder;
}

/** Why a deposit that matched no single invoice stays unmatched, for its matchNote (null: nothing matched). */
function unmatchedNote(decision: Exclude<MatchDecision<Invoice>, { kind: 'MATCH' }>) {
  switch (decision.kind) {
    case 'AMBIGUOUS':
      return {
        reason: 'AMBIGUOUS',
        method: decision.method,
        candidateInvoiceIds: decision.candidates.map((c) => c.id),
        message: 'More than one pending invoice matches this deposit; match it manually.',
      };
    case 'TOO_MANY_CANDIDATES':
      return {
        reason: 'TOO_MANY_CANDIDATES',
        candidateInvoiceIds: decision.candidates.map((c) => c.id),
        message: `More than ${CANDIDATE_LIMIT} pending invoices could match this deposit, too many to be sure which one it pays; the matching ones among those read are listed. Match it manually.`,
      };
    case 'NONE':
      return null;
  }
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

/** The outcome of matching a stored deposit, for metrics. */
export function matchOutcomeOf(t: Transaction): string {
  if (t.verification) return 'VERIFICATION';
  if (t.matchMethod) return t.matchMethod;
  const reason = (t.matchNote as { reason?: string } | null)?.reason;
  return reason ?? 'NONE';
}

/**
 * The pending, unexpired invoices of the workspace with the deposit's amount that can receive on its account
 * (fragments take SQL expressions: placeholders, or columns of the caller's query).
 */
function candidateBaseSql(s: SqlParams, e: { workspaceId: string; bankAccountId: string; amount: string; now: Date }): string {
  const now = s.p(e.now.toISOString(), '::timestamptz');
  return `SELECT * FROM "Invoice"
     WHERE "workspaceId" = ${e.workspaceId} AND amount = ${e.amount} AND ${transitionFromSql('DEPOSIT_MATCH', now)}
       AND (cardinality("bankAccountIds") = 0 OR ${e.bankAccountId} = ANY("bankAccountIds"))`;
}

/**
 * The most candidates a lookup reads; it asks for one more, to know whether it was cut (then the limit may not decide:
 * decideMatch's `complete`).
 */
const CANDIDATE_LIMIT = 50;

/**
 * EXACT candidates: named like the deposit once both are normalised (`name`: the deposit's depositNameKey(); index
 * Invoice_name_prefix_idx on workspace, amount, customerNameKey), oldest first, at most CANDIDATE_LIMIT + 1. Exported
 * for the plan test.
 */
export function exactCandidatesSql(s: SqlParams, e: { workspaceId: string; bankAccountId: string; amount: string; name: string; now: Date }): string {
  return `${candidateBaseSql(s, e)} AND "customerNameKey" = ${e.name} ORDER BY "createdAt" LIMIT ${CANDIDATE_LIMIT + 1}`;
}

/**
 * Pending, unexpired invoices of the workspace with the deposit's amount that can receive on its account and whose
 * name could match it — fetched through indexes, never by scanning every invoice of that amount:
 *  - EXACT hits are the invoices named like the deposit (normalised: customerNameKey; `exact`: already read by the
 *    caller); when there are any, they decide, unless the deposit's name is exactly the bank's truncation length;
 *  - otherwise: invoices whose bracket-free name equals the deposit's bracket-free name (BRACKET_REMOVAL, index on
 *    customerNameBare), and, when the deposit's normalised name has exactly the bank's truncation length, invoices
 *    whose normalised name starts with it (NAME_PREFIX, text_pattern_ops index on customerNameKey; they compete with
 *    EXACT hits, so such a deposit with EXACT hits costs this second lookup). decideMatch() then picks among them
 *    (and drops bracket-free hits whose bracket text differs from the deposit's).
 * `complete` is false when a lookup was cut at CANDIDATE_LIMIT (`candidates` then hold its first CANDIDATE_LIMIT rows).
 */
export async function matchCandidates(
  db: Sql,
  trx: Pick<Transaction, 'workspaceId' | 'bankAccountId' | 'amount' | 'description'>,
  truncation: number,
  now: Date,
  exact?: Invoice[],
): Promise<{ candidates: Invoice[]; complete: boolean }> {
  const q = asRaw(db);
  const depositName = depositNameKey(trx.description);
  const at = () => {
    const s = new SqlParams();
    return { s, e: { workspaceId: s.p(trx.workspaceId), bankAccountId: s.p(trx.bankAccountId), amount: s.p(trx.amount, '::int'), now } };
  };
  if (!exact) {
    const { s, e } = at();
    exact = await q<Invoice>(exactCandidatesSql(s, { ...e, name: s.p(depositName) }), s.values);
  }
  const exactComplete = exact.length <= CANDIDATE_LIMIT;
  const exactRead = exact.slice(0, CANDIDATE_LIMIT);
  // A name of exactly the bank's truncation length may be a longer name cut short: the invoices it begins compete.
  const mayBeTruncated = [...depositName].length === truncation;
  if (exactRead.length > 0 && !mayBeTruncated) return { candidates: exactRead, complete: exactComplete };
  const bare = splitBrackets(depositName).bare;
  const prefix = mayBeTruncated ? likePrefix(depositName) : null;
  if (bare.length === 0 && prefix === null) return { candidates: exactRead, complete: exactComplete };
  const { s, e } = at();
  const named = await q<Invoice>(nameCandidatesSql(s, { ...e, bare, prefix }), s.values);
  const candidates = new Map(exactRead.map((i) => [i.id, i]));
  for (const i of named.slice(0, CANDIDATE_LIMIT)) if (!candidates.has(i.id)) candidates.set(i.id, i);
  return { candidates: [...candidates.values()], complete: exactComplete && named.length <= CANDIDATE_LIMIT };
}

/**
 * BRACKET_REMOVAL and NAME_PREFIX candidates (`bare`: the deposit's bracket-free name; `prefix`: a LIKE pattern of
 * its normalised name, or null), oldest first, at most CANDIDATE_LIMIT + 1. Sent with its values (a custom plan: LIKE
 * 'prefix%' uses the text_pattern_ops index only with the pattern known). Exported for the plan test.
 */
export function nameCandidatesSql(s: SqlParams, e: { workspaceId: string; bankAccountId: string; amount: string; now: Date; bare: string; prefix: string | null }): string {
  const b = s.p(e.bare);
  const p = s.p(e.prefix, '::text');
  return `${candidateBaseSql(s, e)} AND (("customerNameBare" = ${b} AND ${b} <> '') OR (${p} IS NOT NULL AND "customerNameKey" LIKE ${p})) ORDER BY "createdAt" LIMIT ${CANDIDATE_LIMIT + 1}`;
}

/** A LIKE pattern matching names that start with `prefix` (wildcards in it escaped). */
function likePrefix(prefix: string): string {
  return prefix.replace(/[\\%_]/g, (c) => '\\' + c) + '%';
}

/** Notes on a stored deposit why it stayed unmatched. */
async function noteUnmatched(q: RawQuery, trx: Transaction, note: Record<string, unknown>, now: Date): Promise<Transaction> {
  const [noted] = await q<Transaction>(`UPDATE "Transaction" SET "matchNote" = $2::jsonb, "updatedAt" = $3::timestamptz WHERE id = $1 RETURNING *`, [
    trx.id,
    JSON.stringify(note),
    now.toISOString(),
  ]);
  return noted ?? trx;
}

/**
 * Matches a just-stored deposit (spec: States — matching deposit). One deposit pays at most one invoice (this runs
 * once, in the transaction that stores it); one invoice is paid by at most one deposit (the pending → paid update is
 * conditional, and `matchedInvoiceId` is unique). Ambiguity leaves the deposit unmatched with the candidates noted.
 * `lostCandidateId`: the invoice this deposit matched when first read, which changed before it could be paid.
 */
async function matchDeposit(q: RawQuery, trx: Transaction, truncation: number, now: Date, lostCandidateId?: string): Promise<Transaction> {
  for (let attempt = 1; ; attempt++) {
    const found = await matchCandidates(q, trx, truncation, now);
    const decision = decideMatch(trx.description, found.candidates, truncation, { complete: found.complete });
    if (decision.kind === 'NONE') {
      if (attempt === 1 && lostCandidateId) return noteIfPaidByAnother(q, trx, lostCandidateId, now);
      return trx;
    }
    if (decision.kind !== 'MATCH') return noteUnmatched(q, trx, unmatchedNote(decision)!, now);
    // The same statement pays the invoice (if it is still what was matched) and links the deposit to it.
    const candidate = decision.candidate;
    const s = new SqlParams();
    const [paid] = await q<Invoice & { linked: boolean }>(
      `WITH paid AS (${payInvoiceSql(s, candidate, now)}),
            linked AS (
              UPDATE "Transaction" t SET "matchedInvoiceId" = paid.id, "matchMethod" = ${s.p(decision.method, '::"MatchMethod"')},
                     "matchedAt" = ${s.p(now.toISOString(), '::timestamptz')}, "matchNote" = NULL, "updatedAt" = ${s.p(now.toISOString(), '::timestamptz')}
                FROM paid WHERE t.id = ${s.p(trx.id)} AND t."matchedInvoiceId" IS NULL
              RETURNING t.id
            )
       SELECT paid.*, EXISTS (SELECT 1 FROM linked) AS linked FROM paid`,
      s.values,
    );
    if (paid) {
      const { linked, ...invoice } = paid;
      if (!linked) throw new Error(`deposit ${trx.id} was matched under its own transaction`);
      const matched: Transaction = { ...trx, matchedInvoiceId: invoice.id, matchMethod: decision.method, matchedAt: now, matchNote: null, updatedAt: now };
      await afterDepositPaid(q, matched, invoice, decision.method, now, null);
      return matched;
    }
    // Still pending, so it was edited under us: match again against what is committed now (a few times at most; after
    // that the deposit stays unmatched, for a manual match).
    if ((await storedInvoiceStatus(q, candidate.id)) === 'PENDING') {
      if (attempt < 3) continue;
      return trx;
    }
    return noteUnmatched(q, trx, alreadyPaidNote(candidate.id), now);
  }
}

async function storedInvoiceStatus(q: RawQuery, invoiceId: string): Promise<string | null> {
  const [row] = await q<{ status: string }>(`SELECT status FROM "Invoice" WHERE id = $1`, [invoiceId]);
  return row?.status ?? null;
}

/** Paid by another deposit first (or canceled): this deposit stays unmatched, noted (nothing else was written). */
function alreadyPaidNote(invoiceId: string) {
  return { reason: 'ALREADY_PAID', candidateInvoiceIds: [invoiceId], message: 'The matching invoice was paid by another deposit.' };
}

async function noteIfPaidByAnother(q: RawQuery, trx: Transaction, invoiceId: string, now: Date): Promise<Transaction> {
  const status = await storedInvoiceStatus(q, invoiceId);
  return status !== null && status !== 'PENDING' ? noteUnmatched(q, trx, alreadyPaidNote(invoiceId), now) : trx;
}

/**
 * What a deposit paying an invoice writes besides the two rows (automatic and manual matches alike): the `paid`
 * history line, the automatic cash receipt, the buyer's e-mail, and the `invoice.paid` event.
 */
async function afterDepositPaid(q: RawQuery, matched: Transaction, invoice: Invoice, method: AutoMatchMethod | 'MANUAL', now: Date, actor: unknown): Promise<void> {
  await addHistory(q, invoice.id, 'paid', now, actor, paidByDepositHistory(matched, method));
  await autoIssueForPaidInvoice(q, invoice, now);
  await queuePaidEmail(q, invoice, now);
  await recordEvents(q, matched.workspaceId, [paidByDepositEvent(invoice, matched, now)]);
}

type PaidEmailSettings = { name: string; paidEmailEnabled: boolean };

/**
 * The buyer's "payment received" e-mail on a deposit match (spec: optional paid e-mail if enabled in the dashboard;
 * never on mark-as-paid): for an invoice with an e-mail address, when the workspace enabled it.
 */
function paidEmailFor(invoice: Invoice, workspace: PaidEmailSettings | undefined, now: Date): QueuedEmail | null {
  if (!invoice.customerEmail || !workspace?.paidEmailEnabled) return null;
  const content = paidEmail({ workspaceName: workspace.name, customerName: invoice.customerName, amount: invoice.amount, invoiceNumber: invoice.number, paidAt: (invoice.paidAt ?? now).toISOString() });
  return { ...content, to: invoice.customerEmail, workspaceId: invoice.workspaceId, kind: 'invoice_paid', invoiceId: invoice.id, now };
}

/** Queues the paid e-mail, if any, in the payment's transaction. */
async function queuePaidEmail(q: RawQuery, invoice: Invoice, now: Date): Promise<void> {
  if (!invoice.customerEmail) return;
  const [workspace] = await q<PaidEmailSettings>(`SELECT name, "paidEmailEnabled" FROM "Workspace" WHERE id = $1`, [invoice.workspaceId]);
  const mail = paidEmailFor(invoice, workspace, now);
  if (mail) await enqueueEmail(q, mail);
}

/**
 * What of a deposit's `matchNote` the principal sees: an account-limited key sees only the candidate invoices it may
 * handle (spec: account-limited keys), never the ids of invoices outside its accounts.
 */
export async function matchNoteVisibleTo(deps: Pick<Deps, 'prisma'>, p: Principal | null, note: unknown): Promise<unknown> {
  const ids = (note as { candidateInvoiceIds?: unknown } | null)?.candidateInvoiceIds;
  if (!p || p.bankAccountIds === null || !Array.isArray(ids) || ids.length === 0) return note;
  const rows = await deps.prisma.invoice.findMany({ where: { id: { in: ids.filter((x): x is string => typeof x === 'string') } }, select: { id: true, bankAccountIds: true } });
  const visible = new Set(rows.filter((r) => invoiceInScope(p, r.bankAccountIds)).map((r) => r.id));
  return { ...(note as Record<string, unknown>), candidateInvoiceIds: ids.filter((id) => visible.has(id as string)) };
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
    const account = await tx.bankAccount.findUniqueOrThrow({ where: { id: trx.bankAccountId }, select: { verificationCode: true } });
    // The flag, and the rule itself for a deposit stored before the rule covered verified accounts.
    if (trx.verification || isVerificationDeposit(account, { amount: trx.amount, depositorName: trx.description })) {
      throw new DomainError('TRANSACTION_NOT_MATCHABLE', { message: 'A 1-won verification deposit cannot pay an invoice.' });
    }
    const invoice = await loadInvoiceFor(tx, p, invoiceId);
    const now = deps.clock.now();
    await applyInvoiceTransition(tx, invoice, 'MARK_AS_PAID', now, { paidAt: now, paidTrigger: 'DEPOSIT' });
    // Link the deposit only if it is still unmatched (the row lock makes two manual matches of one deposit take turns).
    const claimed = await tx.transaction.updateMany({
      where: { id: trx.id, matchedInvoiceId: null },
      data: { matchedInvoiceId: invoice.id, matchMethod: 'MANUAL', matchedAt: now, matchNote: Prisma.DbNull, updatedAt: now },
    });
    if (claimed.count === 0) throw new DomainError('TRANSACTION_ALREADY_MATCHED');
    const matched = await tx.transaction.findUniqueOrThrow({ where: { id: trx.id } });
    const paid = await tx.invoice.findUniqueOrThrow({ where: { id: invoice.id } });
    await afterDepositPaid(rawOf(tx), matched, paid, 'MANUAL', now, actorOf(p));
    return matched;
  });
}

/**
 * unmatchTransaction (dashboard): the deposit becomes unmatched and its invoice returns to pending. Refused with
 * INVOICE_ALREADY_EXISTS (data: the other invoice's id and number) when, while it was paid, another pending invoice
 * of the same name and amount on overlapping accounts was created: two would then wait for one deposit (the conflict
 * check of create, under its advisory lock, so a create at the same moment waits for this and is refused in turn).
 * An invoice past its expiry comes back expired and conflicts with nothing.
 */
export async function unmatchTransaction(deps: Deps, principal: Principal | null, transactionId: unknown) {
  const p = requireSession(principal);
  return inTransaction(deps, async (tx) => {
    const trx = await loadTransactionFor(tx, p, transactionId);
    if (!trx.matchedInvoiceId) throw new DomainError('TRANSACTION_NOT_MATCHED');
    const invoice = await tx.invoice.findUniqueOrThrow({ where: { id: trx.matchedInvoiceId } });
    const now = deps.clock.now();
    // Only an invoice that comes back payable by a deposit can conflict (past its expiry it comes back EXPIRED).
    if (mayStartFrom('DEPOSIT_MATCH', { status: 'PENDING', expiresAt: invoice.expiresAt }, now)) {
      const conflict = await findConflictingInvoice(rawOf(tx), {
        workspaceId: invoice.workspaceId,
        customerName: invoice.customerName,
        amount: invoice.amount,
        bankAccountIds: invoice.bankAccountIds,
        excludeId: invoice.id,
        now,
      });
      if (conflict) {
        throw new DomainError('INVOICE_ALREADY_EXISTS', {
          data: { invoiceId: conflict.id, number: conflict.number },
          message: `Pending invoice ${conflict.number} has the same depositor name and amount on an overlapping receiving account; cancel it before un-matching this deposit.`,
        });
      }
    }
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
