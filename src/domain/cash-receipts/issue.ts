/**
 * Issuing a cash receipt (spec: POST /v1/cash-receipts; States — invoice paid): by request, registered with the agency
 * before answering, or automatically in the transaction that pays an invoice asking for one.
 */
import type { CashReceipt } from '../../generated/prisma/client.ts';
import type { Principal } from '../auth/principal.ts';
import { assertCanWrite, requirePrincipal } from '../auth/rules.ts';
import { linkedBusinessInfo } from '../business/business-info.ts';
import { asRaw, inTransaction, type Deps, type Sql } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { addHistory } from '../invoices/history.ts';
import type { CashReceiptTypeName } from './identifier.ts';
import { createReceipt, liveReceiptOfInvoice, registerInline } from './registration.ts';
import { parseIssueRequest } from './requests.ts';
import { splitVat } from './vat.ts';

/** issueCashReceipt (POST /v1/cash-receipts): a PENDING receipt registered with the agency now. */
export async function issueCashReceipt(deps: Deps, principal: Principal | null, raw: unknown): Promise<CashReceipt> {
  const p = requirePrincipal(principal);
  assertCanWrite(p);
  const input = parseIssueRequest(raw);
  const business = await linkedBusinessInfo(deps.prisma, p.workspaceId);
  if (!business) throw new DomainError('BUSINESS_INFO_NOT_REGISTERED');
  const receipt = await inTransaction(deps, async (tx) =>
    createReceipt(tx, { workspaceId: p.workspaceId, issuerId: p.accountId ?? p.workspaceOwnerId, corpNum: business.corpNum, ...input, ...splitVat(input.amount) }, deps.clock.now(), { inline: true }),
  );
  return registerInline(deps, receipt);
}

/**
 * Auto-issue on payment (spec: States — invoice paid): in the payment's transaction, a PENDING receipt for the invoice's
 * `cashReceipt` (the agency is called by a job after commit), or — without business info — a history line saying why
 * none was issued.
 */
export async function autoIssueForPaidInvoice(
  db: Sql,
  invoice: { id: string; workspaceId: string; issuerId: string; amount: number; cashReceiptType: CashReceiptTypeName | null; cashReceiptIdentifier: string | null },
  now: Date,
): Promise<{ receiptId: string } | { skipped: string } | null> {
  if (!invoice.cashReceiptType || !invoice.cashReceiptIdentifier) return null;
  const q = asRaw(db);
  const [state] = await q<{ corpNum: string | null; existingId: string | null }>(
    // Linked = agencyLinkedAt set, as linkedBusinessInfo() reads it.
    `SELECT (SELECT "corpNum" FROM "BusinessInfo" WHERE "workspaceId" = $1 AND "agencyLinkedAt" IS NOT NULL) AS "corpNum",
            (${liveReceiptOfInvoice('$2')}) AS "existingId"`,
    [invoice.workspaceId, invoice.id],
  );
  if (!state?.corpNum) {
    await addHistory(q, invoice.id, 'cash_receipt_skipped', now, null, { reason: 'BUSINESS_INFO_NOT_REGISTERED' });
    return { skipped: 'BUSINESS_INFO_NOT_REGISTERED' };
  }
  if (state.existingId) return { receiptId: state.existingId };
  const receipt = await createReceipt(
    q,
    {
      workspaceId: invoice.workspaceId,
      issuerId: invoice.issuerId,
      corpNum: state.corpNum,
      type: invoice.cashReceiptType,
      identifier: invoice.cashReceiptIdentifier,
      amount: invoice.amount,
      ...splitVat(invoice.amount),
      relatedInvoiceId: invoice.id,
    },
    now,
    { inline: false },
  );
  await addHistory(q, invoice.id, 'cash_receipt_requested', now, null, { cashReceiptId: receipt.id });
  return { receiptId: receipt.id };
}
