/**
 * The one rule for times a client sends (src/domain/dates.ts): a wire timestamp is `YYYY-MM-DDTHH:MM[:SS[.fraction]]`
 * with `Z` or `±HH:MM` (`±HHMM` read too), a real calendar date and time, an offset within ±23:59, and an instant
 * between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z; Unix seconds are whole seconds in the same range; KST
 * filter dates are real dates of the years 1970-9999. Each face's parser refuses a bad one at its field.
 */
import { describe, expect, it } from 'vitest';
import { GraphQLError } from 'graphql';
import { assertStorableInstant, fromUnixSeconds, isTimestampRefusal, kstDayStart, parseKstRange, parseTimestamp } from '../../src/domain/dates.ts';
import { parseBankNotification } from '../../src/domain/deposits/bank-notification.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { parseInvoiceChanges } from '../../src/domain/invoices/update-invoice.ts';
import { V2_EXPIRES_AT } from '../../rest-compat/v2/wire.ts';
import { dateTimeRefusalError, isDateTimeRefusedByDatabase } from '../../src/domain/prisma-errors.ts';
import { domainErrorOf } from '../../src/graphql/common/errors.ts';

const FORMAT = 'an ISO 8601 time with a zone, e.g. 2026-11-21T19:00:00+09:00';
const CALENDAR = 'a real calendar date and time (hours 00-23, minutes and seconds 00-59)';
const OFFSET = 'a time with a zone offset between -23:59 and +23:59';
const RANGE = 'a time between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z';

/** What parseTimestamp makes of a text: the instant's ISO form, or the rule it breaks. */
const judged = (text: string) => {
  const r = parseTimestamp(text);
  return isTimestampRefusal(r) ? { rule: r.rule } : r.toISOString();
};

function refusal(fn: () => unknown): { code: string; message: string; path?: string[] } | null {
  try {
    fn();
    return null;
  } catch (e) {
    const d = e as DomainError;
    return { code: d.code, message: d.message, ...(d.path ? { path: d.path } : {}) };
  }
}

describe('wire timestamps: parseTimestamp', () => {
  it.each([
    // The four values.
    ['0000-01-01T00:00:00Z', { rule: RANGE }],
    ['0001-01-01T00:00:00+09:00', { rule: RANGE }],
    ['9999-12-31T23:59:59-23:59', { rule: RANGE }],
    ['2026-02-30T00:00:00Z', { rule: CALENDAR }],
    // Calendar dates.
    ['2028-02-29T00:00:00Z', '2028-02-29T00:00:00.000Z'],
    ['2027-02-29T00:00:00Z', { rule: CALENDAR }],
    ['2000-02-29T12:00:00Z', '2000-02-29T12:00:00.000Z'],
    ['2100-02-29T12:00:00Z', { rule: CALENDAR }],
    ['2026-04-31T00:00:00Z', { rule: CALENDAR }],
    ['2026-13-01T00:00:00Z', { rule: CALENDAR }],
    ['2026-00-10T00:00:00Z', { rule: CALENDAR }],
    ['2026-01-00T00:00:00Z', { rule: CALENDAR }],
    // Times of day: no hour 24, no minute or second 60 (no leap seconds).
    ['2026-01-01T24:00:00Z', { rule: CALENDAR }],
    ['2026-01-01T23:60:00Z', { rule: CALENDAR }],
    ['2026-06-30T23:59:60Z', { rule: CALENDAR }],
    ['2026-11-21T19:00+09:00', '2026-11-21T10:00:00.000Z'],
    // Fractions: 1-9 digits, kept to the millisecond (truncated, as the database keeps ms).
    ['2026-11-21T10:00:00.5Z', '2026-11-21T10:00:00.500Z'],
    ['2026-11-21T10:00:00.123Z', '2026-11-21T10:00:00.123Z'],
    ['2026-11-21T10:00:00.123999999Z', '2026-11-21T10:00:00.123Z'],
    ['2026-11-21T10:00:00.1234567890Z', { rule: FORMAT }],
    ['2026-11-21T10:00:00.Z', { rule: FORMAT }],
    // Zones: Z or ±HH:MM (±HHMM read too) within ±23:59; uppercase only; a zone is required.
    ['2026-11-21T19:00:00+09:00', '2026-11-21T10:00:00.000Z'],
    ['2026-11-21T19:00:00+0900', '2026-11-21T10:00:00.000Z'],
    ['2026-11-21T10:00:00-00:00', '2026-11-21T10:00:00.000Z'],
    ['2026-11-21T10:00:00+23:59', '2026-11-20T10:01:00.000Z'],
    ['2026-11-21T10:00:00-23:59', '2026-11-22T09:59:00.000Z'],
    ['2026-11-21T10:00:00+24:00', { rule: OFFSET }],
    ['2026-11-21T10:00:00+09:60', { rule: OFFSET }],
    ['2026-11-21T10:00:00+9:00', { rule: FORMAT }],
    ['2026-11-21T10:00:00+09', { rule: FORMAT }],
    ['2026-11-21T10:00:00z', { rule: FORMAT }],
    ['2026-11-21t10:00:00Z', { rule: FORMAT }],
    ['2026-11-21 10:00:00Z', { rule: FORMAT }],
    ['2026-11-21T10:00:00', { rule: FORMAT }],
    ['2026-11-21', { rule: FORMAT }],
    ['+002026-11-21T10:00:00Z', { rule: FORMAT }],
    ['yesterday', { rule: FORMAT }],
    ['', { rule: FORMAT }],
    // The range is judged on the instant, after the offset.
    ['1970-01-01T00:00:00Z', '1970-01-01T00:00:00.000Z'],
    ['1970-01-01T08:59:59.999+09:00', { rule: RANGE }],
    ['1969-12-31T23:00:00-01:00', '1970-01-01T00:00:00.000Z'],
    ['9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z'],
    ['9999-12-31T23:59:59+09:00', '9999-12-31T14:59:59.000Z'],
    ['9999-12-31T23:59:59-00:01', { rule: RANGE }],
    ['0099-06-01T00:00:00Z', { rule: RANGE }],
  ])('%j → %j', (text, expected) => {
    expect(judged(text)).toEqual(expected);
  });
});

describe('Unix seconds (v2): fromUnixSeconds', () => {
  it.each([
    [0, '1970-01-01T00:00:00.000Z'],
    [1_795_000_000, '2026-11-18T11:06:40.000Z'],
    [253_402_300_799, '9999-12-31T23:59:59.000Z'],
    [253_402_300_800, null],
    [-1, null],
    [1.5, null],
    [1e300, null],
    [8.64e15, null],
    [Number.MAX_SAFE_INTEGER + 1, null],
    [Number.NaN, null],
    [Number.POSITIVE_INFINITY, null],
    [Number.NEGATIVE_INFINITY, null],
  ])('%d → %j', (seconds, expected) => {
    expect(fromUnixSeconds(seconds)?.toISOString() ?? null).toBe(expected);
  });
});

describe('KST filter dates: real dates of the years 1970-9999', () => {
  it.each([
    ['1970-01-01', '1969-12-31T15:00:00.000Z'],
    ['2028-02-29', '2028-02-28T15:00:00.000Z'],
    ['9999-12-31', '9999-12-30T15:00:00.000Z'],
    ['2027-02-29', null],
    ['1969-12-31', null],
    ['0001-01-01', null],
    ['0000-01-01', null],
    ['0050-01-01', null],
  ])('%s → %j', (text, expected) => {
    expect(kstDayStart(text)?.toISOString() ?? null).toBe(expected);
  });
  it('a bound outside the years is INVALID_DATE_RANGE_FORMAT at its field', () => {
    expect(refusal(() => parseKstRange('1969-12-31', null))).toEqual({ code: 'INVALID_DATE_RANGE_FORMAT', message: 'Dates must be YYYY-MM-DD.', path: ['dateAfter'] });
    expect(refusal(() => parseKstRange(null, '0001-01-01'))).toEqual({ code: 'INVALID_DATE_RANGE_FORMAT', message: 'Dates must be YYYY-MM-DD.', path: ['dateBefore'] });
  });
});

describe('each parser refuses a bad time at its field', () => {
  const body = (receivedAt: unknown) => ({ notificationId: 'n', depositorName: 'a', amount: 1, receivedAt });
  it.each([
    ['0000-01-01T00:00:00Z', `receivedAt must be ${RANGE}.`],
    ['0001-01-01T00:00:00+09:00', `receivedAt must be ${RANGE}.`],
    ['9999-12-31T23:59:59-23:59', `receivedAt must be ${RANGE}.`],
    ['2026-02-30T00:00:00Z', `receivedAt must be ${CALENDAR}.`],
    ['2026-01-01T24:00:00Z', `receivedAt must be ${CALENDAR}.`],
    ['2026-01-01T00:00:00+24:00', `receivedAt must be ${OFFSET}.`],
    ['yesterday', `receivedAt must be ${FORMAT}.`],
    [20261121, `receivedAt must be ${FORMAT}.`],
  ])('bank notification receivedAt %j → VALIDATION_FAILED', (receivedAt, message) => {
    expect(refusal(() => parseBankNotification(body(receivedAt)))).toEqual({ code: 'VALIDATION_FAILED', message, path: ['receivedAt'] });
  });
  it('bank notification: an accepted receivedAt is the instant it names', () => {
    expect(parseBankNotification(body('2028-02-29T23:59:59.999+09:00')).receivedAt).toEqual(new Date('2028-02-29T14:59:59.999Z'));
  });

  const now = new Date('2026-11-21T10:00:00Z');
  const nowS = now.getTime() / 1000;
  it.each([[-1], [1.5], [nowS + 0.5], [1e300], [8.64e15], [-8.64e15], [Number.NaN], [Number.POSITIVE_INFINITY], ['1795000000'], [253_402_300_800]])(
    'v2 PATCH expiresAt %j → INVALID_EXPIRES_AT at expiresAt',
    (expiresAt) => {
      expect(refusal(() => parseInvoiceChanges({ expiresAt }, now, V2_EXPIRES_AT))).toEqual({ code: 'INVALID_EXPIRES_AT', message: 'expiresAt must be Unix seconds later than now and within 365 days.', path: ['expiresAt'] });
    },
  );
  it('v2 PATCH expiresAt: whole seconds later than now are the instant they name', () => {
    expect(parseInvoiceChanges({ expiresAt: nowS + 60 }, now, V2_EXPIRES_AT)).toEqual({ resendGuideEmail: false, expiresAt: new Date(now.getTime() + 60_000) });
  });

  it('a Date headed for the database is checked too (never an Invalid Date or outside the range)', () => {
    expect(refusal(() => assertStorableInstant(new Date(Number.NaN), ['expiresAt']))).toEqual({ code: 'VALIDATION_FAILED', message: 'The time must be between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z.', path: ['expiresAt'] });
    expect(refusal(() => assertStorableInstant(new Date('+010000-01-01T00:00:00Z')))?.code).toBe('VALIDATION_FAILED');
    expect(refusal(() => assertStorableInstant(new Date('2026-11-21T10:00:00Z')))).toBeNull();
  });
});

describe('defence in depth: the database refusing a date/time is VALIDATION_FAILED, not an internal error', () => {
  // The shapes the drivers and Prisma give (seen on PGlite and PostgreSQL): the driver's SQLSTATE, a Prisma error
  // with it under driverAdapterError, Prisma's refusal of an Invalid Date.
  const pgError = Object.assign(new Error('date/time field value out of range: "0000-01-01T00:00:00.000Z"'), { code: '22008' });
  const prismaError = Object.assign(new Error('Invalid `prisma.apiKey.create()` invocation'), {
    name: 'PrismaClientKnownRequestError',
    code: 'P2039',
    meta: { driverAdapterError: { name: 'DriverAdapterError', cause: { originalCode: '22009', kind: 'postgres', code: '22009', message: 'time zone displacement out of range' } } },
  });
  const invalidDate = Object.assign(new Error('Invalid value for argument `expiresAt`: Provided Date object is invalid. Expected Date.'), { name: 'PrismaClientValidationError' });
  const syntax = Object.assign(new Error('invalid input syntax for type timestamp with time zone'), { code: '22007' });
  it.each([
    ['SQLSTATE 22008 from the driver', pgError],
    ['SQLSTATE 22009 under a Prisma error', prismaError],
    ['SQLSTATE 22007', syntax],
    ['an Invalid Date refused by Prisma', invalidDate],
    ['any of them under a GraphQL error', new GraphQLError('x', { originalError: pgError })],
  ])('%s', (_name, e) => {
    expect(isDateTimeRefusedByDatabase(e)).toBe(true);
    const expected = { code: 'VALIDATION_FAILED', message: 'A time is not one the service can store: times must be real and between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z.' };
    expect(refusal(() => { throw dateTimeRefusalError(e); })).toEqual(expected);
    // The GraphQL face (and REST v1/v2 and /api, which read GraphQL errors the same way) renders it as that DomainError.
    expect(refusal(() => { throw domainErrorOf(new GraphQLError('wrapped', { originalError: e as Error })); })).toEqual(expected);
  });
  it.each([
    ['a unique violation', Object.assign(new Error('duplicate key'), { code: '23505' })],
    ['a connection error', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })],
    ['a plain error', new Error('boom')],
  ])('%s is not one', (_name, e) => {
    expect(isDateTimeRefusedByDatabase(e)).toBe(false);
    expect(dateTimeRefusalError(e)).toBeNull();
    expect(domainErrorOf(new GraphQLError('wrapped', { originalError: e }))).toBeNull();
  });
});
