/** The Developers screen's logic outside the browser: an API key's expiry picked as a Korean date, and its state. */
import { describe, expect, it } from 'vitest';
import { expiryAfterKstDay, keyStateOf } from '../../src/dashboard/screens/developers/keys.ts';

describe("an API key's expiry", () => {
  it('a key usable through a Korean date stops at the next midnight in Korea (15:00 UTC that day)', () => {
    expect(expiryAfterKstDay('2026-11-26')).toBe('2026-11-26T15:00:00.000Z');
    // Across a month, a year and a leap day.
    expect(expiryAfterKstDay('2026-11-30')).toBe('2026-11-30T15:00:00.000Z');
    expect(expiryAfterKstDay('2026-12-31')).toBe('2026-12-31T15:00:00.000Z');
    expect(expiryAfterKstDay('2028-02-29')).toBe('2028-02-29T15:00:00.000Z');
  });

  it('a malformed date, or one no calendar has, is refused rather than rolled over', () => {
    for (const date of ['', '2026-11-2', '26-11-26', '2026/11/26', '2026-11-26T00:00', '2026-13-01', '2026-11-32', '2026-02-30', '2027-02-29', '2026-00-10']) {
      expect(expiryAfterKstDay(date), date).toBeNull();
    }
  });

  it('active until its expiry instant, expired from it on; disabled whatever its expiry', () => {
    const expiresAt = expiryAfterKstDay('2026-11-26')!;
    const at = (iso: string) => Date.parse(iso);
    // 23:59:59.999 KST on the day chosen: still usable; midnight KST: expired.
    expect(keyStateOf({ disabledAt: null, expiresAt }, at('2026-11-26T14:59:59.999Z'))).toBe('active');
    expect(keyStateOf({ disabledAt: null, expiresAt }, at('2026-11-26T15:00:00.000Z'))).toBe('expired');
    expect(keyStateOf({ disabledAt: null, expiresAt: null }, at('2099-01-01T00:00:00Z'))).toBe('active');
    expect(keyStateOf({ disabledAt: '2026-11-01T00:00:00Z', expiresAt }, at('2026-11-02T00:00:00Z'))).toBe('disabled');
    expect(keyStateOf({ disabledAt: '2026-11-01T00:00:00Z', expiresAt }, at('2026-12-01T00:00:00Z'))).toBe('disabled');
  });
});
