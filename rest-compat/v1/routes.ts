/**
 * REST v1 (spec: v1 endpoints): the legacy face. Each route authenticates, runs the same GraphQL operation as the
 * GraphQL face, and renders `{code, data}` / `{code, data, totalItems}` with v1 codes and the v1 wire format.
 */
import { assertCanWrite, assertNotSession, requirePrincipal } from '../../src/domain/auth/rules.ts';
import { parseCreateInvoiceInput } from '../../src/domain/invoices/invoice-input.ts';
import type { GraphQLContext } from '../../src/graphql/context.ts';
import { ON_ERROR, run } from '../shared/execute.ts';
import { RouteTable, json, queryBoolean, queryString, readJsonBody } from '../shared/http.ts';
import { CASH_RECEIPT_FIELDS, V1_INVOICE_FIELDS, V1_TRANSACTION_FIELDS, v1CashReceipt, v1Invoice, v1Transaction, type GqlCashReceipt, type GqlInvoice, type GqlTransaction } from './wire.ts';
import { parseIssueRequest } from '../../src/domain/cash-receipts/requests.ts';
import { DomainError, type ErrorCode } from '../../src/domain/errors.ts';
import { isStorableText } from '../../src/domain/request-schema.ts';
import { parseOffsetPage } from '../../src/domain/paging.ts';

export interface V1Context extends GraphQLContext {
  maxBodyBytes: number;
}

const ok = (data: unknown, status = 200, code = 'OK') => json(status, { code, data });

/** v1 calls need an API key or OAuth token; dashboard tokens are refused; writes need a writable key. */
function principalFor(ctx: V1Context, write: boolean) {
  const p = requirePrincipal(ctx.principal);
  assertNotSession(p);
  if (write) assertCanWrite(p);
  return p;
}

/**
 * A path id, or the resource's not-found error (spec: 404 for a missing resource) when it holds text no id can hold
 * (U+0000, a lone surrogate): such an id names nothing, and must not reach the database.
 */
function pathId(raw: string, notFound: ErrorCode): string {
  if (!isStorableText(raw)) throw new DomainError(notFound);
  return raw;
}

const CREATE_INVOICE = `mutation($input: CreateInvoiceInput!) { createInvoice(input: $input) { ${ON_ERROR} ... on InvoicePayload { invoice { ${V1_INVOICE_FIELDS} } } } }`;
const GET_INVOICE = `query($id: ID!) { invoice(id: $id, includeCanceled: false) { ${V1_INVOICE_FIELDS} } }`;
const LIST_INVOICES = `query($offset: Int!, $limit: Int!, $filter: InvoiceFilter) { invoicePage(offset: $offset, limit: $limit, filter: $filter) { totalItems items { ${V1_INVOICE_FIELDS} } } }`;
const MARK_PAID = `mutation($id: ID!) { markInvoicePaid(id: $id) { ${ON_ERROR} ... on InvoicePayload { invoice { ${V1_INVOICE_FIELDS} } } } }`;
const DELETE_INVOICE = `mutation($id: ID!) { deleteInvoice(id: $id) { ${ON_ERROR} ... on InvoicePayload { invoice { id } } } }`;
const GET_TRANSACTION = `query($id: ID!) { transaction(id: $id) { ${V1_TRANSACTION_FIELDS} } }`;
const ISSUE_RECEIPT = `mutation($input: IssueCashReceiptInput!) { issueCashReceipt(input: $input) { ${ON_ERROR} ... on CashReceiptPayload { cashReceipt { ${CASH_RECEIPT_FIELDS} } } } }`;
const GET_RECEIPT = `query($id: ID!) { cashReceipt(id: $id) { ${CASH_RECEIPT_FIELDS} } }`;
const LIST_RECEIPTS = `query($offset: Int!, $limit: Int!, $filter: CashReceiptFilter) { cashReceiptPage(offset: $offset, limit: $limit, filter: $filter) { totalItems items { ${CASH_RECEIPT_FIELDS} } } }`;
const REVOKE_RECEIPT = `mutation($id: ID!) { revokeCashReceipt(id: $id) { ${ON_ERROR} ... on CashReceiptPayload { cashReceipt { ${CASH_RECEIPT_FIELDS} } } } }`;
const LIST_TRANSACTIONS = `query($offset: Int!, $limit: Int!, $filter: TransactionFilter) { transactionPage(offset: $offset, limit: $limit, filter: $filter) { totalItems items { ${V1_TRANSACTION_FIELDS} } } }`;

export const v1Routes = new RouteTable<V1Context>()
  .add('POST', '/v1/invoices', async (req, _params, ctx) => {
    const p = principalFor(ctx, true);
    const body = await readJsonBody(req, ctx.maxBodyBytes);
    if (body === undefined) throw new DomainError('BAD_REQUEST', { message: 'A JSON body is required.' });
    const input = parseCreateInvoiceInput(body);
    const data = await run<{ createInvoice: { invoice: GqlInvoice } }>(ctx, CREATE_INVOICE, {
      input: {
        bankAccountIds: input.bankAccountIds,
        customer: input.customer,
        amount: input.amount,
        cashReceipt: input.cashReceipt,
        expireAfter: (body as { expireAfter?: string }).expireAfter ?? null,
        metadata: input.metadata,
      },
    });
    return ok(v1Invoice(data.createInvoice.invoice, p.workspaceOwnerId), 201, 'CREATED');
  })
  .add('GET', '/v1/invoices', async (req, _params, ctx) => {
    const p = principalFor(ctx, false);
    const url = new URL(req.url);
    const page = parseOffsetPage(queryString(url, 'offset'), queryString(url, 'limit'));
    const data = await run<{ invoicePage: { totalItems: number; items: GqlInvoice[] } }>(ctx, LIST_INVOICES, {
      ...page,
      filter: {
        search: queryString(url, 'search'),
        paid: queryBoolean(url, 'paid'),
        expired: queryBoolean(url, 'expired'),
        dateAfter: queryString(url, 'dateAfter'),
        dateBefore: queryString(url, 'dateBefore'),
        includeCanceled: false,
      },
    });
    return json(200, {
      code: 'OK',
      data: data.invoicePage.items.map((i) => v1Invoice(i, p.workspaceOwnerId)),
      totalItems: data.invoicePage.totalItems,
    });
  })
  .add('GET', '/v1/invoices/:id', async (_req, params, ctx) => {
    const p = principalFor(ctx, false);
    const data = await run<{ invoice: GqlInvoice }>(ctx, GET_INVOICE, { id: pathId(params.id, 'INVOICE_NOT_FOUND') });
    return ok(v1Invoice(data.invoice, p.workspaceOwnerId));
  })
  .add('POST', '/v1/invoices/:id/mark-as-paid', async (_req, params, ctx) => {
    const p = principalFor(ctx, true);
    const data = await run<{ markInvoicePaid: { invoice: GqlInvoice } }>(ctx, MARK_PAID, { id: pathId(params.id, 'INVOICE_NOT_FOUND') });
    return ok(v1Invoice(data.markInvoicePaid.invoice, p.workspaceOwnerId));
  })
  .add('DELETE', '/v1/invoices/:id', async (_req, params, ctx) => {
    principalFor(ctx, true);
    await run(ctx, DELETE_INVOICE, { id: pathId(params.id, 'INVOICE_NOT_FOUND') });
    return json(200, { code: 'DELETED', data: null });
  })
  .add('GET', '/v1/transactions', async (req, _params, ctx) => {
    const p = principalFor(ctx, false);
    const url = new URL(req.url);
    const page = parseOffsetPage(queryString(url, 'offset'), queryString(url, 'limit'));
    const data = await run<{ transactionPage: { totalItems: number; items: GqlTransaction[] } }>(ctx, LIST_TRANSACTIONS, {
      ...page,
      filter: {
        search: queryString(url, 'search'),
        bankAccountId: queryString(url, 'bankAccountId'),
        matched: queryBoolean(url, 'matched'),
        hidden: queryBoolean(url, 'hidden'),
        dateAfter: queryString(url, 'dateAfter'),
        dateBefore: queryString(url, 'dateBefore'),
      },
    });
    return json(200, {
      code: 'OK',
      data: data.transactionPage.items.map((t) => v1Transaction(t, p.workspaceOwnerId)),
      totalItems: data.transactionPage.totalItems,
    });
  })
  .add('GET', '/v1/transactions/:id', async (_req, params, ctx) => {
    const p = principalFor(ctx, false);
    const data = await run<{ transaction: GqlTransaction }>(ctx, GET_TRANSACTION, { id: pathId(params.id, 'TRANSACTION_NOT_FOUND') });
    return ok(v1Transaction(data.transaction, p.workspaceOwnerId));
  })
  .add('POST', '/v1/cash-receipts', async (req, _params, ctx) => {
    const p = principalFor(ctx, true);
    const body = await readJsonBody(req, ctx.maxBodyBytes);
    if (body === undefined) throw new DomainError('BAD_REQUEST', { message: 'A JSON body is required.' });
    const input = parseIssueRequest(body);
    const data = await run<{ issueCashReceipt: { cashReceipt: GqlCashReceipt } }>(ctx, ISSUE_RECEIPT, { input });
    return ok(v1CashReceipt(data.issueCashReceipt.cashReceipt, p.workspaceOwnerId), 201, 'CREATED');
  })
  .add('GET', '/v1/cash-receipts', async (req, _params, ctx) => {
    const p = principalFor(ctx, false);
    const url = new URL(req.url);
    const page = parseOffsetPage(queryString(url, 'offset'), queryString(url, 'limit'));
    const data = await run<{ cashReceiptPage: { totalItems: number; items: GqlCashReceipt[] } }>(ctx, LIST_RECEIPTS, {
      ...page,
      filter: {
        search: queryString(url, 'search'),
        statuses: v1StatusFilter(queryString(url, 'status')),
        type: queryString(url, 'type'),
        identifier: queryString(url, 'identifier'),
        corpNum: queryString(url, 'corpNum'),
        dateAfter: queryString(url, 'dateAfter'),
        dateBefore: queryString(url, 'dateBefore'),
      },
    });
    return json(200, { code: 'OK', data: data.cashReceiptPage.items.map((r) => v1CashReceipt(r, p.workspaceOwnerId)), totalItems: data.cashReceiptPage.totalItems });
  })
  .add('GET', '/v1/cash-receipts/:id', async (_req, params, ctx) => {
    const p = principalFor(ctx, false);
    const data = await run<{ cashReceipt: GqlCashReceipt }>(ctx, GET_RECEIPT, { id: pathId(params.id, 'CASH_RECEIPT_NOT_FOUND') });
    return ok(v1CashReceipt(data.cashReceipt, p.workspaceOwnerId));
  })
  .add('POST', '/v1/cash-receipts/:id/revoke', async (_req, params, ctx) => {
    const p = principalFor(ctx, true);
    const data = await run<{ revokeCashReceipt: { cashReceipt: GqlCashReceipt } }>(ctx, REVOKE_RECEIPT, { id: pathId(params.id, 'CASH_RECEIPT_NOT_FOUND') });
    return ok(v1CashReceipt(data.revokeCashReceipt.cashReceipt, p.workspaceOwnerId));
  });

/** v1 status filter values are PENDING, ISSUED, FAILED, REVOKED (REVOKED also finds v2-canceled receipts); others are BAD_REQUEST. */
function v1StatusFilter(status: string | undefined): string[] | undefined {
  if (status === undefined) return undefined;
  if (!['PENDING', 'ISSUED', 'FAILED', 'REVOKED'].includes(status)) throw new DomainError('BAD_REQUEST', { path: ['status'], message: 'status must be PENDING, ISSUED, FAILED or REVOKED.' });
  return status === 'REVOKED' ? ['REVOKED', 'CANCELED'] : [status];
}
