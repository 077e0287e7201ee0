/**
 * The operations of /openapi.json: every v1 and v2 path, the OAuth app endpoints and bank notifications. Request
 * bodies and query parameters are the zod schemas the service parses them with; responses are the schemas of
 * ./components.ts; errors are listed as domain codes and rendered per version through ERROR_TABLE (src/domain/errors.ts).
 */
import { z } from 'zod';
import { issueRequestSchema, cancelRequestSchema, reissueRequestSchema, sendEmailRequestSchema } from '../../src/domain/cash-receipts/requests.ts';
import { bankNotificationSchema } from '../../src/domain/deposits/bank-notification.ts';
import { kstDateSchema } from '../../src/domain/dates.ts';
import type { ErrorCode } from '../../src/domain/errors.ts';
import { cancelInvoiceRequestSchema, createInvoiceSchema } from '../../src/domain/invoices/invoice-input.ts';
import { INVOICE_TRANSITIONS, type InvoiceTrigger } from '../../src/domain/invoices/invoice-state.ts';
import { invoiceChangesSchema } from '../../src/domain/invoices/update-invoice.ts';
import { limitSchema, offsetSchema } from '../../src/domain/paging.ts';
import { queryBooleanSchema } from '../shared/http.ts';
import { V2_EXPIRES_AT } from '../v2/wire.ts';
import { BankNotificationAccepted, OAuthRevoked, OAuthToken, V1CashReceipt, V1Invoice, V1Transaction, V2CashReceipt, V2Invoice, V2InvoiceWithHistory, idOf } from './components.ts';

export type Face = 'v1' | 'v2' | 'oauth' | 'bank';

export interface Operation {
  method: 'get' | 'post' | 'patch' | 'delete';
  /** OpenAPI path template. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  face: Face;
  /** The kind of id in `{id}`, if the path has one. */
  pathId?: { description: string };
  /** Query parameters: an object schema, one parameter per key (required as the schema says). */
  query?: z.ZodObject;
  body?: { schema: z.ZodType; required: boolean; form?: boolean };
  ok: { status: number; description: string; schema: z.ZodType; alsoStatus?: { status: number; description: string } };
  /** Domain codes this operation can answer with (rendered through ERROR_TABLE for v1/v2). */
  errors: readonly ErrorCode[];
}

// ───────────────────────────── envelopes ─────────────────────────────

/** One named schema per id (a component is defined once, however many operations answer with it). */
const named = new Map<string, z.ZodType>();
const once = (id: string, make: () => z.ZodType) => named.get(id) ?? (named.set(id, make()), named.get(id)!);

/** `{code, data}` of v1 (spec: Response envelope (v1)). */
const v1Envelope = (id: string, code: 'OK' | 'CREATED', data: z.ZodType, description: string) =>
  once(id, () => z.object({ code: z.literal(code), data }).meta({ id, description }));

/** `{code: "OK", data: [...], totalItems}` of a v1 list. */
const v1List = (id: string, item: z.ZodType, description: string) =>
  once(id, () =>
    z
      .object({ code: z.literal('OK'), data: z.array(item), totalItems: z.int().min(0).meta({ description: 'Items matching the filter.' }) })
      .meta({ id, description }),
  );

const V2_OK = z.literal('10001').meta({ description: 'Success.' });
/** `{code: "10001", data}` of v2. */
const v2Envelope = (id: string, data: z.ZodType, description: string) => once(id, () => z.object({ code: V2_OK, data }).meta({ id, description }));

const V1Deleted = z.object({ code: z.literal('DELETED'), data: z.null() }).meta({ id: 'V1Deleted', description: 'The invoice was deleted.' });
const V2Sent = z.object({ code: V2_OK }).meta({ id: 'V2EmailSent', description: 'The agency accepted the e-mail.' });

// ───────────────────────────── request bodies (the parsers' schemas, named) ─────────────────────────────

const CreateInvoiceRequest = createInvoiceSchema.meta({ id: 'CreateInvoiceRequest', description: 'POST /v1/invoices: fields in the spec\'s order.' });
const UpdateInvoiceRequest = invoiceChangesSchema(new Date(0), V2_EXPIRES_AT).meta({
  id: 'UpdateInvoiceRequest',
  description: 'PATCH /v2/invoices/{id}: only sent fields change; null clears e-mail, phone, cashReceipt and the expiry. At least one field must change.',
});
const CancelInvoiceRequest = cancelInvoiceRequestSchema.meta({ id: 'CancelInvoiceRequest', description: 'POST /v2/invoices/{id}/cancel (body optional).' });
const IssueCashReceiptRequest = issueRequestSchema.meta({ id: 'IssueCashReceiptRequest', description: 'POST /v1/cash-receipts.' });
const CancelCashReceiptRequest = cancelRequestSchema.meta({ id: 'CancelCashReceiptRequest', description: 'POST /v2/cash-receipts/{id}/cancel: full or partial.' });
const ReissueCashReceiptRequest = reissueRequestSchema.meta({
  id: 'ReissueCashReceiptRequest',
  description: 'POST /v2/cash-receipts/{id}/reissue: amount, buyer and invoice come from the failed original.',
});
const SendCashReceiptEmailRequest = sendEmailRequestSchema.meta({ id: 'SendCashReceiptEmailRequest', description: 'POST /v2/cash-receipts/{id}/send-email.' });
const BankNotificationRequest = bankNotificationSchema.meta({ id: 'BankNotification', description: 'One deposit notification of a bank feed.' });

const clientAuthFields = {
  client_id: idOf('oauthApp', 'The app id (`oap_...`), when HTTP Basic is not used.').optional(),
  client_secret: z.string().optional().meta({ description: 'The client secret (`oas_...`), when HTTP Basic is not used.' }),
};
const OAuthTokenRequest = z
  .object({
    grant_type: z.literal('authorization_code'),
    code: z.string().meta({ description: 'The code from the dashboard consent (single use, 10 minutes).' }),
    redirect_uri: z.string().meta({ description: 'The redirect URI the code was issued for.' }),
    ...clientAuthFields,
  })
  .meta({ id: 'OAuthTokenRequest', description: 'RFC 6749 §4.1.3 authorization-code grant.' });
const OAuthRevokeRequest = z
  .object({ token: z.string().meta({ description: 'The access token (`oat_...`) to revoke.' }), ...clientAuthFields })
  .meta({ id: 'OAuthRevokeRequest', description: 'RFC 7009 token revocation.' });

// ───────────────────────────── query parameters ─────────────────────────────

const paging = { offset: offsetSchema, limit: limitSchema };
const dates = {
  dateAfter: kstDateSchema.meta({ description: '`YYYY-MM-DD` in KST, inclusive.', format: 'date' }),
  dateBefore: kstDateSchema.meta({ description: '`YYYY-MM-DD` in KST, inclusive.', format: 'date' }),
};
const search = (what: string) => z.string().optional().meta({ description: what });
const flag = (what: string) => queryBooleanSchema.optional().meta({ description: what });

const V1InvoiceQuery = z.object({
  ...paging,
  search: search('Invoice id exactly, or contained in depositor name, e-mail, phone or cash-receipt identifier (case-insensitive, hyphens ignored).'),
  paid: flag('true = paid, false = pending.'),
  expired: flag('true = expired; false = no expiry or not yet expired.'),
  ...dates,
});
const V1TransactionQuery = z.object({
  ...paging,
  search: search('Transaction, account or matched invoice id exactly, or contained in account number or depositor name.'),
  bankAccountId: idOf('bankAccount', 'Only deposits to this account (outside the key\'s accounts: INSUFFICIENT_PERMISSIONS).').optional(),
  matched: flag('true = matched, false = unmatched.'),
  hidden: flag('true = hidden, false = not hidden.'),
  ...dates,
});
const V1CashReceiptQuery = z.object({
  ...paging,
  search: search('Receipt id, related invoice id or business number exactly, or contained in the identifier (hyphens ignored).'),
  status: z.enum(['PENDING', 'ISSUED', 'FAILED', 'REVOKED']).optional().meta({ description: 'REVOKED also finds receipts fully canceled through v2.' }),
  type: z.enum(['PERSONAL', 'CORPORATE']).optional(),
  identifier: search('Exact identifier.'),
  corpNum: search('Issuing business number.'),
  ...dates,
});
const V2InvoiceQuery = z.object({
  offset: offsetSchema.optional().meta({ description: 'Items to skip (default 0).' }),
  limit: limitSchema.optional().meta({ description: 'Page size, 1-100 (default 20).' }),
  status: z
    .string()
    .regex(/^(PENDING|EXPIRED|PAID|CANCELED)(,(PENDING|EXPIRED|PAID|CANCELED))*$/)
    .optional()
    .meta({ description: 'One or more of PENDING, EXPIRED, PAID, CANCELED, comma-separated.', examples: ['PENDING,EXPIRED'] }),
  search: search('Invoice id exactly, or contained in depositor name, e-mail, phone or cash-receipt identifier.'),
  ...dates,
});

// ───────────────────────────── error lists ─────────────────────────────

const READ: ErrorCode[] = ['UNAUTHENTICATED', 'SESSION_TOKEN_NOT_ALLOWED', 'INTERNAL_SERVER_ERROR'];
const WRITE: ErrorCode[] = [...READ, 'READ_ONLY_KEY'];
/** VALIDATION_FAILED: text the database cannot store (U+0000, a lone surrogate) in a field or a filter (src/domain/request-schema.ts). */
const BODY: ErrorCode[] = ['BAD_REQUEST', 'PAYLOAD_TOO_LARGE', 'VALIDATION_FAILED'];
const LIST: ErrorCode[] = ['INVALID_OFFSET', 'INVALID_LIMIT', 'LIMIT_EXCEEDS_MAXIMUM', 'INVALID_DATE_RANGE_FORMAT', 'BAD_REQUEST', 'VALIDATION_FAILED'];
const INVOICE_BY_ID: ErrorCode[] = ['INVALID_INVOICE_ID', 'INVOICE_NOT_FOUND', 'FOREIGN_INVOICE', 'OUT_OF_SCOPE'];
const RECEIPT_BY_ID: ErrorCode[] = ['INVALID_CASH_RECEIPT_ID', 'CASH_RECEIPT_NOT_FOUND', 'FOREIGN_CASH_RECEIPT'];
const INVOICE_FIELDS: ErrorCode[] = [
  'INVALID_BANK_ACCOUNT_IDS',
  'INVALID_CUSTOMER_NAME',
  'INVALID_EMAIL',
  'INVALID_PHONE_NUMBER',
  'INVALID_AMOUNT',
  'INVALID_CASH_RECEIPT_TYPE',
  'INVALID_CASH_RECEIPT_IDENTIFIER',
];
const RECEIVING_ACCOUNTS: ErrorCode[] = ['OUT_OF_SCOPE', 'BANK_ACCOUNT_NOT_FOUND', 'BANK_ACCOUNT_NOT_VERIFIED'];
/** The refusals of a transition of the invoice state machine (src/domain/invoices/invoice-state.ts), and a lost race. */
const refusals = (t: InvoiceTrigger): ErrorCode[] => [...Object.values(INVOICE_TRANSITIONS[t].refuse), 'CONFLICT'];

const byId = (what: string) => ({ description: `The ${what} id.` });

export const OPERATIONS: Operation[] = [
  // ───────── v1 ─────────
  {
    method: 'post',
    path: '/v1/invoices',
    operationId: 'v1CreateInvoice',
    summary: 'Create an invoice',
    description: 'Creates a pending invoice (order) and emits `invoice.created`. A pending invoice with the same depositor name and amount on an overlapping receiving account is a conflict.',
    tag: 'v1 invoices',
    face: 'v1',
    body: { schema: CreateInvoiceRequest, required: true },
    ok: { status: 201, description: 'Created.', schema: v1Envelope('V1InvoiceCreated', 'CREATED', V1Invoice, 'The created invoice.') },
    errors: [
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
  },
  {
    method: 'get',
    path: '/v1/invoices',
    operationId: 'v1ListInvoices',
    summary: 'List invoices',
    description: 'Newest first. `paid=false&expired=false` lists the pending invoices that can still receive a deposit. Deleted (canceled) invoices are not shown.',
    tag: 'v1 invoices',
    face: 'v1',
    query: V1InvoiceQuery,
    ok: { status: 200, description: 'A page of invoices.', schema: v1List('V1InvoiceList', V1Invoice, 'A page of invoices and the number matching the filter.') },
    errors: [...READ, ...LIST],
  },
  {
    method: 'get',
    path: '/v1/invoices/{id}',
    operationId: 'v1GetInvoice',
    summary: 'Read an invoice',
    tag: 'v1 invoices',
    face: 'v1',
    pathId: byId('invoice (`ivc_...`)'),
    ok: { status: 200, description: 'The invoice.', schema: v1Envelope('V1InvoiceResponse', 'OK', V1Invoice, 'One invoice.') },
    errors: [...READ, ...INVOICE_BY_ID],
  },
  {
    method: 'post',
    path: '/v1/invoices/{id}/mark-as-paid',
    operationId: 'v1MarkInvoicePaid',
    summary: 'Mark an invoice paid',
    description: 'Marks a pending or expired invoice paid without a deposit; emits `invoice.paid` with `trigger: "API_CALL"` and issues its cash receipt when one was requested.',
    tag: 'v1 invoices',
    face: 'v1',
    pathId: byId('invoice (`ivc_...`)'),
    ok: { status: 200, description: 'The paid invoice.', schema: v1Envelope('V1InvoiceResponse', 'OK', V1Invoice, 'One invoice.') },
    errors: [...WRITE, ...INVOICE_BY_ID, ...refusals('MARK_AS_PAID')],
  },
  {
    method: 'delete',
    path: '/v1/invoices/{id}',
    operationId: 'v1DeleteInvoice',
    summary: 'Delete an unpaid invoice',
    description: 'Cancels the invoice (v1 no longer shows it) and emits `invoice.deleted`.',
    tag: 'v1 invoices',
    face: 'v1',
    pathId: byId('invoice (`ivc_...`)'),
    ok: { status: 200, description: 'Deleted.', schema: V1Deleted },
    errors: [...WRITE, ...INVOICE_BY_ID, ...refusals('DELETE_V1')],
  },
  {
    method: 'get',
    path: '/v1/transactions',
    operationId: 'v1ListTransactions',
    summary: 'List deposits',
    description: 'Newest first by `createdAt`. To find the deposits of one invoice, pass its id as `search`.',
    tag: 'v1 transactions',
    face: 'v1',
    query: V1TransactionQuery,
    ok: { status: 200, description: 'A page of deposits.', schema: v1List('V1TransactionList', V1Transaction, 'A page of deposits and the number matching the filter.') },
    errors: [...READ, ...LIST, 'OUT_OF_SCOPE'],
  },
  {
    method: 'get',
    path: '/v1/transactions/{id}',
    operationId: 'v1GetTransaction',
    summary: 'Read a deposit',
    tag: 'v1 transactions',
    face: 'v1',
    pathId: byId('transaction (`trx_...`)'),
    ok: { status: 200, description: 'The deposit.', schema: v1Envelope('V1TransactionResponse', 'OK', V1Transaction, 'One deposit.') },
    errors: [...READ, 'TRANSACTION_NOT_FOUND', 'FOREIGN_TRANSACTION', 'OUT_OF_SCOPE'],
  },
  {
    method: 'post',
    path: '/v1/cash-receipts',
    operationId: 'v1IssueCashReceipt',
    summary: 'Issue a cash receipt',
    description: 'Needs registered business information. The receipt starts PENDING; the tax authority\'s result makes it ISSUED or FAILED.',
    tag: 'v1 cash receipts',
    face: 'v1',
    body: { schema: IssueCashReceiptRequest, required: true },
    ok: { status: 201, description: 'Created (PENDING).', schema: v1Envelope('V1CashReceiptCreated', 'CREATED', V1CashReceipt, 'The new receipt.') },
    errors: [...WRITE, ...BODY, 'INVALID_CASH_RECEIPT_TYPE', 'INVALID_CASH_RECEIPT_IDENTIFIER', 'INVALID_CASH_RECEIPT_AMOUNT', 'BUSINESS_INFO_NOT_REGISTERED', 'AGENCY_API_FAILED'],
  },
  {
    method: 'get',
    path: '/v1/cash-receipts',
    operationId: 'v1ListCashReceipts',
    summary: 'List cash receipts',
    description: 'Newest first by issuance request time.',
    tag: 'v1 cash receipts',
    face: 'v1',
    query: V1CashReceiptQuery,
    ok: { status: 200, description: 'A page of receipts.', schema: v1List('V1CashReceiptList', V1CashReceipt, 'A page of receipts and the number matching the filter.') },
    errors: [...READ, ...LIST],
  },
  {
    method: 'get',
    path: '/v1/cash-receipts/{id}',
    operationId: 'v1GetCashReceipt',
    summary: 'Read a cash receipt',
    tag: 'v1 cash receipts',
    face: 'v1',
    pathId: byId('cash receipt (`crt_...`)'),
    ok: { status: 200, description: 'The receipt.', schema: v1Envelope('V1CashReceiptResponse', 'OK', V1CashReceipt, 'One receipt.') },
    errors: [...READ, ...RECEIPT_BY_ID],
  },
  {
    method: 'post',
    path: '/v1/cash-receipts/{id}/revoke',
    operationId: 'v1RevokeCashReceipt',
    summary: 'Revoke an issued cash receipt',
    description: 'Only ISSUED receipts: cancels all that remains; the receipt becomes REVOKED.',
    tag: 'v1 cash receipts',
    face: 'v1',
    pathId: byId('cash receipt (`crt_...`)'),
    ok: { status: 200, description: 'The revoked receipt.', schema: v1Envelope('V1CashReceiptResponse', 'OK', V1CashReceipt, 'One receipt.') },
    errors: [...WRITE, ...RECEIPT_BY_ID, 'RECEIPT_NOT_REVOCABLE', 'AGENCY_API_FAILED'],
  },

  // ───────── v2 ─────────
  {
    method: 'get',
    path: '/v2/invoices',
    operationId: 'v2ListInvoices',
    summary: 'List invoices',
    description: 'Newest first; canceled invoices are listed with status CANCELED.',
    tag: 'v2 invoices',
    face: 'v2',
    query: V2InvoiceQuery,
    ok: {
      status: 200,
      description: 'A page of invoices.',
      schema: z
        .object({ code: V2_OK, data: z.array(V2Invoice), totalItems: z.int().min(0).meta({ description: 'Items matching the filter.' }) })
        .meta({ id: 'V2InvoiceList', description: 'A page of invoices and the number matching the filter.' }),
    },
    errors: [...READ, ...LIST],
  },
  {
    method: 'get',
    path: '/v2/invoices/{id}',
    operationId: 'v2GetInvoice',
    summary: 'Read an invoice with its history',
    tag: 'v2 invoices',
    face: 'v2',
    pathId: byId('invoice (`ivc_...`)'),
    ok: { status: 200, description: 'The invoice and its history.', schema: v2Envelope('V2InvoiceWithHistoryResponse', V2InvoiceWithHistory, 'One invoice with its history.') },
    errors: [...READ, ...INVOICE_BY_ID],
  },
  {
    method: 'patch',
    path: '/v2/invoices/{id}',
    operationId: 'v2UpdateInvoice',
    summary: 'Update a pending invoice',
    description:
      'Only sent fields change; emits `invoice.updated`. Changing name, amount or receiving accounts re-runs the conflict check (220010 with `data.invoiceId` and `data.number`). `resendGuideEmail` needs a usable receiving account (220022) and an expiry (220023).',
    tag: 'v2 invoices',
    face: 'v2',
    pathId: byId('invoice (`ivc_...`)'),
    body: { schema: UpdateInvoiceRequest, required: true },
    ok: { status: 200, description: 'The updated invoice (no history).', schema: v2Envelope('V2InvoiceResponse', V2Invoice, 'One invoice.') },
    errors: [
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
    ],
  },
  {
    method: 'post',
    path: '/v2/invoices/{id}/cancel',
    operationId: 'v2CancelInvoice',
    summary: 'Cancel a pending or expired invoice',
    description: 'Emits `invoice.canceled` (v2 webhooks) and `invoice.deleted` (v1 webhooks). Same effect as the v1 delete.',
    tag: 'v2 invoices',
    face: 'v2',
    pathId: byId('invoice (`ivc_...`)'),
    body: { schema: CancelInvoiceRequest, required: false },
    ok: { status: 200, description: 'The canceled invoice.', schema: v2Envelope('V2InvoiceResponse', V2Invoice, 'One invoice.') },
    errors: [...WRITE, ...BODY, ...INVOICE_BY_ID, 'CANCEL_REASON_TOO_LONG', ...refusals('CANCEL')],
  },
  {
    method: 'get',
    path: '/v2/cash-receipts/{id}',
    operationId: 'v2GetCashReceipt',
    summary: 'Read a cash receipt',
    tag: 'v2 cash receipts',
    face: 'v2',
    pathId: byId('cash receipt (`crt_...`)'),
    ok: { status: 200, description: 'The receipt.', schema: v2Envelope('V2CashReceiptResponse', V2CashReceipt, 'One receipt.') },
    errors: [...READ, ...RECEIPT_BY_ID],
  },
  {
    method: 'post',
    path: '/v2/cash-receipts/{id}/cancel',
    operationId: 'v2CancelCashReceipt',
    summary: 'Cancel an issued cash receipt, fully or partly',
    description: 'Creates a CANCELLATION receipt (starting PENDING); canceling all that remains makes the original CANCELED.',
    tag: 'v2 cash receipts',
    face: 'v2',
    pathId: byId('cash receipt (`crt_...`)'),
    body: { schema: CancelCashReceiptRequest, required: true },
    ok: { status: 200, description: 'The cancellation receipt.', schema: v2Envelope('V2CashReceiptResponse', V2CashReceipt, 'One receipt.') },
    errors: [...WRITE, ...BODY, ...RECEIPT_BY_ID, 'RECEIPT_CANCEL_REASON_INVALID', 'INVALID_CASH_RECEIPT_AMOUNT', 'RECEIPT_NOT_CANCELABLE', 'AGENCY_API_FAILED'],
  },
  {
    method: 'post',
    path: '/v2/cash-receipts/{id}/reissue',
    operationId: 'v2ReissueCashReceipt',
    summary: 'Reissue a failed cash receipt',
    description: 'Only a FAILED original, once: a new ORIGINAL receipt in PENDING with `reissuedFromId`.',
    tag: 'v2 cash receipts',
    face: 'v2',
    pathId: byId('cash receipt (`crt_...`)'),
    body: { schema: ReissueCashReceiptRequest, required: false },
    ok: { status: 200, description: 'The new receipt.', schema: v2Envelope('V2CashReceiptResponse', V2CashReceipt, 'One receipt.') },
    errors: [...WRITE, ...BODY, ...RECEIPT_BY_ID, 'RECEIPT_INVALID_TYPE', 'RECEIPT_INVALID_IDENTIFIER', 'BUSINESS_INFO_NOT_REGISTERED', 'RECEIPT_NOT_REISSUABLE', 'AGENCY_API_FAILED'],
  },
  {
    method: 'post',
    path: '/v2/cash-receipts/{id}/send-email',
    operationId: 'v2SendCashReceiptEmail',
    summary: 'Send a cash receipt by e-mail',
    description: 'The agency sends the receipt mail; the receipt needs a tax-authority confirmation number.',
    tag: 'v2 cash receipts',
    face: 'v2',
    pathId: byId('cash receipt (`crt_...`)'),
    body: { schema: SendCashReceiptEmailRequest, required: true },
    ok: { status: 200, description: 'Sent.', schema: V2Sent },
    errors: [...WRITE, ...BODY, ...RECEIPT_BY_ID, 'RECEIPT_EMAIL_INVALID', 'RECEIPT_EMAIL_NOT_SENDABLE', 'AGENCY_EMAIL_FAILED'],
  },

  // ───────── OAuth apps ─────────
  {
    method: 'post',
    path: '/v2/oauth-apps/token',
    operationId: 'oauthToken',
    summary: 'Exchange an authorization code for an access token',
    description:
      'The merchant consents in the dashboard (GraphQL `authorizeOAuthApp`), which returns a code bound to a redirect URI. The `oat_` token works wherever an API key does, for the consenting workspace. A reused code fails (`invalid_grant`) and revokes the token it produced.',
    tag: 'OAuth apps',
    face: 'oauth',
    body: { schema: OAuthTokenRequest, required: true, form: true },
    ok: { status: 200, description: 'The access token.', schema: OAuthToken },
    errors: [],
  },
  {
    method: 'post',
    path: '/v2/oauth-apps/revoke',
    operationId: 'oauthRevoke',
    summary: 'Revoke an access token (RFC 7009)',
    description:
      'After client authentication: a token of this app is revoked and the workspace link is cut, so every token of it stops at once. Unknown, revoked or other apps\' tokens give the same 200.',
    tag: 'OAuth apps',
    face: 'oauth',
    body: { schema: OAuthRevokeRequest, required: true, form: true },
    ok: { status: 200, description: 'Done (or nothing to do).', schema: OAuthRevoked },
    errors: [],
  },

  // ───────── bank feed ─────────
  {
    method: 'post',
    path: '/bank-notifications',
    operationId: 'postBankNotification',
    summary: 'Post a deposit notification',
    description:
      'Authenticated by the bank account\'s notification token. A 1-won deposit whose depositor name is the account\'s verification code verifies the account (stored hidden, never matched); any other deposit on a verified, active account is matched to at most one pending invoice.',
    tag: 'Bank notifications',
    face: 'bank',
    body: { schema: BankNotificationRequest, required: true },
    ok: {
      status: 201,
      description: 'Stored (and matched when it pays an invoice).',
      schema: BankNotificationAccepted,
      alsoStatus: { status: 200, description: 'The same notificationId again: the first transaction; nothing new is stored.' },
    },
    errors: [],
  },
];
