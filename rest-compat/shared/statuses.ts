/**
 * The status vocabularies the REST faces show, each written once: v2 shows an invoice's effective status and a
 * receipt's stored one; v1 knows no CANCELED receipt, so one fully canceled through v2 reads REVOKED there.
 */
import { RECEIPT_STATUSES, type ReceiptStatus } from '../../src/domain/cash-receipts/reads.ts';
import { INVOICE_STATUS_NAMES } from '../../src/domain/invoices/invoice-state.ts';
import { CashReceiptKind } from '../../src/generated/prisma/enums.ts';

type Statuses<T extends string> = readonly [T, ...T[]];

/** An invoice's effective status (EXPIRED is judged against the clock). */
export const INVOICE_STATUSES = INVOICE_STATUS_NAMES;

/** A cash receipt's kind: an original or the cancellation of one. */
export const RECEIPT_KINDS = Object.values(CashReceiptKind) as unknown as Statuses<CashReceiptKind>;

/** The receipt statuses v1 shows and filters by. */
export const V1_RECEIPT_STATUSES = RECEIPT_STATUSES.filter((s) => s !== 'CANCELED') as unknown as Statuses<Exclude<ReceiptStatus, 'CANCELED'>>;
export type V1ReceiptStatus = (typeof V1_RECEIPT_STATUSES)[number];

/**
 * v1's REVOKED ⇄ CANCELED, both ways: how v1 shows a stored status (and when it was revoked: a canceled receipt's
 * cancel time), and which stored statuses a v1 status finds.
 */
export const V1_RECEIPT_STATUS = {
  shown: (stored: string): string => (stored === 'CANCELED' ? 'REVOKED' : stored),
  revokedAt: <T>(r: { status: string; revokedAt: T; canceledAt: T }): T => (r.status === 'CANCELED' ? r.canceledAt : r.revokedAt),
  stored: (v1: V1ReceiptStatus): ReceiptStatus[] => (v1 === 'REVOKED' ? ['REVOKED', 'CANCELED'] : [v1]),
};
