/**
 * The v2 request handler: route, run, answer errors in the v2 envelope with numeric codes (never a stack trace), each
 * logged with the request id.
 */
import { DomainError } from '../../src/domain/errors.ts';
import { answerError, type ErrorLog } from '../shared/face-errors.ts';
import { v2Routes, type V2Context } from './routes.ts';
import { v2CashReceipt, type ReceiptView } from './wire.ts';

/** The `data` a v2 error carries: the spec's details where it has them (220010, 240006, 240008, 240009). */
export function v2ErrorData(e: DomainError, ownerId: string | null): unknown {
  if (!e.data) return null;
  if (e.code === 'AGENCY_API_FAILED' && e.data.receipt) return v2CashReceipt(e.data.receipt as ReceiptView, ownerId ?? '');
  if (e.code === 'AGENCY_EMAIL_FAILED') return { code: e.data.code, message: e.data.message };
  if (e.code === 'INVOICE_ALREADY_EXISTS') return { invoiceId: e.data.invoiceId, number: e.data.number };
  if (e.code === 'RECEIPT_NOT_CANCELABLE' || e.code === 'RECEIPT_NOT_REVOCABLE') return { reason: e.data.reason, message: e.data.message };
  return null;
}

export async function handleV2(request: Request, ctx: V2Context, log: ErrorLog): Promise<Response> {
  const url = new URL(request.url);
  const match = v2Routes.match(request.method, url.pathname);
  try {
    if (match === null) throw new DomainError('ROUTE_NOT_FOUND');
    if (match === 'METHOD_NOT_ALLOWED') throw new DomainError('METHOD_NOT_ALLOWED');
    return await match.route.handler(request, match.params, ctx);
  } catch (e) {
    return answerError('v2', e, log, { v2Data: (d) => v2ErrorData(d, ctx.principal?.workspaceOwnerId ?? null) });
  }
}
