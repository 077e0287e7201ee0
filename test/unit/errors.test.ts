import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  bankNotificationBody,
  DomainError,
  ERROR_TABLE,
  graphQLErrorBody,
  isRefusal,
  oauthErrorBody,
  publicCode,
  renderV1,
  renderV2,
  v1Envelope,
  v2Envelope,
  type ErrorCode,
} from '../../src/domain/errors.ts';

// The spec's v1 error table: HTTP status per v1 code.
const SPEC_V1: Record<string, number> = {
  NOT_AUTHORIZED: 401,
  INSUFFICIENT_PERMISSIONS: 403,
  BANK_ACCOUNT_NOT_VERIFIED: 403,
  INVOICE_ALREADY_PAID: 403,
  LIMIT_EXCEEDS_MAXIMUM: 403,
  BANK_ACCOUNT_NOT_FOUND: 404,
  INVOICE_NOT_FOUND: 404,
  TRANSACTION_NOT_FOUND: 404,
  BUSINESS_INFO_NOT_REGISTERED: 404,
  INVOICE_ALREADY_EXISTS: 409,
  INVALID_CUSTOMER_NAME: 422,
  INVALID_EMAIL: 422,
  INVALID_PHONE_NUMBER: 422,
  INVALID_AMOUNT: 422,
  INVALID_DURATION: 422,
  EXPIRE_AFTER_EXCEEDS_MAXIMUM: 422,
  METADATA_KEY_VALUE_PAIR_LIMIT_EXCEEDED: 422,
  METADATA_KEY_LENGTH_LIMIT_EXCEEDED: 422,
  METADATA_VALUE_LENGTH_LIMIT_EXCEEDED: 422,
  INVALID_OFFSET: 422,
  INVALID_LIMIT: 422,
  INVALID_DATE_RANGE_FORMAT: 422,
  INVALID_CASH_RECEIPT_IDENTIFIER: 422,
  INVALID_CASH_RECEIPT_AMOUNT: 422,
  BAD_REQUEST: 400,
  AGENCY_API_FAILED: 500,
  INTERNAL_SERVER_ERROR: 500,
};

// The spec's v2 error table: HTTP status per v2 code.
const SPEC_V2: Record<string, number> = {
  '290006': 401, '290007': 403, '80002': 403, '20014': 404, '20015': 404, '220010': 409, '220011': 409, '220022': 409,
  '220023': 409, '240005': 409, '240006': 409, '240007': 409, '240020': 409, '30007': 422, '30009': 422, '220001': 422,
  '220018': 422, '220020': 422, '240001': 422, '240002': 422, '240003': 422, '240004': 422, '240008': 422, '240010': 422,
  '240018': 422, '240009': 502,
};

const codes = Object.keys(ERROR_TABLE) as ErrorCode[];

describe('one error table, three renderings', () => {
  it('every v1 code of the spec is produced by some domain code, with the spec status', () => {
    for (const [v1, status] of Object.entries(SPEC_V1)) {
      const producers = codes.filter((c) => ERROR_TABLE[c].v1.code === v1);
      expect(producers.length, `no domain code renders v1 ${v1}`).toBeGreaterThan(0);
      for (const c of producers) expect(ERROR_TABLE[c].v1.status, `${c} → ${v1}`).toBe(status);
    }
  });

  it('every v2 code of the spec is produced by some domain code, with the spec status', () => {
    for (const [v2, status] of Object.entries(SPEC_V2)) {
      const producers = codes.filter((c) => ERROR_TABLE[c].v2.code === v2);
      expect(producers.length, `no domain code renders v2 ${v2}`).toBeGreaterThan(0);
      for (const c of producers) expect(ERROR_TABLE[c].v2.status, `${c} → ${v2}`).toBe(status);
    }
  });

  it('the v2 invoice field codes 220002-220009 are all used', () => {
    for (let n = 220002; n <= 220009; n++) expect(codes.some((c) => ERROR_TABLE[c].v2.code === String(n)), String(n)).toBe(true);
  });

  it('v2 codes are numeric strings; v1 codes are upper snake case', () => {
    for (const c of codes) {
      expect(ERROR_TABLE[c].v2.code).toMatch(/^\d+$/);
      expect(ERROR_TABLE[c].v1.code).toMatch(/^[A-Z_]+$/);
    }
  });

  it('renderV1 gives {code, data: null}; renderV2 carries data', () => {
    expect(renderV1('INVOICE_ALREADY_EXISTS')).toEqual({ status: 409, body: { code: 'INVOICE_ALREADY_EXISTS', data: null } });
    expect(renderV2('INVOICE_ALREADY_EXISTS', { invoiceId: 'ivc_x', number: 3 })).toEqual({ status: 409, body: { code: '220010', data: { invoiceId: 'ivc_x', number: 3 } } });
    expect(renderV1('READ_ONLY_KEY')).toEqual({ status: 403, body: { code: 'INSUFFICIENT_PERMISSIONS', data: null } });
    expect(renderV2('READ_ONLY_KEY').body.code).toBe('290007');
    expect(renderV2('OUT_OF_SCOPE')).toEqual({ status: 403, body: { code: '80002', data: null } });
  });
});

// ───────────────────────────── every face's rendering ─────────────────────────────

const OAUTH_ERRORS = ['invalid_request', 'invalid_client', 'invalid_grant', 'unsupported_grant_type', 'server_error', 'temporarily_unavailable'];

describe('our own v2 codes (300xx, not in the spec)', () => {
  it('each names one domain code: no two refusals share a number by accident', () => {
    const byV2 = new Map<string, string[]>();
    // The OAUTH_* codes answer in the OAuth body only; their v2 rendering is the generic 30007.
    for (const [code, row] of Object.entries(ERROR_TABLE)) if (row.v2.code.startsWith('300') && !code.startsWith('OAUTH_')) byV2.set(row.v2.code, [...(byV2.get(row.v2.code) ?? []), code]);
    expect([...byV2.entries()].filter(([, codes]) => codes.length > 1)).toEqual([]);
    expect(byV2.size).toBeGreaterThan(15);
  });
});

describe('every code renders in every face (one renderer per face over the table)', () => {
  it.each(codes)('%s', (code) => {
    const e = new DomainError(code, { path: ['customer', 'name'], data: { invoiceId: 'ivc_x' } });
    const shown = publicCode(code);
    const plain = shown === code;
    const row = ERROR_TABLE[shown];
    expect(v1Envelope(e)).toEqual({ status: ERROR_TABLE[code].v1.status, body: { code: ERROR_TABLE[code].v1.code, data: null } });
    expect(v2Envelope(e, { invoiceId: 'ivc_x' })).toEqual({ status: row.v2.status, body: { code: row.v2.code, data: { invoiceId: 'ivc_x' } } });
    expect(graphQLErrorBody(e)).toEqual({
      status: row.v1.status,
      body: { message: row.message, extensions: plain ? { code, field: ['customer', 'name'], data: { invoiceId: 'ivc_x' } } : { code: shown } },
    });
    expect(bankNotificationBody(e)).toEqual({ status: row.v1.status, body: { code: row.v1.code, message: row.message, ...(plain ? { field: 'customer.name' } : {}) } });
    const oauth = oauthErrorBody(e);
    expect(OAUTH_ERRORS).toContain(oauth.body.error);
    expect(oauth.body).toEqual(oauth.body.error === 'server_error' ? { error: 'server_error' } : { error: oauth.body.error, error_description: row.message });
    expect([400, 401, 405, 413, 429, 500, 503]).toContain(oauth.status);
  });

  it("another workspace's invoice, deposit or receipt renders exactly as a missing one in every face but v1", () => {
    for (const [foreign, missing] of [['FOREIGN_INVOICE', 'INVOICE_NOT_FOUND'], ['FOREIGN_TRANSACTION', 'TRANSACTION_NOT_FOUND'], ['FOREIGN_CASH_RECEIPT', 'CASH_RECEIPT_NOT_FOUND']] as const) {
      // Even a message or details it was thrown with stay out of it.
      const e = new DomainError(foreign, { message: 'owned by wsp_other', data: { workspaceId: 'wsp_other' } });
      expect(graphQLErrorBody(e)).toEqual(graphQLErrorBody(missing));
      expect(graphQLErrorBody(e)).toEqual({ status: 404, body: { message: ERROR_TABLE[missing].message, extensions: { code: missing } } });
      expect(v2Envelope(e)).toEqual(v2Envelope(missing));
      expect(bankNotificationBody(e)).toEqual(bankNotificationBody(missing));
      expect(oauthErrorBody(e)).toEqual(oauthErrorBody(missing));
      expect(v1Envelope(e)).toEqual({ status: 403, body: { code: 'INSUFFICIENT_PERMISSIONS', data: null } });
    }
  });

  it('the OAuth endpoints answer RFC 6749 codes from the table', () => {
    const body = (e: Parameters<typeof oauthErrorBody>[0]) => oauthErrorBody(e);
    expect(body(new DomainError('OAUTH_INVALID_REQUEST', { message: 'code is required.' }))).toEqual({ status: 400, body: { error: 'invalid_request', error_description: 'code is required.' } });
    expect(body('OAUTH_INVALID_CLIENT')).toEqual({ status: 401, body: { error: 'invalid_client', error_description: 'Client authentication failed.' } });
    expect(body('OAUTH_INVALID_GRANT').body.error).toBe('invalid_grant');
    expect(body('OAUTH_UNSUPPORTED_GRANT_TYPE').body.error).toBe('unsupported_grant_type');
    expect(body('PAYLOAD_TOO_LARGE')).toEqual({ status: 413, body: { error: 'invalid_request', error_description: ERROR_TABLE.PAYLOAD_TOO_LARGE.message } });
    expect(body('METHOD_NOT_ALLOWED').status).toBe(405);
    expect(body('RATE_LIMITED')).toEqual({ status: 429, body: { error: 'temporarily_unavailable', error_description: ERROR_TABLE.RATE_LIMITED.message } });
    expect(body('SERVICE_UNAVAILABLE')).toEqual({ status: 503, body: { error: 'temporarily_unavailable', error_description: ERROR_TABLE.SERVICE_UNAVAILABLE.message } });
    expect(body('INTERNAL_SERVER_ERROR')).toEqual({ status: 500, body: { error: 'server_error' } });
    expect(body('VALIDATION_FAILED')).toEqual({ status: 400, body: { error: 'invalid_request', error_description: ERROR_TABLE.VALIDATION_FAILED.message } });
  });

  it('a refusal is a 4xx code; the service’s or a dependency’s failure is not', () => {
    expect(codes.filter((c) => !isRefusal(c))).toEqual(['AGENCY_API_FAILED', 'AGENCY_EMAIL_FAILED', 'SHOP_API_FAILED', 'AGGREGATOR_API_FAILED', 'SERVICE_UNAVAILABLE', 'INTERNAL_SERVER_ERROR']);
  });
});

// ───────────────────────────── no face builds an error body by hand ─────────────────────────────

/** The faces' sources: everything that answers HTTP (src/http, rest-compat but its OpenAPI document) and the GraphQL face. */
function faceSources(): string[] {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const walk = (dir: string): string[] =>
    readdirSync(join(root, dir), { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? walk(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : []));
  return [...walk('src/http'), ...walk('src/graphql'), ...walk('rest-compat').filter((f) => !f.startsWith(join('rest-compat', 'openapi')))];
}

/** The renderers: the table's pure functions, GraphQL's errors from them (and GraphQL's own refusals), the HTTP responses. */
const RENDERERS = new Set(['src/graphql/common/errors.ts', 'rest-compat/shared/face-errors.ts'].map((p) => join(...p.split('/'))));

/** What a hand-built error body looks like: its keys with a literal value, or the table read directly. */
const HAND_BUILT: [string, RegExp][] = [
  ['a GraphQL error body', /\bextensions\s*:\s*\{|\berrors\s*:\s*\[/],
  ['a literal error code', /\bcode\s*:\s*['"`](?!(?:OK|CREATED|DELETED)['"`])[A-Za-z_0-9]+['"`]/],
  ['a literal OAuth error', /\berror\s*:\s*['"`][a-z_]+['"`]/],
  ['a {code, message} body', /\{\s*code\s*,\s*message\b/],
  ['the error table read directly', /\bERROR_TABLE\b/],
  ['a literal error status', /\b(?:json|jsonResponse|oauthJson)\(\s*[45]\d\d\s*,\s*\{\s*(?:code|errors?|message)\b|\bstatus\s*:\s*[45]\d\d\b/],
];

/** Source without comments (a comment may describe a body; only code builds one). */
const code = (src: string) => src.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');

describe('no face builds an error body by hand', () => {
  it('the checks find hand-built bodies (they are not vacuous)', () => {
    const offending = [
      `return json(404, { code: 'NOT_FOUND', message: 'No such endpoint.' });`,
      `return jsonResponse(status, { errors: [{ message: e.message, extensions: { code: e.code } }] });`,
      `return oauthJson(500, { error: 'server_error' });`,
      'const body = JSON.stringify({ code, message });',
      'const { status, code } = ERROR_TABLE[e.code].v1;',
    ];
    for (const line of offending) expect(HAND_BUILT.filter(([, re]) => re.test(code(line))).length, line).toBeGreaterThan(0);
    expect(HAND_BUILT.filter(([, re]) => re.test(code(`// { code: 'NOT_FOUND' } and {errors: [...]} in a comment\nreturn json(200, { code: 'OK', data });`)))).toEqual([]);
  });

  it('every face renders its errors through its renderer: no error body, code or status is written anywhere else', () => {
    const root = fileURLToPath(new URL('../../', import.meta.url));
    const files = faceSources();
    expect(files.length).toBeGreaterThan(20);
    const found = files
      .filter((f) => !RENDERERS.has(f))
      .flatMap((f) =>
        code(readFileSync(join(root, f), 'utf8'))
          .split('\n')
          .flatMap((line, i) => HAND_BUILT.filter(([, re]) => re.test(line)).map(([what]) => `${f}:${i + 1} ${what}: ${line.trim().slice(0, 140)}`)),
      );
    expect(found).toEqual([]);
  });
});
