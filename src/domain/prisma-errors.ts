/** Translates Prisma errors where they occur (unique violation → conflict, record missing → not found). */
import { DomainError } from './errors.ts';
import { INSTANT_RANGE_TEXT } from './dates.ts';

/** Whether `e` is a unique-constraint violation (Prisma P2002, or SQLSTATE 23505 from raw SQL). */
export function isUniqueViolation(e: unknown, field?: string): boolean {
  const err = e as { code?: string; meta?: Record<string, unknown>; message?: string; cause?: unknown };
  if (!err || typeof err !== 'object') return false;
  if (err.code === 'P2002') {
    if (!field) return true;
    return JSON.stringify(err.meta ?? {}).includes(field) || String(err.message).includes(field);
  }
  if (err.code === '23505') return !field || String(err.message).includes(field);
  return false;
}

/** Whether `e` is Prisma's "record to update/delete not found" (P2025). */
export function isRecordNotFound(e: unknown): boolean {
  return (e as { code?: string })?.code === 'P2025';
}

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH',
  '57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006',
  'P1001', 'P1002', 'P1008', 'P1017', 'P2024',
]);
const UNAVAILABLE_MESSAGE = /connection terminated|ECONNREFUSED|ECONNRESET|timeout exceeded when trying to connect|can't reach database|server has closed the connection|connection (is )?closed|Client has encountered a connection error|terminating connection/i;

/**
 * Whether an error means the database cannot be reached right now (connection refused, dropped or timed out): the
 * request is answered 503 SERVICE_UNAVAILABLE with Retry-After instead of 500. Looks through `cause` chains.
 */
export function isDatabaseUnavailable(e: unknown): boolean {
  let cur: unknown = e;
  for (let depth = 0; depth < 8 && cur && typeof cur === 'object'; depth++) {
    const err = cur as { code?: unknown; message?: unknown; cause?: unknown; originalError?: unknown; causes?: unknown[]; errno?: unknown };
    if (typeof err.code === 'string' && UNAVAILABLE_CODES.has(err.code)) return true;
    if (typeof err.message === 'string' && UNAVAILABLE_MESSAGE.test(err.message)) return true;
    if (Array.isArray(err.causes) && err.causes.some(isDatabaseUnavailable)) return true;
    cur = err.cause ?? err.originalError;
  }
  return false;
}

/** SQLSTATEs of a date/time the database refuses: invalid format, field out of range, zone displacement out of range. */
const DATETIME_CODES = new Set(['22007', '22008', '22009']);

/**
 * Whether `e` is the database (or Prisma, before it) refusing a date/time value: SQLSTATE 22007/22008/22009 from the
 * driver or under a Prisma error's driverAdapterError, or Prisma's "Provided Date object is invalid" (an Invalid Date).
 * Looks through `cause` chains.
 */
export function isDateTimeRefusedByDatabase(e: unknown): boolean {
  let cur: unknown = e;
  for (let depth = 0; depth < 8 && cur && typeof cur === 'object'; depth++) {
    const err = cur as { code?: unknown; originalCode?: unknown; name?: unknown; message?: unknown; cause?: unknown; originalError?: unknown; meta?: { driverAdapterError?: { cause?: unknown } } };
    if ((typeof err.code === 'string' && DATETIME_CODES.has(err.code)) || (typeof err.originalCode === 'string' && DATETIME_CODES.has(err.originalCode))) return true;
    if (err.name === 'PrismaClientValidationError' && typeof err.message === 'string' && err.message.includes('Provided Date object is invalid')) return true;
    cur = err.cause ?? err.originalError ?? err.meta?.driverAdapterError?.cause;
  }
  return false;
}

/**
 * The DomainError a database's refusal of a date/time stands for (VALIDATION_FAILED, 422), or null. Every time a client
 * sends is checked before it is stored (src/domain/dates.ts); this is the defence in depth, so a time that slipped
 * through is the client's 422, never a 500.
 */
export function dateTimeRefusalError(e: unknown): DomainError | null {
  if (!isDateTimeRefusedByDatabase(e)) return null;
  return new DomainError('VALIDATION_FAILED', { message: `A time is not one the service can store: times must be real and ${INSTANT_RANGE_TEXT}.` });
}
