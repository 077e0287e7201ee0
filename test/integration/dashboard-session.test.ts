/**
 * The dashboard's session (README, "The dashboard's session"), as a browser would use it: log in at POST
 * /dashboard/session, the session in an HttpOnly, SameSite=Strict cookie that /graphql accepts from the service's own
 * origin only, log out; and /graphql never answers another origin with Access-Control-Allow-Credentials.
 */
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { dbLabel, startTestApp, type TestApp } from '../helpers/app.ts';

describe(`the dashboard's session cookie on ${dbLabel}`, () => {
  let t: TestApp;
  let m: Bootstrapped;
  let own: string;
  const logIn = (body: unknown, headers: Record<string, string> = {}) =>
    t.fetch(`${t.url}/dashboard/session`, { method: 'POST', headers: { 'content-type': 'application/json', origin: own, ...headers }, body: JSON.stringify(body) });
  const viewer = (cookie: string, headers: Record<string, string> = {}) =>
    t.fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie, origin: own, ...headers },
      body: JSON.stringify({ query: '{ viewer { kind account { email } } }' }),
    });
  const cookieOf = (res: Response) => res.headers.get('set-cookie') ?? '';

  beforeAll(async () => {
    t = await startTestApp();
    own = new URL(t.url).origin;
    m = await bootstrap(t.client);
  });
  afterAll(() => t?.stop());

  it('logs in with a cookie no script can read nor another site send, which authenticates /graphql', async () => {
    const res = await logIn({ email: m.email, password: m.password });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toEqual({ accountId: m.accountId, workspaceId: m.workspaceId, expiresAt: expect.any(String) });
    expect(JSON.stringify(body)).not.toMatch(/sess_/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const cookie = cookieOf(res);
    expect(cookie).toMatch(/^btp_session=sess_[^;]+; Path=\/; HttpOnly; SameSite=Strict; Max-Age=\d+$/);
    // The cookie lasts as long as the session: its Max-Age reaches the session's expiry (SESSION_TTL_HOURS, 14 days).
    const maxAge = Number(/Max-Age=(\d+)/.exec(cookie)![1]);
    expect(Math.abs(Date.now() + maxAge * 1000 - new Date(body.expiresAt).getTime())).toBeLessThan(5_000);
    expect(maxAge).toBeGreaterThan(13 * 86_400);
    // Plain http on loopback (development): not Secure; behind a proxy that says https: Secure.
    const behindTls = await logIn({ email: m.email, password: m.password }, { 'x-forwarded-proto': 'https' });
    expect(cookieOf(behindTls)).toMatch(/; Secure$/);
    const pair = cookie.split(';')[0]!;
    const me = await (await viewer(pair)).json();
    expect(me).toEqual({ data: { viewer: { kind: 'SESSION', account: { email: m.email } } } });
  });

  it('signs up at POST /dashboard/sign-up: a new workspace, logged in by the same cookie, the token never in the body', async () => {
    const signUp = (body: unknown, headers: Record<string, string> = {}) =>
      t.fetch(`${t.url}/dashboard/sign-up`, { method: 'POST', headers: { 'content-type': 'application/json', origin: own, ...headers }, body: JSON.stringify(body) });
    const email = `new-${Date.now()}@example.com`;
    const res = await signUp({ email, password: 'a-long-password', name: '새 상점' });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toEqual({ accountId: expect.stringMatching(/^acc_/), workspaceId: expect.stringMatching(/^wsp_/), expiresAt: expect.any(String) });
    expect(JSON.stringify(body)).not.toMatch(/sess_/);
    const pair = cookieOf(res).split(';')[0]!;
    expect(cookieOf(res)).toMatch(/^btp_session=sess_[^;]+; Path=\/; HttpOnly; SameSite=Strict; Max-Age=\d+$/);
    expect(await (await viewer(pair)).json()).toEqual({ data: { viewer: { kind: 'SESSION', account: { email } } } });
    // The e-mail is taken now; a bad body, a foreign origin and GET are refused in the envelope.
    const again = await signUp({ email, password: 'a-long-password', name: 'x' });
    expect([again.status, (await again.json()).code]).toEqual([409, 'EMAIL_TAKEN']);
    const short = await signUp({ email: `short-${Date.now()}@example.com`, password: 'short', name: 'x' });
    expect([short.status, (await short.json()).code]).toEqual([422, 'VALIDATION_FAILED']);
    const noName = await signUp({ email: `x-${Date.now()}@example.com`, password: 'a-long-password' });
    expect([noName.status, (await noName.json()).code]).toEqual([400, 'BAD_REQUEST']);
    const foreign = await signUp({ email: `y-${Date.now()}@example.com`, password: 'a-long-password', name: 'x' }, { origin: 'https://evil.example' });
    expect([foreign.status, (await foreign.json()).code]).toEqual([403, 'INSUFFICIENT_PERMISSIONS']);
    const get = await t.fetch(`${t.url}/dashboard/sign-up`, { method: 'GET', headers: { origin: own } });
    expect([get.status, get.headers.get('allow')]).toEqual([405, 'POST']);
  });

  it("another origin's request gets nothing from the cookie, and /graphql never answers it with credentials", async () => {
    const pair = cookieOf(await logIn({ email: m.email, password: m.password })).split(';')[0]!;
    const foreign = await (await viewer(pair, { origin: 'https://evil.example' })).json();
    expect(foreign.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const crossSite = await (await viewer(pair, { origin: '', 'sec-fetch-site': 'cross-site' })).json();
    expect(crossSite.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    // The cookie is the dashboard's: REST takes its key from the Authorization header only.
    const rest = await t.fetch(`${t.url}/v1/invoices?offset=0&limit=1`, { headers: { cookie: pair, origin: own } });
    expect(rest.status).toBe(401);
    for (const method of ['OPTIONS', 'POST'] as const) {
      const res = await t.fetch(`${t.url}/graphql`, {
        method,
        headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type', 'content-type': 'application/json' },
        ...(method === 'POST' ? { body: JSON.stringify({ query: '{ __typename }' }) } : {}),
      });
      expect(res.headers.get('access-control-allow-credentials'), method).not.toBe('true');
    }
    // Logging in from another site's page is refused.
    const forged = await logIn({ email: m.email, password: m.password }, { origin: 'https://evil.example' });
    expect(forged.status).toBe(403);
    expect(await forged.json()).toMatchObject({ code: 'INSUFFICIENT_PERMISSIONS' });
    expect(cookieOf(forged)).toBe('');
  });

  it('refuses bad credentials and bad bodies in its envelope, never a 500', async () => {
    const wrong = await logIn({ email: m.email, password: 'not-the-password-123' });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ code: 'NOT_AUTHORIZED' });
    for (const body of [null, [], {}, { email: 1, password: 2 }, 'x']) {
      const r = await logIn(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(await r.json()).toMatchObject({ code: 'BAD_REQUEST' });
    }
    const notJson = await t.fetch(`${t.url}/dashboard/session`, { method: 'POST', headers: { 'content-type': 'text/plain', origin: own }, body: 'email=a' });
    expect(notJson.status).toBe(415);
    const get = await t.fetch(`${t.url}/dashboard/session`, { headers: { origin: own } });
    expect(get.status).toBe(405);
  });

  it('logs out: the session ends and the cookie is cleared', async () => {
    const pair = cookieOf(await logIn({ email: m.email, password: m.password })).split(';')[0]!;
    const out = await t.fetch(`${t.url}/dashboard/session`, { method: 'DELETE', headers: { cookie: pair, origin: own } });
    expect(out.status).toBe(204);
    expect(cookieOf(out)).toMatch(/^btp_session=; Path=\/; HttpOnly; SameSite=Strict; Max-Age=0/);
    const after = await (await viewer(pair)).json();
    expect(after.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    // The same token as a bearer is ended too: the session itself, not only the cookie.
    const bearer = await t.client.graphql('{ viewer { kind } }', {}, pair.slice('btp_session='.length));
    expect(bearer.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    // Another site cannot log the merchant out either.
    const again = cookieOf(await logIn({ email: m.email, password: m.password })).split(';')[0]!;
    const forged = await t.fetch(`${t.url}/dashboard/session`, { method: 'DELETE', headers: { cookie: again, origin: 'https://evil.example' } });
    expect(forged.status).toBe(403);
    expect((await (await viewer(again)).json()).data.viewer.kind).toBe('SESSION');
  });

  it("GraphQL over WebSocket takes the cookie of an upgrade from the service's own pages, not from another origin's", async () => {
    const pair = cookieOf(await logIn({ email: m.email, password: m.password })).split(';')[0]!;
    const viewerOverWs = async (origin: string) => {
      const headers = { cookie: pair, origin };
      const client = createClient({
        url: t.url.replace(/^http/, 'ws') + '/graphql',
        webSocketImpl: class extends WebSocket {
          constructor(url: string, protocols?: string | string[]) {
            super(url, protocols, { headers });
          }
        },
        retryAttempts: 0,
      });
      try {
        return await new Promise<unknown>((resolve, reject) => {
          let result: unknown;
          client.subscribe({ query: '{ viewer { kind account { email } } }' }, { next: (r) => (result = r), error: reject, complete: () => resolve(result) });
        });
      } finally {
        await client.dispose();
      }
    };
    expect(await viewerOverWs(own)).toEqual({ data: { viewer: { kind: 'SESSION', account: { email: m.email } } } });
    const foreign = (await viewerOverWs('https://evil.example')) as { errors?: { extensions?: { code?: string } }[] };
    expect(foreign.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });
});
