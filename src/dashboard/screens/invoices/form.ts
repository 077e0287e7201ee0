/**
 * What the invoice forms send, from what the merchant typed: optional fields empty = absent, the cash receipt (kind
 * and number, both or neither), an expiry typed as KST wall-clock time, and an edit's changes only (as PATCH
 * /v2/invoices/{id} sends only its fields). Pure: the forms pass their FormData in.
 */
import { fromKstLocal, toKstLocal } from '../../i18n.ts';

export { toKstLocal };

/** The text of an optional form field: null when left empty. */
export function optionalText(form: FormData, name: string): string | null {
  const value = String(form.get(name) ?? '').trim();
  return value === '' ? null : value;
}

export type CashReceiptType = 'PERSONAL' | 'CORPORATE';

/** The cash-receipt kind and number of a form (both or neither), as the create and edit forms send them. */
export function cashReceiptOf(form: FormData): { type: CashReceiptType; identifier: string } | null {
  const type = String(form.get('cashReceiptType') ?? '');
  if (type !== 'PERSONAL' && type !== 'CORPORATE') return null;
  return { type, identifier: String(form.get('cashReceiptIdentifier') ?? '').replace(/[\s-]/g, '') };
}

/** A KST wall-clock time typed in a datetime-local field ('2026-11-26T15:04') as the API's instant (ISO). */
export const fromKst = (local: string) => fromKstLocal(local).toISOString();
const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x) => b.includes(x));

/** The invoice as the edit form starts from. */
export interface Editable {
  id: string;
  amount: number;
  bankAccountIds: readonly string[];
  expiresAt: string | null;
  customer: { name: string; email: string | null; phoneNumber: string | null };
  cashReceipt: { type: string; identifier: string } | null;
}

/** UpdateInvoiceInput's fields (the edit form's mutation checks the two agree). */
export interface InvoiceChanges {
  customer?: { name?: string; email?: string | null; phoneNumber?: string | null };
  amount?: number;
  bankAccountIds?: string[];
  expiresAt?: string | null;
  extendDays?: number;
  cashReceipt?: { type: CashReceiptType; identifier: string } | null;
  resendGuideEmail?: boolean;
}

/** What the form changes of the invoice (UpdateInvoiceInput): the fields whose value differs, nothing else. */
export function changesOf(invoice: Editable, form: FormData): InvoiceChanges {
  const input: InvoiceChanges = {};
  const customer: NonNullable<InvoiceChanges['customer']> = {};
  const name = String(form.get('name') ?? '').trim();
  if (name !== invoice.customer.name) customer.name = name;
  const email = optionalText(form, 'email');
  if (email !== invoice.customer.email) customer.email = email;
  const phone = optionalText(form, 'phoneNumber')?.replace(/-/g, '') ?? null;
  if (phone !== invoice.customer.phoneNumber) customer.phoneNumber = phone;
  if (Object.keys(customer).length) input.customer = customer;
  const amount = Number(form.get('amount'));
  if (amount !== invoice.amount) input.amount = amount;
  const accounts = form.getAll('bankAccountIds').map(String);
  if (!sameSet(accounts, invoice.bankAccountIds)) input.bankAccountIds = accounts;
  const extendDays = optionalText(form, 'extendDays');
  if (form.get('removeExpiry') === 'on') {
    if (invoice.expiresAt) input.expiresAt = null;
  } else if (extendDays) {
    input.extendDays = Number(extendDays);
  } else {
    const expiresAt = optionalText(form, 'expiresAt');
    if (expiresAt && expiresAt !== (invoice.expiresAt && toKstLocal(invoice.expiresAt))) input.expiresAt = fromKst(expiresAt);
  }
  const receipt = cashReceiptOf(form);
  if (receipt?.type !== invoice.cashReceipt?.type || receipt?.identifier !== invoice.cashReceipt?.identifier) input.cashReceipt = receipt;
  if (form.get('resendGuideEmail') === 'on') input.resendGuideEmail = true;
  return input;
}
