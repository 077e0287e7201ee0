/**
 * /api: the GraphQL operations as REST routes (sofa-api) through the same schema and context as /graphql — an API
 * key reads and writes, refusals are HTTP errors with the domain code, its own OpenAPI document is served, and sofa's
 * subscription webhooks (which would POST anywhere) are not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
let b: Bootstrapped;
beforeAll(async () => {
  t = await startTestApp({ socket: false });
  b = await bootstrap(t.client);
});
afterAll(async () => {
  await t?.stop();
});

const api = (method: string, path: string, token: string | null, body?: unknown) =>
  t.fetch(`${t.url}/api${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });

describe('/api (sofa-api over the GraphQL schema)', () => {
  it('a write: POST /api/create-invoice creates an invoice with an API key (the same rules as GraphQL)', async () => {
    const res = await api('POST', '/create-invoice', b.apiKey.secret, { input: { bankAccountIds: [], customer: { name: '소파' }, amount: 4321 } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { invoice: { id: string; amount: number; status: string; customer: { name: string } } };
    expect(body.invoice).toMatchObject({ amount: 4321, status: 'PENDING', customer: { name: '소파' } });
    expect(body.invoice.id).toMatch(/^ivc_[a-z0-9]{24}$/);

    // The same invoice is visible through v1 with the same key.
    const v1 = await t.client.request('GET', `/v1/invoices/${body.invoice.id}`, { token: b.apiKey.secret });
    expect(v1.status).toBe(200);
  });

  it('a read: GET /api/invoice/{id} and GET /api/invoice-page return what GraphQL returns', async () => {
    const created = (await (await api('POST', '/create-invoice', b.apiKey.secret, { input: { bankAccountIds: [], customer: { name: '읽기' }, amount: 999 } })).json()) as {
      invoice: { id: string };
    };
    const one = await api('GET', `/invoice/${created.invoice.id}`, b.apiKey.secret);
    expect(one.status).toBe(200);
    expect(await one.json()).toMatchObject({ id: created.invoice.id, amount: 999, status: 'PENDING' });

    const page = await api('GET', '/invoice-page?offset=0&limit=10', b.apiKey.secret);
    expect(page.status).toBe(200);
    const body = (await page.json()) as { totalItems: number; items: { id: string }[] };
    expect(body.items.map((i) => i.id)).toContain(created.invoice.id);
    expect(body.totalItems).toBeGreaterThanOrEqual(2);
  });

  it('refusals are HTTP errors with the domain code: no key 401, a conflict 409, a bad field 422 with its path', async () => {
    const anonymous = await api('GET', '/invoice-page?offset=0&limit=10', null);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ errors: [{ extensions: { code: 'UNAUTHENTICATED' } }] });

    const input = { bankAccountIds: [], customer: { name: '중복' }, amount: 777 };
    expect((await api('POST', '/create-invoice', b.apiKey.secret, { input })).status).toBe(200);
    const again = await api('POST', '/create-invoice', b.apiKey.secret, { input });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ errors: [{ extensions: { code: 'INVOICE_ALREADY_EXISTS' } }] });

    const bad = await api('POST', '/create-invoice', b.apiKey.secret, { input: { ...input, customer: { name: '이름 공백' } } });
    expect(bad.status).toBe(422);
    expect(await bad.json()).toMatchObject({ errors: [{ extensions: { code: 'INVALID_CUSTOMER_NAME', field: ['customer', 'name'] } }] });
  });

  it('serves its own OpenAPI document at /api/openapi.json, without the subscription-webhook routes (which are refused)', async () => {
    const res = await t.fetch(`${t.url}/api/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { info: { version: string }; servers: { url: string }[]; paths: Record<string, Record<string, unknown>> };
    expect(doc.info.version).toBe('1.2.0');
    expect(doc.servers).toEqual([{ url: '/api' }]);
    expect(doc.paths['/create-invoice']?.post).toBeDefined();
    expect(doc.paths['/invoice-page']?.get).toBeDefined();
    // GET /webhook/{id} is the webhook query; sofa's subscription routes are gone.
    expect(Object.keys(doc.paths['/webhook/{id}'] ?? {})).toEqual(['get']);
    expect(doc.paths['/webhook']).toBeUndefined();

    const hook = await api('POST', '/webhook', b.apiKey.secret, { subscription: 'invoicePaid', url: 'http://169.254.169.254/' });
    expect(hook.status).toBe(404);
  });
});
