/**
 * Abuse: per-credential rate limits (documented headers, 429 in each face's envelope, shared across instances through
 * Redis), slow-loris timeouts, and secrets never written to the logs of a full run (a test greps them).
 */
import pino from 'pino';
import { Writable } from 'node:stream';
import { connect } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, ServiceClient, type Bootstrapped } from '../../src/cli/client.ts';
import { loadConfig } from '../../src/config/config.ts';
import { buildApp, type App } from '../../src/http/app.ts';
import { memoryRateLimiter } from '../../src/http/rate-limit.ts';
import { dbLabel, freshDatabase, onPostgres, startTestApp, type TestApp } from '../helpers/app.ts';
import { Receiver } from '../helpers/receiver.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('token bucket', () => {
  it('allows the burst, then the refill rate; reports remaining and reset', async () => {
    let now = 0;
    const limiter = memoryRateLimiter({ perSecond: 2, burst: 3 }, () => now);
    const first = await limiter.take('k');
    expect(first).toEqual({ allowed: true, limit: 3, remaining: 2, resetSeconds: 1, retryAfterSeconds: 0 });
    await limiter.take('k');
    await limiter.take('k');
    const refused = await limiter.take('k');
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 1, resetSeconds: 2 });
    expect((await limiter.take('other')).allowed).toBe(true);
    now = 500; // half a second refills one request at 2/s
    expect((await limiter.take('k')).allowed).toBe(true);
    expect((await limiter.take('k')).allowed).toBe(false);
    now = 10_000;
    expect(await limiter.take('k')).toMatchObject({ allowed: true, remaining: 2 });
  });
});

describe(`rate limits on ${dbLabel}`, () => {
  let t: TestApp;
  let m: Bootstrapped;
  let other: Bootstrapped;

  beforeAll(async () => {
    // Generous enough for bootstrap (it runs on one session token), tight enough to test.
    t = await startTestApp({ env: { RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '12' } });
    m = await bootstrap(t.client);
    other = await bootstrap(t.client);
  });
  afterAll(() => t?.stop());

  /** Spends a credential's bucket down to empty with cheap calls. */
  async function drain(token: string) {
    for (let i = 0; i < 20; i++) {
      const r = await t.client.request('GET', '/v1/invoices?offset=0&limit=1', { token });
      if (r.status === 429) return r;
    }
    throw new Error('never limited');
  }

  it('every limited response carries RateLimit headers; the bucket counts down', async () => {
    const a = await t.client.request('GET', '/v1/invoices?offset=0&limit=1', { token: m.apiKey.secret });
    const b = await t.client.request('GET', '/v1/invoices?offset=0&limit=1', { token: m.apiKey.secret });
    expect(a.status).toBe(200);
    expect(a.headers.get('ratelimit-limit')).toBe('12');
    expect(a.headers.get('ratelimit-policy')).toBe('12;w=12');
    expect(Number(b.headers.get('ratelimit-remaining'))).toBe(Number(a.headers.get('ratelimit-remaining')) - 1);
    expect(Number(a.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    expect(a.headers.get('retry-after')).toBeNull();
    const health = await t.client.request('GET', '/healthz');
    expect(health.headers.get('ratelimit-limit')).toBeNull();
  });

  it('over the limit: 429 in the v1, v2, GraphQL, /api and bank-notification envelopes, with Retry-After; nothing runs', async () => {
    const v1 = await drain(m.apiKey.secret);
    expect(v1.body).toEqual({ code: 'TOO_MANY_REQUESTS', data: null });
    expect(v1.headers.get('retry-after')).toBe('1');
    expect(v1.headers.get('ratelimit-remaining')).toBe('0');

    const v2 = await t.client.request('GET', '/v2/invoices?limit=1', { token: m.apiKey.secret });
    expect(v2).toMatchObject({ status: 429, body: { code: '290029', data: null } });

    const create = await t.client.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds: [], customer: { name: '제한' }, amount: 5000 } });
    expect(create.status).toBe(429);

    const g = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${m.apiKey.secret}` },
      body: JSON.stringify({ query: '{ invoicePage(offset: 0, limit: 1) { totalItems } }' }),
    });
    expect(g.status).toBe(429);
    expect(await g.json()).toEqual({ errors: [{ message: expect.any(String), extensions: { code: 'RATE_LIMITED' } }] });

    const api = await t.client.request('GET', '/api/invoice-page?offset=0&limit=1', { token: m.apiKey.secret });
    expect(api.status).toBe(429);
    expect(api.body.errors[0].extensions.code).toBe('RATE_LIMITED');

    // Nothing was written while limited.
    await sleep(2100);
    const list = await t.client.request('GET', '/v1/invoices?offset=0&limit=100&search=제한', { token: m.apiKey.secret });
    expect(list.status).toBe(200);
    expect(list.body.totalItems).toBe(0);

    // The bank feed's token has its own bucket.
    let bank = await t.client.deposit(m.bankAccount.notificationToken, { depositorName: '제한', amount: 1 });
    for (let i = 0; i < 20 && bank.status !== 429; i++) bank = await t.client.deposit(m.bankAccount.notificationToken, { depositorName: '제한', amount: 1 });
    expect(bank).toMatchObject({ status: 429, body: { code: 'TOO_MANY_REQUESTS', message: expect.any(String) } });
  });

  it('one credential at its limit does not slow another; the bucket refills at the documented rate', async () => {
    await drain(m.apiKey.secret);
    const ok = await t.client.request('GET', '/v1/invoices?offset=0&limit=1', { token: other.apiKey.secret });
    expect(ok.status).toBe(200);
    const refused = await t.client.request('GET', '/v1/invoices?offset=0&limit=1', { token: m.apiKey.secret });
    expect(refused.status).toBe(429);
    await sleep(Number(refused.headers.get('retry-after')) * 1000 + 50);
    expect((await t.client.request('GET', '/v1/invoices?offset=0&limit=1', { token: m.apiKey.secret })).status).toBe(200);
  });

  it('calls without a credential (signUp, logIn, OAuth token) are limited per client address', async () => {
    let last = { status: 0, body: null as any, headers: new Headers() };
    for (let i = 0; i < 30 && last.status !== 429; i++) {
      last = await t.client.request('POST', '/v2/oauth-apps/token', { rawBody: 'grant_type=authorization_code', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    }
    expect(last).toMatchObject({ status: 429, body: { error: 'temporarily_unavailable', error_description: expect.any(String) } });
    const logIn = await fetch(`${t.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'mutation { logIn(input: {email: "a@b.cd", password: "x"}) { token } }' }) });
    expect(logIn.status).toBe(429);
    // A key is not affected by the address's bucket.
    expect((await t.client.request('GET', '/v1/invoices?offset=0&limit=1', { token: other.apiKey.secret })).status).toBe(200);
  });
});

describe.runIf(onPostgres)('rate limits shared by two instances through Redis', () => {
  const apps: App[] = [];
  let drop: () => Promise<void>;
  let clients: ServiceClient[];
  let m: Bootstrapped;

  beforeAll(async () => {
    const fresh = await freshDatabase();
    await fresh.database.close();
    drop = fresh.drop;
    for (let i = 0; i < 2; i++) {
      const config = loadConfig({
        PORT: '0', HOST: '127.0.0.1', DATA_DIR: mkdtempSync(join(tmpdir(), 'rl-')), LOG_LEVEL: 'silent', DATABASE_URL: fresh.url!,
        REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379', RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '30',
        ENCRYPTION_KEY: '11'.repeat(32),
      });
      apps.push(await buildApp(config, { logger: pino({ level: 'silent' }) }));
    }
    clients = await Promise.all(apps.map(async (a) => new ServiceClient((await a.start()).url)));
    m = await bootstrap(clients[0]);
  });
  afterAll(async () => {
    for (const a of apps) await a.stop({ graceMs: 100 });
    await drop?.();
  });

  it('a key’s budget is one bucket across instances', async () => {
    const seen: number[] = [];
    let status = 200;
    for (let i = 0; i < 40 && status !== 429; i++) {
      const r = await clients[i % 2].request('GET', '/v1/invoices?offset=0&limit=1', { token: m.apiKey.secret });
      status = r.status;
      if (status === 200) seen.push(Number(r.headers.get('ratelimit-remaining')));
    }
    expect(status).toBe(429);
    // One shared bucket of 30 (plus what refills at 1/s meanwhile), not two of 30 each.
    expect(seen.length).toBeGreaterThanOrEqual(28);
    expect(seen.length).toBeLessThanOrEqual(32);
    expect(seen[0]).toBeGreaterThan(seen[seen.length - 1]);
    const onB = await clients[1].request('GET', '/v1/invoices?offset=0&limit=1', { token: m.apiKey.secret });
    expect(onB.status).toBe(429);
  });
});

describe(`slow clients on ${dbLabel}`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { HTTP_HEADERS_TIMEOUT_MS: '1000', HTTP_REQUEST_TIMEOUT_MS: '2000' } });
  });
  afterAll(() => t?.stop());

  /** Opens a socket, sends `head`, then one byte every `everyMs`; resolves with what the server wrote and when it closed. */
  function trickle(head: string, drip: string, everyMs: number, maxMs: number): Promise<{ text: string; closedAfterMs: number }> {
    return new Promise((resolve) => {
      const { port } = new URL(t.url);
      const started = Date.now();
      const socket = connect(Number(port), '127.0.0.1');
      let text = '';
      let timer: NodeJS.Timeout;
      const done = () => {
        clearInterval(timer);
        resolve({ text, closedAfterMs: Date.now() - started });
      };
      socket.on('data', (d) => (text += d.toString()));
      socket.on('close', done);
      socket.on('error', () => {});
      socket.on('connect', () => {
        socket.write(head);
        let i = 0;
        timer = setInterval(() => {
          if (Date.now() - started > maxMs) return socket.destroy();
          if (!socket.destroyed) socket.write(drip[i++ % drip.length]);
        }, everyMs);
      });
    });
  }

  it('a client that trickles its headers is cut off with 408 after HTTP_HEADERS_TIMEOUT_MS', async () => {
    const r = await trickle('GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ', 'a', 200, 10_000);
    expect(r.text).toMatch(/^HTTP\/1\.1 408/);
    expect(r.closedAfterMs).toBeGreaterThanOrEqual(900);
    expect(r.closedAfterMs).toBeLessThan(4000);
  });

  it('a client that trickles its body is cut off after HTTP_REQUEST_TIMEOUT_MS; others are served meanwhile', async () => {
    const slow = trickle('POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{', ' ', 100, 15_000);
    await sleep(300);
    const quick = await t.client.request('GET', '/healthz');
    expect(quick.status).toBe(200);
    const r = await slow;
    expect(r.closedAfterMs).toBeLessThan(5000);
    expect(r.text).toMatch(/^HTTP\/1\.1 408/);
    expect(r.text).toContain('{"code":"REQUEST_TIMEOUT"');
  });

  /** Sends raw bytes and resolves with everything the server wrote before closing. */
  function raw(bytes: string): Promise<string> {
    return new Promise((resolve) => {
      const { port } = new URL(t.url);
      const socket = connect(Number(port), '127.0.0.1');
      let text = '';
      socket.on('data', (d) => (text += d.toString()));
      socket.on('close', () => resolve(text));
      socket.on('error', () => {});
      socket.on('connect', () => socket.write(bytes));
    });
  }

  it('a request Node cannot parse is answered 400 in the JSON envelope, not a bare status line', async () => {
    const text = await raw('GET /healthz HTTP/1.1\r\nHost x\r\n\r\n');
    expect(text).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(text).toContain('Content-Type: application/json');
    expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toEqual({ code: 'BAD_REQUEST', message: expect.any(String) });
  });

  it('headers over the size limit are answered 431 in the JSON envelope', async () => {
    const text = await raw(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(text).toMatch(/^HTTP\/1\.1 431 /);
    expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toMatchObject({ code: 'REQUEST_HEADER_FIELDS_TOO_LARGE' });
  });
});

describe(`secrets in logs on ${dbLabel}`, () => {
  it('a full run at trace level never logs a password, session token, API key, notification token, webhook secret, OAuth secret or token', { timeout: 120_000 }, async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, cb) {
        lines.push(chunk.toString());
        cb();
      },
    });
    const fresh = await freshDatabase();
    const rx = await new Receiver().start();
    const config = loadConfig({
      PORT: '0', HOST: '127.0.0.1', DATA_DIR: mkdtempSync(join(tmpdir(), 'logs-')), LOG_LEVEL: 'trace', AGENCY_SIM_DELAY_MS: '0',
      WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_DELAYS_MS: '20,20,20,20,20,20',
    });
    const app = await buildApp(config, { database: fresh.database, logger: pino({ level: 'trace' }, sink) });
    const secrets: string[] = [];
    try {
      const client = new ServiceClient((await app.start()).url);
      const m = await bootstrap(client);
      secrets.push(m.password, m.sessionToken, m.apiKey.secret, m.bankAccount.notificationToken);

      const hook = await client.gql(`mutation($input: CreateWebhookInput!) { createWebhook(input: $input) { webhook { id } signingSecret } }`, { input: { url: rx.url, version: 'V1' } }, m.sessionToken);
      secrets.push(hook.createWebhook.signingSecret);
      const oauthApp = await client.gql(`mutation($i: CreateOAuthAppInput!) { createOAuthApp(input: $i) { app { id } clientSecret } }`, { i: { name: 'Partner', redirectUris: ['https://partner.example/cb'] } }, m.sessionToken);
      secrets.push(oauthApp.createOAuthApp.clientSecret);
      const code = (await client.gql(`mutation($i: AuthorizeOAuthAppInput!) { authorizeOAuthApp(input: $i) { code } }`, { i: { clientId: oauthApp.createOAuthApp.app.id, redirectUri: 'https://partner.example/cb' } }, m.sessionToken)).authorizeOAuthApp.code;
      secrets.push(code);
      const basic = 'Basic ' + Buffer.from(`${oauthApp.createOAuthApp.app.id}:${oauthApp.createOAuthApp.clientSecret}`).toString('base64');
      secrets.push(basic.slice(6));
      const token = await client.request('POST', '/v2/oauth-apps/token', {
        rawBody: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: 'https://partner.example/cb' }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic },
      });
      expect(token.status).toBe(200);
      secrets.push(token.body.access_token);

      // Ordinary traffic and failures: they are what gets logged.
      const inv = await client.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds: [], customer: { name: '로그', email: 'buyer@example.com' }, amount: 7000, cashReceipt: { type: 'PERSONAL', identifier: '01012345678' } } });
      expect(inv.status).toBe(201);
      await client.request('GET', '/v2/invoices?limit=5', { token: token.body.access_token });
      await client.request('POST', '/v1/invoices', { token: m.apiKey.secret, rawBody: '{not json' , headers: { 'content-type': 'application/json' } });
      await client.request('GET', '/v1/invoices?offset=0&limit=1', { token: m.apiKey.secret + 'x' });
      await client.graphql(`mutation { logIn(input: {email: "${m.email}", password: "${m.password}-wrong"}) { token } }`);
      await client.graphql(`mutation($i: LogInInput!) { logIn(input: $i) { token } }`, { i: { email: m.email, password: m.password } });
      expect((await client.deposit(m.bankAccount.notificationToken, { depositorName: '로그', amount: 7000 })).status).toBe(201);
      await rx.waitFor((r) => r.some((x) => x.json?.type === 'invoice.paid'), 20_000);
      await client.request('POST', '/v2/oauth-apps/revoke', {
        rawBody: new URLSearchParams({ token: token.body.access_token }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic },
      });
      await sleep(300);
    } finally {
      await app.stop({ graceMs: 100 });
      await rx.stop();
      await fresh.drop();
    }
    const log = lines.join('');
    expect(lines.length).toBeGreaterThan(20); // the run was logged at all
    expect(log).toContain('"requestId"');
    expect(secrets.length).toBe(9);
    // Each secret in full, and its random part alone (a prefix like sk_live_ is not secret).
    const needles = secrets.flatMap((s) => [s, s.replace(/^[a-z]+_(live_|test_)?/, '')]).filter((s) => s.length >= 8);
    expect(needles.filter((s) => log.includes(s))).toEqual([]);
  });
});
