/**
 * Checks responses against /openapi.json: given method, path, status and body, the body must validate (JSON Schema
 * 2020-12, ajv) against the document's schema for that operation and status, and the status must be documented.
 * startTestApp() installs it on its ServiceClient, so every REST response the integration tests receive is checked;
 * responses of paths the document does not describe (GraphQL, health, unknown routes) are counted as skipped.
 */
import { appendFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { openApiJson } from '../../rest-compat/openapi/document.ts';

type Json = Record<string, any>;

const DOC_ID = 'https://banktransfer.local/openapi.json';
let ajv: Ajv2020 | null = null;
let doc: Json | null = null;
let routes: { regex: RegExp; template: string }[] = [];
const validators = new Map<string, ValidateFunction>();

/** Counts for this test process (see OPENAPI_CHECK_REPORT). */
export const openApiCheckCounts = { validated: 0, skipped: 0 };

function load() {
  if (ajv) return;
  doc = JSON.parse(openApiJson()) as Json;
  ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema({ ...doc, $id: DOC_ID });
  routes = Object.keys(doc.paths).map((template) => ({
    template,
    regex: new RegExp('^' + template.replace(/\{[^}]+\}/g, '[^/]+') + '/?$'),
  }));
}

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

export class OpenApiMismatch extends Error {}

/**
 * Validates one response. Returns false when the document does not describe the path and method (not checked);
 * throws OpenApiMismatch when it does and the status or body does not fit.
 */
export function checkResponse(method: string, pathWithQuery: string, status: number, body: unknown): boolean {
  load();
  const path = pathWithQuery.split('?')[0];
  const m = method.toLowerCase();
  const route = routes.find((r) => r.regex.test(path) && doc!.paths[r.template][m]);
  if (!route) {
    openApiCheckCounts.skipped++;
    return false;
  }
  const responses = doc!.paths[route.template][m].responses as Json;
  const key = String(status) in responses ? String(status) : 'default' in responses ? 'default' : null;
  if (!key) throw new OpenApiMismatch(`${method} ${route.template}: status ${status} is not in /openapi.json (documented: ${Object.keys(responses).join(', ')}). Body: ${JSON.stringify(body).slice(0, 500)}`);
  const schemaRef = `${DOC_ID}#/${pointer('paths', route.template, m, 'responses', key, 'content', 'application/json', 'schema')}`;
  let validate = validators.get(schemaRef);
  if (!validate) {
    validate = ajv!.compile({ $ref: schemaRef });
    validators.set(schemaRef, validate);
  }
  if (!validate(body)) {
    const errors = (validate.errors ?? []).slice(0, 8).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
    throw new OpenApiMismatch(`${method} ${route.template} → ${status}: the body does not match /openapi.json:\n  ${errors.join('\n  ')}\nBody: ${JSON.stringify(body).slice(0, 1500)}`);
  }
  openApiCheckCounts.validated++;
  return true;
}

/** Validates a webhook payload against the `webhooks` section for its `type` (throws OpenApiMismatch). */
export function checkWebhookPayload(payload: { type?: string }): void {
  load();
  const type = String(payload?.type);
  if (!doc!.webhooks?.[type]) throw new OpenApiMismatch(`webhook ${type} is not in /openapi.json`);
  const schemaRef = `${DOC_ID}#/${pointer('webhooks', type, 'post', 'requestBody', 'content', 'application/json', 'schema')}`;
  let validate = validators.get(schemaRef);
  if (!validate) validators.set(schemaRef, (validate = ajv!.compile({ $ref: schemaRef })));
  if (!validate(payload)) {
    const errors = (validate.errors ?? []).slice(0, 8).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
    throw new OpenApiMismatch(`webhook ${type}: the payload does not match /openapi.json:\n  ${errors.join('\n  ')}\nPayload: ${JSON.stringify(payload).slice(0, 1500)}`);
  }
}

/** Appends the counts since the last report to the file named by OPENAPI_CHECK_REPORT (one JSON line per test app). */
export function reportOpenApiCheckCounts(label: string): void {
  const file = process.env.OPENAPI_CHECK_REPORT;
  if (file) appendFileSync(file, JSON.stringify({ label, ...openApiCheckCounts }) + '\n');
  openApiCheckCounts.validated = 0;
  openApiCheckCounts.skipped = 0;
}
