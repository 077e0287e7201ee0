/**
 * Refusals are not server errors. A wrong password, a not-found, a validation failure — on GraphQL (HTTP and
 * WebSocket), /api, v1, v2, bank notifications and OAuth alike — is logged at info with the request id (the
 * `x-request-id` the caller sent, echoed), never at error: anyone could otherwise flood the error log and its alerts.
 * A genuinely unexpected error (here: the clock throws) is still logged at error, with the request id and the error's
 * stack, and the caller sees it masked.
 */
import { Writable } from 'node:stream';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'graphql-ws';
import pino from 'pino';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, ServiceClient, type Bootstrapped } from '../../src/cli/client.ts';
import { loadConfig } from '../../src/config/config.ts';
import type { Clock } from '../../src/domain/clock.ts';
import { buildApp, type App } from '../../src/http/app.ts';
import { dbLabel, freshDatabase, type TestDatabase } from '../helpers/app.ts';

interface Line {
  level: number;
  msg: string;
  requestId?: string;
  code?: string;
  err?: { message: string; stack: string };
  [k: string]: unknown;
}

const INFO = 30;
const ERROR = 50;

let app: App;
let url: string;
let fresh: TestDatabase;
let owner: Bootstrapped;
let other: Bootstrapped;
let otherInvoice: string;
let oauthClient: { id: string; secret: string };
const lines: Line[] = [];
/**
 * The clock every rule reads; broken, it throws what no rule expects: everywhere (so already while the credential is
 * checked, before a face runs) or only inside the operation (the credential is checked first).
 */
let clockBroken: 'no' | 'everywhere' | 'in the operation' = 'no';
const clock: Clock = {
  now() {
    if (clockBroken === 'everywhere' || (clockBroken === 'in the operation' && !new Error().stack?.includes('resolvePrincipal'))) throw new TypeError('the clock broke');
    return new Date();
  },
};

let n = 0;
/** A request with its own x-request-id; the answer and that id. */
async function call(method: string, path: string, opts: { token?: string; json?: unknown; form?: Record<string, string>; basic?: string; accept?: string } = {}) {
  const requestId = `errlog-${++n}`;
  const headers: Record<string, string> = { 'x-request-id': requestId, accept: opts.accept ?? 'application/json' };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.basic) headers.authorization = opts.basic;
  let body: string | undefined;
  if (opts.json !== undefined) (headers['content-type'] = 'application/json'), (body = JSON.stringify(opts.json));
  if (opts.form) (headers['content-type'] = 'application/x-www-form-urlencoded'), (body = new URLSearchParams(opts.form).toString());
  const res = await fetch(url + path, { method, headers, body });
  const text = await res.text();
  expect(res.headers.get('x-request-id'), `${method} ${path} echoes the request id`).toBe(requestId);
  return { status: res.status, body: JSON.parse(text), text, requestId };
}

const gql = (query: string, variables: Record<string, unknown> = {}, token?: string) => call('POST', '/graphql', { token, json: { query, variables } });

/** The lines of one request. */
const of = (requestId: string) => lines.filter((l) => l.requestId === requestId);

/** The request was refused: its lines say so at info with its code, and none of them is at error (or warn). */
function expectRefusalLogged(requestId: string, code: string) {
  const mine = of(requestId);
  expect(mine.filter((l) => l.level >= 40), `${requestId}: nothing at warn or error`).toEqual([]);
  expect(mine.filter((l) => l.msg === 'request refused'), `${requestId}: one refusal line at info`).toEqual([expect.objectContaining({ level: INFO, requestId, code })]);
}

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _enc, cb) {
      for (const l of chunk.toString().split('\n')) if (l.trim()) lines.push(JSON.parse(l));
      cb();
    },
  });
  fresh = await freshDatabase();
  // No background workers: they read the clock too, and their failures are not a request's.
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: mkdtempSync(join(tmpdir(), 'errlog-')), LOG_LEVEL: 'trace', AGENCY_SIM_DELAY_MS: '0', RATE_LIMIT_PER_SECOND: '0', WORKERS: 'false' });
  app = await buildApp(config, { database: fresh.database, clock, logger: pino({ level: 'trace' }, sink) });
  url = (await app.start()).url;
  const client = new ServiceClient(url);
  [owner, other] = await Promise.all([bootstrap(client), bootstrap(client)]);
  const created = await client.request('POST', '/v1/invoices', { token: other.apiKey.secret, body: { bankAccountIds: [], customer: { name: '남의것' }, amount: 4_321 } });
  otherInvoice = created.body.data.id;
  const created2 = await client.gql(`mutation($i: CreateOAuthAppInput!) { createOAuthApp(input: $i) { app { id } clientSecret } }`, { i: { name: 'LogApp', redirectUris: ['https://log.example/cb'] } }, owner.sessionToken);
  oauthClient = { id: created2.createOAuthApp.app.id, secret: created2.createOAuthApp.clientSecret };
}, 60_000);

afterAll(async () => {
  await app?.stop({ graceMs: 100 });
  await fresh?.drop();
});

describe(`refusals are logged at info with the request id, on every face (${dbLabel})`, () => {
  it('GraphQL: a wrong password, a not-found, a validation failure, a document that does not validate, a variable that does not coerce', async () => {
    const wrongPassword = `${owner.password}-wrong`;
    const logIn = await gql(`mutation($i: LogInInput!) { logIn(input: $i) { token } }`, { i: { email: owner.email, password: wrongPassword } });
    expect({ status: logIn.status, code: logIn.body.errors[0].extensions.code, data: logIn.body.data }).toEqual({ status: 401, code: 'INVALID_CREDENTIALS', data: null });
    expectRefusalLogged(logIn.requestId, 'INVALID_CREDENTIALS');
    // The refusal line says what was refused, not what was sent.
    expect(lines.filter((l) => JSON.stringify(l).includes(wrongPassword))).toEqual([]);

    const foreign = await gql(`query($id: ID!) { invoice(id: $id) { id } }`, { id: otherInvoice }, owner.apiKey.secret);
    expect({ status: foreign.status, code: foreign.body.errors[0].extensions.code }).toEqual({ status: 404, code: 'INVOICE_NOT_FOUND' });
    expectRefusalLogged(foreign.requestId, 'FOREIGN_INVOICE');

    const signUp = await gql(`mutation($i: SignUpInput!) { signUp(input: $i) { token } }`, { i: { email: 'not-an-email', password: 'long-enough-password', name: 'X' } });
    expect({ status: signUp.status, code: signUp.body.errors[0].extensions.code }).toEqual({ status: 422, code: 'VALIDATION_FAILED' });
    expectRefusalLogged(signUp.requestId, 'VALIDATION_FAILED');

    const invalid = await gql(`{ invoicePage(offset: 0, limit: 1) { noSuchField } }`, {}, owner.apiKey.secret);
    expect(invalid.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expectRefusalLogged(invalid.requestId, 'GRAPHQL_VALIDATION_FAILED');

    const coercion = await gql(`query($l: Int!) { invoicePage(offset: 0, limit: $l) { totalItems } }`, { l: 'ten' }, owner.apiKey.secret);
    const coercionCode = coercion.body.errors[0].extensions.code;
    expect(typeof coercionCode).toBe('string');
    expectRefusalLogged(coercion.requestId, coercionCode);
  });

  it('GraphQL over WebSocket: a not-found is logged at info with the operation’s request id', async () => {
    const client = createClient({ url: url.replace(/^http/, 'ws') + '/graphql', webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${owner.apiKey.secret}` }, retryAttempts: 0 });
    try {
      const errors = await new Promise<unknown>((resolve) => {
        client.subscribe({ query: `subscription($id: ID!) { invoiceEvents(invoiceId: $id) { type } }`, variables: { id: otherInvoice } }, {
          next: (v) => resolve(v.errors),
          error: (e) => resolve(e),
          complete: () => resolve('complete'),
        });
      });
      expect(errors).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: 'INVOICE_NOT_FOUND' }) })]);
    } finally {
      await client.dispose();
    }
    const refused = lines.filter((l) => l.method === 'WS' && l.msg === 'request refused');
    expect(refused).toEqual([expect.objectContaining({ level: INFO, code: 'FOREIGN_INVOICE', requestId: expect.any(String) })]);
  });

  it('/api: another workspace’s invoice, a validation failure, a wrong password', async () => {
    const foreign = await call('GET', `/api/invoice/${otherInvoice}`, { token: owner.apiKey.secret });
    expect(foreign).toMatchObject({ status: 404, body: { errors: [{ message: 'Invoice not found.', extensions: { code: 'INVOICE_NOT_FOUND' } }] } });
    expectRefusalLogged(foreign.requestId, 'FOREIGN_INVOICE');

    const bad = await call('POST', '/api/create-invoice', { token: owner.apiKey.secret, json: { input: { bankAccountIds: [], customer: { name: '공백 이름' }, amount: 10 } } });
    expect({ status: bad.status, body: bad.body }).toEqual({ status: 422, body: { errors: [{ message: expect.any(String), extensions: { code: 'INVALID_CUSTOMER_NAME', field: ['customer', 'name'] } }] } });
    expectRefusalLogged(bad.requestId, 'INVALID_CUSTOMER_NAME');

    const logIn = await call('POST', '/api/log-in', { json: { input: { email: owner.email, password: 'wrong-password-123' } } });
    expect({ status: logIn.status, code: logIn.body.errors[0].extensions.code }).toEqual({ status: 401, code: 'INVALID_CREDENTIALS' });
    expectRefusalLogged(logIn.requestId, 'INVALID_CREDENTIALS');
  });

  it('v1 and v2: no key, another workspace’s invoice, a missing one, a validation failure, an unknown route', async () => {
    const cases: [Awaited<ReturnType<typeof call>>, number, unknown, string][] = [
      [await call('GET', '/v1/invoices?offset=0&limit=1'), 401, { code: 'NOT_AUTHORIZED', data: null }, 'UNAUTHENTICATED'],
      [await call('GET', `/v1/invoices/${otherInvoice}`, { token: owner.apiKey.secret }), 403, { code: 'INSUFFICIENT_PERMISSIONS', data: null }, 'FOREIGN_INVOICE'],
      [await call('POST', '/v1/invoices', { token: owner.apiKey.secret, json: { bankAccountIds: [], customer: { name: '공백 이름' }, amount: 10 } }), 422, { code: 'INVALID_CUSTOMER_NAME', data: null }, 'INVALID_CUSTOMER_NAME'],
      [await call('GET', '/v1/nothing-here', { token: owner.apiKey.secret }), 404, { code: 'NOT_FOUND', data: null }, 'ROUTE_NOT_FOUND'],
      [await call('GET', `/v2/invoices/${otherInvoice}`, { token: owner.apiKey.secret }), 404, { code: '20014', data: null }, 'FOREIGN_INVOICE'],
      [await call('GET', `/v2/invoices/ivc_${'0'.repeat(24)}`, { token: owner.apiKey.secret }), 404, { code: '20014', data: null }, 'INVOICE_NOT_FOUND'],
      [await call('POST', `/v2/invoices/${otherInvoice}/cancel`, { token: owner.apiKey.secret, json: { reason: 'x'.repeat(201) } }), 422, { code: '220020', data: null }, 'CANCEL_REASON_TOO_LONG'],
      [await call('GET', '/v2/nothing-here', { token: owner.apiKey.secret }), 404, { code: '30003', data: null }, 'ROUTE_NOT_FOUND'],
    ];
    for (const [res, status, body, code] of cases) {
      expect({ status: res.status, body: res.body }).toEqual({ status, body });
      expectRefusalLogged(res.requestId, code);
    }
  });

  it('bank notifications and OAuth: an unknown token, a bad amount, a wrong client, a missing parameter', async () => {
    const unknown = await call('POST', '/bank-notifications', { token: 'ntf_nope', json: { notificationId: 'n1', depositorName: '홍길동', amount: 1000 } });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual({ code: 'NOT_AUTHORIZED', message: expect.any(String) });
    expectRefusalLogged(unknown.requestId, 'UNAUTHENTICATED');

    const amount = await call('POST', '/bank-notifications', { token: owner.bankAccount.notificationToken, json: { notificationId: 'n2', depositorName: '홍길동', amount: -5 } });
    expect({ status: amount.status, code: amount.body.code, field: amount.body.field }).toEqual({ status: 422, code: 'INVALID_AMOUNT', field: 'amount' });
    expectRefusalLogged(amount.requestId, 'INVALID_AMOUNT');

    const client = await call('POST', '/v2/oauth-apps/token', { form: { grant_type: 'authorization_code', code: 'x', redirect_uri: 'https://log.example/cb' }, basic: 'Basic ' + Buffer.from(`${oauthClient.id}:wrong`).toString('base64') });
    expect({ status: client.status, body: client.body }).toEqual({ status: 401, body: { error: 'invalid_client', error_description: 'Client authentication failed.' } });
    expectRefusalLogged(client.requestId, 'OAUTH_INVALID_CLIENT');

    const missing = await call('POST', '/v2/oauth-apps/token', { form: { code: 'x', redirect_uri: 'https://log.example/cb' }, basic: 'Basic ' + Buffer.from(`${oauthClient.id}:${oauthClient.secret}`).toString('base64') });
    expect({ status: missing.status, body: missing.body }).toEqual({ status: 400, body: { error: 'invalid_request', error_description: 'grant_type is required.' } });
    expectRefusalLogged(missing.requestId, 'OAUTH_INVALID_REQUEST');
  });

  it('none of the refusals above wrote a line at error level, with or without a request id', () => {
    expect(lines.filter((l) => l.level >= ERROR)).toEqual([]);
    expect(lines.filter((l) => l.msg === 'request refused').length).toBeGreaterThanOrEqual(20);
  });
});

describe(`an unexpected error is logged at error with the request id, and masked (${dbLabel})`, () => {
  it.each(['everywhere', 'in the operation'] as const)('on every face (the clock breaks %s)', async (where) => {
    const before = lines.length;
    clockBroken = where;
    let answers: Awaited<ReturnType<typeof call>>[];
    try {
      answers = [
        await call('POST', '/v1/invoices', { token: owner.apiKey.secret, json: { bankAccountIds: [], customer: { name: '시계' }, amount: 10 } }),
        await call('PATCH', `/v2/invoices/${otherInvoice}`, { token: other.apiKey.secret, json: { amount: 11 } }),
        await gql(`mutation($i: CreateInvoiceInput!) { createInvoice(input: $i) { __typename } }`, { i: { bankAccountIds: [], customer: { name: '시계' }, amount: 12 } }, owner.apiKey.secret),
        await call('POST', '/api/create-invoice', { token: owner.apiKey.secret, json: { input: { bankAccountIds: [], customer: { name: '시계' }, amount: 13 } } }),
        await call('POST', '/bank-notifications', { token: owner.bankAccount.notificationToken, json: { notificationId: 'clock', depositorName: '시계', amount: 14 } }),
        await call('POST', '/v2/oauth-apps/token', { form: { grant_type: 'authorization_code', code: 'x', redirect_uri: 'https://log.example/cb' }, basic: 'Basic ' + Buffer.from(`${oauthClient.id}:${oauthClient.secret}`).toString('base64') }),
      ];
    } finally {
      clockBroken = 'no';
    }
    const masked = [
      { status: 500, body: { code: 'INTERNAL_SERVER_ERROR', data: null } },
      { status: 500, body: { code: '50000', data: null } },
      // (GraphQL over HTTP with application/json: a well-formed GraphQL answer, 200.)
      where === 'everywhere'
        ? { status: 200, body: { errors: [{ message: 'Unexpected error.', extensions: { code: 'INTERNAL_SERVER_ERROR' } }] } }
        : { status: 200, body: { errors: [{ message: 'Unexpected error.', locations: expect.any(Array), path: ['createInvoice'], extensions: { code: 'INTERNAL_SERVER_ERROR' } }], data: null } },
      { status: 500, body: { errors: [{ message: 'Internal server error.', extensions: { code: 'INTERNAL_SERVER_ERROR' } }] } },
      { status: 500, body: { code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error.' } },
      { status: 500, body: { error: 'server_error' } },
    ];
    expect(answers.map((a) => ({ status: a.status, body: a.body }))).toEqual(masked);
    for (const a of answers) {
      expect(a.text).not.toContain('clock broke');
      // One line at error for the request, with its id, the error and where it was thrown.
      expect(of(a.requestId).filter((l) => l.level >= ERROR)).toEqual([
        expect.objectContaining({ level: ERROR, msg: 'unexpected error', requestId: a.requestId, err: expect.objectContaining({ message: expect.stringContaining('the clock broke'), stack: expect.stringContaining('TypeError') }) }),
      ]);
    }
    // Nothing at error but those, and nothing without a request id.
    expect(lines.slice(before).filter((l) => l.level >= ERROR).map((l) => l.requestId).sort()).toEqual(answers.map((a) => a.requestId).sort());
  });
});
