/**
 * Who may see an event: subscribers see only their workspace's events, and an account-limited key only events of
 * invoices whose receiving accounts are all within its accounts (the same rule as reading the invoice).
 */
import type { Principal } from '../auth/principal.ts';
import { bankAccountInScope, invoiceInScope } from '../auth/rules.ts';

export function eventVisibleTo(p: Principal, e: { workspaceId: string; bankAccountIds: readonly string[]; invoiceId: string | null }): boolean {
  if (e.workspaceId !== p.workspaceId) return false;
  if (e.invoiceId) return invoiceInScope(p, e.bankAccountIds);
  return true;
}

/**
 * What of an event's payload the principal sees: an account-limited key sees the events of the invoices it may
 * handle, but not a deposit to an account outside its accounts that paid one of them (matched by hand in the
 * dashboard): that deposit is reduced to its id (spec: account-limited keys read only deposits to allowed accounts).
 */
export function eventDataVisibleTo(p: Principal | null, data: unknown): unknown {
  const trx = (data as { transaction?: { id?: string; bankAccount?: { id?: string } } | null } | null)?.transaction;
  if (!p || p.bankAccountIds === null || !trx?.bankAccount?.id || bankAccountInScope(p, trx.bankAccount.id)) return data;
  return { ...(data as Record<string, unknown>), transaction: { id: trx.id } };
}
