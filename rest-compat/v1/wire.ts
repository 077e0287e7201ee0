/**
 * The v1 wire format (spec: Versioning, current v1 behavior): timestamps at second precision with `.000` and
 * `+00:00`; `issuerId`/`ownerId` are the workspace owner's account id; `deletedAt` is null for readable objects.
 */

/** `2026-11-21T10:00:00.000+00:00` (milliseconds dropped, zone written +00:00). */
export function v1Time(value: string | Date | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const d = value instanceof Date ? value : new Date(value);
  return d.toISOString().slice(0, 19) + '.000+00:00';
}

export interface GqlInvoice {
  id: string;
  bankAccountIds: string[];
  customer: { name: string; email: string | null; phoneNumber: string | null };
  cashReceipt: { type: string; identifier: string } | null;
  amount: number;
  paid: boolean;
  metadata: Record<string, string> | null;
  createdAt: string;
  expiresAt: string | null;
  status: string;
}

export const V1_INVOICE_FIELDS = `id bankAccountIds customer { name email phoneNumber } cashReceipt { type identifier } amount paid metadata createdAt expiresAt status`;

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

export interface GqlTransaction {
  id: string;
  bankAccount: {
    id: string;
    active: boolean;
    alias: string;
    provider: string;
    type: string;
    number: string;
    createdAt: string;
    verifiedAt: string | null;
  };
  matchedInvoiceId: string | null;
  matchMethod: string | null;
  amount: number;
  description: string;
  hidden: boolean;
  receivedAt: string;
  matchedAt: string | null;
  createdAt: string;
}

export const V1_TRANSACTION_FIELDS = `id bankAccount { id active alias provider type number createdAt verifiedAt } matchedInvoiceId matchMethod amount description hidden receivedAt matchedAt createdAt`;

/** The v1 transaction object, fields in the spec's order. */
export function v1Transaction(t: GqlTransaction, ownerId: string) {
  return {
    id: t.id,
    bankAccount: {
      id: t.bankAccount.id,
      active: t.bankAccount.active,
      ownerId,
      alias: t.bankAccount.alias,
      provider: t.bankAccount.provider,
      type: t.bankAccount.type,
      number: t.bankAccount.number,
      createdAt: v1Time(t.bankAccount.createdAt),
      verifiedAt: v1Time(t.bankAccount.verifiedAt),
      deletedAt: null,
    },
    matchedInvoiceId: t.matchedInvoiceId,
    matchMethod: t.matchMethod,
    amount: t.amount,
    description: t.description,
    hidden: t.hidden,
    receivedAt: v1Time(t.receivedAt),
    matchedAt: v1Time(t.matchedAt),
    createdAt: v1Time(t.createdAt),
    deletedAt: null,
  };
}

export interface GqlCashReceipt {
  id: string;
  status: string;
  kind: string;
  corpNum: string;
  type: string;
  identifier: string;
  amount: number;
  supplyCost: number;
  tax: number;
  relatedInvoiceId: string | null;
  originalId: string | null;
  partial: boolean;
  cancelReason: string | null;
  canceledAmount: number;
  remainingAmount: number;
  reissuedFromId: string | null;
  reissuedToId: string | null;
  selfIssued: boolean;
  ntsConfirmNum: string | null;
  ntsResultCode: string | null;
  issuedAt: string;
  revokedAt: string | null;
  canceledAt: string | null;
  deletedAt: string | null;
}

export const CASH_RECEIPT_FIELDS = `id status kind corpNum type identifier amount supplyCost tax relatedInvoiceId originalId partial cancelReason canceledAmount remainingAmount reissuedFromId reissuedToId selfIssued ntsConfirmNum ntsResultCode issuedAt revokedAt canceledAt deletedAt`;

/**
 * The v1 cash receipt object. v1 knows PENDING, ISSUED, FAILED and REVOKED: a receipt fully canceled through v2
 * (CANCELED) shows as REVOKED, with its cancel time as revokedAt.
 */
export function v1CashReceipt(r: GqlCashReceipt, ownerId: string) {
  const canceled = r.status === 'CANCELED';
  return {
    id: r.id,
    status: canceled ? 'REVOKED' : r.status,
    issuerId: ownerId,
    corpNum: r.corpNum,
    type: r.type,
    identifier: r.identifier,
    amount: r.amount,
    relatedInvoiceId: r.relatedInvoiceId,
    ntsConfirmNum: r.ntsConfirmNum,
    ntsResultCode: r.ntsResultCode,
    issuedAt: v1Time(r.issuedAt),
    revokedAt: v1Time(canceled ? r.canceledAt : r.revokedAt),
    deletedAt: v1Time(r.deletedAt),
  };
}
