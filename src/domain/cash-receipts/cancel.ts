/**
 * Canceling a cash receipt (spec: POST /v2/cash-receipts/{id}/cancel, POST /v1/cash-receipts/{id}/revoke): full or
 * partial, each a CANCELLATION receipt registered with the agency; v1 revoke cancels all that remains.
 */
import type { CashReceipt } from '../../generated/prisma/client.ts';
import type { Principal } from '../auth/principal.ts';
import { assertCanWrite, requirePrincipal } from '../auth/rules.ts';
import { inTransaction, type Deps } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { assertReceiptId, loadReceiptFor } from './reads.ts';
import { createReceipt, registerInline } from './registration.ts';
import { parseCancelRequest } from './requests.ts';
import { splitCancellation } from './vat.ts';

/** Why a receipt cannot be canceled (240006 `data.reason`), or null when it can. */
export function cancelRefusal(r: Pick<CashReceipt, 'kind' | 'status' | 'remainingAmount'>): { reason: string; message: string } | null {
  if (r.kind === 'CANCELLATION') return { reason: 'CANCELLATION_RECEIPT', message: 'A cancellation receipt cannot be canceled.' };
  if (r.status === 'PENDING') return { reason: 'NTS_PENDING', message: 'The tax authority has not processed the receipt yet (usually by 10:00 the next day).' };
  if (r.status === 'FAILED') return { reason: 'NOT_ISSUED', message: 'The receipt was not issued.' };
  if (r.status === 'CANCELED' || r.status === 'REVOKED' || r.remainingAmount <= 0) return { reason: 'FULLY_CANCELED', message: 'The receipt is already fully canceled.' };
  return null;
}

/**
 * Cancels `amount` (default: all that remains) of an ISSUED receipt: a CANCELLATION receipt (PENDING) for that amount,
 * the original's canceledAmount/remainingAmount updated in the same transaction by a conditional update (two cancels
 * at once can never cancel more than remains); the whole remainder moves the original to CANCELED (or REVOKED for
 * v1 revoke). The agency is called before returning; if it fails the original is restored.
 */
async function cancelReceipt(deps: Deps, p: Principal, id: unknown, args: { amount: number | null; reason: string | null; as: 'CANCELED' | 'REVOKED' }): Promise<CashReceipt> {
  const cancellation = await inTransaction(deps, async (tx) => {
    const original = await loadReceiptFor(tx, p, id);
    const refusal = cancelRefusal(original);
    if (refusal) throw new DomainError(args.as === 'REVOKED' ? 'RECEIPT_NOT_REVOCABLE' : 'RECEIPT_NOT_CANCELABLE', { data: refusal });
    const amount = args.amount ?? original.remainingAmount;
    if (amount > original.remainingAmount) throw new DomainError('INVALID_CASH_RECEIPT_AMOUNT', { path: ['amount'], message: 'amount is above the remaining amount.' });
    const now = deps.clock.now();
    const final = amount === original.remainingAmount;
    const claimed = await tx.cashReceipt.updateMany({
      where: { id: original.id, status: 'ISSUED', remainingAmount: { gte: amount } },
      data: {
        canceledAmount: { increment: amount },
        remainingAmount: { decrement: amount },
        ...(final ? { status: args.as, ...(args.as === 'REVOKED' ? { revokedAt: now } : { canceledAt: now }) } : {}),
        cancelReason: args.reason ?? undefined,
        updatedAt: now,
      },
    });
    if (claimed.count === 0) {
      const current = await tx.cashReceipt.findUniqueOrThrow({ where: { id: original.id } });
      const again = cancelRefusal(current);
      if (again) throw new DomainError('RECEIPT_NOT_CANCELABLE', { data: again });
      throw new DomainError('INVALID_CASH_RECEIPT_AMOUNT', { path: ['amount'], message: 'amount is above the remaining amount.' });
    }
    const previous = await tx.cashReceipt.findMany({ where: { originalId: original.id, kind: 'CANCELLATION', status: { not: 'FAILED' } }, select: { supplyCost: true, tax: true } });
    const split = splitCancellation(original, previous, amount);
    return createReceipt(
      tx,
      {
        workspaceId: original.workspaceId,
        issuerId: original.issuerId,
        corpNum: original.corpNum,
        type: original.type,
        identifier: original.identifier,
        amount,
        supplyCost: split.supplyCost,
        tax: split.tax,
        kind: 'CANCELLATION',
        relatedInvoiceId: original.relatedInvoiceId,
        originalId: original.id,
        partial: !final || original.canceledAmount > 0,
        cancelReason: args.reason,
      },
      now,
      { inline: true },
    );
  });
  return registerInline(deps, cancellation);
}

/** cancelCashReceipt (POST /v2/cash-receipts/{id}/cancel): full or partial; returns the cancellation receipt. */
export async function cancelCashReceipt(deps: Deps, principal: Principal | null, id: unknown, raw: unknown): Promise<CashReceipt> {
  const p = requirePrincipal(principal);
  assertCanWrite(p);
  assertReceiptId(id);
  const input = parseCancelRequest(raw);
  return cancelReceipt(deps, p, id, { amount: input.amount, reason: input.reason, as: 'CANCELED' });
}

/** revokeCashReceipt (POST /v1/cash-receipts/{id}/revoke): only ISSUED; cancels all that remains and leaves it REVOKED. */
export async function revokeCashReceipt(deps: Deps, principal: Principal | null, id: unknown): Promise<CashReceipt> {
  const p = requirePrincipal(principal);
  assertCanWrite(p);
  await cancelReceipt(deps, p, id, { amount: null, reason: 'REVOKED', as: 'REVOKED' });
  return loadReceiptFor(deps.prisma, p, id);
}
