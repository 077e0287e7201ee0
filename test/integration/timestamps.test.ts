/**
 * Every time a client sends goes through the one timestamp rule (src/domain/dates.ts): a bad one is a 422 naming its
 * field in that face's envelope, and nothing is stored. Faces: POST /bank-notifications (receivedAt), REST v2 PATCH
 * (expiresAt, Unix seconds), v1/v2 list filters (dateAfter/dateBefore), GraphQL DateTime arguments (createApiKey,
 * updateInvoice; literal and variable) and /api, which runs the same schema. The values answered 500 or were
 * stored as another day (2026-02-30 as March 2).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { OffsetClock } from '../../src/domain/clock.ts';
import { dbLabel, startTestApp, type TestApp } from '../helpers/app.ts';

const FORMAT = 'an ISO 8601 time with a zone, e.g. 2026-11-21T19:00:00+09:00';
const CALENDAR = 'a real calendar date and time (hours 00-23, minutes and seconds 00-59)';
const OFFSET = 'a time with a zone offset between -23:59 and +23:59';
const RANGE = 'a time between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z';

/** The refused timestamps and the rule each breaks (the four first). */
const REFUSED: [string, string][] = [
  ['0000-01-01T00:00:00Z', RANGE],
  ['0001-01-01T00:00:00+09:00', RANGE],
  ['9999-12-31T23:59:59-23:59', RANGE],
  ['2026-02-30T00:00:00Z', CALENDAR],
  ['2027-02-29T12:00:00Z', CALENDAR],
  ['2026-04-31T12:00:00Z', CALENDAR],
  ['2026-12-01T24:00:00Z', CALENDAR],
  ['2026-12-01T12:60:00Z', CALENDAR],
  ['2026-12-31T23:59:60Z', CALENDAR],
  ['2026-12-01T12:00:00+24:00', OFFSET],
  ['1969-12-31T23:59:59Z', RANGE],
  ['2026-12-01T12:00:00z', FORMAT],
  ['+010000-01-01T00:00:00Z', FORMAT],
];

describe(`timestamps from clients, every face, on ${dbLabel}`, () => {
  let t: TestApp;
  const clock = new OffsetClock();
  let m: Bootstrapped;

  beforeAll(async () => {
    t = await startTestApp({ clock, socket: false });
    m = await bootstrap(t.client);
  });
  afterAll(() => t?.stop());

  const count = async (sql: string, params: unknown[]) => Number((await t.app.db.sql.query<{ n: string }>(sql, params))[0].n);
  const deposits = () => count(`SELECT count(*)::text AS n FROM "Transaction" WHERE "bankAccountId" = $1`, [m.bankAccount.id]);
  const apiKeys = () => count(`SELECT count(*)::text AS n FROM "ApiKey" WHERE "workspaceId" = $1`, [m.workspaceId]);
  const newInvoice = async () => {
    const r = await t.client.gql(`mutation($i: CreateInvoiceInput!) { createInvoice(input: $i) { ... on InvoicePayload { invoice { id } } } }`, {
      i: { bankAccountIds: [], customer: { name: `시간${Math.random().toString(36).slice(2, 8)}` }, amount: 1000, expireAfter: '1d' },
    }, m.apiKey.secret);
    return r.createInvoice.invoice.id as string;
  };
  /** A GraphQL answer without where the error sits in the document (locations, path), which these tests do not judge. */
  const refusal = (r: { data?: unknown; errors?: { message: string; extensions?: unknown }[] }) => ({ data: r.data, errors: r.errors?.map((e) => ({ message: e.message, extensions: e.extensions })) });
  const storedInvoice = async (id: string) => (await t.app.db.sql.query(`SELECT "expiresAt", "updatedAt" FROM "Invoice" WHERE id = $1`, [id]))[0];

  describe('POST /bank-notifications: receivedAt', () => {
    const post = (notificationId: string, receivedAt: unknown) =>
      t.client.request('POST', '/bank-notifications', { token: m.bankAccount.notificationToken, body: { notificationId, depositorName: '시각', amount: 777, receivedAt } });

    it.each(REFUSED)('%s → 422 VALIDATION_FAILED at receivedAt, nothing stored', async (receivedAt, rule) => {
      const before = await deposits();
      const r = await post(`bad-${receivedAt}`, receivedAt);
      expect({ status: r.status, body: r.body }).toEqual({ status: 422, body: { code: 'VALIDATION_FAILED', message: `receivedAt must be ${rule}.`, field: 'receivedAt' } });
      expect(await deposits()).toBe(before);
    });

    it.each([
      ['2028-02-29T23:59:59.999+09:00', '2028-02-29T14:59:59.999Z'],
      ['1970-01-01T00:00:00Z', '1970-01-01T00:00:00.000Z'],
      ['9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z'],
      ['2026-11-21T19:00+0900', '2026-11-21T10:00:00.000Z'],
      ['2026-11-21T10:00:00.123456789Z', '2026-11-21T10:00:00.123Z'],
    ])('%s is accepted and stored as %s, and read back as it', async (receivedAt, stored) => {
      const r = await post(`ok-${receivedAt}`, receivedAt);
      expect(r.status).toBe(201);
      const [row] = await t.app.db.sql.query<{ receivedAt: Date }>(`SELECT "receivedAt" FROM "Transaction" WHERE id = $1`, [r.body.transactionId]);
      expect(new Date(row.receivedAt).toISOString()).toBe(stored);
      const read = await t.client.gql(`query($id: ID!) { transaction(id: $id) { receivedAt } }`, { id: r.body.transactionId }, m.sessionToken);
      expect(read.transaction.receivedAt).toBe(stored);
    });
  });

  describe('REST v2 PATCH /v2/invoices/{id}: expiresAt in Unix seconds', () => {
    it.each([
      ['negative', '-1'],
      ['fractional', String(Math.floor(Date.now() / 1000) + 86_400) + '.5'],
      ['huge', '1e300'],
      ['beyond the JavaScript date range', '8640000000001'],
      ['not finite (1e400 reads as Infinity)', '1e400'],
      ['beyond the safe integers', '9007199254740993'],
      ['a string', '"1795000000"'],
      ['year 10000', '253402300800'],
    ])('%s → 422 220006, the invoice unchanged', async (_name, value) => {
      const id = await newInvoice();
      const before = await storedInvoice(id);
      const r = await t.client.request('PATCH', `/v2/invoices/${id}`, { token: m.apiKey.secret, rawBody: `{"expiresAt": ${value}}`, headers: { 'content-type': 'application/json' } });
      expect({ status: r.status, body: r.body }).toEqual({ status: 422, body: { code: '220006', data: null } });
      expect(await storedInvoice(id)).toEqual(before);
    });
  });

  describe('list filters dateAfter/dateBefore: real dates of the years 1970-9999', () => {
    const bad = ['dateAfter=0001-01-01', 'dateAfter=1969-12-31', 'dateAfter=2026-02-30', 'dateBefore=0000-01-01', 'dateBefore=10000-01-01'];
    it.each(bad.flatMap((q) => ['/v1/invoices', '/v1/transactions', '/v1/cash-receipts'].map((p) => [p, q])))('v1 %s?%s → 422 INVALID_DATE_RANGE_FORMAT', async (path, q) => {
      const r = await t.client.request('GET', `${path}?offset=0&limit=10&${q}`, { token: m.apiKey.secret });
      expect({ status: r.status, body: r.body }).toEqual({ status: 422, body: { code: 'INVALID_DATE_RANGE_FORMAT', data: null } });
    });
    it.each(bad)('v2 /v2/invoices?%s → 422 30013', async (q) => {
      const r = await t.client.request('GET', `/v2/invoices?offset=0&limit=10&${q}`, { token: m.apiKey.secret });
      expect({ status: r.status, body: r.body }).toEqual({ status: 422, body: { code: '30013', data: null } });
    });
    it('the widest bounds are accepted: 1970-01-01 to 9999-12-31', async () => {
      const r = await t.client.request('GET', '/v2/invoices?offset=0&limit=1&dateAfter=1970-01-01&dateBefore=9999-12-31', { token: m.apiKey.secret });
      expect(r.status).toBe(200);
      const g = await t.client.graphql(`{ transactionPage(offset: 0, limit: 1, filter: { dateAfter: "1970-01-01", dateBefore: "9999-12-31" }) { totalItems } }`, {}, m.apiKey.secret);
      expect(g.errors).toBeUndefined();
    });
    it('GraphQL names the filter field', async () => {
      const r = await t.client.graphql(`{ invoicePage(offset: 0, limit: 1, filter: { dateAfter: "0001-01-01" }) { totalItems } }`, {}, m.apiKey.secret);
      expect(refusal(r)).toEqual({ data: null, errors: [{ message: 'Dates must be YYYY-MM-DD.', extensions: { code: 'INVALID_DATE_RANGE_FORMAT', field: ['dateAfter'] } }] });
    });
  });

  describe('GraphQL DateTime arguments', () => {
    const CREATE_KEY_VAR = `mutation($e: DateTime) { createApiKey(input: { name: "timed", expiresAt: $e }) { apiKey { id expiresAt } } }`;
    const CREATE_KEY_INPUT = `mutation($i: CreateApiKeyInput!) { createApiKey(input: $i) { apiKey { id expiresAt } } }`;
    const createKeyLiteral = (v: string) => `mutation { createApiKey(input: { name: "timed", expiresAt: ${JSON.stringify(v)} }) { apiKey { id expiresAt } } }`;

    it.each(REFUSED)('createApiKey expiresAt %s → VALIDATION_FAILED at [input, expiresAt] (variable, input variable, literal); no key stored', async (value, rule) => {
      const before = await apiKeys();
      const expected = { data: null, errors: [{ message: `expiresAt must be ${rule}.`, extensions: { code: 'VALIDATION_FAILED', field: ['input', 'expiresAt'] } }] };
      expect(refusal(await t.client.graphql(CREATE_KEY_VAR, { e: value }, m.sessionToken))).toEqual(expected);
      expect(refusal(await t.client.graphql(CREATE_KEY_INPUT, { i: { name: 'timed', expiresAt: value } }, m.sessionToken))).toEqual(expected);
      expect(refusal(await t.client.graphql(createKeyLiteral(value), {}, m.sessionToken))).toEqual(expected);
      expect(await apiKeys()).toBe(before);
    });

    it('createApiKey with an accepted expiresAt stores that instant', async () => {
      const r = await t.client.gql(CREATE_KEY_VAR, { e: '9999-12-31T23:59:59.999Z' }, m.sessionToken);
      expect(r.createApiKey.apiKey.expiresAt).toBe('9999-12-31T23:59:59.999Z');
    });

    it('a DateTime that is not a string is a type error (BAD_REQUEST), as for any scalar', async () => {
      const r = await t.client.graphql(CREATE_KEY_VAR, { e: 1795000000 }, m.sessionToken);
      expect(r.errors?.map((e) => e.extensions?.code)).toEqual(['BAD_REQUEST']);
    });

    it.each(REFUSED)('updateInvoice expiresAt %s → in-band VALIDATION_FAILED at [input, expiresAt]; the invoice unchanged', async (value, rule) => {
      const id = await newInvoice();
      const before = await storedInvoice(id);
      const r = await t.client.graphql(
        `mutation($id: ID!, $e: DateTime) { updateInvoice(id: $id, input: { expiresAt: $e }) { __typename ... on DomainError { code message field } } }`,
        { id, e: value },
        m.apiKey.secret,
      );
      expect(r).toEqual({ data: { updateInvoice: { __typename: 'DomainError', code: 'VALIDATION_FAILED', message: `expiresAt must be ${rule}.`, field: ['input', 'expiresAt'] } } });
      expect(await storedInvoice(id)).toEqual(before);
    });
  });

  describe('/api (sofa over the same schema)', () => {
    const api = (path: string, token: string, body: unknown) =>
      t.fetch(`${t.url}/api${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

    it.each(REFUSED.slice(0, 4))('POST /api/update-invoice expiresAt %s → 422 VALIDATION_FAILED at [input, expiresAt]; unchanged', async (value, rule) => {
      const id = await newInvoice();
      const before = await storedInvoice(id);
      const res = await api('/update-invoice', m.apiKey.secret, { id, input: { expiresAt: value } });
      expect({ status: res.status, body: await res.json() }).toEqual({
        status: 422,
        body: { errors: [{ message: `expiresAt must be ${rule}.`, extensions: { code: 'VALIDATION_FAILED', field: ['input', 'expiresAt'] } }] },
      });
      expect(await storedInvoice(id)).toEqual(before);
    });

    it.each(REFUSED.slice(0, 4))('POST /api/create-api-key expiresAt %s → 422 VALIDATION_FAILED at [input, expiresAt]; no key stored', async (value, rule) => {
      const before = await apiKeys();
      const res = await api('/create-api-key', m.sessionToken, { input: { name: 'timed', expiresAt: value } });
      expect({ status: res.status, body: await res.json() }).toEqual({
        status: 422,
        body: { errors: [{ message: `expiresAt must be ${rule}.`, extensions: { code: 'VALIDATION_FAILED', field: ['input', 'expiresAt'] } }] },
      });
      expect(await apiKeys()).toBe(before);
    });
  });
});
