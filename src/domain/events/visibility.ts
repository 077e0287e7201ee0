/**
 * Who may see an event: its workspace, and an account-limited key only if the invoice's accounts are all its own —
 * judged on the accounts the event was recorded with and again on the invoice row shown with it (an invoice moved out
 * of the key's accounts since is skipped, as `invoice(id:)` refuses it). A deposit's event (transaction.received) is
 * recorded with the deposit's account: the key sees it only for a deposit to one of its accounts and, when the
 * deposit paid an invoice, only if it may see that invoice too.
 */
import type { Principal } from '../auth/principal.ts';
import { bankAccountInScope, invoiceInScope } from '../auth/rules.ts';
import type { Deps } from '../deps.ts';
import { matchNoteVisibleTo } from '../deposits/transaction-reads.ts';

/** What of an invoice row the rule reads: its workspace and receiving accounts. */
export type InvoiceAccounts = { workspaceId: string; bankAccountIds: readonly string[] };

/** An event as the rule reads it. */
export type EventAccounts = { workspaceId: string; bankAccountIds: readonly string[]; invoiceId: string | null };

/**
 * Whether the principal may see an invoice row delivered with an event (or re-read for it): the workspace's, and for
 * an account-limited key within its accounts — what `invoice(id:)` answers for that row.
 */
export function invoiceRowVisibleTo(p: Principal, invoice: InvoiceAccounts): boolean {
  return invoice.workspaceId === p.workspaceId && invoiceInScope(p, invoice.bankAccountIds);
}

/**
 * Whether the principal may see an event together with its invoice row `invoice` (the row delivered with it; null
 * when it has none: an account-limited key then sees no invoice event). Every path that shows events uses it:
 * subscriptions (catch-up and live), the `events` query and `node(id:)`. The accounts an event was recorded with
 * (`bankAccountIds`: an invoice's receiving accounts, empty = all; a deposit's account) must all be the key's; an
 * event of no invoice recorded with none (a cash receipt issued alone) is the whole workspace's.
 */
export function eventVisibleTo(p: Principal, e: EventAccounts, invoice: InvoiceAccounts | null): boolean {
  if (e.workspaceId !== p.workspaceId) return false;
  if (!e.invoiceId) return e.bankAccountIds.length === 0 || invoiceInScope(p, e.bankAccountIds);
  if (!invoiceInScope(p, e.bankAccountIds)) return false;
  return invoice ? invoiceRowVisibleTo(p, invoice) : p.bankAccountIds === null;
}

/**
 * The events of a page the principal may see (eventVisibleTo), each judged with its invoice as it is now: for an
 * account-limited key the page's invoices are read in one query (an unlimited key needs none of them).
 */
export async function eventsVisibleNow<E extends EventAccounts>(db: Pick<Deps['prisma'], 'invoice'>, p: Principal, events: readonly E[]): Promise<E[]> {
  let invoices = new Map<string, InvoiceAccounts>();
  const ids = [...new Set(events.flatMap((e) => (e.invoiceId && e.workspaceId === p.workspaceId && invoiceInScope(p, e.bankAccountIds) ? [e.invoiceId] : [])))];
  if (p.bankAccountIds !== null && ids.length > 0) {
    const rows = await db.invoice.findMany({ where: { id: { in: ids } }, select: { id: true, workspaceId: true, bankAccountIds: true } });
    invoices = new Map(rows.map((r) => [r.id, r]));
  }
  return events.filter((e) => eventVisibleTo(p, e, e.invoiceId ? (invoices.get(e.invoiceId) ?? null) : null));
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

/**
 * eventDataVisibleTo, and of a deposit's match outcome (transaction.received's `data.match`) only the candidate
 * invoices the principal may see — the rule of the deposit's `matchNote` (matchNoteVisibleTo), read as they are now.
 */
export async function eventDataVisibleNow(deps: Pick<Deps, 'prisma'>, p: Principal | null, data: unknown): Promise<unknown> {
  const shown = eventDataVisibleTo(p, data);
  const match = (shown as { match?: unknown } | null)?.match;
  if (!match || typeof match !== 'object') return shown;
  return { ...(shown as Record<string, unknown>), match: await matchNoteVisibleTo(deps, p, match) };
}
