/**
 * The v2 request handler: its table's routes, errors in the v2 envelope with numeric codes (never a stack trace), each
 * logged with the request id.
 */
import { DomainError, type ErrorCode } from '../../src/domain/errors.ts';
import { isId } from '../../src/domain/ids.ts';
import type { GqlCashReceipt } from '../shared/graphql.ts';
import { faceHandler, type PathIdKind } from '../shared/route.ts';
import { v2Routes, type V2Context } from './routes.ts';
import { v2CashReceipt } from './wire.ts';

/** The `data` a v2 error carries: the spec's details where it has them (220010, 240006, 240008, 240009). */
export function v2ErrorData(e: DomainError, ownerId: string | null): unknown {
  if (!e.data) return null;
  if (e.code === 'AGENCY_API_FAILED' && e.data.receipt) return v2CashReceipt(e.data.receipt as GqlCashReceipt, ownerId ?? '');
  if (e.code === 'AGENCY_EMAIL_FAILED') return { code: e.data.code, message: e.data.message };
  if (e.code === 'INVOICE_ALREADY_EXISTS') return { invoiceId: e.data.invoiceId, number: e.data.number };
  if (e.code === 'RECEIPT_NOT_CANCELABLE' || e.code === 'RECEIPT_NOT_REVOCABLE') return { reason: e.data.reason, message: e.data.message };
  return null;
}

// The spec has no id-format code for deposits: a malformed one names no deposit (404 20016, as in the domain and v1).
const INVALID_ID: Record<PathIdKind, ErrorCode> = { invoice: 'INVALID_INVOICE_ID', transaction: 'TRANSACTION_NOT_FOUND', cashReceipt: 'INVALID_CASH_RECEIPT_ID' };

export const handleV2 = faceHandler<V2Context>(v2Routes, {
  face: 'v2',
  // A v2 path id must have its kind's form (spec: 220001 / 240001 for a malformed id; a deposit's: 20016).
  pathId: (raw, kind) => {
    if (!isId(kind, raw)) throw new DomainError(INVALID_ID[kind]);
    return raw;
  },
  errorData: (e, ctx) => v2ErrorData(e, ctx.principal?.workspaceOwnerId ?? null),
});
