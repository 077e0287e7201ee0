/** Enums shared by several types, and `describedEnum`, which every enum of the schema is built with. */
import type { InvoiceStatusName } from '../../domain/invoices/invoice-state.ts';
import type { BankAccountType, CashReceiptType, MatchMethod, PaidTrigger } from '../../generated/prisma/enums.ts';
import { builder } from '../builder.ts';

/**
 * A GraphQL enum over a vocabulary of the domain or the database: `V` names the values (so a value missing or added
 * on one side fails the type check), `values` gives each one's description.
 */
export function describedEnum<V extends string>(name: string, description: string, values: Record<V, string>) {
  const described = Object.fromEntries(Object.entries<string>(values).map(([value, text]) => [value, { description: text }]));
  return builder.enumType(name, { description, values: described as Record<V, { description: string }> });
}

export const BankAccountTypeEnum = describedEnum<BankAccountType>('BankAccountType', 'Kind of bank account.', {
  PERSONAL: 'A personal account.',
  CORPORATE: 'A business account.',
});

export const CashReceiptTypeEnum = describedEnum<CashReceiptType>(
  'CashReceiptType',
  'Kind of cash receipt: income deduction for a person (phone number) or expense proof for a business (business number).',
  {
    PERSONAL: 'Income-deduction receipt; identifier is a 10-11 digit phone number.',
    CORPORATE: 'Expense-proof receipt; identifier is a 10-digit business registration number.',
  },
);

export const InvoiceStatusEnum = describedEnum<InvoiceStatusName>('InvoiceStatus', 'Status of an invoice. EXPIRED is a pending invoice whose expiresAt has passed.', {
  PENDING: 'Waiting for a deposit.',
  EXPIRED: 'Past expiresAt without payment; no longer matched (can still be marked paid or canceled).',
  PAID: 'Paid by a matching deposit or marked paid by API call.',
  CANCELED: 'Canceled (v2 cancel or v1 delete); invisible to v1.',
});

export const PaidTriggerEnum = describedEnum<PaidTrigger>('PaidTrigger', 'What made an invoice paid.', {
  DEPOSIT: 'A deposit matched it (automatically or manually).',
  API_CALL: 'mark-as-paid by API call.',
});

export const MatchMethodEnum = describedEnum<MatchMethod>('MatchMethod', 'How a deposit was matched to an invoice. New values may appear in the future.', {
  EXACT: 'Depositor name equal to the customer name.',
  BRACKET_REMOVAL: 'Equal after removing bracketed parts such as (123), [주문], {x}.',
  NAME_PREFIX: 'The bank truncated the depositor name to its length; it is a prefix of the customer name.',
  MANUAL: 'Matched by hand in the dashboard.',
});
