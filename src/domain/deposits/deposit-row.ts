/** A deposit row (spec: Transaction object): built from a notification, inserted, and shown in event payloads. */
import type { BankAccount, Transaction } from '../../generated/prisma/client.ts';
import type { MatchMethod } from '../../generated/prisma/enums.ts';
import { bankAccountSnapshot } from '../bank-accounts/bank-accounts.ts';
import type { NewEvent } from '../events/outbox.ts';
import { findBankProvider } from '../bank-accounts/bank-providers.ts';
import { newId } from '../ids.ts';
import { jsonOrNull } from '../invoices/history.ts';
import type { SqlParams } from '../sql.ts';
import { searchNormalize } from '../validation.ts';
import type { BankNotification } from './bank-notification.ts';
import { depositNameKey } from './depositor-name.ts';
import type { AutoMatchMethod } from './name-matching.ts';

function transactionSearchText(accountNumber: string, depositorName: string): string {
  return [accountNumber, depositorName].map(searchNormalize).join('\u0001');
}

/**
 * A verification deposit (spec: 1-won verification): 1 won, named with the account's code, compared as deposit names
 * are but without whitespace (`937 368`, `９３７３６８`). It is stored hidden and never pays an invoice.
 */
export function isVerificationDeposit(account: Pick<BankAccount, 'verificationCode'>, d: { amount: number; depositorName: string }): boolean {
  return d.amount === 1 && verificationForm(d.depositorName) === verificationForm(account.verificationCode);
}

/** The form a verification code is compared in: a deposit name's comparison form without whitespace. */
function verificationForm(name: string): string {
  return depositNameKey(name).replace(/\s+/gu, '');
}

/** How many characters of the depositor name the account's bank keeps (NAME_PREFIX matching). */
export function truncationOf(account: BankAccount): number {
  return findBankProvider(account.provider)?.depositorNameLength ?? Number.POSITIVE_INFINITY;
}

/**
 * How a deposit reached the service, beyond the notification's fields: by a forwarded text or the polled history
 * (README, "Deposits by text and by history"), with the balance after it when the bank said. Absent: the bank
 * notification feed.
 */
export type DepositOrigin =
  | { source: 'TEXT'; balanceAfter: number | null; channel: TextChannel }
  | { source: 'HISTORY'; balanceAfter: number | null; historyRowId: string };

/** How a forwarded text reached the phone. */
export type TextChannel = 'SMS' | 'PUSH';

/** A new deposit row, unmatched, as it will be stored. Exported for tests. */
export function newDeposit(account: BankAccount, n: BankNotification, now: Date, opts: { verification: boolean; origin?: DepositOrigin }): Transaction {
  const origin = opts.origin;
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
    source: origin?.source ?? 'NOTIFICATION',
    balanceAfter: origin?.balanceAfter ?? null,
    textAnnouncedAt: origin?.source === 'TEXT' ? now : null,
    textChannels: origin?.source === 'TEXT' ? [origin.channel] : [],
    historyRowId: origin?.source === 'HISTORY' ? origin.historyRowId : null,
    historySeenAt: origin?.source === 'HISTORY' ? now : null,
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
  };
}

/**
 * The INSERT of a deposit row, for a statement of the caller's. With `match`, the deposit is stored linked to the
 * invoice an earlier CTE paid (`match.from`, its `id`), and only if that CTE returned a row.
 */
export function depositInsertSql(s: SqlParams, d: Transaction, match?: { from: string; method: AutoMatchMethod; at: Date }): string {
  const now = s.p(d.createdAt.toISOString(), '::timestamptz');
  return `INSERT INTO "Transaction" (id, "workspaceId", "bankAccountId", "bankAccountSnapshot", "notificationId", amount, description, "searchText",
                                hidden, verification, "matchNote", "receivedAt", source, "balanceAfter", "textAnnouncedAt", "textChannels", "historyRowId", "historySeenAt",
                                "createdAt", "updatedAt", "matchedInvoiceId", "matchMethod", "matchedAt")
     SELECT ${s.p(d.id)}, ${s.p(d.workspaceId)}, ${s.p(d.bankAccountId)}, ${s.p(JSON.stringify(d.bankAccountSnapshot), '::jsonb')}, ${s.p(d.notificationId)},
            ${s.p(d.amount, '::int')}, ${s.p(d.description)}, ${s.p(d.searchText)}, ${s.p(d.hidden, '::boolean')}, ${s.p(d.verification, '::boolean')},
            ${s.p(jsonOrNull(d.matchNote), '::jsonb')}, ${s.p(d.receivedAt.toISOString(), '::timestamptz')}, ${s.p(d.source, '::"DepositSource"')},
            ${s.p(d.balanceAfter, '::float8')}, ${s.p(d.textAnnouncedAt?.toISOString() ?? null, '::timestamptz')}, ${s.p(d.textChannels, '::text[]')}, ${s.p(d.historyRowId)},
            ${s.p(d.historySeenAt?.toISOString() ?? null, '::timestamptz')}, ${now}, ${now},
            ${match ? `${match.from}.id, ${s.p(match.method, '::"MatchMethod"')}, ${s.p(match.at.toISOString(), '::timestamptz')} FROM ${match.from}` : 'NULL, NULL, NULL'}
     RETURNING *`;
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

/**
 * Why a deposit stayed unmatched when it was stored, as `transaction.received` says it (one table for every face: the
 * GraphQL enum, the OpenAPI webhook schema). The first three are its matchNote's reasons (match-deposit.ts).
 */
export const DEPOSIT_UNMATCHED_REASONS = {
  AMBIGUOUS: 'More than one pending invoice matches it (candidateInvoiceIds): match it by hand.',
  TOO_MANY_CANDIDATES: 'More pending invoices could match it than one lookup reads: the matching ones among those read are listed (candidateInvoiceIds); match it by hand.',
  ALREADY_PAID: 'The invoice it matched (candidateInvoiceIds) was paid by another deposit, or canceled, first.',
  NO_CANDIDATE: 'No pending, unexpired invoice of its amount that can receive on its account has a name it matches.',
  ACCOUNT_NOT_RECEIVING: 'Its account is not verified yet (the 1-won verification) or inactive: deposits to it are stored but not matched.',
} as const;
export type DepositUnmatchedReason = keyof typeof DEPOSIT_UNMATCHED_REASONS;

/** What became of a deposit as it was stored: the invoice it paid and how, or why it paid none and what it could have paid. */
export type DepositMatchOutcome =
  | { status: 'MATCHED'; invoiceId: string; method: MatchMethod }
  | { status: 'UNMATCHED'; reason: DepositUnmatchedReason; candidateInvoiceIds: string[] };

/**
 * The match outcome of a deposit just stored (spec: matching deposit): matched, or unmatched with its matchNote's reason
 * and candidates; without a note, NO_CANDIDATE on an account that receives, ACCOUNT_NOT_RECEIVING on one that does not
 * (not verified, or inactive: such deposits are not matched at all).
 */
export function depositMatchOutcome(t: Pick<Transaction, 'matchedInvoiceId' | 'matchMethod' | 'matchNote'>, receiving: boolean): DepositMatchOutcome {
  if (t.matchedInvoiceId && t.matchMethod) return { status: 'MATCHED', invoiceId: t.matchedInvoiceId, method: t.matchMethod };
  const note = t.matchNote as { reason?: unknown; candidateInvoiceIds?: unknown } | null;
  if (typeof note?.reason === 'string' && note.reason in DEPOSIT_UNMATCHED_REASONS) {
    const ids = Array.isArray(note.candidateInvoiceIds) ? note.candidateInvoiceIds.filter((x): x is string => typeof x === 'string') : [];
    return { status: 'UNMATCHED', reason: note.reason as DepositUnmatchedReason, candidateInvoiceIds: ids };
  }
  return { status: 'UNMATCHED', reason: receiving ? 'NO_CANDIDATE' : 'ACCOUNT_NOT_RECEIVING', candidateInvoiceIds: [] };
}

/** The deposit as `transaction.received` carries it: the event payloads' deposit, and how it reached the service. */
export function receivedTransactionSnapshot(t: Transaction) {
  return { ...transactionSnapshot(t), source: t.source };
}

/**
 * The `transaction.received` event of a deposit just stored, written in the deposit's own transaction (the outbox):
 * the deposit and its match outcome, recorded with the deposit's account (account-limited keys see their accounts'
 * deposits) and, matched, the invoice it paid. A 1-won verification deposit has none: it is the service's own check
 * of the account, not money for the merchant. `receiving`: the account is verified and active (it was matched).
 */
export function transactionReceivedEvent(t: Transaction, receiving: boolean, now: Date): NewEvent {
  if (t.verification) throw new Error(`verification deposit ${t.id} emits no transaction.received`);
  return {
    workspaceId: t.workspaceId,
    type: 'transaction.received',
    invoiceId: t.matchedInvoiceId,
    bankAccountIds: [t.bankAccountId],
    data: { transaction: receivedTransactionSnapshot(t), match: depositMatchOutcome(t, receiving) },
    createdAt: now,
  };
}

/** The outcome of matching a stored deposit, for metrics. */
export function matchOutcomeOf(t: Transaction): string {
  if (t.verification) return 'VERIFICATION';
  if (t.matchMethod) return t.matchMethod;
  const reason = (t.matchNote as { reason?: string } | null)?.reason;
  return reason ?? 'NONE';
}
