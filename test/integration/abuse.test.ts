/**
 * Abuse: per-credential rate limits (documented headers, 429 in each face's envelope, shared across instances through
 * Redis; a bearer that does not authenticate charged to the address), GraphQL over WebSocket under the limits of HTTP
 * (message size, rate limit, operations per connection, connections per client), slow-loris timeouts, and secrets
 * never written to the logs of a full run (a test greps them).
 */
import pino from 'pino';
import { Writable } from 'node:stream';
import { connect } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bootstrap, ServiceClient, type Bootstrapped } from '../../src/cli/client.ts';
import { loadConfig } from '../../src/config/config.ts';
import { buildApp, type App } from '../../src/http/app.ts';
import { memoryRateLimiter, takeRateLimit } from '../../src/http/rate-limit.ts';
import { CLOSE_TRY_AGAIN_LATER, MAX_CONNECTIONS_PER_CLIENT, MAX_OPERATIONS_PER_CONNECTION } from '../../src/http/graphql-ws.ts';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { dbLabel, freshDatabase, onPostgres, startTestApp, type TestApp } from '../helpers/app.ts';
import { Receiver } from '../helpers/receiver.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Empties a token bucket, then at once sends `probe`, which that bucket should refuse, and returns what it got (`last`).
 * `spend` sends one cheap request on the bucket and says whether it was refused. The bucket refills continuously, so
 * at that refusal it holds a fraction of a token and a stall before the probe can complete one: a probe that was
 * served is kept in `served` (for a test that counts what it did) and sent again once the bucket is emptied again, a
 * bounded number of times. A probe the bucket does not limit is served every time, and the test's assertion that
 * `last` was refused fails.
 */
async function probeEmptyBucket<R>(spend: () => Promise<boolean>, probe: () => Promise<R>, refused: (r: R) => boolean, tries = 5): Promise<{ last: R; served: R[] }> {
  const served: R[] = [];
  let last!: R;
  for (let attempt = 0; attempt < tries; attempt++) {
    for (let spent = 0; !(await spend()); spent++) if (spent >= 40) throw new Error('never limited');
    last = await probe();
    if (refused(last)) break;
    served.push(last);
  }
  return { last, served };
}
const is429 = (r: { status: number }) => r.status === 429;
/** A fetch response as `{ status, headers, body }` (its JSON). */
const asJson = async (r: Response) => ({ status: r.status, headers: r.headers, body: await r.json() });

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

  it('a bearer that does not authenticate takes from its client address’s bucket as well; one that does, only from its own', async () => {
    const limiter = memoryRateLimiter({ perSecond: 1, burst: 2 }, () => 0);
    const asked: string[] = [];
    const authenticates = (result: boolean, who: string) => async () => (asked.push(who), result);
    expect(await takeRateLimit(limiter, null, '10.0.0.1', authenticates(false, 'none'))).toMatchObject({ allowed: true, remaining: 1 });
    // Each made-up bearer has a full bucket of its own, but the address's is charged too: one left, then none.
    expect(await takeRateLimit(limiter, 'Bearer made-up-1', '10.0.0.1', authenticates(false, 'made-up-1'))).toMatchObject({ allowed: true, remaining: 0 });
    expect(await takeRateLimit(limiter, 'Bearer made-up-2', '10.0.0.1', authenticates(false, 'made-up-2'))).toMatchObject({ allowed: false });
    // A credential that authenticates is not charged to the address; another address is not affected.
    expect(await takeRateLimit(limiter, 'Bearer real', '10.0.0.1', authenticates(true, 'real'))).toMatchObject({ allowed: true, remaining: 1 });
    expect(await takeRateLimit(limiter, 'Bearer made-up-3', '10.0.0.2', authenticates(false, 'made-up-3'))).toMatchObject({ allowed: true });
    // Without a bearer nothing is asked; a bearer whose own bucket refuses is not looked up.
    await takeRateLimit(limiter, 'Bearer real', '10.0.0.1', authenticates(true, 'real'));
    await takeRateLimit(limiter, 'Bearer real', '10.0.0.1', authenticates(true, 'real, refused'));
    expect(asked).toEqual(['made-up-1', 'made-up-2', 'real', 'made-up-3', 'real']);
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
    for (let i = 0; i < 40; i++) {
      const r = await t.client.request('GET', '/v1/invoices?offset=0&limit=1', { token });
      if (r.status === 429) return r;
    }
    throw new Error('never limited');
  }
  /** One cheap call on a credential's bucket: was it refused? */
  const spendKey = (token: string) => async () => (await t.client.request('GET', '/v1/invoices?offset=0&limit=1', { token })).status === 429;

  it('every limited response carries RateLimit headers; the bucket counts down', async () => {
    const sent = performance.now();
    const a = await t.client.request('GET', '/v1/invoices?offset=0&limit=1', { token: m.apiKey.secret });
    const b = await t.client.request('GET', '/v1/invoices?offset=0&limit=1', { token: m.apiKey.secret });
    const within = performance.now() - sent;
    expect(a.status).toBe(200);
    expect(a.headers.get('ratelimit-limit')).toBe('12');
    expect(a.headers.get('ratelimit-policy')).toBe('12;w=12');
    // The key's first call finds a full bucket (11 left after it); a token refills only if a second passed before b.
    expect(a.headers.get('ratelimit-remaining')).toBe('11');
    if (within < 1000) expect(b.headers.get('ratelimit-remaining')).toBe('10');
    else expect(['10', '11']).toContain(b.headers.get('ratelimit-remaining'));
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

    // Each face on the same key's bucket, emptied again right before (it refills at 1/s meanwhile).
    const spend = spendKey(m.apiKey.secret);
    const { last: v2 } = await probeEmptyBucket(spend, () => t.client.request('GET', '/v2/invoices?limit=1', { token: m.apiKey.secret }), is429);
    expect(v2).toMatchObject({ status: 429, body: { code: '290029', data: null } });

    const creates = await probeEmptyBucket(spend, () => t.client.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds: [], customer: { name: '제한' }, amount: 5000 } }), is429);
    expect(creates.last).toMatchObject({ status: 429, body: { code: 'TOO_MANY_REQUESTS', data: null } });
    // A create served on a token that refilled before it wrote its invoice; the refused ones wrote nothing.
    const written = creates.served.filter((r) => r.status === 201).length;

    const { last: g } = await probeEmptyBucket(
      spend,
      async () =>
        asJson(
          await fetch(`${t.url}/graphql`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${m.apiKey.secret}` },
            body: JSON.stringify({ query: '{ invoicePage(offset: 0, limit: 1) { totalItems } }' }),
          }),
        ),
      is429,
    );
    expect(g.status).toBe(429);
    expect(g.body).toEqual({ errors: [{ message: expect.any(String), extensions: { code: 'RATE_LIMITED' } }] });

    const { last: api } = await probeEmptyBucket(spend, () => t.client.request('GET', '/api/invoice-page?offset=0&limit=1', { token: m.apiKey.secret }), is429);
    expect(api.status).toBe(429);
    expect(api.body.errors[0].extensions.code).toBe('RATE_LIMITED');

    // Nothing was written while limited: only the creates answered 201 are there.
    await sleep(2100);
    const list = await t.client.request('GET', '/v1/invoices?offset=0&limit=100&search=제한', { token: m.apiKey.secret });
    expect(list.status).toBe(200);
    expect(list.body.totalItems).toBe(written);

    // The bank feed's token has its own bucket.
    let bank = await t.client.deposit(m.bankAccount.notificationToken, { depositorName: '제한', amount: 1 });
    for (let i = 0; i < 40 && bank.status !== 429; i++) bank = await t.client.deposit(m.bankAccount.notificationToken, { depositorName: '제한', amount: 1 });
    expect(bank).toMatchObject({ status: 429, body: { code: 'TOO_MANY_REQUESTS', message: expect.any(String) } });
  });

  it('one credential at its limit does not slow another; the bucket refills at the documented rate', async () => {
    const { last: refused } = await probeEmptyBucket(
      spendKey(m.apiKey.secret),
      async () => {
        const ok = await t.client.request('GET', '/v1/invoices?offset=0&limit=1', { token: other.apiKey.secret });
        expect(ok.status).toBe(200);
        return t.client.request('GET', '/v1/invoices?offset=0&limit=1', { token: m.apiKey.secret });
      },
      is429,
    );
    expect(refused.status).toBe(429);
    await sleep(Number(refused.headers.get('retry-after')) * 1000 + 50);
    expect((await t.client.request('GET', '/v1/invoices?offset=0&limit=1', { token: m.apiKey.secret })).status).toBe(200);
  });

  it('calls without a credential (signUp, logIn, OAuth token) are limited per client address', async () => {
    let last = { status: 0, body: null as any, headers: new Headers() };
    const spendAddress = async () => {
      last = await t.client.request('POST', '/v2/oauth-apps/token', { rawBody: 'grant_type=authorization_code', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      return last.status === 429;
    };
    const { last: logIn } = await probeEmptyBucket(
      spendAddress,
      async () => asJson(await fetch(`${t.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'mutation { logIn(input: {email: "a@b.cd", password: "x"}) { token } }' }) })),
      is429,
    );
    expect(last).toMatchObject({ status: 429, body: { error: 'temporarily_unavailable', error_description: expect.any(String) } });
    expect(logIn.status).toBe(429);
    expect(logIn.body.errors[0].extensions.code).toBe('RATE_LIMITED');
    // A key is not affected by the address's bucket.
    expect((await t.client.request('GET', '/v1/invoices?offset=0&limit=1', { token: other.apiKey.secret })).status).toBe(200);
  });

  it('a bearer that does not authenticate does not escape the address’s limit: logIn, signUp and the OAuth token endpoint stay limited', async () => {
    const logIn = (authorization?: string) =>
      fetch(`${t.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
        body: JSON.stringify({ query: 'mutation { logIn(input: {email: "bearer@b.cd", password: "x"}) { token } }' }),
      });
    // The address's bucket, emptied with logIns without a bearer right before each probe (it refills at 1/s meanwhile).
    const spendAddress = async () => (await logIn()).status === 429;
    let made = 0;
    // A made-up bearer per request (of each kind, and none at all) gets no bucket of its own: still the address's 429.
    for (const [i, bearer] of ['sk_live_', 'sess_', 'oat_', 'x'].entries()) {
      const { last: r } = await probeEmptyBucket(spendAddress, async () => asJson(await logIn(`Bearer ${bearer}made-up-${i}-${made++}-${Date.now()}`)), is429);
      expect(r.status, bearer).toBe(429);
      expect(r.body.errors[0].extensions.code).toBe('RATE_LIMITED');
    }
    const { last: signUp } = await probeEmptyBucket(
      spendAddress,
      async () =>
        asJson(
          await fetch(`${t.url}/graphql`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: 'Bearer sess_made-up-signup' },
            body: JSON.stringify({ query: `mutation { signUp(input: {email: "bearer-signup-${made++}@b.cd", password: "correct horse 1", name: "x"}) { token } }` }),
          }),
        ),
      is429,
    );
    expect(signUp.status).toBe(429);
    // The OAuth token endpoint authenticates its client otherwise: a bearer sent along is not a bucket of its own either.
    const { last: token } = await probeEmptyBucket(
      spendAddress,
      () =>
        t.client.request('POST', '/v2/oauth-apps/token', {
          rawBody: 'grant_type=authorization_code',
          headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer oat_made-up-${made++}-${Date.now()}` },
        }),
      is429,
    );
    expect(token).toMatchObject({ status: 429, body: { error: 'temporarily_unavailable' } });
    // A credential that authenticates keeps its own bucket.
    expect((await t.client.request('GET', '/v1/invoices?offset=0&limit=1', { token: other.apiKey.secret })).status).toBe(200);
    expect((await fetch(`${t.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${other.sessionToken}` }, body: JSON.stringify({ query: '{ viewer { kind } }' }) })).status).toBe(200);
  });
});

/** One operation over graphql-ws: its result (`next`, then `complete`), or what the server refused it with (`error`, or the socket's close). */
function wsOperation(client: Client, query: string, variables: Record<string, unknown> = {}): Promise<{ data?: any; errors?: any[]; refused?: any[] }> {
  return new Promise((resolve) => {
    let result: { data?: any; errors?: any[] } = {};
    client.subscribe({ query, variables }, {
      next: (v) => (result = v as typeof result),
      error: (e) => resolve({ refused: Array.isArray(e) ? e : [e] }),
      complete: () => resolve(result),
    });
  });
}

/** A graphql-ws client whose connection is acknowledged (or closed: the close event). */
function wsConnect(url: string, connectionParams: Record<string, unknown>): Promise<{ client: Client; closed?: { code: number; reason: string } }> {
  return new Promise((resolve) => {
    const client = createClient({
      url: url.replace(/^http/, 'ws') + '/graphql',
      webSocketImpl: WebSocket,
      connectionParams,
      retryAttempts: 0,
      lazy: false,
      onNonLazyError: () => {},
      on: { connected: () => resolve({ client }), closed: (e) => resolve({ client, closed: e as { code: number; reason: string } }) },
    });
  });
}

describe(`GraphQL over WebSocket: the limits of HTTP on ${dbLabel}`, () => {
  describe('rate limit', () => {
    let t: TestApp;
    let m: Bootstrapped;
    let other: Bootstrapped;
    const clients: Client[] = [];
    beforeAll(async () => {
      t = await startTestApp({ env: { RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '12' } });
      m = await bootstrap(t.client);
      other = await bootstrap(t.client);
    });
    afterAll(async () => {
      for (const c of clients) await c.dispose();
      await t?.stop();
    });
    /** The most a bucket of 12 refilling at 1/s can have served since `started` (a slow machine refills more). */
    const refilledBucket = (started: number) => 12 + Math.ceil((Date.now() - started) / 1000);
    const connect = async (params: Record<string, unknown>) => {
      const { client, closed } = await wsConnect(t.url, params);
      expect(closed).toBeUndefined();
      clients.push(client);
      return client;
    };

    it('every operation takes a token from the bucket HTTP uses: over the limit, that operation is refused RATE_LIMITED; the connection lives on', async () => {
      const ws = await connect({ authorization: `Bearer ${m.apiKey.secret}` });
      let answered = 0;
      let last: Awaited<ReturnType<typeof wsOperation>> = {};
      const started = Date.now();
      for (let i = 0; i < 30; i++) {
        last = await wsOperation(ws, '{ viewer { kind } }');
        if (last.refused) break;
        expect(last.data.viewer.kind).toBe('API_KEY');
        answered++;
      }
      expect(last.refused).toEqual([expect.objectContaining({ message: expect.any(String), extensions: expect.objectContaining({ code: 'RATE_LIMITED' }) })]);
      // A bucket of 12, plus what refilled at 1/s meanwhile.
      expect(answered).toBeGreaterThanOrEqual(10);
      expect(answered).toBeLessThanOrEqual(refilledBucket(started));
      // The same bucket as HTTP: emptied over the WebSocket right before (it refills at 1/s meanwhile), the key is at
      // its limit there too; another key is not.
      const spendWs = async () => {
        const r = await wsOperation(ws, '{ viewer { kind } }');
        if (r.refused) expect(r.refused[0].extensions.code).toBe('RATE_LIMITED');
        else expect(r.data.viewer.kind).toBe('API_KEY');
        return !!r.refused;
      };
      const { last: http } = await probeEmptyBucket(spendWs, () => t.client.request('GET', '/v1/invoices?offset=0&limit=1', { token: m.apiKey.secret }), is429);
      expect(http.status).toBe(429);
      expect((await wsOperation(await connect({ authorization: `Bearer ${other.apiKey.secret}` }), '{ viewer { kind } }')).data.viewer.kind).toBe('API_KEY');
      // Mutations and subscriptions count alike; once the bucket refills, the same connection is served again.
      const { last: mutation } = await probeEmptyBucket(
        spendWs,
        () => wsOperation(ws, 'mutation { createInvoice(input: {bankAccountIds: [], customer: {name: "웹소켓"}, amount: 1000}) { __typename } }'),
        (r) => !!r.refused,
      );
      expect(mutation.refused?.[0].extensions.code).toBe('RATE_LIMITED');
      await sleep(1100);
      expect((await wsOperation(ws, '{ viewer { kind } }')).data.viewer.kind).toBe('API_KEY');
    });

    it('logIn over WebSocket is limited per client address like over HTTP, sharing its bucket, whatever bearer the connection made up', async () => {
      const anonymous = await connect({});
      const logIn = (ws: Client, i: number) => wsOperation(ws, `mutation { logIn(input: {email: "ws-${i}@b.cd", password: "x"}) { token } }`);
      let last: Awaited<ReturnType<typeof wsOperation>> = {};
      let answered = 0;
      const started = Date.now();
      for (let i = 0; i < 30; i++) {
        last = await logIn(anonymous, i);
        if (last.refused) break;
        expect(last.errors?.[0].extensions.code).toBe('INVALID_CREDENTIALS');
        answered++;
      }
      expect(last.refused?.[0].extensions.code).toBe('RATE_LIMITED');
      expect(answered).toBeLessThanOrEqual(refilledBucket(started));
      // HTTP from the same address meets the same empty bucket: refused once what refilled since (1/s) is spent, not
      // after a fresh bucket of 12.
      const emptied = Date.now();
      const httpLogIn = () => fetch(`${t.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'mutation { logIn(input: {email: "ws@b.cd", password: "x"}) { token } }' }) });
      let httpStatus = (await httpLogIn()).status;
      for (let served = 0; httpStatus !== 429 && served < refilledBucket(emptied) - 12; served++) httpStatus = (await httpLogIn()).status;
      expect(httpStatus).toBe(429);
      // A connection with a bearer that does not authenticate is charged to the address too.
      const madeUp = await connect({ authorization: `Bearer sk_live_made-up-${Date.now()}` });
      const charged = Date.now();
      let madeUpAnswer = await logIn(madeUp, 99);
      for (let served = 0; !madeUpAnswer.refused && served < refilledBucket(charged) - 12; served++) madeUpAnswer = await logIn(madeUp, 100 + served);
      expect(madeUpAnswer.refused?.[0].extensions.code).toBe('RATE_LIMITED');
    });
  });

  describe('message size, operations per connection, connections per client', () => {
    const lines: { level: number; msg: string; method?: string; code?: string; requestId?: string }[] = [];
    let app: App;
    let url: string;
    let m: Bootstrapped;
    let drop: () => Promise<void>;
    beforeAll(async () => {
      const fresh = await freshDatabase();
      drop = fresh.drop;
      const sink = new Writable({
        write(chunk, _enc, cb) {
          for (const l of chunk.toString().split('\n')) if (l.trim()) lines.push(JSON.parse(l));
          cb();
        },
      });
      const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: mkdtempSync(join(tmpdir(), 'ws-limits-')), LOG_LEVEL: 'info', RATE_LIMIT_PER_SECOND: '0', MAX_BODY_BYTES: '65536', WORKERS: 'false' });
      app = await buildApp(config, { database: fresh.database, logger: pino({ level: 'info' }, sink) });
      url = (await app.start()).url;
      m = await bootstrap(new ServiceClient(url));
    });
    afterAll(async () => {
      await app?.stop({ graceMs: 100 });
      await drop?.();
    });
    /** The refusals logged for GraphQL over WebSocket with this code: at info, each with a request id. */
    const refusalsLogged = (code: string) => lines.filter((l) => l.msg === 'request refused' && l.method === 'WS' && l.code === code);
    const INFO = 30;

    it('a message over MAX_BODY_BYTES closes the socket with 1009 (Message Too Big); one within it is answered; a document that does not parse is an error, not a closed socket', async () => {
      const consoleError = vi.spyOn(console, 'error');
      const { client } = await wsConnect(url, { authorization: `Bearer ${m.apiKey.secret}` });
      try {
        const within = await wsOperation(client, `{ viewer { kind } }${' '.repeat(60_000)}`);
        expect(within.data.viewer.kind).toBe('API_KEY');
        const unparsable = await wsOperation(client, '{ viewer { kind ');
        expect(unparsable.refused).toEqual([expect.objectContaining({ message: expect.stringContaining('Syntax Error') })]);
        const over = await wsOperation(client, `{ viewer { kind } }${' '.repeat(70_000)}`);
        expect(over.refused?.[0]).toMatchObject({ code: 1009 });
        await sleep(50);
        expect(refusalsLogged('PAYLOAD_TOO_LARGE')).toEqual([expect.objectContaining({ level: INFO, requestId: expect.any(String) })]);
        // Logged as a refusal, not reported on the console as an internal error.
        expect(consoleError).not.toHaveBeenCalled();
      } finally {
        consoleError.mockRestore();
        await client.dispose();
      }
    });

    it(`at most ${MAX_OPERATIONS_PER_CONNECTION} operations at once on a connection: the next is refused TOO_MANY_SUBSCRIPTIONS`, async () => {
      const { client } = await wsConnect(url, { authorization: `Bearer ${m.apiKey.secret}` });
      try {
        const live: (() => void)[] = [];
        const errors: unknown[] = [];
        for (let i = 0; i < MAX_OPERATIONS_PER_CONNECTION; i++) {
          live.push(client.subscribe({ query: 'subscription { invoicePaid(sinceSequence: "0") { id } }' }, { next: () => {}, error: (e) => errors.push(e), complete: () => {} }));
        }
        const over = await wsOperation(client, 'subscription { invoicePaid { id } }');
        expect(over.refused).toEqual([expect.objectContaining({ message: expect.any(String), extensions: expect.objectContaining({ code: 'TOO_MANY_SUBSCRIPTIONS' }) })]);
        expect(refusalsLogged('TOO_MANY_SUBSCRIPTIONS')).toEqual([expect.objectContaining({ level: INFO, requestId: expect.any(String) })]);
        expect(errors).toEqual([]);
        // Completing one makes room for another.
        live.pop()!();
        await sleep(100);
        expect((await wsOperation(client, '{ viewer { kind } }')).data.viewer.kind).toBe('API_KEY');
      } finally {
        await client.dispose();
      }
    });

    it(`at most ${MAX_CONNECTIONS_PER_CLIENT} connections at once per credential (or address): the next is closed 1013 (Try Again Later)`, async () => {
      const open: Client[] = [];
      try {
        for (let i = 0; i < MAX_CONNECTIONS_PER_CLIENT; i++) {
          const { client, closed } = await wsConnect(url, { authorization: `Bearer ${m.apiKey.secret}` });
          open.push(client);
          expect(closed).toBeUndefined();
        }
        const over = await wsConnect(url, { authorization: `Bearer ${m.apiKey.secret}` });
        open.push(over.client);
        expect(over.closed).toMatchObject({ code: CLOSE_TRY_AGAIN_LATER });
        expect(refusalsLogged('TOO_MANY_CONNECTIONS')).toEqual([expect.objectContaining({ level: INFO, requestId: expect.any(String) })]);
        // Another credential, or the address without one, has its own count.
        const anonymous = await wsConnect(url, {});
        open.push(anonymous.client);
        expect(anonymous.closed).toBeUndefined();
        // A connection that closes frees its place.
        await open.shift()!.dispose();
        await sleep(100);
        const again = await wsConnect(url, { authorization: `Bearer ${m.apiKey.secret}` });
        open.push(again.client);
        expect(again.closed).toBeUndefined();
      } finally {
        for (const c of open) await c.dispose();
      }
      // None of these refusals is the service's fault.
      expect(lines.filter((l) => l.level >= 40)).toEqual([]);
    });
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

  /**
   * Sends raw bytes and resolves with everything the server wrote before closing; `halfClose`: the client then closes
   * its sending side at once (FIN), as netcat and some HTTP/1.0 clients do.
   */
  function raw(bytes: string, opts: { halfClose?: boolean } = {}): Promise<string> {
    return new Promise((resolve) => {
      const { port } = new URL(t.url);
      const socket = connect(Number(port), '127.0.0.1');
      let text = '';
      socket.on('data', (d) => (text += d.toString()));
      socket.on('close', () => resolve(text));
      socket.on('error', () => {});
      socket.on('connect', () => socket.write(bytes, () => opts.halfClose && socket.end()));
    });
  }

  it('a client that closes its sending side after its request still gets the answer (one that waits on the database)', async () => {
    const request = `GET /v1/invoices?offset=0&limit=1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer sk_live_${'x'.repeat(40)}\r\nConnection: close\r\n\r\n`;
    const text = await raw(request, { halfClose: true });
    expect(text).toMatch(/^HTTP\/1\.1 401 /);
    expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toMatchObject({ code: 'NOT_AUTHORIZED' });
  });

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
