/**
 * The machine-readable API description: GET /openapi.json equals the committed schema/openapi.json (run
 * `npm run openapi:write` after a change), its operations are the entries of the route tables and all are served,
 * it lints clean with Redocly, and /docs renders it from files the service serves itself (no CDN).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiJson } from '../../rest-compat/openapi/document.ts';
import { OPERATIONS } from '../../rest-compat/openapi/operations.ts';
import { v1Routes } from '../../rest-compat/v1/routes.ts';
import { v2Routes } from '../../rest-compat/v2/routes.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.stop();
});

const committedPath = new URL('../../schema/openapi.json', import.meta.url);

describe('GET /openapi.json', () => {
  it('is the committed schema/openapi.json, byte for byte (run `npm run openapi:write` after a change)', async () => {
    const res = await fetch(`${t.url}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const served = await res.text();
    expect(served).toBe(openApiJson());
    expect(readFileSync(committedPath, 'utf8')).toBe(served);
  });

  it('is OpenAPI 3.1 with info.version 1.2.0, and its operations are the entries of the route tables the routers serve', async () => {
    const doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as {
      openapi: string;
      info: { version: string };
      paths: Record<string, Record<string, unknown>>;
      webhooks: Record<string, unknown>;
      components: { securitySchemes: Record<string, { type: string; scheme: string }> };
    };
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.info.version).toBe('1.2.0');
    const operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    const tables = OPERATIONS.map((o) => `${o.method.toUpperCase()} ${o.path}`);
    expect(operations.sort()).toEqual([...tables].sort());
    const routers = [...v1Routes.list(), ...v2Routes.list()].map((r) => `${r.method} ${r.pattern.replace(/:(\w+)/g, '{$1}')}`);
    expect(routers.sort()).toEqual(tables.filter((o) => o.includes(' /v1/') || (o.includes(' /v2/') && !o.includes('/oauth-apps/'))).sort());
    expect(operations.length).toBeGreaterThanOrEqual(22);
    expect(Object.keys(doc.webhooks).sort()).toEqual([
      'invoice.canceled',
      'invoice.created',
      'invoice.deleted',
      'invoice.paid',
      'invoice.updated',
      'receipt.failed',
      'receipt.issued',
      'shop_order.attention_needed',
      'shop_order.confirmation_failed',
      'shop_order.confirmed',
      'transaction.received',
    ]);
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.securitySchemes.oauthClient).toMatchObject({ type: 'http', scheme: 'basic' });
  });

  it('every documented operation is served: without credentials it is refused (400/401), never an unknown route or method', async () => {
    const doc = JSON.parse(openApiJson()) as { paths: Record<string, Record<string, unknown>> };
    for (const [template, ops] of Object.entries(doc.paths)) {
      for (const method of Object.keys(ops)) {
        const path = template.replace('{id}', 'ivc_000000000000000000000000');
        const res = await fetch(`${t.url}${path}`, { method: method.toUpperCase() });
        expect({ operation: `${method} ${template}`, status: res.status }).toEqual({ operation: `${method} ${template}`, status: expect.toSatisfy((s: number) => s === 400 || s === 401) });
      }
    }
  });

  it('renders each status of an operation with exactly its error codes (from the error table)', () => {
    const doc = JSON.parse(openApiJson());
    const create = doc.paths['/v1/invoices'].post.responses;
    expect(create['422'].content['application/json'].schema.properties.code.enum).toContain('INVALID_CUSTOMER_NAME');
    expect(create['409'].content['application/json'].schema.properties.code.enum).toEqual(['INVOICE_ALREADY_EXISTS', 'IDEMPOTENCY_KEY_IN_PROGRESS', 'IDEMPOTENCY_ANSWER_UNREADABLE']);
    expect(create['422'].content['application/json'].schema.properties.code.enum).toContain('IDEMPOTENCY_KEY_REUSED');
    expect(create['201'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/V1InvoiceCreated' });
    const patch409 = doc.paths['/v2/invoices/{id}'].patch.responses['409'].content['application/json'].schema;
    expect(JSON.stringify(patch409)).toContain('#/components/schemas/V2ConflictData');
    expect(doc.paths['/v2/oauth-apps/revoke'].post.responses['401'].content['application/json'].schema.properties.error.enum).toEqual(['invalid_client']);
  });

  it('describes request bodies with the schemas that validate them (POST /v1/invoices: the spec\'s fields, in order)', () => {
    const doc = JSON.parse(openApiJson());
    const body = doc.components.schemas.CreateInvoiceRequest;
    expect(Object.keys(body.properties)).toEqual(['bankAccountIds', 'customer', 'amount', 'cashReceipt', 'expireAfter', 'metadata']);
    expect(body.required).toEqual(['bankAccountIds', 'customer', 'amount']);
    expect(body.properties.customer.properties.name).toMatchObject({ type: 'string', minLength: 1, maxLength: 16 });
    expect(body.properties.metadata).toMatchObject({ maxProperties: 5, propertyNames: { maxLength: 64 }, additionalProperties: { maxLength: 1024 } });
  });

  it('lints clean with Redocly (0 errors, 0 warnings)', () => {
    let cli: string;
    try {
      cli = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');
    } catch {
      console.warn('@redocly/cli is not installed: lint skipped');
      return;
    }
    if (!existsSync(cli)) return;
    const run = spawnSync(process.execPath, [cli, 'lint', committedPath.pathname, '--format=stylish'], {
      encoding: 'utf8',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
      timeout: 60_000,
    });
    const out = `${run.stdout}${run.stderr}`;
    expect(run.status, out).toBe(0);
    expect(out).toContain('Your API description is valid');
    expect(out).not.toMatch(/You have \d+ warning/);
  });
});

describe('GET /docs', () => {
  it('is an API reference page rendering /openapi.json from assets the service serves (no CDN)', async () => {
    const res = await fetch(`${t.url}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await res.text();
    expect(html).not.toMatch(/https?:\/\//);
    const srcs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(srcs).toContain('/docs/assets/swagger-ui-bundle.js');
    for (const src of srcs) {
      const asset = await fetch(`${t.url}${src}`);
      expect(asset.status, src).toBe(200);
      expect((await asset.arrayBuffer()).byteLength, src).toBeGreaterThan(0);
    }
    const init = await (await fetch(`${t.url}/docs/reference.js`)).text();
    expect(init).toContain("url: '/openapi.json'");
    expect((await fetch(`${t.url}/docs/assets/../../package.json`)).status).toBe(404);
  });

  it('answers 404 for asset names that are not files, built-in object keys included (they were read from disk: 500)', async () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'nope.js', '']) {
      const res = await fetch(`${t.url}/docs/assets/${name}`);
      expect({ name, status: res.status, body: await res.json() }).toEqual({ name, status: 404, body: { code: 'NOT_FOUND', message: 'No such file.' } });
    }
  });

  it('sends a Content-Security-Policy that allows this origin only, and is never framed', async () => {
    const res = await fetch(`${t.url}/docs`);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/https?:|\*/);
  });
});
