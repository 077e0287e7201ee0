/**
 * REST v2 (spec: v2 endpoints): `{code: "10001", data}` on success, numeric codes on errors, Unix-second timestamps.
 * Each route authenticates, runs the same GraphQL operation as the GraphQL face, and renders the v2 wire format.
 */
import { assertCanWrite, assertNotSession, requirePrincipal } from '../../src/domain/auth/rules.ts';
import { parseCancelRequest, parseReissueRequest } from '../../src/domain/cash-receipts/cash-receipts.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { isId } from '../../src/domain/ids.ts';
import type { GraphQLContext } from '../../src/graphql/context.ts';
import { CASH_RECEIPT_FIELDS, type GqlCashReceipt } from '../v1/wire.ts';
import { run } from '../shared/execute.ts';
import { RouteTable, json, readJsonBody } from '../shared/http.ts';
import { v2CashReceipt } from './wire.ts';

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
const CANCEL_RECEIPT = `mutation($id: ID!, $input: CancelCashReceiptInput!) { cancelCashReceipt(id: $id, input: $input) { cashReceipt { ${CASH_RECEIPT_FIELDS} } } }`;
const REISSUE_RECEIPT = `mutation($id: ID!, $input: ReissueCashReceiptInput!) { reissueCashReceipt(id: $id, input: $input) { cashReceipt { ${CASH_RECEIPT_FIELDS} } } }`;
const SEND_EMAIL = `mutation($id: ID!, $email: String!) { sendCashReceiptEmail(id: $id, email: $email) { cashReceiptId } }`;

function receiptId(raw: string): string {
  if (!isId('cashReceipt', raw)) throw new DomainError('INVALID_CASH_RECEIPT_ID');
  return raw;
}

export const v2Routes = new RouteTable<V2Context>()
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
    const body = await readJsonBody(req, ctx.maxBodyBytes);
    // Shape errors first (the original's type is checked by the domain once the receipt is loaded).
    parseReissueRequest(body, 'PERSONAL');
    const b = (body ?? {}) as Record<string, unknown>;
    const input = { ...(b.identifier != null ? { identifier: b.identifier } : {}), ...(b.type != null ? { type: b.type } : {}), ...(b.selfIssued != null ? { selfIssued: b.selfIssued } : {}) };
    const data = await run<{ reissueCashReceipt: { cashReceipt: GqlCashReceipt } }>(ctx, REISSUE_RECEIPT, { id, input });
    return ok(v2CashReceipt(data.reissueCashReceipt.cashReceipt, p.workspaceOwnerId));
  })
  .add('POST', '/v2/cash-receipts/:id/send-email', async (req, params, ctx) => {
    v2Principal(ctx, true);
    const id = receiptId(params.id);
    const body = await readJsonBody(req, ctx.maxBodyBytes);
    if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) throw new DomainError('BAD_REQUEST');
    const email = (body as { email?: unknown } | undefined)?.email;
    if (email === undefined || email === null) throw new DomainError('BAD_REQUEST', { path: ['email'], message: 'email is required.' });
    if (typeof email !== 'string') throw new DomainError('RECEIPT_EMAIL_INVALID', { path: ['email'] });
    await run(ctx, SEND_EMAIL, { id, email });
    return json(200, { code: V2_OK });
  });
