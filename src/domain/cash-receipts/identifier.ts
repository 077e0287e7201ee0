/** Cash-receipt identifiers (spec: cash receipt object): PERSONAL = phone 10-11 digits, CORPORATE = business number 10 digits, no hyphens. */
export const CASH_RECEIPT_TYPES = ['PERSONAL', 'CORPORATE'] as const;
export type CashReceiptTypeName = (typeof CASH_RECEIPT_TYPES)[number];

export function isCashReceiptType(v: unknown): v is CashReceiptTypeName {
  return v === 'PERSONAL' || v === 'CORPORATE';
}

/** Whether `identifier` fits `type`. */
export function identifierFits(type: CashReceiptTypeName, identifier: unknown): identifier is string {
  if (typeof identifier !== 'string') return false;
  return type === 'PERSONAL' ? /^\d{10,11}$/.test(identifier) : /^\d{10}$/.test(identifier);
}
