import { describe, expect, it } from 'vitest';
import { MAX_EXPIRY_MS, parseDuration } from '../../src/domain/duration.ts';

const M = 60_000, H = 3_600_000, D = 86_400_000;

describe('expireAfter durations (ISO 8601 and short form)', () => {
  it.each([
    ['PT30M', 30 * M],
    ['PT1H', H],
    ['P1D', D],
    ['P1DT6H20M', D + 6 * H + 20 * M],
    ['P1W', 7 * D],
    ['PT90S', 90_000],
    ['pt30m', 30 * M],
    ['30m', 30 * M],
    ['1h', H],
    ['1d', D],
    ['1d 6h 20m', D + 6 * H + 20 * M],
    ['7d', 7 * D],
    ['365d', 365 * D],
    ['  2h  ', 2 * H],
    ['1D 2H', D + 2 * H],
  ])('%j = %d ms', (text, ms) => expect(parseDuration(text)).toBe(ms));

  it.each(['', 'P', 'PT', '1', 'abc', '1x', '1d1h', '1d 1d', 'P1Y', 'P1M', '-1d', '1.5h', 'P1DT', 'd1'])('%j is not a duration', (text) => {
    expect(parseDuration(text)).toBeNull();
  });

  it('the maximum is 365 days', () => expect(MAX_EXPIRY_MS).toBe(365 * D));
});
