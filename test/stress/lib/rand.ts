/**
 * Unbiased choices inside an `fc.gen()` property. fast-check's numeric arbitraries lean towards their bounds (good for
 * values under test, bad for "1 time in 30"), so choices and probabilities draw without bias; values still come from
 * the biased arbitraries in hostile.ts.
 */
import fc from 'fast-check';

export type G = fc.GeneratorValue;

const uniform = (max: number) => fc.noBias(fc.integer({ min: 0, max }));

/** A whole number in 0..max, uniformly. */
export const int = (g: G, max: number): number => g(() => uniform(max));

/** One of `items`, uniformly. */
export const pick = <T>(g: G, items: readonly T[]): T => items[int(g, items.length - 1)];

/** True with probability `p`. */
export const chance = (g: G, p: number): boolean => int(g, 9_999) < p * 10_000;

/** A fraction in [0, 1). */
export const fraction = (g: G): number => int(g, 9_999) / 10_000;
