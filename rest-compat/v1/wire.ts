/**
 * The v1 wire format (spec: Versioning, current v1 behavior): timestamps at second precision with `.000` and
 * `+00:00`; `issuerId`/`ownerId` are the workspace owner's account id; `deletedAt` is null for readable objects.
 */

import type { GqlCashReceipt, GqlInvoice, GqlTransaction } from '../shared/graphql.ts';
import { V1_RECEIPT_STATUS } from '../shared/statuses.ts';
import { transactionWire } from '../shared/transaction-wire.ts';

// The webhook payloads render a deposit snapshot with this face's transaction object.
export type { GqlTransaction };

/** `2026-11-21T10:00:00.000+00:00` (milliseconds dropped, zone written +00:00). */
export function v1Time(value: string | Date | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const d = value instanceof Date ? value : new Date(value);
  return d.toISOString().slice(0, 19) + '.000+00:00';
}

/** The v1 invoice object, fields in the spec's order. */
export function v1Invoice(i: GqlInvoice, ownerId: string) {
  return {
    id: i.id,
    issuerId: ownerId,
    bankAccountIds: i.bankAccountIds,
    customer: { name: i.customer.name, email: i.customer.email, phoneNumber: i.customer.phoneNumber },
    cashReceipt: i.cashReceipt ? { type: i.cashReceipt.type, identifier: i.cashReceipt.identifier } : null,
    amount: i.amount,
    paid: i.paid,
    metadata: i.metadata ?? null,
    issuedAt: v1Time(i.createdAt),
    expiresAt: v1Time(i.expiresAt),
    deletedAt: null,
  };
}

/** The v1 transaction object, fields in the spec's order. */
export function v1Transaction(t: GqlTransaction, ownerId: string) {
  return transactionWire(t, ownerId, v1Time);
}

/**
 * The v1 cash receipt object. v1 knows PENDING, ISSUED, FAILED and REVOKED: a receipt fully canceled through v2
 * (CANCELED) shows as REVOKED, with its cancel time as revokedAt.
 */
export function v1CashReceipt(r: GqlCashReceipt, ownerId: string) {
  return {
    id: r.id,
    status: V1_RECEIPT_STATUS.shown(r.status),
    issuerId: ownerId,
    corpNum: r.corpNum,
    type: r.type,
    identifier: r.identifier,
    amount: r.amount,
    relatedInvoiceId: r.relatedInvoiceId,
    ntsConfirmNum: r.ntsConfirmNum,
    ntsResultCode: r.ntsResultCode,
    issuedAt: v1Time(r.issuedAt),
    revokedAt: v1Time(V1_RECEIPT_STATUS.revokedAt(r)),
    deletedAt: v1Time(r.deletedAt),
  };
}
