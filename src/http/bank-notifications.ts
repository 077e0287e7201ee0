/** POST /bank-notifications: the bank feed's deposit notifications, authenticated per bank account. */
import { bearerToken } from '../domain/auth/principal.ts';
import { ingestBankNotification } from '../domain/deposits/deposits.ts';
import type { Deps } from '../domain/deps.ts';
import { ERROR_TABLE, isDomainError } from '../domain/errors.ts';
import { dateTimeRefusalError, isDatabaseUnavailable } from '../domain/prisma-errors.ts';
import { json, readJsonBody, RETRY_AFTER_UNAVAILABLE } from '../../rest-compat/shared/http.ts';

/** 201 {transactionId} for a new notification, 200 with the same id for a repeat; errors as {code, message}. */
export async function handleBankNotification(request: Request, deps: Deps, maxBodyBytes: number, onUnexpected: (e: unknown) => void): Promise<Response> {
  try {
    if (request.method !== 'POST') return json(405, { code: 'METHOD_NOT_ALLOWED', message: ERROR_TABLE.METHOD_NOT_ALLOWED.message });
    const token = bearerToken(request.headers.get('authorization'));
    if (!token) return json(401, { code: 'NOT_AUTHORIZED', message: 'Send Authorization: Bearer <notificationToken>.' });
    const body = await readJsonBody(request, maxBodyBytes);
    const { transaction, created } = await ingestBankNotification(deps, token, body);
    return json(created ? 201 : 200, { transactionId: transaction.id });
  } catch (caught) {
    const e = isDomainError(caught) ? caught : (dateTimeRefusalError(caught) ?? caught);
    if (isDomainError(e)) {
      const { status, code } = ERROR_TABLE[e.code].v1;
      return json(status, { code, message: e.message, ...(e.path ? { field: e.path.join('.') } : {}) });
    }
    if (isDatabaseUnavailable(e)) return json(503, { code: 'SERVICE_UNAVAILABLE', message: ERROR_TABLE.SERVICE_UNAVAILABLE.message }, RETRY_AFTER_UNAVAILABLE);
    onUnexpected(e);
    return json(500, { code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error.' });
  }
}
