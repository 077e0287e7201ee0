/**
 * Who may see an event: subscribers see only their workspace's events, and an account-limited key only events of
 * invoices whose receiving accounts are all within its accounts (the same rule as reading the invoice).
 */
import type { Principal } from '../auth/principal.ts';
import { invoiceInScope } from '../auth/rules.ts';

export function eventVisibleTo(p: Principal, e: { workspaceId: string; bankAccountIds: readonly string[]; invoiceId: string | null }): boolean {
  if (e.workspaceId !== p.workspaceId) return false;
  if (e.invoiceId) return invoiceInScope(p, e.bankAccountIds);
  return true;
}
