/** Reissuing a failed cash receipt (spec: POST /v2/cash-receipts/{id}/reissue, reissue table): once, as a new ORIGINAL. */
import type { CashReceipt } from '../../generated/prisma/client.ts';
import type { Principal } from '../auth/principal.ts';
import { assertCanWrite, requirePrincipal } from '../auth/rules.ts';
import { linkedBusinessInfo } from '../business/business-info.ts';
import { inTransaction, type Deps } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { identifierFits, type CashReceiptTypeName } from './identifier.ts';
import { loadReceiptFor } from './reads.ts';
import { createReceipt, lockInvoiceLiveReceipt, registerInline } from './registration.ts';
import { parseReissueRequest, type ReissueRequest } from './requests.ts';
import { splitVat } from './vat.ts';

/** The tax authority's number for self-issued income-deduction receipts (010-000-1234). */
export const SELF_ISSUE_IDENTIFIER = '0100001234';

/**
 * The receipt a reissue asks for, given the original's type (spec: reissue table): type defaults to the original's;
 * no self-issue as CORPORATE (240002); the identifier is required unless self-issued and must fit the type (240003).
 */
export function resolveReissue(r: ReissueRequest, originalType: CashReceiptTypeName): { type: CashReceiptTypeName; identifier: string; selfIssued: boolean } {
  const type = r.type ?? originalType;
  if (r.selfIssued === true) {
    if (type === 'CORPORATE') throw new DomainError('RECEIPT_INVALID_TYPE', { path: ['selfIssued'], message: 'A self-issued receipt cannot be CORPORATE.' });
    return { type, identifier: SELF_ISSUE_IDENTIFIER, selfIssued: true };
  }
  if (!identifierFits(type, r.identifier)) throw new DomainError('RECEIPT_INVALID_IDENTIFIER', { path: ['identifier'] });
  return { type, identifier: r.identifier as string, selfIssued: false };
}

/** reissueCashReceipt (POST /v2/cash-receipts/{id}/reissue): a FAILED original, once → a new ORIGINAL receipt. */
export async function reissueCashReceipt(deps: Deps, principal: Principal | null, id: unknown, raw: unknown): Promise<CashReceipt> {
  const p = requirePrincipal(principal);
  assertCanWrite(p);
  const original = await loadReceiptFor(deps.prisma, p, id);
  const input = resolveReissue(parseReissueRequest(raw), original.type);
  const business = await linkedBusinessInfo(deps.prisma, p.workspaceId);
  if (!business) throw new DomainError('BUSINESS_INFO_NOT_REGISTERED');
  const fresh = await inTransaction(deps, async (tx) => {
    const now = deps.clock.now();
    if (original.kind !== 'ORIGINAL' || original.status !== 'FAILED' || original.reissuedToId) {
      throw new DomainError('RECEIPT_NOT_REISSUABLE', { data: { status: original.status, reissuedToId: original.reissuedToId } });
    }
    // One live receipt per invoice: one issued for the invoice since (issueInvoiceCashReceipt) leaves no room for this.
    if (original.relatedInvoiceId) {
      const { liveReceiptId } = await lockInvoiceLiveReceipt(tx, original.relatedInvoiceId);
      if (liveReceiptId) throw new DomainError('RECEIPT_NOT_REISSUABLE', { data: { status: original.status, reissuedToId: original.reissuedToId, liveReceiptId } });
    }
    const created = await createReceipt(
      tx,
      {
        workspaceId: original.workspaceId,
        issuerId: original.issuerId,
        corpNum: business.corpNum,
        type: input.type,
        identifier: input.identifier,
        amount: original.amount,
        ...splitVat(original.amount),
        relatedInvoiceId: original.relatedInvoiceId,
        reissuedFromId: original.id,
        selfIssued: input.selfIssued,
      },
      now,
      { inline: true },
    );
    // One reissue per original: the conditional update fails for a concurrent second reissue.
    const claimed = await tx.cashReceipt.updateMany({ where: { id: original.id, status: 'FAILED', reissuedToId: null }, data: { reissuedToId: created.id, updatedAt: now } });
    if (claimed.count === 0) throw new DomainError('RECEIPT_NOT_REISSUABLE');
    return created;
  });
  return registerInline(deps, fresh);
}
