/** The v1 request handler: route, run, answer errors in the v1 envelope (never a stack trace), each logged with the request id. */
import { DomainError } from '../../src/domain/errors.ts';
import { answerError, type ErrorLog } from '../shared/face-errors.ts';
import { v1Routes, type V1Context } from './routes.ts';

export async function handleV1(request: Request, ctx: V1Context, log: ErrorLog): Promise<Response> {
  const url = new URL(request.url);
  const match = v1Routes.match(request.method, url.pathname);
  try {
    if (match === null) throw new DomainError('ROUTE_NOT_FOUND');
    if (match === 'METHOD_NOT_ALLOWED') throw new DomainError('METHOD_NOT_ALLOWED');
    return await match.route.handler(request, match.params, ctx);
  } catch (e) {
    return answerError('v1', e, log);
  }
}
