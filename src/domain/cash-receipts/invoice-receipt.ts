/**
 * A paid invoice's cash receipt issued after the fact (GraphQL issueInvoiceCashReceipt, the dashboard's issue form):
 * apart from issue.ts, which invoices.ts imports for auto-issue, since this one reads the invoice through invoices.ts.
 */
import type { CashReceipt } from '../../generated/prisma/client.ts';
import type { Principal } from '../auth/principal.ts';
import { actorOf, assertCanWrite, requirePrincipal } from '../auth/rules.ts';
import { linkedBusinessInfo } from '../business/business-info.ts';
import { asRaw, inTransaction, type Deps } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { addHistory } from '../invoices/history.ts';
import { loadInvoiceFor } from '../invoices/invoices.ts';
import { createReceipt, lockInvoiceLiveReceipt, registerInline } from './registration.ts';
import { parseIssueRequest } from './requests.ts';
import { splitVat } from './vat.ts';

/**
 * issueInvoiceCashReceipt (GraphQL, the dashboard's "issue for an invoice"): the receipt of a PAID invoice, for its
 * amount and linked to it (relatedInvoiceId), as auto-issue would have made it had the buyer asked at creation. One
 * live receipt per invoice, as auto-issue keeps it: refused (INVOICE_RECEIPT_NOT_ISSUABLE, data.reason) while the
 * invoice is not paid, or while one of its receipts is PENDING or ISSUED (cancel that one first; a FAILED one is
 * reissued instead, a CANCELED one leaves room for a new one).
 */
export async function issueInvoiceCashReceipt(deps: Deps, principal: Principal | null, invoiceId: unknown, raw: { type: unknown; identifier: unknown }): Promise<CashReceipt> {
  const p = requirePrincipal(principal);
  assertCanWrite(p);
  const invoice = await loadInvoiceFor(deps.prisma, p, invoiceId);
  const input = parseIssueRequest({ type: raw.type, identifier: raw.identifier, amount: invoice.amount });
  const business = await linkedBusinessInfo(deps.prisma, p.workspaceId);
  if (!business) throw new DomainError('BUSINESS_INFO_NOT_REGISTERED');
  const receipt = await inTransaction(deps, async (tx) => {
    const q = asRaw(tx);
    // The invoice's row lock orders two issues for one invoice (and a reissue of its failed receipt).
    const { status, liveReceiptId } = await lockInvoiceLiveReceipt(q, invoice.id);
    if (status !== 'PAID') throw new DomainError('INVOICE_RECEIPT_NOT_ISSUABLE', { data: { reason: 'NOT_PAID' } });
    if (liveReceiptId) throw new DomainError('INVOICE_RECEIPT_NOT_ISSUABLE', { data: { reason: 'RECEIPT_EXISTS', cashReceiptId: liveReceiptId } });
    const now = deps.clock.now();
    const created = await createReceipt(
      q,
      { workspaceId: p.workspaceId, issuerId: p.accountId ?? p.workspaceOwnerId, corpNum: business.corpNum, ...input, ...splitVat(input.amount), relatedInvoiceId: invoice.id },
      now,
      { inline: true },
    );
    await addHistory(q, invoice.id, 'cash_receipt_requested', now, actorOf(p), { cashReceiptId: created.id });
    return created;
  });
  return registerInline(deps, receipt);
}
