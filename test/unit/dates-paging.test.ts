import { describe, expect, it } from 'vitest';
import { kstDate, kstDayStart, parseKstRange } from '../../src/domain/dates.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { clampedSize, parseOffsetPage } from '../../src/domain/paging.ts';

function codeOf(fn: () => unknown): string | null {
  try {
    fn();
    return null;
  } catch (e) {
    return (e as DomainError).code;
  }
}

describe('KST dates (dateAfter/dateBefore are YYYY-MM-DD in KST, inclusive)', () => {
  it('a KST day starts at 15:00 UTC the day before', () => {
    expect(kstDayStart('2026-11-22')?.toISOString()).toBe('2026-11-21T15:00:00.000Z');
  });
  it('dateBefore is inclusive: the bound is the start of the next KST day', () => {
    const r = parseKstRange('2026-11-22', '2026-11-22');
    expect(r.from?.toISOString()).toBe('2026-11-21T15:00:00.000Z');
    expect(r.until?.toISOString()).toBe('2026-11-22T15:00:00.000Z');
  });
  it.each(['2026-13-01', '2026-02-30', '2026/11/22', '20261122', '2026-11-2', 'today', ''])('%j → INVALID_DATE_RANGE_FORMAT', (d) => {
    expect(codeOf(() => parseKstRange(d, undefined))).toBe('INVALID_DATE_RANGE_FORMAT');
    expect(codeOf(() => parseKstRange(undefined, d))).toBe('INVALID_DATE_RANGE_FORMAT');
  });
  it('kstDate of 2026-11-21T15:30Z is 2026-11-22', () => expect(kstDate(new Date('2026-11-21T15:30:00Z'))).toBe('2026-11-22'));
});

describe('offset paging (limit 1-100, offset ≥ 0)', () => {
  it.each([
    [0, 1, null],
    ['0', '100', null],
    [5, 100, null],
    [undefined, 10, 'INVALID_OFFSET'],
    [-1, 10, 'INVALID_OFFSET'],
    ['x', 10, 'INVALID_OFFSET'],
    [1.5, 10, 'INVALID_OFFSET'],
    [0, undefined, 'INVALID_LIMIT'],
    [0, 0, 'INVALID_LIMIT'],
    [0, -5, 'INVALID_LIMIT'],
    [0, 'ten', 'INVALID_LIMIT'],
    [0, 101, 'LIMIT_EXCEEDS_MAXIMUM'],
    [undefined, undefined, 'INVALID_OFFSET'],
  ])('offset %j, limit %j → %s', (o, l, code) => {
    expect(codeOf(() => parseOffsetPage(o, l))).toBe(code);
  });
});

describe('short lists (`first` of webhook deliveries, e-mails, events): clamped to 1-100, never refused', () => {
  it.each([
    [undefined, 50, 50],
    [null, 100, 100],
    [0, 50, 1],
    [-5, 50, 1],
    [1, 50, 1],
    [100, 50, 100],
    [101, 50, 100],
    [2_147_483_647, 50, 100],
  ])('clampedSize(%s, %s) = %s', (first, fallback, size) => {
    expect(clampedSize(first, fallback)).toBe(size);
  });
});
