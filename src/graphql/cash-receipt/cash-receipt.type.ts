/** Cash receipts (crt_): type, reads with the v1 list filters, and issue / cancel / revoke / reissue / send-email. */
import { cancelCashReceipt, revokeCashReceipt } from '../../domain/cash-receipts/cancel.ts';
import { issueInvoiceCashReceipt } from '../../domain/cash-receipts/invoice-receipt.ts';
import { issueCashReceipt } from '../../domain/cash-receipts/issue.ts';
import { getCashReceipt, listCashReceiptIds, type ReceiptListFilter } from '../../domain/cash-receipts/reads.ts';
import { reissueCashReceipt } from '../../domain/cash-receipts/reissue.ts';
import { sendCashReceiptEmail } from '../../domain/cash-receipts/send-email.ts';
import type { CashReceipt } from '../../generated/prisma/client.ts';
import type { CashReceiptKind, CashReceiptStatus } from '../../generated/prisma/enums.ts';
import { builder } from '../builder.ts';
import { NodeInterface } from '../common/node.ts';
import { domainErrors } from '../common/error-types.ts';
import { CashReceiptTypeEnum, describedEnum } from '../common/enums.ts';
import { defineIdList, selectsRelations } from '../common/pagination.ts';

const ReceiptStatusEnum = describedEnum<CashReceiptStatus>('CashReceiptStatus', 'State of a cash receipt (spec: Cash receipt states).', {
  PENDING: 'Registered; waiting for the tax authority (or for the agency call).',
  ISSUED: 'Confirmed by the tax authority (ntsConfirmNum set); may be partly canceled.',
  FAILED: 'Rejected by the tax authority, or the agency call failed; may be reissued once.',
  REVOKED: 'Revoked through v1 (all of it canceled).',
  CANCELED: 'Fully canceled through v2.',
});

const ReceiptKindEnum = describedEnum<CashReceiptKind>('CashReceiptKind', 'An original receipt, or a cancellation of (part of) one.', {
  ORIGINAL: 'An issued receipt.',
  CANCELLATION: 'Cancels part or all of an original (originalId).',
});

export const CashReceiptObject = builder.prismaObject('CashReceipt', {
  description: 'A cash receipt (crt_) issued through the agency to the national tax authority.',
  interfaces: [NodeInterface],
  fields: (t) => ({
    status: t.expose('status', { type: ReceiptStatusEnum, description: 'PENDING, ISSUED, FAILED, REVOKED or CANCELED.' }),
    kind: t.expose('kind', { type: ReceiptKindEnum, description: 'ORIGINAL or CANCELLATION.' }),
    issuerId: t.exposeID('issuerId', { description: 'Account that issued it.' }),
    corpNum: t.exposeString('corpNum', { description: 'Issuing business registration number (10 digits).' }),
    type: t.expose('type', { type: CashReceiptTypeEnum, description: 'PERSONAL or CORPORATE.' }),
    identifier: t.exposeString('identifier', { description: 'Phone (PERSONAL) or business number (CORPORATE), no hyphens.' }),
    amount: t.exposeInt('amount', { description: 'Won, VAT included.' }),
    supplyCost: t.exposeInt('supplyCost', { description: 'Supply cost: amount × 10/11 rounded half up (see README).' }),
    tax: t.exposeInt('tax', { description: 'VAT: amount − supplyCost.' }),
    relatedInvoiceId: t.exposeID('relatedInvoiceId', { nullable: true, description: 'The invoice it was issued for.' }),
    originalId: t.exposeID('originalId', { nullable: true, description: 'For a cancellation: the original receipt.' }),
    partial: t.exposeBoolean('partial', { description: 'For a cancellation: whether it cancels part of the original.' }),
    cancelReason: t.exposeString('cancelReason', { nullable: true, description: 'Reason given at cancel.' }),
    canceledAmount: t.exposeInt('canceledAmount', { description: 'On an original: how much has been canceled.' }),
    remainingAmount: t.exposeInt('remainingAmount', { description: 'On an original: how much is left.' }),
    reissuedFromId: t.exposeID('reissuedFromId', { nullable: true, description: 'On a reissued receipt: the failed original.' }),
    reissuedToId: t.exposeID('reissuedToId', { nullable: true, description: 'On a failed original: its reissue.' }),
    selfIssued: t.exposeBoolean('selfIssued', { description: 'Issued as self-issued (identifier 0100001234).' }),
    ntsConfirmNum: t.exposeString('ntsConfirmNum', { nullable: true, description: 'Tax-authority confirmation number, once issued.' }),
    ntsResultCode: t.exposeString('ntsResultCode', { nullable: true, description: 'Tax-authority result code; null while pending.' }),
    failureReason: t.exposeString('failureReason', { nullable: true, description: 'Why the agency or the tax authority refused it.' }),
    issuedAt: t.expose('issuedAt', { type: 'DateTime', description: 'When the issuance was requested.' }),
    confirmedAt: t.expose('confirmedAt', { type: 'DateTime', nullable: true, description: 'When the tax authority confirmed it.' }),
    revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true, description: 'When it was revoked (v1).' }),
    canceledAt: t.expose('canceledAt', { type: 'DateTime', nullable: true, description: 'When it was fully canceled (v2).' }),
    deletedAt: t.expose('deletedAt', { type: 'DateTime', nullable: true, description: 'Null for a readable receipt.' }),
    cancellations: t.relation('cancellations', { description: 'Its cancellation receipts, oldest first.', query: { orderBy: { issuedAt: 'asc' } } }),
  }),
});

export const CashReceiptFilter = builder.inputType('CashReceiptFilter', {
  description: 'The filters of GET /v1/cash-receipts.',
  fields: (t) => ({
    search: t.string({ description: 'Receipt id, related invoice id or business number exactly, or contained in the identifier (hyphens ignored).' }),
    status: t.field({ type: ReceiptStatusEnum, description: 'Only this status.' }),
    statuses: t.field({ type: [ReceiptStatusEnum], description: 'Any of these statuses.' }),
    type: t.field({ type: CashReceiptTypeEnum, description: 'PERSONAL or CORPORATE.' }),
    identifier: t.string({ description: 'Exact identifier.' }),
    corpNum: t.string({ description: 'Issuing business number.' }),
    dateAfter: t.string({ description: 'YYYY-MM-DD (KST), inclusive, by issuance request date.' }),
    dateBefore: t.string({ description: 'YYYY-MM-DD (KST), inclusive.' }),
  }),
});

builder.queryField('cashReceipt', (t) =>
  t.prismaField({
    type: CashReceiptObject,
    description: 'One cash receipt.',
    args: { id: t.arg.id({ required: true, description: 'crt_ id.' }) },
    resolve: async (query, _r, { id }, ctx) => {
      const r = await getCashReceipt(ctx.deps, ctx.principal, id);
      return ctx.prisma.cashReceipt.findUniqueOrThrow({ ...query, where: { id: r.id } });
    },
  }),
);

defineIdList({
  item: CashReceiptObject,
  model: 'CashReceipt',
  filter: CashReceiptFilter,
  listIds: (ctx, filter, offset, limit) => listCashReceiptIds(ctx.deps, ctx.principal, { ...filter, offset, limit }),
  findMany: (ctx, args) => ctx.prisma.cashReceipt.findMany(args),
  page: {
    type: 'CashReceiptPage',
    typeDescription: 'A page of cash receipts by offset and limit, newest first.',
    totalItems: 'Receipts matching the filter.',
    items: 'The receipts of this page.',
    field: 'cashReceiptPage',
    description: 'Cash receipts by offset/limit (limit 1-100); same rules as GET /v1/cash-receipts.',
  },
  connection: {
    field: 'cashReceipts',
    description: 'Cash receipts as a Relay connection, newest first.',
    typeDescription: 'A page of cash receipts.',
    totalCount: 'Receipts matching the filter.',
  },
});

const ReceiptPayload = builder.objectRef<CashReceipt>('CashReceiptPayload').implement({
  description: 'A cash receipt after the change.',
  fields: (t) => ({
    cashReceipt: t.prismaField({
      type: CashReceiptObject,
      description: 'The receipt.',
      resolve: (query, r, _a, ctx) => (selectsRelations(query) ? ctx.prisma.cashReceipt.findUniqueOrThrow({ ...query, where: { id: r.id } }) : r),
    }),
  }),
});

const IssueInput = builder.inputType('IssueCashReceiptInput', {
  description: 'A cash receipt to issue (same rules as POST /v1/cash-receipts).',
  fields: (t) => ({
    type: t.field({ type: CashReceiptTypeEnum, required: true, description: 'PERSONAL or CORPORATE.' }),
    identifier: t.string({ required: true, description: 'PERSONAL: phone 10-11 digits; CORPORATE: business number 10 digits.' }),
    amount: t.int({ required: true, description: 'Won, VAT included, greater than 0.' }),
  }),
});

builder.mutationField('issueCashReceipt', (t) =>
  t.field({
    errors: domainErrors,
    type: ReceiptPayload,
    description: 'Issues a cash receipt (PENDING until the tax authority answers). BUSINESS_INFO_NOT_REGISTERED without business info; AGENCY_API_FAILED when the agency call fails.',
    args: { input: t.arg({ type: IssueInput, required: true, description: 'The receipt.' }) },
    resolve: (_r, { input }, ctx) => issueCashReceipt(ctx.deps, ctx.principal, input),
  }),
);

const IssueForInvoiceInput = builder.inputType('IssueInvoiceCashReceiptInput', {
  description: "The cash receipt of a paid invoice: for the invoice's amount, linked to it (relatedInvoiceId).",
  fields: (t) => ({
    invoiceId: t.id({ required: true, description: 'ivc_ id of a PAID invoice.' }),
    type: t.field({ type: CashReceiptTypeEnum, required: true, description: 'PERSONAL (income deduction) or CORPORATE (expense proof).' }),
    identifier: t.string({ required: true, description: 'PERSONAL: phone 10-11 digits; CORPORATE: business number 10 digits; no hyphens.' }),
  }),
});

builder.mutationField('issueInvoiceCashReceipt', (t) =>
  t.field({
    errors: domainErrors,
    type: ReceiptPayload,
    description:
      "Issues a paid invoice's cash receipt for its amount (PENDING until the tax authority answers). INVOICE_RECEIPT_NOT_ISSUABLE (data.reason NOT_PAID, or RECEIPT_EXISTS with data.cashReceiptId: one is PENDING or ISSUED); BUSINESS_INFO_NOT_REGISTERED; AGENCY_API_FAILED.",
    args: { input: t.arg({ type: IssueForInvoiceInput, required: true, description: 'The invoice and who the receipt is for.' }) },
    resolve: (_r, { input }, ctx) => issueInvoiceCashReceipt(ctx.deps, ctx.principal, input.invoiceId, input),
  }),
);

const CancelInput = builder.inputType('CancelCashReceiptInput', {
  description: 'A full or partial cancellation.',
  fields: (t) => ({
    reason: t.string({ required: true, description: '1-100 characters.' }),
    amount: t.int({ description: 'Won to cancel; absent = all that remains.' }),
  }),
});

builder.mutationField('cancelCashReceipt', (t) =>
  t.field({
    errors: domainErrors,
    type: ReceiptPayload,
    description: 'Cancels all or part of an ISSUED receipt; returns the new CANCELLATION receipt (v2 cancel).',
    args: { id: t.arg.id({ required: true, description: 'crt_ id of the original.' }), input: t.arg({ type: CancelInput, required: true, description: 'Reason and amount.' }) },
    resolve: (_r, { id, input }, ctx) => cancelCashReceipt(ctx.deps, ctx.principal, id, input),
  }),
);

builder.mutationField('revokeCashReceipt', (t) =>
  t.field({
    errors: domainErrors,
    type: ReceiptPayload,
    description: 'Revokes an ISSUED receipt (v1 revoke): all that remains is canceled and it becomes REVOKED.',
    args: { id: t.arg.id({ required: true, description: 'crt_ id.' }) },
    resolve: (_r, { id }, ctx) => revokeCashReceipt(ctx.deps, ctx.principal, id),
  }),
);

const ReissueInput = builder.inputType('ReissueCashReceiptInput', {
  description: 'How to reissue a failed receipt.',
  fields: (t) => ({
    identifier: t.string({ description: 'Required unless selfIssued; same format as issuing.' }),
    type: t.field({ type: CashReceiptTypeEnum, description: 'Absent = the original type.' }),
    selfIssued: t.boolean({ description: 'Reissue as self-issued (not with CORPORATE).' }),
  }),
});

builder.mutationField('reissueCashReceipt', (t) =>
  t.field({
    errors: domainErrors,
    type: ReceiptPayload,
    description: 'Reissues a FAILED receipt once: a new ORIGINAL receipt (PENDING) with reissuedFromId.',
    args: { id: t.arg.id({ required: true, description: 'crt_ id of the failed original.' }), input: t.arg({ type: ReissueInput, required: true, description: 'Identifier, type, self-issue.' }) },
    resolve: (_r, { id, input }, ctx) => reissueCashReceipt(ctx.deps, ctx.principal, id, input),
  }),
);

const SentPayload = builder.objectRef<{ id: string }>('SendCashReceiptEmailPayload').implement({
  description: 'The agency accepted the e-mail.',
  fields: (t) => ({ cashReceiptId: t.exposeID('id', { description: 'The receipt sent.' }) }),
});

builder.mutationField('sendCashReceiptEmail', (t) =>
  t.field({
    errors: domainErrors,
    type: SentPayload,
    description: 'Has the agency e-mail an issued receipt.',
    args: { id: t.arg.id({ required: true, description: 'crt_ id.' }), email: t.arg.string({ required: true, description: 'Up to 100 characters.' }) },
    resolve: async (_r, { id, email }, ctx) => {
      await sendCashReceiptEmail(ctx.deps, ctx.principal, id, { email });
      return { id: id as string };
    },
  }),
);
