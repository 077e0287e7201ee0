/**
 * An API key's expiry as the merchant picks it (a Korean date: usable through that day) and its state in the list.
 * Pure: the clock is passed in.
 */
import { kstWallClock } from '../../i18n.ts';

/**
 * The instant a key chosen to be usable through `date` (a Korean date, YYYY-MM-DD) stops working: the next midnight in
 * KST. Null for a malformed date, or one no calendar has (2026-02-30: Date.parse would roll it over to March).
 */
export function expiryAfterKstDay(date: string): string | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return null;
  const start = Date.parse(`${date}T00:00:00+09:00`);
  if (Number.isNaN(start) || kstWallClock(new Date(start)).slice(0, 10) !== date) return null;
  return new Date(start + 24 * 3600_000).toISOString();
}

export type KeyState = 'active' | 'disabled' | 'expired';

/** A key's state at `now` (ms): disabled wins; expired from its expiry instant on (the API refuses it from then). */
export function keyStateOf(key: { disabledAt: string | null; expiresAt: string | null }, now: number): KeyState {
  if (key.disabledAt) return 'disabled';
  if (key.expiresAt && Date.parse(key.expiresAt) <= now) return 'expired';
  return 'active';
}
