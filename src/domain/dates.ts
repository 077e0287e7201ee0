/** KST calendar dates (spec: dateAfter/dateBefore are `YYYY-MM-DD` in KST, inclusive). */
import { z } from 'zod';
import { fail, parseRequest } from './request-schema.ts';

const KST_OFFSET_MS = 9 * 3_600_000;
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Start of a KST calendar day as an instant; null when not a real `YYYY-MM-DD` date. */
export function kstDayStart(text: string): Date | null {
  const m = DATE_RE.exec(text);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const utc = Date.UTC(y, mo - 1, d);
  const check = new Date(utc);
  if (check.getUTCFullYear() !== y || check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d) return null;
  return new Date(utc - KST_OFFSET_MS);
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
  .meta({ description: 'A calendar date `YYYY-MM-DD` in KST (inclusive).', format: 'date' });

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
