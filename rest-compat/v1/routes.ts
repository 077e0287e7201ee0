/**
 * REST v1 (spec: v1 endpoints), the legacy face, as its table: each route runs the same GraphQL operation as the
 * GraphQL face and renders `{code, data}` / `{code, data, totalItems}` with v1 codes and the v1 wire format. The
 * router (./handler.ts) and /openapi.json are read from this table.
 */
import { z } from 'zod';
import { issueRequestSchema, parseIssueRequest } from '../../src/domain/cash-receipts/requests.ts';
import { CASH_RECEIPT_TYPES } from '../../src/domain/cash-receipts/identifier.ts';
import { createInvoiceSchema, parseCreateInvoiceInput } from '../../src/domain/invoices/invoice-input.ts';
import { parseOffsetPage } from '../../src/domain/paging.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { idOf, V1CashReceipt, V1Invoice, V1Transaction } from '../openapi/components.ts';
import { BODY, dates, flag, INVOICE_BY_ID, INVOICE_FIELDS, LIST, paging, READ, RECEIPT_BY_ID, RECEIVING_ACCOUNTS, refusals, search, V1_DELETED, v1ListOk, v1Ok, WRITE } from '../openapi/route-parts.ts';
import { OPS, type GqlCashReceipt, type GqlInvoice, type GqlTransaction, type Page } from '../shared/graphql.ts';
import { queryBoolean, RouteTable } from '../shared/http.ts';
import type { Call, FaceContext, GraphQLRoute } from '../shared/route.ts';
import { V1_RECEIPT_STATUS, V1_RECEIPT_STATUSES } from '../shared/statuses.ts';
import { v1CashReceipt, v1Invoice, v1Transaction } from './wire.ts';

export type V1Context = FaceContext;
type Route = GraphQLRoute<V1Context>;

/** The page a v1 list asks for (offset and limit are required). */
const pageOf = (call: Call) => parseOffsetPage(call.query('offset'), call.query('limit'));
const datesOf = (call: Call) => ({ dateAfter: call.query('dateAfter'), dateBefore: call.query('dateBefore') });
const ownerOf = (call: Call) => call.principal.workspaceOwnerId;

const invoiceOk = v1Ok(200, 'The invoice.', 'OK', 'V1InvoiceResponse', V1Invoice, 'One invoice.');
const receiptOk = (description: string) => v1Ok(200, description, 'OK', 'V1CashReceiptResponse', V1CashReceipt, 'One receipt.');

const statusQuery = z.enum(V1_RECEIPT_STATUSES).optional().meta({ description: 'REVOKED also finds receipts fully canceled through v2.' });

/** The v1 status filter: one of v1's statuses (REVOKED also finds v2-canceled receipts); others are BAD_REQUEST. */
function statusFilter(status: string | undefined) {
  if (status === undefined) return undefined;
  const v1 = statusQuery.safeParse(status);
  if (!v1.success || v1.data === undefined) throw new DomainError('BAD_REQUEST', { path: ['status'], message: `status must be one of ${V1_RECEIPT_STATUSES.join(', ')}.` });
  return V1_RECEIPT_STATUS.stored(v1.data);
}

const invoices: Route[] = [
  {
    method: 'post',
    path: '/v1/invoices',
    operationId: 'v1CreateInvoice',
    summary: 'Create an invoice',
    description: 'Creates a pending invoice (order) and emits `invoice.created`. A pending invoice with the same depositor name and amount on an overlapping receiving account is a conflict.',
    tag: 'v1 invoices',
    face: 'v1',
    write: true,
    body: { schema: createInvoiceSchema.meta({ id: 'CreateInvoiceRequest', description: 'POST /v1/invoices: fields in the spec\'s order.' }), required: true },
    ok: v1Ok(201, 'Created.', 'CREATED', 'V1InvoiceCreated', V1Invoice, 'The created invoice.'),
    errorCodes: [
      ...WRITE,
      ...BODY,
      ...INVOICE_FIELDS,
      'INVALID_DURATION',
      'EXPIRE_AFTER_EXCEEDS_MAXIMUM',
      'INVALID_METADATA',
      'METADATA_KEY_VALUE_PAIR_LIMIT_EXCEEDED',
      'METADATA_KEY_LENGTH_LIMIT_EXCEEDED',
      'METADATA_VALUE_LENGTH_LIMIT_EXCEEDED',
      ...RECEIVING_ACCOUNTS,
      'INVOICE_ALREADY_EXISTS',
    ],
    operation: OPS.createInvoice,
    variables: ({ body }) => {
      const input = parseCreateInvoiceInput(body);
      const { bankAccountIds, customer, amount, cashReceipt, metadata } = input;
      return { input: { bankAccountIds, customer, amount, cashReceipt, expireAfter: (body as { expireAfter?: string }).expireAfter ?? null, metadata } };
    },
    render: (r: { createInvoice: { invoice: GqlInvoice } }, call) => ({ data: v1Invoice(r.createInvoice.invoice, ownerOf(call)) }),
  },
  {
    method: 'get',
    path: '/v1/invoices',
    operationId: 'v1ListInvoices',
    summary: 'List invoices',
    description: 'Newest first. `paid=false&expired=false` lists the pending invoices that can still receive a deposit. Deleted (canceled) invoices are not shown.',
    tag: 'v1 invoices',
    face: 'v1',
    query: z.object({
      ...paging,
      search: search('Invoice id exactly, or contained in depositor name, e-mail, phone or cash-receipt identifier (case-insensitive, hyphens ignored).'),
      paid: flag('true = paid, false = pending.'),
      expired: flag('true = expired; false = no expiry or not yet expired.'),
      ...dates,
    }),
    ok: v1ListOk('A page of invoices.', 'V1InvoiceList', V1Invoice, 'A page of invoices and the number matching the filter.'),
    errorCodes: [...READ, ...LIST],
    operation: OPS.v1Invoices,
    variables: (call) => ({
      ...pageOf(call),
      filter: { search: call.query('search'), paid: queryBoolean(call.url, 'paid'), expired: queryBoolean(call.url, 'expired'), ...datesOf(call), includeCanceled: false },
    }),
    render: (r: { invoicePage: Page<GqlInvoice> }, call) => ({ data: r.invoicePage.items.map((i) => v1Invoice(i, ownerOf(call))), totalItems: r.invoicePage.totalItems }),
  },
  {
    method: 'get',
    path: '/v1/invoices/{id}',
    operationId: 'v1GetInvoice',
    summary: 'Read an invoice',
    tag: 'v1 invoices',
    face: 'v1',
    pathId: 'invoice',
    ok: invoiceOk,
    errorCodes: [...READ, ...INVOICE_BY_ID],
    operation: OPS.v1Invoice,
    variables: ({ id }) => ({ id }),
    render: (r: { invoice: GqlInvoice }, call) => ({ data: v1Invoice(r.invoice, ownerOf(call)) }),
  },
  {
    method: 'post',
    path: '/v1/invoices/{id}/mark-as-paid',
    operationId: 'v1MarkInvoicePaid',
    summary: 'Mark an invoice paid',
    description: 'Marks a pending or expired invoice paid without a deposit; emits `invoice.paid` with `trigger: "API_CALL"` and issues its cash receipt when one was requested.',
    tag: 'v1 invoices',
    face: 'v1',
    write: true,
    pathId: 'invoice',
    ok: { ...invoiceOk, description: 'The paid invoice.' },
    errorCodes: [...WRITE, ...INVOICE_BY_ID, ...refusals('MARK_AS_PAID')],
    operation: OPS.markInvoicePaid,
    variables: ({ id }) => ({ id }),
    render: (r: { markInvoicePaid: { invoice: GqlInvoice } }, call) => ({ data: v1Invoice(r.markInvoicePaid.invoice, ownerOf(call)) }),
  },
  {
    method: 'delete',
    path: '/v1/invoices/{id}',
    operationId: 'v1DeleteInvoice',
    summary: 'Delete an unpaid invoice',
    description: 'Cancels the invoice (v1 no longer shows it) and emits `invoice.deleted`.',
    tag: 'v1 invoices',
    face: 'v1',
    write: true,
    pathId: 'invoice',
    ok: V1_DELETED,
    errorCodes: [...WRITE, ...INVOICE_BY_ID, ...refusals('DELETE_V1')],
    operation: OPS.deleteInvoice,
    variables: ({ id }) => ({ id }),
    render: () => ({ data: null }),
  },
];

const transactions: Route[] = [
  {
    method: 'get',
    path: '/v1/transactions',
    operationId: 'v1ListTransactions',
    summary: 'List deposits',
    description: 'Newest first by `createdAt`. To find the deposits of one invoice, pass its id as `search`.',
    tag: 'v1 transactions',
    face: 'v1',
    query: z.object({
      ...paging,
      search: search('Transaction, account or matched invoice id exactly, or contained in account number or depositor name.'),
      bankAccountId: idOf('bankAccount', 'Only deposits to this account (outside the key\'s accounts: INSUFFICIENT_PERMISSIONS).').optional(),
      matched: flag('true = matched, false = unmatched.'),
      hidden: flag('true = hidden, false = not hidden.'),
      ...dates,
    }),
    ok: v1ListOk('A page of deposits.', 'V1TransactionList', V1Transaction, 'A page of deposits and the number matching the filter.'),
    errorCodes: [...READ, ...LIST, 'OUT_OF_SCOPE'],
    operation: OPS.transactions,
    variables: (call) => ({
      ...pageOf(call),
      filter: {
        search: call.query('search'),
        bankAccountId: call.query('bankAccountId'),
        matched: queryBoolean(call.url, 'matched'),
        hidden: queryBoolean(call.url, 'hidden'),
        ...datesOf(call),
      },
    }),
    render: (r: { transactionPage: Page<GqlTransaction> }, call) => ({ data: r.transactionPage.items.map((t) => v1Transaction(t, ownerOf(call))), totalItems: r.transactionPage.totalItems }),
  },
  {
    method: 'get',
    path: '/v1/transactions/{id}',
    operationId: 'v1GetTransaction',
    summary: 'Read a deposit',
    tag: 'v1 transactions',
    face: 'v1',
    pathId: 'transaction',
    ok: v1Ok(200, 'The deposit.', 'OK', 'V1TransactionResponse', V1Transaction, 'One deposit.'),
    errorCodes: [...READ, 'TRANSACTION_NOT_FOUND', 'FOREIGN_TRANSACTION', 'OUT_OF_SCOPE'],
    operation: OPS.transaction,
    variables: ({ id }) => ({ id }),
    render: (r: { transaction: GqlTransaction }, call) => ({ data: v1Transaction(r.transaction, ownerOf(call)) }),
  },
];

const cashReceipts: Route[] = [
  {
    method: 'post',
    path: '/v1/cash-receipts',
    operationId: 'v1IssueCashReceipt',
    summary: 'Issue a cash receipt',
    description: 'Needs registered business information. The receipt starts PENDING; the tax authority\'s result makes it ISSUED or FAILED.',
    tag: 'v1 cash receipts',
    face: 'v1',
    write: true,
    body: { schema: issueRequestSchema.meta({ id: 'IssueCashReceiptRequest', description: 'POST /v1/cash-receipts.' }), required: true },
    ok: v1Ok(201, 'Created (PENDING).', 'CREATED', 'V1CashReceiptCreated', V1CashReceipt, 'The new receipt.'),
    errorCodes: [...WRITE, ...BODY, 'INVALID_CASH_RECEIPT_TYPE', 'INVALID_CASH_RECEIPT_IDENTIFIER', 'INVALID_CASH_RECEIPT_AMOUNT', 'BUSINESS_INFO_NOT_REGISTERED', 'AGENCY_API_FAILED'],
    operation: OPS.issueCashReceipt,
    variables: ({ body }) => ({ input: parseIssueRequest(body) }),
    render: (r: { issueCashReceipt: { cashReceipt: GqlCashReceipt } }, call) => ({ data: v1CashReceipt(r.issueCashReceipt.cashReceipt, ownerOf(call)) }),
  },
  {
    method: 'get',
    path: '/v1/cash-receipts',
    operationId: 'v1ListCashReceipts',
    summary: 'List cash receipts',
    description: 'Newest first by issuance request time.',
    tag: 'v1 cash receipts',
    face: 'v1',
    query: z.object({
      ...paging,
      search: search('Receipt id, related invoice id or business number exactly, or contained in the identifier (hyphens ignored).'),
      status: statusQuery,
      type: z.enum(CASH_RECEIPT_TYPES).optional(),
      identifier: search('Exact identifier.'),
      corpNum: search('Issuing business number.'),
      ...dates,
    }),
    ok: v1ListOk('A page of receipts.', 'V1CashReceiptList', V1CashReceipt, 'A page of receipts and the number matching the filter.'),
    errorCodes: [...READ, ...LIST],
    operation: OPS.cashReceipts,
    variables: (call) => ({
      ...pageOf(call),
      filter: {
        search: call.query('search'),
        statuses: statusFilter(call.query('status')),
        type: call.query('type'),
        identifier: call.query('identifier'),
        corpNum: call.query('corpNum'),
        ...datesOf(call),
      },
    }),
    render: (r: { cashReceiptPage: Page<GqlCashReceipt> }, call) => ({ data: r.cashReceiptPage.items.map((c) => v1CashReceipt(c, ownerOf(call))), totalItems: r.cashReceiptPage.totalItems }),
  },
  {
    method: 'get',
    path: '/v1/cash-receipts/{id}',
    operationId: 'v1GetCashReceipt',
    summary: 'Read a cash receipt',
    tag: 'v1 cash receipts',
    face: 'v1',
    pathId: 'cashReceipt',
    ok: receiptOk('The receipt.'),
    errorCodes: [...READ, ...RECEIPT_BY_ID],
    operation: OPS.cashReceipt,
    variables: ({ id }) => ({ id }),
    render: (r: { cashReceipt: GqlCashReceipt }, call) => ({ data: v1CashReceipt(r.cashReceipt, ownerOf(call)) }),
  },
  {
    method: 'post',
    path: '/v1/cash-receipts/{id}/revoke',
    operationId: 'v1RevokeCashReceipt',
    summary: 'Revoke an issued cash receipt',
    description: 'Only ISSUED receipts: cancels all that remains; the receipt becomes REVOKED.',
    tag: 'v1 cash receipts',
    face: 'v1',
    write: true,
    pathId: 'cashReceipt',
    ok: receiptOk('The revoked receipt.'),
    errorCodes: [...WRITE, ...RECEIPT_BY_ID, 'RECEIPT_NOT_REVOCABLE', 'AGENCY_API_FAILED'],
    operation: OPS.revokeCashReceipt,
    variables: ({ id }) => ({ id }),
    render: (r: { revokeCashReceipt: { cashReceipt: GqlCashReceipt } }, call) => ({ data: v1CashReceipt(r.revokeCashReceipt.cashReceipt, ownerOf(call)) }),
  },
];

/** Every v1 route, in the document's order. */
export const V1_ROUTES: Route[] = [...invoices, ...transactions, ...cashReceipts];
export const v1Routes = new RouteTable(V1_ROUTES);
