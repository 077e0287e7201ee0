/** A deposit row (spec: Transaction object): built from a notification, inserted, and shown in event payloads. */
import type { BankAccount, Transaction } from '../../generated/prisma/client.ts';
import { bankAccountSnapshot } from '../bank-accounts/bank-accounts.ts';
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
export type DepositOrigin = { source: 'TEXT'; balanceAfter: number | null } | { source: 'HISTORY'; balanceAfter: number | null; historyRowId: string };

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
                                hidden, verification, "matchNote", "receivedAt", source, "balanceAfter", "textAnnouncedAt", "historyRowId", "historySeenAt",
                                "createdAt", "updatedAt", "matchedInvoiceId", "matchMethod", "matchedAt")
     SELECT ${s.p(d.id)}, ${s.p(d.workspaceId)}, ${s.p(d.bankAccountId)}, ${s.p(JSON.stringify(d.bankAccountSnapshot), '::jsonb')}, ${s.p(d.notificationId)},
            ${s.p(d.amount, '::int')}, ${s.p(d.description)}, ${s.p(d.searchText)}, ${s.p(d.hidden, '::boolean')}, ${s.p(d.verification, '::boolean')},
            ${s.p(jsonOrNull(d.matchNote), '::jsonb')}, ${s.p(d.receivedAt.toISOString(), '::timestamptz')}, ${s.p(d.source, '::"DepositSource"')},
            ${s.p(d.balanceAfter, '::float8')}, ${s.p(d.textAnnouncedAt?.toISOString() ?? null, '::timestamptz')}, ${s.p(d.historyRowId)},
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

/** The outcome of matching a stored deposit, for metrics. */
export function matchOutcomeOf(t: Transaction): string {
  if (t.verification) return 'VERIFICATION';
  if (t.matchMethod) return t.matchMethod;
  const reason = (t.matchNote as { reason?: string } | null)?.reason;
  return reason ?? 'NONE';
}
