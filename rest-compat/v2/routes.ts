/**
 * REST v2 (spec: v2 endpoints): `{code: "10001", data}` on success, numeric codes on errors, Unix-second timestamps.
 * Each route authenticates, runs the same GraphQL operation as the GraphQL face, and renders the v2 wire format.
 */
import { assertCanWrite, assertNotSession, requirePrincipal } from '../../src/domain/auth/rules.ts';
import { parseCancelRequest, parseReissueRequest, parseSendEmailRequest } from '../../src/domain/cash-receipts/requests.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { isId } from '../../src/domain/ids.ts';
import type { GraphQLContext } from '../../src/graphql/context.ts';
import { CASH_RECEIPT_FIELDS, type GqlCashReceipt } from '../v1/wire.ts';
import { ON_ERROR, run } from '../shared/execute.ts';
import { RouteTable, json, readJsonBody } from '../shared/http.ts';
import { V2_EXPIRES_AT, V2_INVOICE_FIELDS, v2Invoice, v2Time, type InvoiceView } from './wire.ts';
import { v2CashReceipt } from './wire.ts';
import { parseInvoiceChanges } from '../../src/domain/invoices/update-invoice.ts';
import { parseOffsetPage } from '../../src/domain/paging.ts';
import { parseCancelInvoiceRequest } from '../../src/domain/invoices/invoice-input.ts';
import { queryString } from '../shared/http.ts';

export interface V2Context extends GraphQLContext {
  maxBodyBytes: number;
}

export const V2_OK = '10001';
const ok = (data: unknown) => json(200, { code: V2_OK, data });

/** v2 calls need an API key or OAuth token (290006 otherwise); writes need a writable key (290007). */
export function v2Principal(ctx: V2Context, write: boolean) {
  const p = requirePrincipal(ctx.principal);
  assertNotSession(p);
  if (write) assertCanWrite(p);
  return p;
}

const GET_RECEIPT = `query($id: ID!) { cashReceipt(id: $id) { ${CASH_RECEIPT_FIELDS} } }`;
const CANCEL_RECEIPT = `mutation($id: ID!, $input: CancelCashReceiptInput!) { cancelCashReceipt(id: $id, input: $input) { ${ON_ERROR} ... on CashReceiptPayload { cashReceipt { ${CASH_RECEIPT_FIELDS} } } } }`;
const REISSUE_RECEIPT = `mutation($id: ID!, $input: ReissueCashReceiptInput!) { reissueCashReceipt(id: $id, input: $input) { ${ON_ERROR} ... on CashReceiptPayload { cashReceipt { ${CASH_RECEIPT_FIELDS} } } } }`;
const SEND_EMAIL = `mutation($id: ID!, $email: String!) { sendCashReceiptEmail(id: $id, email: $email) { ${ON_ERROR} ... on SendCashReceiptEmailPayload { cashReceiptId } } }`;

const INVOICE_WITH_HISTORY = `${V2_INVOICE_FIELDS} history { type actor { type accountId apiKeyId name } data createdAt }`;
const GET_INVOICE = `query($id: ID!) { invoice(id: $id) { ${INVOICE_WITH_HISTORY} } }`;
const LIST_INVOICES = `query($offset: Int!, $limit: Int!, $filter: InvoiceFilter) { invoicePage(offset: $offset, limit: $limit, filter: $filter) { totalItems items { ${V2_INVOICE_FIELDS} } } }`;
const UPDATE_INVOICE = `mutation($id: ID!, $input: UpdateInvoiceInput!) { updateInvoice(id: $id, input: $input) { ${ON_ERROR} ... on InvoicePayload { invoice { ${V2_INVOICE_FIELDS} } } } }`;
const CANCEL_INVOICE = `mutation($id: ID!, $reason: String) { cancelInvoice(id: $id, reason: $reason) { ${ON_ERROR} ... on InvoicePayload { invoice { ${V2_INVOICE_FIELDS} } } } }`;

function invoiceId(raw: string): string {
  if (!isId('invoice', raw)) throw new DomainError('INVALID_INVOICE_ID');
  return raw;
}

const V2_STATUSES = ['PENDING', 'EXPIRED', 'PAID', 'CANCELED'];

function receiptId(raw: string): string {
  if (!isId('cashReceipt', raw)) throw new DomainError('INVALID_CASH_RECEIPT_ID');
  return raw;
}

export const v2Routes = new RouteTable<V2Context>()
  .add('GET', '/v2/invoices', async (req, _params, ctx) => {
    v2Principal(ctx, false);
    const url = new URL(req.url);
    const page = parseOffsetPage(queryString(url, 'offset') ?? '0', queryString(url, 'limit') ?? '20');
    const status = queryString(url, 'status');
    const statuses = status === undefined ? undefined : status.split(',');
    if (statuses && statuses.some((s) => !V2_STATUSES.includes(s))) throw new DomainError('BAD_REQUEST', { path: ['status'] });
    const data = await run<{ invoicePage: { totalItems: number; items: InvoiceView[] } }>(ctx, LIST_INVOICES, {
      ...page,
      filter: { search: queryString(url, 'search'), statuses, dateAfter: queryString(url, 'dateAfter'), dateBefore: queryString(url, 'dateBefore') },
    });
    return json(200, { code: V2_OK, data: data.invoicePage.items.map(v2Invoice), totalItems: data.invoicePage.totalItems });
  })
  .add('GET', '/v2/invoices/:id', async (_req, params, ctx) => {
    v2Principal(ctx, false);
    const data = await run<{ invoice: InvoiceView }>(ctx, GET_INVOICE, { id: invoiceId(params.id) });
    return ok(v2Invoice(data.invoice));
  })
  .add('PATCH', '/v2/invoices/:id', async (req, params, ctx) => {
    v2Principal(ctx, true);
    const id = invoiceId(params.id);
    const body = await readJsonBody(req, ctx.maxBodyBytes);
    if (body === undefined) throw new DomainError('BAD_REQUEST', { message: 'A JSON body is required.' });
    const changes = parseInvoiceChanges(body, ctx.deps.clock.now(), V2_EXPIRES_AT);
    const input = { ...changes, expiresAt: changes.expiresAt && changes.expiresAt.toISOString() };
    const data = await run<{ updateInvoice: { invoice: InvoiceView } }>(ctx, UPDATE_INVOICE, { id, input });
    return ok(v2Invoice(data.updateInvoice.invoice));
  })
  .add('POST', '/v2/invoices/:id/cancel', async (req, params, ctx) => {
    v2Principal(ctx, true);
    const id = invoiceId(params.id);
    const { reason } = parseCancelInvoiceRequest(await readJsonBody(req, ctx.maxBodyBytes));
    const data = await run<{ cancelInvoice: { invoice: InvoiceView } }>(ctx, CANCEL_INVOICE, { id, reason });
    return ok(v2Invoice(data.cancelInvoice.invoice));
  })
  .add('GET', '/v2/cash-receipts/:id', async (_req, params, ctx) => {
    const p = v2Principal(ctx, false);
    const data = await run<{ cashReceipt: GqlCashReceipt }>(ctx, GET_RECEIPT, { id: receiptId(params.id) });
    return ok(v2CashReceipt(data.cashReceipt, p.workspaceOwnerId));
  })
  .add('POST', '/v2/cash-receipts/:id/cancel', async (req, params, ctx) => {
    const p = v2Principal(ctx, true);
    const id = receiptId(params.id);
    const input = parseCancelRequest(await readJsonBody(req, ctx.maxBodyBytes));
    const data = await run<{ cancelCashReceipt: { cashReceipt: GqlCashReceipt } }>(ctx, CANCEL_RECEIPT, { id, input });
    return ok(v2CashReceipt(data.cancelCashReceipt.cashReceipt, p.workspaceOwnerId));
  })
  .add('POST', '/v2/cash-receipts/:id/reissue', async (req, params, ctx) => {
    const p = v2Principal(ctx, true);
    const id = receiptId(params.id);
    // The shape here; what needs the original's type is judged by the domain once the receipt is loaded.
    const input = parseReissueRequest(await readJsonBody(req, ctx.maxBodyBytes));
    const data = await run<{ reissueCashReceipt: { cashReceipt: GqlCashReceipt } }>(ctx, REISSUE_RECEIPT, { id, input });
    return ok(v2CashReceipt(data.reissueCashReceipt.cashReceipt, p.workspaceOwnerId));
  })
  .add('POST', '/v2/cash-receipts/:id/send-email', async (req, params, ctx) => {
    v2Principal(ctx, true);
    const id = receiptId(params.id);
    const { email } = parseSendEmailRequest(await readJsonBody(req, ctx.maxBodyBytes));
    await run(ctx, SEND_EMAIL, { id, email });
    return json(200, { code: V2_OK });
  });
