/**
 * The v2 wire format (spec: Invoice object (v2)): Unix-second timestamps, `number`, `status` (PENDING, EXPIRED, PAID,
 * CANCELED — PAID is our name for the paid status the spec leaves unnamed), `history` only on single reads. The
 * deposit (not shown in the spec's v2) has the v1 transaction's fields, its times in Unix seconds.
 */

import { z } from 'zod';
import { fromUnixSeconds } from '../../src/domain/dates.ts';
import type { ExpiresAtWire } from '../../src/domain/invoices/update-invoice.ts';
import { fail } from '../../src/domain/request-schema.ts';
import type { GqlCashReceipt, GqlTransaction, InvoiceView } from '../shared/graphql.ts';
import { transactionWire } from '../shared/transaction-wire.ts';

// The webhook payloads render an invoice snapshot with this face's invoice object.
export type { InvoiceView };

/** expiresAt in a v2 request (PATCH /v2/invoices/{id}): whole Unix seconds within the instant range, else INVALID_EXPIRES_AT. */
export const V2_EXPIRES_AT: ExpiresAtWire = {
  schema: z
    .number({ error: fail('INVALID_EXPIRES_AT') })
    .int()
    .refine((s) => fromUnixSeconds(s) !== null, { error: fail('INVALID_EXPIRES_AT') })
    .transform((s) => fromUnixSeconds(s) as Date),
  description: 'New expiry in Unix seconds: later than now and within 365 days; null removes the expiry.',
};

/** Unix seconds, or null. */
export function v2Time(value: string | Date | null | undefined): number | null {
  if (value === null || value === undefined) return null;
  const d = value instanceof Date ? value : new Date(value);
  return Math.floor(d.getTime() / 1000);
}

/** The v2 invoice object; `history` is included when the view carries it. */
export function v2Invoice(i: InvoiceView) {
  return {
    id: i.id,
    number: i.number,
    status: i.status,
    bankAccountIds: i.bankAccountIds,
    customer: { name: i.customer.name, email: i.customer.email, phoneNumber: i.customer.phoneNumber },
    cashReceipt: i.cashReceipt ? { type: i.cashReceipt.type, identifier: i.cashReceipt.identifier } : null,
    amount: i.amount,
    metadata: i.metadata ?? null,
    expiresAt: v2Time(i.expiresAt),
    paidAt: v2Time(i.paidAt),
    canceledAt: v2Time(i.canceledAt),
    cancelReason: i.cancelReason ?? null,
    canceledBy: i.canceledBy ?? null,
    guideEmailSentAt: v2Time(i.guideEmailSentAt),
    createdAt: v2Time(i.createdAt),
    updatedAt: v2Time(i.updatedAt),
    ...(i.history ? { history: i.history.map((h) => ({ type: h.type, actor: h.actor ?? null, data: h.data ?? null, createdAt: v2Time(h.createdAt) })) } : {}),
  };
}

/** The v2 deposit (transaction) object: the v1 transaction's fields in its order, timestamps in Unix seconds. */
export function v2Transaction(t: GqlTransaction, ownerId: string) {
  return transactionWire(t, ownerId, v2Time);
}

/** The v2 cash receipt object: the v1 fields plus kind, supplyCost, tax, originalId, partial, cancelReason, canceledAmount, remainingAmount, reissuedFromId, reissuedToId, selfIssued; Unix seconds. */
export function v2CashReceipt(r: GqlCashReceipt, issuerId: string) {
  return {
    id: r.id,
    status: r.status,
    kind: r.kind,
    issuerId,
    corpNum: r.corpNum,
    type: r.type,
    identifier: r.identifier,
    amount: r.amount,
    supplyCost: r.supplyCost,
    tax: r.tax,
    relatedInvoiceId: r.relatedInvoiceId,
    originalId: r.originalId,
    partial: r.partial,
    cancelReason: r.cancelReason,
    canceledAmount: r.canceledAmount,
    remainingAmount: r.remainingAmount,
    reissuedFromId: r.reissuedFromId,
    reissuedToId: r.reissuedToId,
    selfIssued: r.selfIssued,
    ntsConfirmNum: r.ntsConfirmNum,
    ntsResultCode: r.ntsResultCode,
    issuedAt: v2Time(r.issuedAt),
    revokedAt: v2Time(r.revokedAt),
    canceledAt: v2Time(r.canceledAt),
    deletedAt: v2Time(r.deletedAt),
  };
}
