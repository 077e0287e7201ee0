/** Offset paging of the v1 lists (spec: Limits — limit 1-100, above 100 LIMIT_EXCEEDS_MAXIMUM; offset 0 or more). */
import { z } from 'zod';
import type { ErrorCode } from './errors.ts';
import { fail, onWire, parseRequest } from './request-schema.ts';

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

/** A whole number given as a number or as query-string text (any number of digits; only its sign and size matter beyond the safe range). */
function wholeNumber(code: ErrorCode) {
  const E = { error: fail(code) };
  return z.union(
    [
      z.number(E).refine(Number.isInteger, E),
      z
        .string(E)
        .trim()
        .regex(/^-?\d+$/, E)
        .transform(Number),
    ],
    E,
  );
}

/** `offset`: 0 or more (an offset past every item is valid: an empty page). An integer on the wire. */
export const offsetSchema = onWire(
  wholeNumber('INVALID_OFFSET').refine((o) => o >= 0, { error: fail('INVALID_OFFSET') }),
  { type: 'integer', minimum: 0, description: 'Items to skip, 0 or more.' },
).transform((o) => Math.min(o, MAX_OFFSET));

/** `limit`: 1-100 (0 or less INVALID_LIMIT, above 100 LIMIT_EXCEEDS_MAXIMUM). An integer on the wire. */
export const limitSchema = onWire(
  wholeNumber('INVALID_LIMIT')
    .refine((l) => l > 0, { error: fail('INVALID_LIMIT') })
    .refine((l) => l <= MAX_PAGE_SIZE, { error: fail('LIMIT_EXCEEDS_MAXIMUM') }),
  { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, description: 'Page size, 1-100.' },
);

/** The size of a short list (a `first` that is clamped, never refused): absent → `fallback`, then 1-100. */
export function clampedSize(first: number | null | undefined, fallback: number): number {
  return Math.min(Math.max(first ?? fallback, 1), MAX_PAGE_SIZE);
}

/** The paging of a list request, offset first. */
export const offsetPageSchema = z.object({ offset: offsetSchema, limit: limitSchema });

/**
 * Validates paging given as numbers or query-string text. Missing or non-integer or negative offset →
 * INVALID_OFFSET; missing, non-integer or ≤ 0 limit → INVALID_LIMIT; above 100 → LIMIT_EXCEEDS_MAXIMUM.
 * An offset past every item is valid (an empty page).
 */
export function parseOffsetPage(offset: unknown, limit: unknown): OffsetPage {
  return parseRequest(offsetPageSchema, { offset, limit });
}
