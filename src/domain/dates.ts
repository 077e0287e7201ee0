/**
 * Times on the wire, judged once for every face: timestamps (bank notifications' receivedAt, GraphQL DateTime), Unix
 * seconds (v2 expiresAt) and KST calendar dates (spec: dateAfter/dateBefore are `YYYY-MM-DD` in KST, inclusive).
 */
import { z } from 'zod';
import { DomainError, type ErrorCode } from './errors.ts';
import { fail, parseRequest } from './request-schema.ts';

const KST_OFFSET_MS = 9 * 3_600_000;
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * The instants the service takes from a client: from the Unix epoch (nothing earlier is a deposit, expiry or filter
 * bound, and v2 speaks Unix seconds) to the last instant with a four-digit year (a year-10000 time reads back invalid).
 */
export const MIN_INSTANT_MS = Date.UTC(1970, 0, 1);
export const MAX_INSTANT_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
export const INSTANT_RANGE_TEXT = 'between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z';
/** The calendar years a `YYYY-MM-DD` date may name. */
const MIN_YEAR = 1970;
const MAX_YEAR = 9999;

const isLeapYear = (y: number) => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Whether year, month (1-12) and day name a day of the (proleptic Gregorian) calendar: no 2026-02-30, no 04-31. */
export function isCalendarDate(y: number, mo: number, d: number): boolean {
  if (!Number.isInteger(y) || !Number.isInteger(mo) || !Number.isInteger(d) || mo < 1 || mo > 12 || d < 1) return false;
  return d <= (mo === 2 && isLeapYear(y) ? 29 : DAYS_IN_MONTH[mo - 1]);
}

/** The UTC instant (ms) of calendar fields; exact for every year, 0-99 too (Date.UTC reads those as 1900-1999). */
function utcMs(y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0): number {
  const at = new Date(0);
  at.setUTCFullYear(y, mo - 1, d);
  at.setUTCHours(h, mi, s, ms);
  return at.getTime();
}

/**
 * The wire form of a timestamp (RFC 3339 / ISO 8601 extended): `YYYY-MM-DDTHH:MM[:SS[.fraction]]` and a zone, `Z` or
 * `±HH:MM` (`±HHMM` is read too). Uppercase `T` and `Z` only; the fraction has 1-9 digits.
 */
export const TIMESTAMP_RE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(:(\d{2})(\.(\d{1,9}))?)?(Z|([+-])(\d{2}):?(\d{2}))$/;

export const TIMESTAMP_FORMAT_TEXT = 'an ISO 8601 time with a zone, e.g. 2026-11-21T19:00:00+09:00';

/** Why a wire timestamp was refused: the rule it breaks, as `<field> must be <rule>`. */
export interface TimestampRefusal {
  rule: string;
}

/**
 * Reads a client's timestamp strictly (receivedAt, GraphQL DateTime, every other): TIMESTAMP_RE, a real calendar time
 * (no Feb 30, hour 24 or leap second), an offset within ±23:59, an instant in range; digits past milliseconds dropped.
 */
export function parseTimestamp(text: string): Date | TimestampRefusal {
  const m = TIMESTAMP_RE.exec(text);
  if (!m) return { rule: TIMESTAMP_FORMAT_TEXT };
  const [y, mo, d, h, mi] = [1, 2, 3, 4, 5].map((i) => Number(m[i]));
  const s = m[7] === undefined ? 0 : Number(m[7]);
  const ms = m[9] === undefined ? 0 : Number(m[9].slice(0, 3).padEnd(3, '0'));
  if (!isCalendarDate(y, mo, d) || h > 23 || mi > 59 || s > 59) return { rule: 'a real calendar date and time (hours 00-23, minutes and seconds 00-59)' };
  let offsetMin = 0;
  if (m[10] !== 'Z') {
    const [oh, om] = [Number(m[12]), Number(m[13])];
    if (oh > 23 || om > 59) return { rule: 'a time with a zone offset between -23:59 and +23:59' };
    offsetMin = (m[11] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const at = utcMs(y, mo, d, h, mi, s, ms) - offsetMin * 60_000;
  if (!isInstantInRange(at)) return { rule: `a time ${INSTANT_RANGE_TEXT}` };
  return new Date(at);
}

/** Whether parseTimestamp refused its text. */
export const isTimestampRefusal = (v: Date | TimestampRefusal): v is TimestampRefusal => !(v instanceof Date);

/** A wire timestamp field of a request schema: a string read by parseTimestamp, refused as `code` naming `field`. */
export function timestampSchema(field: string, code: ErrorCode = 'VALIDATION_FAILED') {
  const format = { error: fail(code, `${field} must be ${TIMESTAMP_FORMAT_TEXT}.`) };
  return z
    .string(format)
    .regex(TIMESTAMP_RE, format)
    .transform((text, ctx) => {
      const at = parseTimestamp(text);
      if (!isTimestampRefusal(at)) return at;
      ctx.addIssue({ code: 'custom', message: fail(code, `${field} must be ${at.rule}.`) });
      return z.NEVER;
    });
}

/** Whether `ms` is an instant the service takes from a client (MIN_INSTANT_MS..MAX_INSTANT_MS; never NaN). */
export function isInstantInRange(ms: number): boolean {
  return ms >= MIN_INSTANT_MS && ms <= MAX_INSTANT_MS;
}

/**
 * The instant of a Unix-seconds time (v2's wire form): a whole number of seconds within the instant range, else null
 * (fractions, negatives, huge values, NaN and ±Infinity are refused, never turned into an Invalid Date).
 */
export function fromUnixSeconds(seconds: number): Date | null {
  if (!Number.isSafeInteger(seconds) || !isInstantInRange(seconds * 1000)) return null;
  return new Date(seconds * 1000);
}

/** Throws VALIDATION_FAILED (at `path`) unless `at` is a valid Date within the instant range: the guard before a Date reaches the database. */
export function assertStorableInstant(at: Date, path?: readonly string[]): void {
  if (!(at instanceof Date) || !isInstantInRange(at.getTime())) {
    throw new DomainError('VALIDATION_FAILED', { message: `The time must be ${INSTANT_RANGE_TEXT}.`, path: path?.length ? [...path] : undefined });
  }
}

/** Start of a KST calendar day as an instant; null when not a real `YYYY-MM-DD` date of the years 1970-9999. */
export function kstDayStart(text: string): Date | null {
  const m = DATE_RE.exec(text);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (y < MIN_YEAR || y > MAX_YEAR || !isCalendarDate(y, mo, d)) return null;
  return new Date(utcMs(y, mo, d) - KST_OFFSET_MS);
}

export interface DateRange {
  from: Date | null;
  /** Exclusive upper bound (start of the day after `dateBefore`). */
  until: Date | null;
}

/** A `YYYY-MM-DD` KST date bound (INVALID_DATE_RANGE_FORMAT otherwise); absent or null = open. */
export const kstDateSchema = z
  .string({ error: fail('INVALID_DATE_RANGE_FORMAT') })
  .regex(DATE_RE)
  .refine((text) => kstDayStart(text) !== null)
  .nullish()
  .meta({ description: 'A calendar date `YYYY-MM-DD` in KST (inclusive), of the years 1970-9999.', format: 'date' });

/** The inclusive KST range, dateAfter first. */
export const kstRangeSchema = z
  .object({ dateAfter: kstDateSchema, dateBefore: kstDateSchema })
  .transform(({ dateAfter, dateBefore }): DateRange => ({
    from: dateAfter == null ? null : kstDayStart(dateAfter),
    until: dateBefore == null ? null : new Date(kstDayStart(dateBefore)!.getTime() + 86_400_000),
  }));

/** Parses the inclusive KST range; INVALID_DATE_RANGE_FORMAT when a bound is not `YYYY-MM-DD`. */
export function parseKstRange(dateAfter?: string | null, dateBefore?: string | null): DateRange {
  return parseRequest(kstRangeSchema, { dateAfter, dateBefore });
}

/** The KST calendar date of an instant, `YYYY-MM-DD`. */
export function kstDate(at: Date): string {
  return new Date(at.getTime() + KST_OFFSET_MS).toISOString().slice(0, 10);
}
