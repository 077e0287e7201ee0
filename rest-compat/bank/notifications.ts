/** POST /bank-notifications as the table entry of its face: the bank feed's deposit notifications, authenticated per bank account. */
import { bearerToken } from '../../src/domain/auth/principal.ts';
import { bankNotificationSchema } from '../../src/domain/deposits/bank-notification.ts';
import { ingestBankNotification } from '../../src/domain/deposits/intake.ts';
import type { Deps } from '../../src/domain/deps.ts';
import { DomainError, isDomainError, type ErrorCode } from '../../src/domain/errors.ts';
import { dateTimeRefusalError } from '../../src/domain/prisma-errors.ts';
import { BankNotificationAccepted, BankTextAccepted } from '../openapi/components.ts';
import { bankTextSchema, ingestBankText } from '../../src/domain/deposits/bank-text-intake.ts';
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
  {
    method: 'post',
    path: '/bank-texts',
    operationId: 'postBankText',
    summary: 'Forward a bank deposit text',
    description:
      'A bank\'s deposit SMS or app push as the merchant\'s phone received it, forwarded with the account\'s notification token (README, "Bank texts"). Every text is stored. A deposit text of this account (its bank, its masked number) becomes a deposit, matched like a notification; the same deposit announced again (SMS and push, a retry) is stored once.',
    tag: 'Bank notifications',
    face: 'bank',
    body: { schema: bankTextSchema.meta({ id: 'BankText', description: 'One forwarded text.' }), required: true },
    ok: {
      status: 201,
      description: 'A new deposit.',
      schema: BankTextAccepted,
      alsoStatus: { status: 200, description: 'Stored, and no new deposit: DUPLICATE, NOT_A_DEPOSIT, UNRECOGNIZED or REFUSED.' },
    },
    errorCodes: ['BAD_REQUEST', 'UNAUTHENTICATED', 'PAYLOAD_TOO_LARGE', 'VALIDATION_FAILED', 'RATE_LIMITED', 'INTERNAL_SERVER_ERROR', 'SERVICE_UNAVAILABLE'] satisfies ErrorCode[],
  },
];

const [route, textRoute] = BANK_ROUTES as [RouteDoc, RouteDoc];

/**
 * One bank-feed request, authenticated by a bank account's notification token: the method, the bearer token and the
 * JSON body checked, `ingest` run, its answer as JSON with the route's status (`created`: the first, else the second);
 * errors as {code, message, field?}.
 */
async function bankFeed(
  r: RouteDoc,
  request: Request,
  maxBodyBytes: number,
  log: ErrorLog,
  ingest: (token: string, body: unknown) => Promise<{ created: boolean; body: unknown }>,
): Promise<Response> {
  try {
    if (request.method !== r.method.toUpperCase()) throw new DomainError('METHOD_NOT_ALLOWED');
    const token = bearerToken(request.headers.get('authorization'));
    if (!token) throw new DomainError('UNAUTHENTICATED', { message: 'Send Authorization: Bearer <notificationToken>.' });
    const answer = await ingest(token, await readJsonBody(request, maxBodyBytes));
    return json(answer.created ? r.ok.status : r.ok.alsoStatus!.status, answer.body);
  } catch (caught) {
    const e = isDomainError(caught) ? caught : (dateTimeRefusalError(caught) ?? caught);
    return answerError('bank', e, log);
  }
}

/** POST /bank-notifications: 201 {transactionId} for a new notification, 200 with the same id for a repeat. */
export function handleBankNotification(request: Request, deps: Deps, maxBodyBytes: number, log: ErrorLog): Promise<Response> {
  return bankFeed(route, request, maxBodyBytes, log, async (token, body) => {
    const { transaction, created } = await ingestBankNotification(deps, token, body);
    return { created, body: { transactionId: transaction.id } };
  });
}

/** POST /bank-texts: 201 for a new deposit, 200 for any other outcome (every text is stored). */
export function handleBankText(request: Request, deps: Deps, maxBodyBytes: number, log: ErrorLog): Promise<Response> {
  return bankFeed(textRoute, request, maxBodyBytes, log, async (token, body) => {
    const { bankText: t } = await ingestBankText(deps, token, body);
    return { created: t.outcome === 'DEPOSIT', body: { bankTextId: t.id, outcome: t.outcome, transactionId: t.transactionId, kind: t.kind, reason: t.reason } };
  });
}
