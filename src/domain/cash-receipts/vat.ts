/**
 * Supply cost and VAT of a cash receipt (spec: "The amount is treated as a taxable transaction: supply cost and VAT
 * (10%) are split"). The rule, written once:
 *   supplyCost = amount × 10 / 11, rounded half up;   tax = amount − supplyCost
 * so supplyCost + tax = amount exactly. A partial cancellation splits its own amount by the same rule; the final
 * cancellation takes whatever supply cost and tax remain, so the cancellations of a receipt sum to it exactly.
 */
export interface VatSplit {
  supplyCost: number;
  tax: number;
}

export function splitVat(amount: number): VatSplit {
  if (!Number.isSafeInteger(amount) || amount < 0) throw new RangeError(`amount must be a whole number of won, got ${amount}`);
  const supplyCost = Math.floor((amount * 10 + 5) / 11);
  return { supplyCost, tax: amount - supplyCost };
}

/**
 * The split of a cancellation of `cancelAmount` from an original, given the cancellations made before: a partial
 * cancellation by the rule; the final one (cancelAmount = what remains) takes exactly the remaining supply cost and tax.
 */
export function splitCancellation(original: VatSplit & { amount: number }, previous: VatSplit[], cancelAmount: number): VatSplit & { final: boolean } {
  const canceledSupply = previous.reduce((s, p) => s + p.supplyCost, 0);
  const canceledTax = previous.reduce((s, p) => s + p.tax, 0);
  const remaining = original.amount - canceledSupply - canceledTax;
  if (cancelAmount === remaining) {
    return { supplyCost: original.supplyCost - canceledSupply, tax: original.tax - canceledTax, final: true };
  }
  return { ...splitVat(cancelAmount), final: false };
}
