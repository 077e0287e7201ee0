/** Enums shared by several types. */
import { builder } from '../builder.ts';

export const BankAccountTypeEnum = builder.enumType('BankAccountType', {
  description: 'Kind of bank account.',
  values: {
    PERSONAL: { description: 'A personal account.' },
    CORPORATE: { description: 'A business account.' },
  } as const,
});

export const CashReceiptTypeEnum = builder.enumType('CashReceiptType', {
  description: 'Kind of cash receipt: income deduction for a person (phone number) or expense proof for a business (business number).',
  values: {
    PERSONAL: { description: 'Income-deduction receipt; identifier is a 10-11 digit phone number.' },
    CORPORATE: { description: 'Expense-proof receipt; identifier is a 10-digit business registration number.' },
  } as const,
});

export const InvoiceStatusEnum = builder.enumType('InvoiceStatus', {
  description: 'Status of an invoice. EXPIRED is a pending invoice whose expiresAt has passed.',
  values: {
    PENDING: { description: 'Waiting for a deposit.' },
    EXPIRED: { description: 'Past expiresAt without payment; no longer matched (can still be marked paid or canceled).' },
    PAID: { description: 'Paid by a matching deposit or marked paid by API call.' },
    CANCELED: { description: 'Canceled (v2 cancel or v1 delete); invisible to v1.' },
  } as const,
});

export const PaidTriggerEnum = builder.enumType('PaidTrigger', {
  description: 'What made an invoice paid.',
  values: {
    DEPOSIT: { description: 'A deposit matched it (automatically or manually).' },
    API_CALL: { description: 'mark-as-paid by API call.' },
  } as const,
});

export const MatchMethodEnum = builder.enumType('MatchMethod', {
  description: 'How a deposit was matched to an invoice. New values may appear in the future.',
  values: {
    EXACT: { description: 'Depositor name equal to the customer name.' },
    BRACKET_REMOVAL: { description: 'Equal after removing bracketed parts such as (123), [주문], {x}.' },
    NAME_PREFIX: { description: "The bank truncated the depositor name to its length; it is a prefix of the customer name." },
    MANUAL: { description: 'Matched by hand in the dashboard.' },
  } as const,
});
