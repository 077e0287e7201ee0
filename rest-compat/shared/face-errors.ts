/**
 * How every face answers and logs an error: the face's renderer over the one error table as an HTTP response, and a
 * log line with the request id at the level of whose fault it was (ErrorLog), so refusals never reach the error log.
 */
import { GraphQLError } from 'graphql';
import type { Logger } from 'pino';
import {
  bankNotificationBody,
  graphQLErrorBody,
  isDomainError,
  isErrorCode,
  isRefusal,
  oauthErrorBody,
  v1Envelope,
  v2Envelope,
  type DomainError,
  type ErrorLike,
} from '../../src/domain/errors.ts';
import { isDatabaseUnavailable } from '../../src/domain/prisma-errors.ts';
import { domainErrorOf, maskedCause } from '../../src/graphql/common/errors.ts';
import { json, RETRY_AFTER_UNAVAILABLE } from './http.ts';

/** The error bodies of the service: v1, v2, GraphQL (/graphql and /api), `{code, message}` (bank notifications and the service's own paths), OAuth. */
export type Face = 'v1' | 'v2' | 'graphql' | 'bank' | 'oauth';

/**
 * An error as a face answers it: its renderer's status and body, as JSON (SERVICE_UNAVAILABLE with Retry-After).
 * Several errors only in the GraphQL body (`{errors: [...]}`, the highest status; an /api call may fail in several
 * places); the other bodies carry one.
 */
export function errorResponse(face: Face, error: ErrorLike | readonly ErrorLike[], opts: { headers?: Record<string, string>; v2Data?: unknown } = {}): Response {
  const errors: readonly ErrorLike[] = Array.isArray(error) ? error : [error as ErrorLike];
  const e = errors[0];
  let rendered: { status: number; body: unknown };
  if (face === 'graphql') {
    const each = errors.map(graphQLErrorBody);
    rendered = { status: Math.max(...each.map((r) => r.status)), body: { errors: each.map((r) => r.body) } };
  } else {
    rendered = face === 'v1' ? v1Envelope(e) : face === 'v2' ? v2Envelope(e, opts.v2Data ?? null) : face === 'bank' ? bankNotificationBody(e) : oauthErrorBody(e);
  }
  const unavailable = errors.some((x) => (typeof x === 'string' ? x : x.code) === 'SERVICE_UNAVAILABLE');
  return json(rendered.status, rendered.body, unavailable ? { ...RETRY_AFTER_UNAVAILABLE, ...opts.headers } : opts.headers);
}

/** What a face answers for an error it caught: a DomainError itself; an unreachable database SERVICE_UNAVAILABLE; anything else masked. */
export function answerOf(e: unknown): ErrorLike {
  return isDomainError(e) ? e : isDatabaseUnavailable(e) ? 'SERVICE_UNAVAILABLE' : 'INTERNAL_SERVER_ERROR';
}

/** Answers an error a face caught (answerOf) in the face's rendering, after logging it (ErrorLog.caught). */
export function answerError(face: Face, e: unknown, log: ErrorLog, opts: { headers?: Record<string, string>; v2Data?: (e: DomainError) => unknown } = {}): Response {
  log.caught(e);
  const answer = answerOf(e);
  return errorResponse(face, answer, { headers: opts.headers, v2Data: isDomainError(answer) ? opts.v2Data?.(answer) : undefined });
}

/** The log of one request's errors, each line with its request id (and method and path). */
export interface ErrorLog {
  /** A refusal: the caller's request broke a rule (info). */
  refused(code: string, field?: readonly unknown[] | null): void;
  /** A dependency failed: the database cannot be reached, the agency failed (warn). */
  failed(code: string, cause?: unknown): void;
  /** The service's own fault (error), logged with its stack; the caller sees it masked. */
  unexpected(e: unknown): void;
  /** A DomainError: a refusal, or a dependency's failure (a 5xx code). */
  domain(e: DomainError): void;
  /** Any error a face caught, at the level answerOf's answer calls for. */
  caught(e: unknown): void;
}

export function errorLog(log: Logger, requestId: string, method: string, path: string): ErrorLog {
  // A rate-limit refusal only at debug: a flood is exactly what it answers, and http_rate_limited_total counts it.
  const refused: ErrorLog['refused'] = (code, field) =>
    log[code === 'RATE_LIMITED' ? 'debug' : 'info']({ requestId, method, path, code, ...(field ? { field: field.join('.') } : {}) }, 'request refused');
  const failed: ErrorLog['failed'] = (code, cause) => log.warn({ requestId, method, path, code, ...(cause && !isDomainError(cause) ? { err: cause } : {}) }, 'dependency failed');
  const unexpected: ErrorLog['unexpected'] = (e) => log.error({ requestId, method, path, err: e }, 'unexpected error');
  const domain: ErrorLog['domain'] = (e) => (isRefusal(e.code) ? refused(e.code, e.path) : failed(e.code, e));
  return {
    refused,
    failed,
    unexpected,
    domain,
    caught: (e) => (isDomainError(e) ? domain(e) : isDatabaseUnavailable(e) ? failed('SERVICE_UNAVAILABLE', e) : unexpected(e)),
  };
}

/**
 * Logs the errors of a GraphQL result as the caller sees them (masked): a masked INTERNAL_SERVER_ERROR is unexpected
 * (its cause is logged), a domain code of status 5xx a dependency's failure, anything else (domain refusals, GraphQL's
 * own: a document that does not parse or validate, a variable that does not coerce) a refusal.
 */
export function logGraphQLErrors(log: ErrorLog, errors: readonly unknown[] | undefined): void {
  for (const error of errors ?? []) {
    // The domain's own code (FOREIGN_INVOICE, not the INVOICE_NOT_FOUND the caller sees).
    const domain = domainErrorOf(error);
    if (domain) {
      log.domain(domain);
      continue;
    }
    const code = error instanceof GraphQLError ? error.extensions?.code : undefined;
    const cause = error instanceof GraphQLError ? maskedCause(error) : undefined;
    if (cause !== undefined || code === 'INTERNAL_SERVER_ERROR' || !(error instanceof GraphQLError)) log.unexpected(cause ?? error);
    else if (isErrorCode(code) && !isRefusal(code)) log.failed(code, error.originalError);
    else log.refused(typeof code === 'string' ? code : 'GRAPHQL_ERROR', error.extensions?.field as readonly unknown[] | undefined);
  }
}
