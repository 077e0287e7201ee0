/** OAuth apps: consent, the authorization-code token endpoint, tokens used like API keys, RFC 7009 revocation. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { OffsetClock } from '../../src/domain/clock.ts';
import { dbLabel, startTestApp, type TestApp } from '../helpers/app.ts';

const REDIRECT = 'https://partner.example/callback';

describe(`OAuth on ${dbLabel}`, () => {
  let t: TestApp;
  let dev: Bootstrapped;
  let shop: Bootstrapped;
  let app: { id: string; secret: string };
  const clock = new OffsetClock();

  beforeAll(async () => {
    t = await startTestApp({ clock, socket: false });
    [dev, shop] = await Promise.all([bootstrap(t.client), bootstrap(t.client)]);
    const r = await t.client.gql(`mutation($i: CreateOAuthAppInput!) { createOAuthApp(input: $i) { app { id } clientSecret } }`, { i: { name: 'Partner', redirectUris: [REDIRECT] } }, dev.sessionToken);
    app = { id: r.createOAuthApp.app.id, secret: r.createOAuthApp.clientSecret };
  });
  afterAll(() => t?.stop());

  const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
  const post = (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
    t.client.request('POST', path, { rawBody: form(fields), headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers } });
  const basic = (id: string, secret: string) => ({ authorization: 'Basic ' + Buffer.from(`${id}:${secret}`).toString('base64') });
  const authorize = async (session = shop.sessionToken) =>
    (await t.client.gql(`mutation($i: AuthorizeOAuthAppInput!) { authorizeOAuthApp(input: $i) { code } }`, { i: { clientId: app.id, redirectUri: REDIRECT } }, session)).authorizeOAuthApp.code as string;
  const exchange = (code: string, headers: Record<string, string> = basic(app.id, app.secret), extra: Record<string, string> = {}) =>
    post('/v2/oauth-apps/token', { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, ...extra }, headers);

  it('createOAuthApp returns oap_ id and an oas_ secret once; bad redirect URIs are refused', async () => {
    expect(app.id).toMatch(/^oap_[a-z0-9]{24}$/);
    expect(app.secret).toMatch(/^oas_[a-z0-9]{24}$/);
    const bad = await t.client.graphql(`mutation { createOAuthApp(input: {name: "x", redirectUris: ["http://evil.example/cb"]}) { app { id } } }`, {}, dev.sessionToken);
    expect(bad.errors?.[0].extensions?.code).toBe('VALIDATION_FAILED');
  });

  it('code → token (HTTP Basic): an oat_ token that works on v1 and v2 in the consenting workspace', async () => {
    const r = await exchange(await authorize());
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ access_token: expect.stringMatching(/^oat_[a-z0-9]{24}$/), token_type: 'Bearer' });
    expect(r.headers.get('cache-control')).toBe('no-store');
    const inv = await t.client.request('POST', '/v1/invoices', { token: r.body.access_token, body: { bankAccountIds: [], customer: { name: '오어스' }, amount: 100 } });
    expect(inv.status).toBe(201);
    const seenByShop = await t.client.request('GET', `/v1/invoices/${inv.body.data.id}`, { token: shop.apiKey.secret });
    expect(seenByShop.status).toBe(200);
    expect((await t.client.request('GET', `/v2/invoices/${inv.body.data.id}`, { token: r.body.access_token })).status).toBe(200);
  });

  it('client authentication by form fields works too', async () => {
    const r = await exchange(await authorize(), {}, { client_id: app.id, client_secret: app.secret });
    expect(r.status).toBe(200);
  });

  it('a code works once; reusing it fails and revokes the token it produced', async () => {
    const code = await authorize();
    const first = await exchange(code);
    expect(first.status).toBe(200);
    const again = await exchange(code);
    expect(again).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect((await t.client.request('GET', '/v1/invoices?offset=0&limit=1', { token: first.body.access_token })).status).toBe(401);
  });

  it('ten simultaneous exchanges of one code: exactly one token', async () => {
    const code = await authorize();
    const rs = await Promise.all(Array.from({ length: 10 }, () => exchange(code)));
    expect(rs.filter((r) => r.status === 200)).toHaveLength(1);
    expect(rs.filter((r) => r.status === 400 && r.body.error === 'invalid_grant')).toHaveLength(9);
  });

  it('codes expire after 10 minutes; redirect_uri must match; grant_type must be authorization_code', async () => {
    const old = await authorize();
    clock.advance(11 * 60_000);
    expect((await exchange(old)).body.error).toBe('invalid_grant');
    expect((await exchange(await authorize(), basic(app.id, app.secret), { redirect_uri: 'https://partner.example/other' })).body.error).toBe('invalid_grant');
    expect((await exchange(await authorize(), basic(app.id, app.secret), { grant_type: 'password' })).body.error).toBe('unsupported_grant_type');
  });

  it('wrong or missing client credentials → 401 invalid_client (with WWW-Authenticate for Basic)', async () => {
    const code = await authorize();
    const wrong = await exchange(code, basic(app.id, 'oas_wrong'));
    expect(wrong).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    expect(wrong.headers.get('www-authenticate')).toContain('Basic');
    expect((await exchange(code, {})).status).toBe(401);
  });

  describe('POST /v2/oauth-apps/revoke (RFC 7009)', () => {
    const revoke = (fields: Record<string, string>, headers: Record<string, string> = basic(app.id, app.secret)) => post('/v2/oauth-apps/revoke', fields, headers);

    it('revoking a token of the app cuts the workspace link: that token and every other of the link stop at once', async () => {
      const t1 = (await exchange(await authorize())).body.access_token;
      const t2 = (await exchange(await authorize())).body.access_token;
      expect(await revoke({ token: t1 })).toMatchObject({ status: 200, body: {} });
      for (const tok of [t1, t2]) expect(await t.client.request('GET', '/v1/invoices?offset=0&limit=1', { token: tok })).toMatchObject({ status: 401, body: { code: 'NOT_AUTHORIZED' } });
      const grants = await t.client.gql(`{ oauthAuthorizations { revokedAt app { id } } }`, {}, shop.sessionToken);
      expect(grants.oauthAuthorizations.some((g: { revokedAt: string | null }) => g.revokedAt !== null)).toBe(true);
    });

    it('unknown, already revoked, or another app’s tokens: the same 200 {} and nothing happens', async () => {
      const other = await t.client.gql(`mutation { createOAuthApp(input: {name: "Other", redirectUris: ["${REDIRECT}"]}) { app { id } clientSecret } }`, {}, dev.sessionToken);
      const code = (await t.client.gql(`mutation($i: AuthorizeOAuthAppInput!) { authorizeOAuthApp(input: $i) { code } }`, { i: { clientId: other.createOAuthApp.app.id, redirectUri: REDIRECT } }, shop.sessionToken)).authorizeOAuthApp.code;
      const otherToken = (await exchange(code, basic(other.createOAuthApp.app.id, other.createOAuthApp.clientSecret))).body.access_token;
      expect(await revoke({ token: 'oat_unknown' })).toMatchObject({ status: 200, body: {} });
      expect(await revoke({ token: otherToken })).toMatchObject({ status: 200, body: {} });
      expect((await t.client.request('GET', '/v1/invoices?offset=0&limit=1', { token: otherToken })).status).toBe(200);
      const mine = (await exchange(await authorize())).body.access_token;
      expect((await revoke({ token: mine })).status).toBe(200);
      expect(await revoke({ token: mine })).toMatchObject({ status: 200, body: {} });
    });

    it('401 invalid_client without or with wrong client credentials; 400 invalid_request for a body that is not a form', async () => {
      expect(await revoke({ token: 'x' }, {})).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
      expect(await revoke({ token: 'x' }, basic(app.id, 'oas_nope'))).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
      const json = await t.client.request('POST', '/v2/oauth-apps/revoke', { body: { token: 'x' }, headers: basic(app.id, app.secret) });
      expect(json).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
      expect(await revoke({}, basic(app.id, app.secret))).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    });
  });
});
