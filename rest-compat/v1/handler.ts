/** The v1 request handler: route, run, render errors in the v1 envelope (never a stack trace). */
import { isDomainError, renderV1 } from '../../src/domain/errors.ts';
import { json, RETRY_AFTER_UNAVAILABLE } from '../shared/http.ts';
import { isDatabaseUnavailable } from '../../src/domain/prisma-errors.ts';
import { v1Routes, type V1Context } from './routes.ts';

export async function handleV1(request: Request, ctx: V1Context, onUnexpected: (e: unknown) => void): Promise<Response> {
  const url = new URL(request.url);
  const match = v1Routes.match(request.method, url.pathname);
  try {
    if (match === null) return json(renderV1('ROUTE_NOT_FOUND').status, renderV1('ROUTE_NOT_FOUND').body);
    if (match === 'METHOD_NOT_ALLOWED') return json(405, renderV1('METHOD_NOT_ALLOWED').body);
    return await match.route.handler(request, match.params, ctx);
  } catch (e) {
    if (isDomainError(e)) {
      const { status, body } = renderV1(e.code);
      return json(status, body);
    }
    if (isDatabaseUnavailable(e)) {
      const { status, body } = renderV1('SERVICE_UNAVAILABLE');
      return json(status, body, RETRY_AFTER_UNAVAILABLE);
    }
    onUnexpected(e);
    const { status, body } = renderV1('INTERNAL_SERVER_ERROR');
    return json(status, body);
  }
}
