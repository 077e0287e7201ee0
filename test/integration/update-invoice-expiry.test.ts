/**
 * The expiry a change sets is the instant the caller sent: GraphQL `updateInvoice` keeps milliseconds (it used to go
 * through v2's Unix seconds and lose them); v2 PATCH takes whole Unix seconds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { dbLabel, startTestApp, type TestApp } from '../helpers/app.ts';

describe(`updateInvoice expiresAt on ${dbLabel}`, () => {
  let t: TestApp;
  let m: Bootstrapped;
  beforeAll(async () => {
    t = await startTestApp();
    m = await bootstrap(t.client);
  });
  afterAll(() => t?.stop());

  let seq = 0;
  const create = async () => {
    const r = await t.client.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds: [], customer: { name: `만료${seq++}` }, amount: 3000 + seq } });
    expect(r.status).toBe(201);
    return r.body.data.id as string;
  };
  const UPDATE = `mutation($id: ID!, $input: UpdateInvoiceInput!) { updateInvoice(id: $id, input: $input) { ... on InvoicePayload { invoice { expiresAt } } ... on Error { code: __typename } } }`;

  it('GraphQL: an expiresAt with milliseconds is stored and answered with them', async () => {
    const id = await create();
    const at = new Date(Math.floor(Date.now() / 1000) * 1000 + 3 * 86_400_000 + 123).toISOString();
    const r = await t.client.gql<{ updateInvoice: { invoice: { expiresAt: string } } }>(UPDATE, { id, input: { expiresAt: at } }, m.sessionToken);
    expect(new Date(r.updateInvoice.invoice.expiresAt).toISOString()).toBe(at);
    const read = await t.client.gql<{ invoice: { expiresAt: string } }>(`query($id: ID!) { invoice(id: $id) { expiresAt } }`, { id }, m.sessionToken);
    expect(new Date(read.invoice.expiresAt).toISOString()).toBe(at);
  });

  it('v2 PATCH: whole Unix seconds name the instant', async () => {
    const id = await create();
    const s = Math.floor(Date.now() / 1000) + 2 * 86_400;
    const r = await t.client.request('PATCH', `/v2/invoices/${id}`, { token: m.apiKey.secret, body: { expiresAt: s } });
    expect(r.status).toBe(200);
    expect(r.body.data.expiresAt).toBe(s);
  });
});
