/** What a deposit paying an invoice writes: the conditional payment, its history line, receipt, e-mail and event. */
import type { Invoice, Transaction } from '../../generated/prisma/client.ts';
import { autoIssueForPaidInvoice } from '../cash-receipts/issue.ts';
import type { RawQuery } from '../deps.ts';
import { enqueueEmail, paidEmail, type QueuedEmail } from '../email/email.ts';
import { recordEvents } from '../events/outbox.ts';
import { addHistory } from '../invoices/history.ts';
import { queueShopConfirmation } from '../shops/confirmation-queue.ts';
import { invoiceEvent } from '../invoices/invoices.ts';
import { INVOICE_TRANSITIONS, transitionFromSql } from '../invoices/invoice-state.ts';
import { SqlParams } from '../sql.ts';
import { transactionSnapshot } from './deposit-row.ts';
import type { AutoMatchMethod } from './name-matching.ts';

const DEPOSIT_MATCH = INVOICE_TRANSITIONS.DEPOSIT_MATCH;

/**
 * The deposit's payment as one conditional update: only while the invoice is still what was matched (a concurrent
 * payment, cancel or PATCH makes it match nothing). `unchangedSince`: also only if nothing else about it changed.
 */
export function payInvoiceSql(s: SqlParams, candidate: Invoice, now: Date, opts: { unchangedSince?: Date } = {}): string {
  const at = s.p(now.toISOString(), '::timestamptz');
  return `UPDATE "Invoice" SET status = '${DEPOSIT_MATCH.to}', "paidAt" = ${at}, "paidTrigger" = 'DEPOSIT', "updatedAt" = ${at}
      WHERE id = ${s.p(candidate.id)} AND ${transitionFromSql('DEPOSIT_MATCH', at)} AND amount = ${s.p(candidate.amount, '::int')}
        AND "customerName" = ${s.p(candidate.customerName)} AND "bankAccountIds" = ${s.p([...candidate.bankAccountIds], '::text[]')}
        ${opts.unchangedSince ? `AND "updatedAt" = ${s.p(opts.unchangedSince.toISOString(), '::timestamptz')}` : ''}
     RETURNING *`;
}

/** The invoice as payInvoiceSql leaves it (for an invoice unchanged since it was read). */
export function paidByDeposit(candidate: Invoice, now: Date): Invoice {
  return { ...candidate, status: DEPOSIT_MATCH.to, paidAt: now, paidTrigger: 'DEPOSIT', updatedAt: now };
}

/** The event a deposit paying an invoice emits. */
export function paidByDepositEvent(invoice: Invoice, matched: Transaction, now: Date) {
  return invoiceEvent('invoice.paid', invoice, now, { trigger: 'DEPOSIT', transaction: transactionSnapshot(matched) });
}

/** The history line a deposit paying an invoice writes. */
export function paidByDepositHistory(matched: Transaction, method: AutoMatchMethod | 'MANUAL') {
  return { trigger: 'DEPOSIT', transactionId: matched.id, matchMethod: method };
}

/**
 * What a deposit paying an invoice writes besides the two rows (automatic and manual matches alike): the `paid`
 * history line, the automatic cash receipt, the buyer's e-mail, the linked shop order's confirmation, and the
 * `invoice.paid` event.
 */
export async function afterDepositPaid(q: RawQuery, matched: Transaction, invoice: Invoice, method: AutoMatchMethod | 'MANUAL', now: Date, actor: unknown): Promise<void> {
  await addHistory(q, invoice.id, 'paid', now, actor, paidByDepositHistory(matched, method));
  await autoIssueForPaidInvoice(q, invoice, now);
  await queuePaidEmail(q, invoice, now);
  await queueShopConfirmation(q, invoice, now);
  await recordEvents(q, matched.workspaceId, [paidByDepositEvent(invoice, matched, now)]);
}

export type PaidEmailSettings = { name: string; paidEmailEnabled: boolean };

/**
 * The buyer's "payment received" e-mail on a deposit match (spec: optional paid e-mail if enabled in the dashboard;
 * never on mark-as-paid): for an invoice with an e-mail address, when the workspace enabled it.
 */
export function paidEmailFor(invoice: Invoice, workspace: PaidEmailSettings | undefined, now: Date): QueuedEmail | null {
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
