/** The v1 request handler: its table's routes, errors in the v1 envelope (never a stack trace), each logged with the request id. */
import { DomainError, type ErrorCode } from '../../src/domain/errors.ts';
import { isStorableText } from '../../src/domain/request-schema.ts';
import { faceHandler, type PathIdKind } from '../shared/route.ts';
import { v1Routes, type V1Context } from './routes.ts';

const NOT_FOUND: Record<PathIdKind, ErrorCode> = { invoice: 'INVOICE_NOT_FOUND', transaction: 'TRANSACTION_NOT_FOUND', cashReceipt: 'CASH_RECEIPT_NOT_FOUND' };

export const handleV1 = faceHandler<V1Context>(v1Routes, {
  face: 'v1',
  // Any text names a v1 resource, but text no id can hold (U+0000, a lone surrogate) names none and must not reach the database.
  pathId: (raw, kind) => {
    if (!isStorableText(raw)) throw new DomainError(NOT_FOUND[kind]);
    return raw;
  },
});
