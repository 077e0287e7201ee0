/** Invoice writes: createInvoice, markInvoicePaid, deleteInvoice (v1 delete), cancelInvoice (v2 cancel). */
import { cancelInvoice, createInvoice, deleteInvoice, markInvoicePaid } from '../../domain/invoices/invoices.ts';
import { updateInvoice } from '../../domain/invoices/update-invoice.ts';
import type { Invoice } from '../../generated/prisma/client.ts';
import { builder } from '../builder.ts';
import { domainErrors } from '../common/error-types.ts';
import { CashReceiptTypeEnum } from '../common/enums.ts';
import { InvoiceType } from './invoice.type.ts';
import { selectsRelations } from '../common/pagination.ts';

const CustomerInput = builder.inputType('CustomerInput', {
  description: 'The buyer.',
  fields: (t) => ({
    name: t.string({ required: true, description: 'Depositor name, 1-16 characters, no spaces or invisible characters (control, format, Hangul fillers, variation selectors), not beginning with a combining mark.' }),
    email: t.string({ description: 'E-mail, 5-255 characters.' }),
    phoneNumber: t.string({ description: 'Phone, digits only, 10-11 digits.' }),
  }),
});

const CashReceiptRequestInput = builder.inputType('CashReceiptRequestInput', {
  description: 'Cash receipt to issue automatically when the invoice is paid.',
  fields: (t) => ({
    type: t.field({ type: CashReceiptTypeEnum, required: true, description: 'PERSONAL or CORPORATE.' }),
    identifier: t.string({ required: true, description: 'PERSONAL: phone 10-11 digits; CORPORATE: business number 10 digits; no hyphens.' }),
  }),
});

const CreateInvoiceInput = builder.inputType('CreateInvoiceInput', {
  description: 'A new invoice (same rules as POST /v1/invoices).',
  fields: (t) => ({
    bankAccountIds: t.idList({ required: true, description: 'Receiving accounts (own, verified); empty = all accounts.' }),
    customer: t.field({ type: CustomerInput, required: true, description: 'The buyer.' }),
    amount: t.int({ required: true, description: 'Won, greater than 0.' }),
    cashReceipt: t.field({ type: CashReceiptRequestInput, description: 'Cash receipt to issue on payment.' }),
    expireAfter: t.string({ description: 'Duration until expiry, at most 365 days: ISO 8601 (P1DT6H20M) or short (1d 6h 20m). Absent = never.' }),
    metadata: t.field({ type: 'JSON', description: 'String keys to string values: at most 5 pairs, keys ≤ 64, values ≤ 1024 characters; keys starting with cafe24_ or shoplink_ are reserved for shop integrations (refused: INVALID_METADATA).' }),
  }),
});

export const InvoicePayload = builder.objectRef<Invoice>('InvoicePayload').implement({
  description: 'The invoice after the change.',
  fields: (t) => ({
    invoice: t.prismaField({
      type: InvoiceType,
      description: 'The invoice.',
      resolve: (query, invoice, _args, ctx) => (selectsRelations(query) ? ctx.prisma.invoice.findUniqueOrThrow({ ...query, where: { id: invoice.id } }) : invoice),
    }),
  }),
});

builder.mutationField('createInvoice', (t) =>
  t.field({
    errors: domainErrors,
    type: InvoicePayload,
    description: 'Creates a pending invoice; emits invoice.created. INVOICE_ALREADY_EXISTS when a pending invoice with the same name and amount overlaps its accounts.',
    args: { input: t.arg({ type: CreateInvoiceInput, required: true, description: 'The invoice.' }) },
    resolve: (_root, { input }, ctx) => createInvoice(ctx.deps, ctx.principal, input),
  }),
);

/** A transition of one invoice by id that answers with the invoice. */
function invoiceTransition(name: string, description: string, apply: typeof markInvoicePaid) {
  builder.mutationField(name, (t) =>
    t.field({
      errors: domainErrors,
      type: InvoicePayload,
      description,
      args: { id: t.arg.id({ required: true, description: 'ivc_ id.' }) },
      resolve: (_root, { id }, ctx) => apply(ctx.deps, ctx.principal, id),
    }),
  );
}

invoiceTransition('markInvoicePaid', 'Marks a pending or expired invoice paid (trigger API_CALL); emits invoice.paid. INVOICE_ALREADY_PAID when paid.', markInvoicePaid);
invoiceTransition('deleteInvoice', 'v1 delete: an unpaid invoice becomes canceled and invisible to v1; emits invoice.deleted. INVOICE_ALREADY_PAID when paid.', deleteInvoice);

builder.mutationField('cancelInvoice', (t) =>
  t.field({
    errors: domainErrors,
    type: InvoicePayload,
    description: 'v2 cancel: a pending or expired invoice becomes CANCELED with the reason; emits invoice.canceled (v1 webhooks: invoice.deleted).',
    args: {
      id: t.arg.id({ required: true, description: 'ivc_ id.' }),
      reason: t.arg.string({ description: 'Up to 200 characters.' }),
    },
    resolve: (_root, { id, reason }, ctx) => cancelInvoice(ctx.deps, ctx.principal, id, { reason }),
  }),
);

const UpdateCustomerInput = builder.inputType('UpdateCustomerInput', {
  description: 'Buyer fields to change; absent = unchanged, null clears e-mail or phone.',
  fields: (t) => ({
    name: t.string({ description: 'Depositor name, 1-16 characters, no spaces or invisible characters (control, format, Hangul fillers, variation selectors), not beginning with a combining mark.' }),
    email: t.string({ description: 'E-mail, 5-255 characters; null clears.' }),
    phoneNumber: t.string({ description: 'Phone, 10-11 digits; null clears.' }),
  }),
});

const UpdateInvoiceInput = builder.inputType('UpdateInvoiceInput', {
  description: 'Fields to change on a pending invoice (same rules as PATCH /v2/invoices/{id}); absent = unchanged.',
  fields: (t) => ({
    customer: t.field({ type: UpdateCustomerInput, description: 'Buyer fields.' }),
    amount: t.int({ description: 'Won, greater than 0.' }),
    expiresAt: t.field({ type: 'DateTime', description: 'Later than now and within 365 days; null removes the expiry.' }),
    extendDays: t.int({ description: '1-365: extends from the current expiry (or from now if expired or none); wins over expiresAt.' }),
    bankAccountIds: t.idList({ description: 'Receiving accounts; empty = all accounts.' }),
    cashReceipt: t.field({ type: CashReceiptRequestInput, description: 'Cash receipt to issue on payment; null clears.' }),
    resendGuideEmail: t.boolean({ description: 'Re-send the payment-guide e-mail if amount or expiry changed (default false).' }),
  }),
});

builder.mutationField('updateInvoice', (t) =>
  t.field({
    errors: domainErrors,
    type: InvoicePayload,
    description: 'Changes a pending invoice; emits invoice.updated. Re-runs the conflict check when name, amount or accounts change.',
    args: { id: t.arg.id({ required: true, description: 'ivc_ id.' }), input: t.arg({ type: UpdateInvoiceInput, required: true, description: 'Fields to change.' }) },
    resolve: (_root, { id, input }, ctx) => updateInvoice(ctx.deps, ctx.principal, id, input),
  }),
);
