/**
 * The reconciliation's arithmetic, pure (tested in test/unit/dashboard-reconciliation.test.ts): Korean calendar days,
 * the API's rows (one per day and account, days without deposits left out) summed into one row per day of the chart,
 * and the chart's scale.
 */
import { kstWallClock } from '../../i18n.ts';

/** The days the chart covers, today included. */
export const CHART_DAYS = 30;

const DAY_MS = 86_400_000;

/** The Korean calendar day (YYYY-MM-DD) of an instant. */
export function kstDay(at: Date): string {
  return kstWallClock(at).slice(0, 10);
}

/** A calendar day `n` days after `day` (before, when negative). */
export function addDays(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
}

/** Whether `day` is a real calendar date written YYYY-MM-DD (what a date input gives, or nothing). */
export function isDay(day: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(day) && !Number.isNaN(Date.parse(`${day}T00:00:00Z`)) && addDays(day, 0) === day;
}

/** The days from `from` to `to`, both included (0 when `to` is before `from`). */
export function daysBetween(from: string, to: string): number {
  return Math.max(0, Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS) + 1);
}

/** The last CHART_DAYS Korean days up to today, oldest first. */
export function lastDays(now: Date, count = CHART_DAYS): string[] {
  const today = kstDay(now);
  return Array.from({ length: count }, (_, i) => addDays(today, i - count + 1));
}

export interface Tally {
  count: number;
  amount: number;
}

/** What the chart shows of a day: all its deposits, and what became of them (the three add up to `deposits`). */
export interface DayFigures {
  date: string;
  deposits: Tally;
  matchedAutomatically: Tally;
  matchedByHand: Tally;
  unmatched: Tally;
}

export const OUTCOMES = ['matchedAutomatically', 'matchedByHand', 'unmatched'] as const;
export type Outcome = (typeof OUTCOMES)[number];

const FIGURES = ['deposits', ...OUTCOMES] as const;

const zero = (): Tally => ({ count: 0, amount: 0 });

/**
 * One row per day of `days` (in their order): the API's rows of that day summed over the accounts, zero for a day the
 * API left out (no deposits).
 */
export function figuresByDay(days: readonly string[], rows: readonly (Omit<DayFigures, 'date'> & { date: string })[]): DayFigures[] {
  const byDay = new Map(days.map((date) => [date, { date, deposits: zero(), matchedAutomatically: zero(), matchedByHand: zero(), unmatched: zero() } as DayFigures]));
  for (const row of rows) {
    const day = byDay.get(row.date);
    if (!day) continue;
    for (const f of FIGURES) {
      day[f].count += row[f].count;
      day[f].amount += row[f].amount;
    }
  }
  return [...byDay.values()];
}

/** The figures of all the days together. */
export function totalOf(days: readonly DayFigures[]): Omit<DayFigures, 'date'> {
  const total = { deposits: zero(), matchedAutomatically: zero(), matchedByHand: zero(), unmatched: zero() };
  for (const day of days)
    for (const f of FIGURES) {
      total[f].count += day[f].count;
      total[f].amount += day[f].amount;
    }
  return total;
}

/**
 * The vertical axis: a round step (1, 2 or 5 times a power of ten, at least 1: counts are whole) so that `ticks` steps
 * reach `max`; the axis ends at ticks × step.
 */
export function axisStep(max: number, ticks = 4): number {
  const rough = Math.max(1, max / ticks);
  const power = 10 ** Math.floor(Math.log10(rough));
  for (const m of [1, 2, 5, 10]) if (m * power >= rough) return m * power;
  return 10 * power;
}
