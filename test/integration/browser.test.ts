/**
 * The browser pages in a real browser: headless Chromium (Debian's `chromium` package) driven by playwright-core.
 * GraphiQL on GET /graphql and the API reference on GET /docs load every script, style, font and worker from the
 * service itself: every request to another origin is blocked and recorded, and any such request fails the test (as
 * does a console error, e.g. a Content-Security-Policy refusal). GraphiQL runs a query and a subscription with the
 * Authorization header typed into its headers editor (the README's tour); /docs' "Try it out" calls the origin that
 * served the page (the app listens on a random port, not 4000).
 *
 * Needs Chromium at /usr/bin/chromium (`apt-get install chromium`; CHROMIUM_PATH overrides). Without it the browser
 * tests are skipped with a message, except under CI=1 (`.ci/run` installs it), where they fail.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { GRAPHIQL_CSP } from '../../src/http/graphiql.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { launchChromium, noteSkippedWithoutChromium, openPage, runBrowserTests } from '../helpers/browser.ts';

noteSkippedWithoutChromium('browser.test.ts');

let t: TestApp;
let merchant: Bootstrapped;
beforeAll(async () => {
  t = await startTestApp();
  merchant = await bootstrap(t.client);
});
afterAll(async () => {
  await t?.stop();
});

const createInvoice = async (name: string, amount: number, m: Bootstrapped = merchant) => {
  const r = await t.client.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds: [], customer: { name }, amount } });
  expect(r.status).toBe(201);
  return r.body.data as { id: string };
};

describe('/openapi.json for /docs', () => {
  it("names this service by a relative server, so /docs' Try it out calls the origin that served the page", async () => {
    const doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as { servers: unknown };
    expect(doc.servers).toEqual([{ url: '/', description: expect.any(String) }]);
  });
});

describe('GraphiQL assets over HTTP', () => {
  it('the page links only /graphql/assets/ files, under a Content-Security-Policy of this origin only', async () => {
    const res = await fetch(`${t.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe(GRAPHIQL_CSP);
    expect(GRAPHIQL_CSP).toContain("script-src 'self'");
    expect(GRAPHIQL_CSP).toContain("default-src 'none'");
    const html = await res.text();
    expect(html).not.toMatch(/https?:\/\/|unpkg|<script>/);
    const srcs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(srcs.sort()).toEqual(['/graphql/assets/favicon.ico', '/graphql/assets/graphiql.css', '/graphql/assets/graphiql.js', '/graphql/assets/start.js']);
  });

  it('each asset with its content type, a day of caching, gzip when accepted; unknown names and other methods refused', async () => {
    const types: Record<string, string> = {
      'start.js': 'text/javascript; charset=utf-8',
      'graphiql.js': 'text/javascript; charset=utf-8',
      'graphiql.css': 'text/css; charset=utf-8',
      'editor.worker.js': 'text/javascript; charset=utf-8',
      'json.worker.js': 'text/javascript; charset=utf-8',
      'graphql.worker.js': 'text/javascript; charset=utf-8',
      'favicon.ico': 'image/x-icon',
    };
    for (const [name, type] of Object.entries(types)) {
      // fetch asks for gzip and decompresses: the body read is the original.
      const res = await fetch(`${t.url}/graphql/assets/${name}`);
      expect([name, res.status, res.headers.get('content-type'), res.headers.get('cache-control'), res.headers.get('content-encoding'), res.headers.get('x-content-type-options')]).toEqual([
        name,
        200,
        type,
        'public, max-age=86400',
        'gzip',
        'nosniff',
      ]);
      const body = Buffer.from(await res.arrayBuffer());
      expect(body.byteLength, name).toBeGreaterThan(name === 'start.js' ? 100 : 10_000);
      const plain = await fetch(`${t.url}/graphql/assets/${name}`, { headers: { 'accept-encoding': 'identity' } });
      expect(plain.headers.get('content-encoding'), name).toBeNull();
      expect(Buffer.compare(Buffer.from(await plain.arrayBuffer()), body), `${name}: gzipped and plain bodies differ`).toBe(0);
    }
    for (const path of ['/graphql/assets/nope.js', '/graphql/assets/../../package.json', '/graphql/assets/constructor', '/graphql/assets/']) {
      const res = await fetch(`${t.url}${path}`);
      expect([path, res.status, await res.json()]).toEqual([path, 404, { code: 'NOT_FOUND', message: expect.any(String) }]);
    }
    const post = await fetch(`${t.url}/graphql/assets/graphiql.js`, { method: 'POST' });
    expect([post.status, post.headers.get('allow'), await post.json()]).toEqual([405, 'GET, HEAD', { code: 'METHOD_NOT_ALLOWED', message: 'Use GET.' }]);
  });
});

describe.skipIf(!runBrowserTests)('in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** A fresh browser context (its own storage) that lets through only the app's origin and records anything else. */
  async function open(path: string): Promise<{ page: Page; context: BrowserContext; foreign: string[]; problems: string[] }> {
    const opened = await openPage(browser, `${t.url}${path}`);
    // A page that loads its scripts elsewhere stops here, rather than at a timeout waiting for an editor.
    expect(opened.foreign, 'requests to other origins').toEqual([]);
    return opened;
  }

  /** Types the headers into GraphiQL's headers editor, as the README's tour says. */
  async function typeHeaders(page: Page, headers: Record<string, string>) {
    await page.getByText('Headers', { exact: true }).click();
    await page.locator('.graphiql-editor-tool .monaco-editor').last().click();
    await page.keyboard.insertText(JSON.stringify(headers));
  }

  /** The response pane's text, whitespace collapsed. */
  const responsePane = async (page: Page) => (await page.locator('.graphiql-response').innerText()).replace(/\s+/g, ' ');

  it('GraphiQL: runs a query with the Authorization typed into the headers editor, all from this origin', async () => {
    const invoice = await createInvoice('그래피퀄', 12_345);
    const query = `query { invoice(id: "${invoice.id}") { id status amount customer { name } } }`;
    const { page, context, foreign, problems } = await open(`/graphql?query=${encodeURIComponent(query)}`);
    await page.locator('.graphiql-query-editor .monaco-editor').waitFor({ timeout: 30_000 });
    await typeHeaders(page, { Authorization: `Bearer ${merchant.apiKey.secret}` });
    const answered = page.waitForResponse((r) => r.url() === `${t.url}/graphql` && r.request().method() === 'POST' && r.request().postData()?.includes(invoice.id) === true);
    await page.locator('.graphiql-execute-button').click();
    const response = await answered;
    expect(response.request().headers().authorization).toBe(`Bearer ${merchant.apiKey.secret}`);
    const expected = { data: { invoice: { id: invoice.id, status: 'PENDING', amount: 12_345, customer: { name: '그래피퀄' } } } };
    expect(await response.json()).toEqual(expected);
    await expect.poll(() => responsePane(page)).toContain(`"id": "${invoice.id}", "status": "PENDING", "amount": 12345, "customer": { "name": "그래피퀄" }`);
    expect(foreign, 'requests to other origins').toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('GraphiQL: a subscription with that header receives invoicePaid when the invoice is paid', async () => {
    const invoice = await createInvoice('구독창', 23_456);
    // From the workspace's last sequence: the payment is delivered however late the service starts the subscription.
    const { lastEventSequence } = await t.client.gql(`{ lastEventSequence }`, {}, merchant.apiKey.secret);
    const { page, context, foreign, problems } = await open(`/graphql?query=${encodeURIComponent(`subscription { invoicePaid(sinceSequence: "${lastEventSequence}") { id status amount } }`)}`);
    await page.locator('.graphiql-query-editor .monaco-editor').waitFor({ timeout: 30_000 });
    await typeHeaders(page, { Authorization: `Bearer ${merchant.apiKey.secret}` });
    // Over SSE: a GET of /graphql with Accept: text/event-stream, carrying the headers editor's headers.
    const subscribed = page.waitForRequest((r) => r.url().startsWith(`${t.url}/graphql?`) && r.headers().accept === 'text/event-stream');
    await page.locator('.graphiql-execute-button').click();
    const request = await subscribed;
    expect(request.headers().authorization).toBe(`Bearer ${merchant.apiKey.secret}`);
    // The stream has started, and GraphiQL shows a running subscription.
    expect((await request.response())?.headers()['content-type']).toMatch(/^text\/event-stream/);
    await expect.poll(() => page.locator('.graphiql-execute-button').getAttribute('aria-label')).toMatch(/^Stop/);
    expect((await t.client.request('POST', `/v1/invoices/${invoice.id}/mark-as-paid`, { token: merchant.apiKey.secret })).status).toBe(200);
    await expect.poll(() => responsePane(page), { timeout: 15_000 }).toContain(`"invoicePaid": { "id": "${invoice.id}", "status": "PAID", "amount": 23456 }`);
    expect(foreign, 'requests to other origins').toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("/docs: Swagger UI from this origin; 'Try it out' calls the origin that served the page, not localhost:4000", async () => {
    const reader = await bootstrap(t.client);
    const invoice = await createInvoice('문서', 34_567, reader);
    const { page, context, foreign, problems } = await open('/docs');
    await page.locator('.swagger-ui .opblock').first().waitFor({ timeout: 30_000 });
    expect(await page.locator('.swagger-ui .info .title').innerText()).toContain('Bank-transfer payments API');
    // Authorize with the API key, then GET /v2/invoices: Try it out, Execute.
    await page.locator('.btn.authorize').first().click();
    const apiKeyForm = page.locator('.modal-ux .auth-container').first();
    await apiKeyForm.locator('input').fill(reader.apiKey.secret);
    await apiKeyForm.locator('button.authorize').click();
    await page.locator('.modal-ux .btn-done').first().click();
    const op = page.locator('[id$="-v2ListInvoices"]');
    await op.locator('.opblock-summary').click();
    await op.locator('.try-out__btn').click();
    const sent = page.waitForRequest((r) => new URL(r.url()).pathname === '/v2/invoices');
    await op.locator('.execute').click();
    const request = await sent;
    expect(request.url()).toBe(`${t.url}/v2/invoices`);
    expect(new URL(request.url()).port).not.toBe('4000');
    expect(request.headers().authorization).toBe(`Bearer ${reader.apiKey.secret}`);
    const response = await request.response();
    expect(response?.status()).toBe(200);
    expect(await response?.json()).toMatchObject({ code: '10001', totalItems: 1, data: [{ id: invoice.id }] });
    await op.locator('.live-responses-table').waitFor();
    expect(await op.locator('.request-url').innerText()).toContain(`${t.url}/v2/invoices`);
    expect(await op.locator('.live-responses-table tbody .response-col_status').first().innerText()).toBe('200');
    expect(foreign, 'requests to other origins').toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
