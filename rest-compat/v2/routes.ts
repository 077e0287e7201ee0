/**
 * REST v2 (spec: v2 endpoints) as its table: `{code: "10001", data}` on success, numeric codes on errors, Unix-second
 * timestamps. Each route runs the same GraphQL operation as the GraphQL face; the router (./handler.ts) and
 * /openapi.json are read from this table.
 */
import { z } from 'zod';
import {
  cancelRequestSchema,
  parseCancelRequest,
  parseReissueRequest,
  parseSendEmailRequest,
  reissueRequestSchema,
  sendEmailRequestSchema,
} from '../../src/domain/cash-receipts/requests.ts';
import { matchTransactionRequestSchema, parseMatchTransactionRequest } from '../../src/domain/deposits/dashboard-operations.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { cancelInvoiceRequestSchema, parseCancelInvoiceRequest } from '../../src/domain/invoices/invoice-input.ts';
import { invoiceChangesSchema, parseInvoiceChanges } from '../../src/domain/invoices/update-invoice.ts';
import { limitSchema, offsetSchema, parseOffsetPage } from '../../src/domain/paging.ts';
import { V2CashReceipt, V2Invoice, V2InvoiceWithHistory, V2Transaction } from '../openapi/components.ts';
import { BODY, dates, INVOICE_BY_ID, INVOICE_FIELDS, LIST, READ, RECEIPT_BY_ID, RECEIVING_ACCOUNTS, refusals, search, v2Done, v2ListOk, v2Ok, WRITE } from '../openapi/route-parts.ts';
import { OPS, type GqlCashReceipt, type GqlTransaction, type InvoiceView, type Page } from '../shared/graphql.ts';
import { RouteTable } from '../shared/http.ts';
import type { Call, FaceContext, GraphQLRoute } from '../shared/route.ts';
import { INVOICE_STATUSES } from '../shared/statuses.ts';
import { V2_EXPIRES_AT, v2CashReceipt, v2Invoice, v2Transaction } from './wire.ts';

export type V2Context = FaceContext;
type Route = GraphQLRoute<V2Context>;

const invoiceOk = (description: string) => v2Ok(description, 'V2InvoiceResponse', V2Invoice, 'One invoice.');
const receiptOk = (description: string) => v2Ok(description, 'V2CashReceiptResponse', V2CashReceipt, 'One receipt.');
const receipt = (r: GqlCashReceipt, call: Call) => ({ data: v2CashReceipt(r, call.principal.workspaceOwnerId) });

const STATUS_LIST = `(${INVOICE_STATUSES.join('|')})`;
const statusQuery = z
  .string()
  .regex(new RegExp(`^${STATUS_LIST}(,${STATUS_LIST})*$`))
  .optional()
  .meta({ description: `One or more of ${INVOICE_STATUSES.join(', ')}, comma-separated.`, examples: ['PENDING,EXPIRED'] });

const invoices: Route[] = [
  {
    method: 'get',
    path: '/v2/invoices',
    operationId: 'v2ListInvoices',
    summary: 'List invoices',
    description: 'Newest first; canceled invoices are listed with status CANCELED.',
    tag: 'v2 invoices',
    face: 'v2',
    query: z.object({
      offset: offsetSchema.optional().meta({ description: 'Items to skip (default 0).' }),
      limit: limitSchema.optional().meta({ description: 'Page size, 1-100 (default 20).' }),
      status: statusQuery,
      search: search('Invoice id exactly, or contained in depositor name, e-mail, phone or cash-receipt identifier.'),
      ...dates,
    }),
    ok: v2ListOk('A page of invoices.', 'V2InvoiceList', V2Invoice, 'A page of invoices and the number matching the filter.'),
    errorCodes: [...READ, ...LIST],
    operation: OPS.v2Invoices,
    variables: (call) => {
      const page = parseOffsetPage(call.query('offset') ?? '0', call.query('limit') ?? '20');
      const status = call.query('status');
      if (!statusQuery.safeParse(status).success) throw new DomainError('BAD_REQUEST', { path: ['status'] });
      return { ...page, filter: { search: call.query('search'), statuses: status?.split(','), dateAfter: call.query('dateAfter'), dateBefore: call.query('dateBefore') } };
    },
    render: (r: { invoicePage: Page<InvoiceView> }) => ({ data: r.invoicePage.items.map(v2Invoice), totalItems: r.invoicePage.totalItems }),
  },
  {
    method: 'get',
    path: '/v2/invoices/{id}',
    operationId: 'v2GetInvoice',
    summary: 'Read an invoice with its history',
    tag: 'v2 invoices',
    face: 'v2',
    pathId: 'invoice',
    ok: v2Ok('The invoice and its history.', 'V2InvoiceWithHistoryResponse', V2InvoiceWithHistory, 'One invoice with its history.'),
    errorCodes: [...READ, ...INVOICE_BY_ID],
    operation: OPS.v2Invoice,
    variables: ({ id }) => ({ id }),
    render: (r: { invoice: InvoiceView }) => ({ data: v2Invoice(r.invoice) }),
  },
  {
    method: 'patch',
    path: '/v2/invoices/{id}',
    operationId: 'v2UpdateInvoice',
    summary: 'Update a pending invoice',
    description:
      'Only sent fields change; emits `invoice.updated`. Changing name, amount or receiving accounts re-runs the conflict check (220010 with `data.invoiceId` and `data.number`). `resendGuideEmail` needs a usable receiving account (220022) and an expiry (220023). An invoice imported from a shop order refuses a change of its amount, depositor name, receiving accounts or expiry (260011: change the order in the shop).',
    tag: 'v2 invoices',
    face: 'v2',
    write: true,
    pathId: 'invoice',
    body: {
      schema: invoiceChangesSchema(new Date(0), V2_EXPIRES_AT).meta({
        id: 'UpdateInvoiceRequest',
        description: 'PATCH /v2/invoices/{id}: only sent fields change; null clears e-mail, phone, cashReceipt and the expiry. At least one field must change.',
      }),
      required: true,
    },
    ok: invoiceOk('The updated invoice (no history).'),
    errorCodes: [
      ...WRITE,
      ...BODY,
      ...INVOICE_BY_ID,
      ...INVOICE_FIELDS,
      'INVALID_EXPIRES_AT',
      'INVALID_EXTEND_DAYS',
      'NO_FIELD_TO_CHANGE',
      ...RECEIVING_ACCOUNTS,
      ...refusals('UPDATE'),
      'INVOICE_ALREADY_EXISTS',
      'GUIDE_EMAIL_NO_ACCOUNT',
      'GUIDE_EMAIL_NO_EXPIRY',
      'SHOP_LINKED_INVOICE',
    ],
    operation: OPS.updateInvoice,
    // Parsed once (expiresAt from v2's Unix seconds to a Date) and passed on as GraphQL's UpdateInvoiceInput.
    variables: ({ id, body, ctx }) => {
      const changes = parseInvoiceChanges(body, ctx.deps.clock.now(), V2_EXPIRES_AT);
      return { id, input: { ...changes, expiresAt: changes.expiresAt && changes.expiresAt.toISOString() } };
    },
    render: (r: { updateInvoice: { invoice: InvoiceView } }) => ({ data: v2Invoice(r.updateInvoice.invoice) }),
  },
  {
    method: 'post',
    path: '/v2/invoices/{id}/cancel',
    operationId: 'v2CancelInvoice',
    summary: 'Cancel a pending or expired invoice',
    description: 'Emits `invoice.canceled` (v2 webhooks) and `invoice.deleted` (v1 webhooks). Same effect as the v1 delete.',
    tag: 'v2 invoices',
    face: 'v2',
    write: true,
    pathId: 'invoice',
    body: { schema: cancelInvoiceRequestSchema.meta({ id: 'CancelInvoiceRequest', description: 'POST /v2/invoices/{id}/cancel (body optional).' }), required: false },
    ok: invoiceOk('The canceled invoice.'),
    errorCodes: [...WRITE, ...BODY, ...INVOICE_BY_ID, 'CANCEL_REASON_TOO_LONG', ...refusals('CANCEL')],
    operation: OPS.cancelInvoice,
    variables: ({ id, body }) => ({ id, reason: parseCancelInvoiceRequest(body).reason }),
    render: (r: { cancelInvoice: { invoice: InvoiceView } }) => ({ data: v2Invoice(r.cancelInvoice.invoice) }),
  },
];

const transactions: Route[] = [
  {
    method: 'post',
    path: '/v2/transactions/{id}/match',
    operationId: 'v2MatchTransaction',
    summary: 'Match a deposit to an invoice by hand',
    description:
      'The deposit pays the invoice: `matchMethod` MANUAL, the invoice (pending or expired) becomes PAID and `invoice.paid` is emitted with `trigger: "DEPOSIT"`, as when a deposit matches by itself (cash receipt, paid e-mail, shop order confirmation). The same rules as the dashboard match (GraphQL `matchTransaction`): a deposit already matched is 220030, a 1-won verification deposit 220032, an invoice paid or canceled 220011. A key limited to bank accounts needs a deposit to one of them and an invoice whose receiving accounts are all of them (80002; never an all-accounts invoice). Un-matching stays a dashboard operation.',
    tag: 'v2 transactions',
    face: 'v2',
    write: true,
    pathId: 'transaction',
    body: { schema: matchTransactionRequestSchema.meta({ id: 'MatchTransactionRequest', description: 'POST /v2/transactions/{id}/match: the invoice the deposit pays.' }), required: true },
    ok: v2Ok('The matched deposit.', 'V2TransactionResponse', V2Transaction, 'One deposit.'),
    errorCodes: [
      ...WRITE,
      ...BODY,
      'TRANSACTION_NOT_FOUND',
      'FOREIGN_TRANSACTION',
      'OUT_OF_SCOPE',
      ...INVOICE_BY_ID,
      'TRANSACTION_ALREADY_MATCHED',
      'TRANSACTION_NOT_MATCHABLE',
      ...refusals('MARK_AS_PAID'),
    ],
    operation: OPS.matchTransaction,
    variables: ({ id, body }) => ({ input: { transactionId: id, invoiceId: parseMatchTransactionRequest(body).invoiceId } }),
    render: (r: { matchTransaction: { transaction: GqlTransaction } }, call) => ({ data: v2Transaction(r.matchTransaction.transaction, call.principal.workspaceOwnerId) }),
  },
];

const cashReceipts: Route[] = [
  {
    method: 'get',
    path: '/v2/cash-receipts/{id}',
    operationId: 'v2GetCashReceipt',
    summary: 'Read a cash receipt',
    tag: 'v2 cash receipts',
    face: 'v2',
    pathId: 'cashReceipt',
    ok: receiptOk('The receipt.'),
    errorCodes: [...READ, ...RECEIPT_BY_ID],
    operation: OPS.cashReceipt,
    variables: ({ id }) => ({ id }),
    render: (r: { cashReceipt: GqlCashReceipt }, call) => receipt(r.cashReceipt, call),
  },
  {
    method: 'post',
    path: '/v2/cash-receipts/{id}/cancel',
    operationId: 'v2CancelCashReceipt',
    summary: 'Cancel an issued cash receipt, fully or partly',
    description: 'Creates a CANCELLATION receipt (starting PENDING); canceling all that remains makes the original CANCELED.',
    tag: 'v2 cash receipts',
    face: 'v2',
    write: true,
    pathId: 'cashReceipt',
    body: { schema: cancelRequestSchema.meta({ id: 'CancelCashReceiptRequest', description: 'POST /v2/cash-receipts/{id}/cancel: full or partial.' }), required: true },
    ok: receiptOk('The cancellation receipt.'),
    errorCodes: [...WRITE, ...BODY, ...RECEIPT_BY_ID, 'RECEIPT_CANCEL_REASON_INVALID', 'INVALID_CASH_RECEIPT_AMOUNT', 'RECEIPT_NOT_CANCELABLE', 'AGENCY_API_FAILED'],
    operation: OPS.cancelCashReceipt,
    variables: ({ id, body }) => ({ id, input: parseCancelRequest(body) }),
    render: (r: { cancelCashReceipt: { cashReceipt: GqlCashReceipt } }, call) => receipt(r.cancelCashReceipt.cashReceipt, call),
  },
  {
    method: 'post',
    path: '/v2/cash-receipts/{id}/reissue',
    operationId: 'v2ReissueCashReceipt',
    summary: 'Reissue a failed cash receipt',
    description: 'Only a FAILED original, once: a new ORIGINAL receipt in PENDING with `reissuedFromId`.',
    tag: 'v2 cash receipts',
    face: 'v2',
    write: true,
    pathId: 'cashReceipt',
    body: {
      schema: reissueRequestSchema.meta({
        id: 'ReissueCashReceiptRequest',
        description: 'POST /v2/cash-receipts/{id}/reissue: amount, buyer and invoice come from the failed original.',
      }),
      required: false,
    },
    ok: receiptOk('The new receipt.'),
    errorCodes: [...WRITE, ...BODY, ...RECEIPT_BY_ID, 'RECEIPT_INVALID_TYPE', 'RECEIPT_INVALID_IDENTIFIER', 'BUSINESS_INFO_NOT_REGISTERED', 'RECEIPT_NOT_REISSUABLE', 'AGENCY_API_FAILED'],
    operation: OPS.reissueCashReceipt,
    // The shape here; what needs the original's type is judged by the domain once the receipt is loaded.
    variables: ({ id, body }) => ({ id, input: parseReissueRequest(body) }),
    render: (r: { reissueCashReceipt: { cashReceipt: GqlCashReceipt } }, call) => receipt(r.reissueCashReceipt.cashReceipt, call),
  },
  {
    method: 'post',
    path: '/v2/cash-receipts/{id}/send-email',
    operationId: 'v2SendCashReceiptEmail',
    summary: 'Send a cash receipt by e-mail',
    description: 'The agency sends the receipt mail; the receipt needs a tax-authority confirmation number.',
    tag: 'v2 cash receipts',
    face: 'v2',
    write: true,
    pathId: 'cashReceipt',
    body: { schema: sendEmailRequestSchema.meta({ id: 'SendCashReceiptEmailRequest', description: 'POST /v2/cash-receipts/{id}/send-email.' }), required: true },
    ok: v2Done('Sent.', 'V2EmailSent', 'The agency accepted the e-mail.'),
    errorCodes: [...WRITE, ...BODY, ...RECEIPT_BY_ID, 'RECEIPT_EMAIL_INVALID', 'RECEIPT_EMAIL_NOT_SENDABLE', 'AGENCY_EMAIL_FAILED'],
    operation: OPS.sendCashReceiptEmail,
    variables: ({ id, body }) => ({ id, email: parseSendEmailRequest(body).email }),
    render: () => ({}),
  },
];

/** Every v2 route, in the document's order (the OAuth app endpoints are ./oauth.ts's). */
export const V2_ROUTES: Route[] = [...invoices, ...transactions, ...cashReceipts];
export const v2Routes = new RouteTable(V2_ROUTES);
