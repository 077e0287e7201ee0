import { describe, expect, it } from 'vitest';
import { splitCancellation, splitVat } from '../../src/domain/cash-receipts/vat.ts';

describe('supply cost and VAT (amount × 10/11 rounded half up; tax = the rest)', () => {
  it.each([
    [1, 1, 0],
    [10, 9, 1],
    [11, 10, 1],
    [12, 11, 1],
    [100, 91, 9],
    [999, 908, 91],
    [1000, 909, 91],
    [10_000, 9091, 909],
    [1_000_001, 909_092, 90_909],
    [2_147_483_647, 1_952_257_861, 195_225_786],
  ])('%d won → supply %d + VAT %d', (amount, supplyCost, tax) => {
    expect(splitVat(amount)).toEqual({ supplyCost, tax });
    expect(supplyCost + tax).toBe(amount);
  });

  it('for every amount up to 100,000 the parts sum exactly and VAT is within a won of 1/11', () => {
    for (let a = 1; a <= 100_000; a++) {
      const { supplyCost, tax } = splitVat(a);
      expect(supplyCost + tax).toBe(a);
      expect(Math.abs(tax - a / 11)).toBeLessThanOrEqual(0.5 + 1e-9);
    }
  });

  it('partial cancellations in several steps sum exactly to the original', () => {
    for (const [amount, steps] of [
      [10_000, [3000, 3000, 4000]],
      [1_000_001, [1, 333_333, 333_333, 333_334]],
      [999, [1, 1, 997]],
      [11, [5, 6]],
    ] as [number, number[]][]) {
      const original = { amount, ...splitVat(amount) };
      const done: { supplyCost: number; tax: number }[] = [];
      steps.forEach((step, i) => {
        const part = splitCancellation(original, done, step);
        expect(part.supplyCost + part.tax).toBe(step);
        expect(part.final).toBe(i === steps.length - 1);
        done.push(part);
      });
      expect(done.reduce((s, d) => s + d.supplyCost, 0)).toBe(original.supplyCost);
      expect(done.reduce((s, d) => s + d.tax, 0)).toBe(original.tax);
    }
  });

  it('a partial cancellation is split by the same rule as an issue', () => {
    expect(splitCancellation({ amount: 10_000, ...splitVat(10_000) }, [], 3000)).toEqual({ ...splitVat(3000), final: false });
  });
});
