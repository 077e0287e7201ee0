/** Offset paging of the v1 lists (spec: Limits — limit 1-100, above 100 LIMIT_EXCEEDS_MAXIMUM; offset 0 or more). */
import { DomainError } from './errors.ts';

export const MAX_PAGE_SIZE = 100;

/**
 * The largest offset passed on (the GraphQL Int range). Every list is far shorter, so a larger offset gives the same
 * empty page; clamping keeps "offset 0 or more" true for any size instead of failing on an overflow.
 */
export const MAX_OFFSET = 2_147_483_647;

export interface OffsetPage {
  offset: number;
  limit: number;
}

/**
 * Validates paging given as numbers or query-string text. Missing or non-integer or negative offset →
 * INVALID_OFFSET; missing, non-integer or ≤ 0 limit → INVALID_LIMIT; above 100 → LIMIT_EXCEEDS_MAXIMUM.
 * An offset past every item is valid (an empty page).
 */
export function parseOffsetPage(offset: unknown, limit: unknown): OffsetPage {
  const o = toInt(offset);
  if (o === null || o < 0) throw new DomainError('INVALID_OFFSET', { path: ['offset'] });
  const l = toInt(limit);
  if (l === null || l <= 0) throw new DomainError('INVALID_LIMIT', { path: ['limit'] });
  if (l > MAX_PAGE_SIZE) throw new DomainError('LIMIT_EXCEEDS_MAXIMUM', { path: ['limit'] });
  return { offset: Math.min(o, MAX_OFFSET), limit: l };
}

/** A whole number (any number of digits; only its sign and size matter beyond the safe range), or null. */
function toInt(v: unknown): number | null {
  if (typeof v === 'number') return Number.isInteger(v) ? v : null;
  if (typeof v === 'string' && /^-?\d+$/.test(v.trim())) return Number(v.trim());
  return null;
}
