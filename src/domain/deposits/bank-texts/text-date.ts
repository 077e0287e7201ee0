/**
 * When a bank text says a deposit happened (issue 19). Texts print KST (UTC+9) wall-clock time and, but for IBK's,
 * no year: the year is the one in which that month/day/time is the latest moment not after the phone received the
 * text, so a text received 01/01 00:05 about 12/31 23:59 is last year's. A phone's clock may run a little behind the
 * bank's; up to CLOCK_SKEW_MS of "future" is read as skew, not as last year.
 */
import { isCalendarDate, MAX_INSTANT_MS, MIN_INSTANT_MS } from '../../dates.ts';

const KST_OFFSET_MS = 9 * 3_600_000;
/** How far after its receipt a text's own time may be and still be read as this year's (clock skew, not the future). */
export const CLOCK_SKEW_MS = 10 * 60_000;

/** The wall-clock fields a text prints; `year` only where the text has one. */
export interface TextDateTime {
  year?: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second?: number;
}

/** The instant a text's KST date and time name, its year inferred from `receivedAt` when the text has none; or why there is none. */
export function resolveTextDate(at: TextDateTime, receivedAt: Date): { ok: true; at: Date } | { ok: false; reason: string } {
  const second = at.second ?? 0;
  const shown = `${pad(at.month)}/${pad(at.day)} ${pad(at.hour)}:${pad(at.minute)}`;
  if (at.month < 1 || at.month > 12 || at.day < 1 || at.day > 31) return { ok: false, reason: `${shown} is not a month/day` };
  if (at.hour > 23 || at.minute > 59 || second > 59) return { ok: false, reason: `${shown} is not a time of day` };
  const latest = receivedAt.getTime() + CLOCK_SKEW_MS;
  let year = at.year;
  if (year === undefined) {
    const kst = new Date(latest + KST_OFFSET_MS);
    const shownKey = [at.month, at.day, at.hour, at.minute, second];
    const latestKey = [kst.getUTCMonth() + 1, kst.getUTCDate(), kst.getUTCHours(), kst.getUTCMinutes(), kst.getUTCSeconds()];
    year = kst.getUTCFullYear() - (compare(shownKey, latestKey) > 0 ? 1 : 0);
  }
  if (!(year >= 1970 && year <= 9999)) return { ok: false, reason: `${year}/${shown} is outside 1970-9999` };
  if (!isCalendarDate(year, at.month, at.day)) return { ok: false, reason: `${pad(at.month)}/${pad(at.day)} does not exist in ${year}` };
  const utc = new Date(0);
  utc.setUTCFullYear(year, at.month - 1, at.day);
  utc.setUTCHours(at.hour, at.minute, second, 0);
  const ms = utc.getTime() - KST_OFFSET_MS;
  if (ms < MIN_INSTANT_MS || ms > MAX_INSTANT_MS) return { ok: false, reason: `${year}/${shown} is outside 1970-9999` };
  if (ms > latest) return { ok: false, reason: `${year}/${shown} KST is after the text was received` };
  return { ok: true, at: new Date(ms) };
}

const pad = (n: number) => String(n).padStart(2, '0');

function compare(a: number[], b: number[]): number {
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return a[k]! - b[k]!;
  return 0;
}
