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
export function truncationOf(account: BankAccount): number {
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
export function depositInsertSql(s: SqlParams, d: Transaction, match?: { from: string; method: AutoMatchMethod; at: Date }): string {
  const now = s.p(d.createdAt.toISOString(), '::timestamptz');
  return `INSERT INTO "Transaction" (id, "workspaceId", "bankAccountId", "bankAccountSnapshot", "notificationId", amount, description, "searchText",
                                hidden, verification, "matchNote", "receivedAt", "createdAt", "updatedAt", "matchedInvoiceId", "matchMethod", "matchedAt")
     SELECT ${s.p(d.id)}, ${s.p(d.workspaceId)}, ${s.p(d.bankAccountId)}, ${s.p(JSON.stringify(d.bankAccountSnapshot), '::jsonb')}, ${s.p(d.notificationId)},
            ${s.p(d.amount, '::int')}, ${s.p(d.description)}, ${s.p(d.searchText)}, ${s.p(d.hidden, '::boolean')}, ${s.p(d.verification, '::boolean')},
            ${s.p(jsonOrNull(d.matchNote), '::jsonb')}, ${s.p(d.receivedAt.toISOString(), '::timestamptz')}, ${now}, ${now},
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
