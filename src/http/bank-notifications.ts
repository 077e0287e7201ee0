/** POST /bank-notifications: the bank feed's deposit notifications, authenticated per bank account. */
import { bearerToken } from '../domain/auth/principal.ts';
import { ingestBankNotification } from '../domain/deposits/intake.ts';
import type { Deps } from '../domain/deps.ts';
import { DomainError, isDomainError } from '../domain/errors.ts';
import { dateTimeRefusalError } from '../domain/prisma-errors.ts';
import { json, readJsonBody } from '../../rest-compat/shared/http.ts';
import { answerError, type ErrorLog } from '../../rest-compat/shared/face-errors.ts';

/** 201 {transactionId} for a new notification, 200 with the same id for a repeat; errors as {code, message, field?}. */
export async function handleBankNotification(request: Request, deps: Deps, maxBodyBytes: number, log: ErrorLog): Promise<Response> {
  try {
    if (request.method !== 'POST') throw new DomainError('METHOD_NOT_ALLOWED');
    const token = bearerToken(request.headers.get('authorization'));
    if (!token) throw new DomainError('UNAUTHENTICATED', { message: 'Send Authorization: Bearer <notificationToken>.' });
    const body = await readJsonBody(request, maxBodyBytes);
    const { transaction, created } = await ingestBankNotification(deps, token, body);
    return json(created ? 201 : 200, { transactionId: transaction.id });
  } catch (caught) {
    const e = isDomainError(caught) ? caught : (dateTimeRefusalError(caught) ?? caught);
    return answerError('bank', e, log);
  }
}
