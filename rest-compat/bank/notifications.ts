/** POST /bank-notifications as the table entry of its face: the bank feed's deposit notifications, authenticated per bank account. */
import { bearerToken } from '../../src/domain/auth/principal.ts';
import { bankNotificationSchema } from '../../src/domain/deposits/bank-notification.ts';
import { ingestBankNotification } from '../../src/domain/deposits/intake.ts';
import type { Deps } from '../../src/domain/deps.ts';
import { DomainError, isDomainError, type ErrorCode } from '../../src/domain/errors.ts';
import { dateTimeRefusalError } from '../../src/domain/prisma-errors.ts';
import { BankNotificationAccepted } from '../openapi/components.ts';
import { answerError, type ErrorLog } from '../shared/face-errors.ts';
import { json, readJsonBody } from '../shared/http.ts';
import type { RouteDoc } from '../shared/route.ts';

export const BANK_ROUTES: RouteDoc[] = [
  {
    method: 'post',
    path: '/bank-notifications',
    operationId: 'postBankNotification',
    summary: 'Post a deposit notification',
    description:
      'Authenticated by the bank account\'s notification token. A 1-won deposit whose depositor name is the account\'s verification code verifies the account (stored hidden, never matched); any other deposit on a verified, active account is matched to at most one pending invoice.',
    tag: 'Bank notifications',
    face: 'bank',
    body: { schema: bankNotificationSchema.meta({ id: 'BankNotification', description: 'One deposit notification of a bank feed.' }), required: true },
    ok: {
      status: 201,
      description: 'Stored (and matched when it pays an invoice).',
      schema: BankNotificationAccepted,
      alsoStatus: { status: 200, description: 'The same notificationId again: the first transaction; nothing new is stored.' },
    },
    errorCodes: ['BAD_REQUEST', 'UNAUTHENTICATED', 'PAYLOAD_TOO_LARGE', 'VALIDATION_FAILED', 'INVALID_AMOUNT', 'RATE_LIMITED', 'INTERNAL_SERVER_ERROR', 'SERVICE_UNAVAILABLE'] satisfies ErrorCode[],
  },
];

const [route] = BANK_ROUTES;

/** 201 {transactionId} for a new notification, 200 with the same id for a repeat; errors as {code, message, field?}. */
export async function handleBankNotification(request: Request, deps: Deps, maxBodyBytes: number, log: ErrorLog): Promise<Response> {
  try {
    if (request.method !== route.method.toUpperCase()) throw new DomainError('METHOD_NOT_ALLOWED');
    const token = bearerToken(request.headers.get('authorization'));
    if (!token) throw new DomainError('UNAUTHENTICATED', { message: 'Send Authorization: Bearer <notificationToken>.' });
    const body = await readJsonBody(request, maxBodyBytes);
    const { transaction, created } = await ingestBankNotification(deps, token, body);
    return json(created ? route.ok.status : route.ok.alsoStatus!.status, { transactionId: transaction.id });
  } catch (caught) {
    const e = isDomainError(caught) ? caught : (dateTimeRefusalError(caught) ?? caught);
    return answerError('bank', e, log);
  }
}
