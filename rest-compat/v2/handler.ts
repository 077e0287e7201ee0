/** The v2 request handler: route, run, render errors in the v2 envelope with numeric codes (never a stack trace). */
import { isDomainError, renderV2, type DomainError } from '../../src/domain/errors.ts';
import { json, RETRY_AFTER_UNAVAILABLE } from '../shared/http.ts';
import { isDatabaseUnavailable } from '../../src/domain/prisma-errors.ts';
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

export async function handleV2(request: Request, ctx: V2Context, onUnexpected: (e: unknown) => void): Promise<Response> {
  const url = new URL(request.url);
  const match = v2Routes.match(request.method, url.pathname);
  try {
    if (match === null) return json(404, renderV2('ROUTE_NOT_FOUND').body);
    if (match === 'METHOD_NOT_ALLOWED') return json(405, renderV2('METHOD_NOT_ALLOWED').body);
    return await match.route.handler(request, match.params, ctx);
  } catch (e) {
    if (isDomainError(e)) {
      const { status, body } = renderV2(e.code, v2ErrorData(e, ctx.principal?.workspaceOwnerId ?? null));
      return json(status, body);
    }
    if (isDatabaseUnavailable(e)) {
      const { status, body } = renderV2('SERVICE_UNAVAILABLE');
      return json(status, body, RETRY_AFTER_UNAVAILABLE);
    }
    onUnexpected(e);
    const { status, body } = renderV2('INTERNAL_SERVER_ERROR');
    return json(status, body);
  }
}
