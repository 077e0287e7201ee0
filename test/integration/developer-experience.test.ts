/**
 * Developer experience: Idempotency-Key on REST v1/v2 POSTs and GraphQL mutations (every content type Yoga runs), Prometheus metrics, GraphQL
 * protections (depth, aliases, CSRF), GraphQL-over-HTTP compliance (graphql-http's audit), CLI listen and
 * simulate-deposit, graceful shutdown.
 */
import { auditServer } from 'graphql-http';
import { createServer, request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { listen } from '../../src/cli/listen.ts';
import { simulatedDepositorName } from '../../src/cli/simulate.ts';
import { dbLabel, startTestApp, type TestApp } from '../helpers/app.ts';
import { subscribeWs, wsClient } from '../helpers/subscriptions.ts';
import { TcpProxy } from '../helpers/tcp-proxy.ts';
import { until } from '../helpers/wait.ts';
import { createHmac } from 'node:crypto';
import { createSchema, createYoga } from 'graphql-yoga';
import { maskError } from '../../src/graphql/common/errors.ts';
import { graphQLIdempotency, useIdempotencyGuard, type GraphQLRequestParser, type IdempotencyGuardContext } from '../../src/http/idempotency.ts';

describe(`developer experience on ${dbLabel}`, () => {
  let t: TestApp;
  let m: Bootstrapped;
  beforeAll(async () => {
    t = await startTestApp();
    m = await bootstrap(t.client);
  });
  afterAll(() => t?.stop());

  describe('Idempotency-Key', () => {
    const post = (key: string, body: unknown, token = m.apiKey.secret) => t.client.request('POST', '/v1/invoices', { token, body, headers: { 'idempotency-key': key } });

    it('v1: a retry with the same key and body replays the first response; nothing is created twice', async () => {
      const body = { bankAccountIds: [], customer: { name: '멱등' }, amount: 7100 };
      const first = await post('key-1', body);
      const again = await post('key-1', body);
      expect(first.status).toBe(201);
      expect(again.status).toBe(201);
      expect(again.body).toEqual(first.body);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const list = await t.client.request('GET', '/v1/invoices?offset=0&limit=10&search=멱등', { token: m.apiKey.secret });
      expect(list.body.totalItems).toBe(1);
    });

    it('v1: the same key with a different body → 422 IDEMPOTENCY_KEY_REUSED in the v1 envelope', async () => {
      await post('key-2', { bankAccountIds: [], customer: { name: '키재사용' }, amount: 7200 });
      expect(await post('key-2', { bankAccountIds: [], customer: { name: '키재사용' }, amount: 7201 })).toMatchObject({ status: 422, body: { code: 'IDEMPOTENCY_KEY_REUSED', data: null } });
    });

    it('v1: ten simultaneous duplicates execute once and all get the same answer', async () => {
      const body = { bankAccountIds: [], customer: { name: '동시멱등' }, amount: 7300 };
      const rs = await Promise.all(Array.from({ length: 10 }, () => post('key-3', body)));
      expect(rs.map((r) => r.status)).toEqual(Array(10).fill(201));
      expect(new Set(rs.map((r) => r.body.data.id)).size).toBe(1);
      const rows = await t.app.db.sql.query(`SELECT 1 FROM "Invoice" WHERE "customerName" = '동시멱등'`);
      expect(rows).toHaveLength(1);
    });

    it('keys are per workspace: another workspace may use the same key', async () => {
      const other = await bootstrap(t.client);
      const a = await post('shared-key', { bankAccountIds: [], customer: { name: '공유키' }, amount: 7400 });
      const b = await post('shared-key', { bankAccountIds: [], customer: { name: '공유키' }, amount: 7400 }, other.apiKey.secret);
      expect(a.status).toBe(201);
      expect(b.status).toBe(201);
      expect(a.body.data.id).not.toBe(b.body.data.id);
    });

    it('errors are replayed too (a 409 stays a 409); an invalid key is 400 BAD_REQUEST', async () => {
      const body = { bankAccountIds: [], customer: { name: '충돌멱등' }, amount: 7500 };
      await post('key-4a', body);
      const conflict = await post('key-4b', body);
      expect(conflict.status).toBe(409);
      expect((await post('key-4b', body)).headers.get('idempotent-replayed')).toBe('true');
      expect(await post('key with spaces', body)).toMatchObject({ status: 400, body: { code: 'BAD_REQUEST' } });
    });

    it('v2: cancel with a key is replayed, in the v2 envelope', async () => {
      const inv = await post('key-5', { bankAccountIds: [], customer: { name: '취소멱등' }, amount: 7600 });
      const cancel = () => t.client.request('POST', `/v2/invoices/${inv.body.data.id}/cancel`, { token: m.apiKey.secret, body: { reason: 'dup' }, headers: { 'idempotency-key': 'key-6' } });
      const first = await cancel();
      const again = await cancel();
      expect(first).toMatchObject({ status: 200, body: { code: '10001', data: { status: 'CANCELED' } } });
      expect(again.body).toEqual(first.body);
      const reuse = await t.client.request('POST', `/v2/invoices/${inv.body.data.id}/cancel`, { token: m.apiKey.secret, body: { reason: 'other' }, headers: { 'idempotency-key': 'key-6' } });
      expect(reuse).toMatchObject({ status: 422, body: { code: '30020', data: null } });
    });

    it('GraphQL: a mutation with a key runs once; a query ignores the key', async () => {
      const q = `mutation($i: CreateInvoiceInput!) { createInvoice(input: $i) { ... on InvoicePayload { invoice { id } } } }`;
      const send = (key: string, amount: number) =>
        fetch(`${t.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${m.apiKey.secret}`, 'idempotency-key': key },
          body: JSON.stringify({ query: q, variables: { i: { bankAccountIds: [], customer: { name: '그래프멱등' }, amount } } }),
        });
      const a = await send('gql-1', 7700);
      const b = await send('gql-1', 7700);
      const ja = await a.json();
      expect(await b.json()).toEqual(ja);
      expect(b.headers.get('idempotent-replayed')).toBe('true');
      const c = await send('gql-1', 7701);
      expect(c.status).toBe(422);
      expect((await c.json()).errors[0].extensions.code).toBe('IDEMPOTENCY_KEY_REUSED');
      const query = await fetch(`${t.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${m.apiKey.secret}`, 'idempotency-key': 'gql-1' }, body: JSON.stringify({ query: '{ viewer { kind } }' }) });
      expect((await query.json()).data.viewer.kind).toBe('API_KEY');
    });

    describe('GraphQL: every content type Yoga runs is keyed, on the parameters it executes', () => {
      type Params = { query: string; variables?: Record<string, unknown>; operationName?: string; extensions?: Record<string, unknown> };
      /** The same GraphQL parameters in each body Yoga accepts; multipart gets a fresh boundary per request, as clients send it. */
      const BODIES: Record<string, (p: Params) => { headers: Record<string, string>; body: BodyInit }> = {
        'application/json': (p) => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(p) }),
        'application/graphql': (p) => ({ headers: { 'content-type': 'application/graphql' }, body: p.query }),
        'application/x-www-form-urlencoded': (p) => ({
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(Object.entries(p).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])).toString(),
        }),
        'multipart/form-data': (p) => {
          const form = new FormData();
          form.set('operations', JSON.stringify(p));
          return { headers: {}, body: form };
        },
      };
      const send = (key: string, kind: string, p: Params) => {
        const { headers, body } = BODIES[kind]!(p);
        return fetch(`${t.url}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${m.sessionToken}`, 'x-graphql-csrf': '1', 'idempotency-key': key, ...headers }, body });
      };
      const createKey = (name: string) => `mutation { createApiKey(input: {name: "${name}", readOnly: true}) { apiKey { id } secret } }`;
      const keysNamed = async (name: string) => (await t.client.gql<{ apiKeys: { name: string }[] }>(`{ apiKeys { name } }`, {}, m.sessionToken)).apiKeys.filter((k) => k.name === name).length;

      it.each(Object.keys(BODIES))('%s: the retry replays the first answer (one key created); another request with the same key is IDEMPOTENCY_KEY_REUSED', async (kind) => {
        const name = `idem ${kind}`;
        const key = `idem-ct-${kind}`;
        const first = await send(key, kind, { query: createKey(name) });
        expect(first.status).toBe(200);
        expect(first.headers.get('idempotency-key')).toBe(key);
        expect(first.headers.get('idempotent-replayed')).toBeNull();
        const body = await first.json();
        expect(body.data.createApiKey.secret).toMatch(/^sk_live_/);

        const again = await send(key, kind, { query: createKey(name) });
        expect(again.status).toBe(200);
        expect(again.headers.get('idempotent-replayed')).toBe('true');
        expect(await again.json()).toEqual(body);
        expect(await keysNamed(name)).toBe(1);

        const other = await send(key, kind, { query: createKey(`${name} 2`) });
        expect(other.status).toBe(422);
        expect((await other.json()).errors[0].extensions.code).toBe('IDEMPOTENCY_KEY_REUSED');
        expect(await keysNamed(`${name} 2`)).toBe(0);
      });

      it('the fingerprint is the parameters as parsed (query, variables, operationName, extensions), not the bytes', async () => {
        const query = `mutation Make($n: String!) { createApiKey(input: {name: $n, readOnly: true}) { apiKey { id } } }
          mutation Other($n: String!) { createApiKey(input: {name: $n}) { apiKey { id } } }`;
        const p: Params = { query, variables: { n: 'idem fingerprint' }, operationName: 'Make' };
        const first = await send('idem-fp', 'application/x-www-form-urlencoded', p);
        expect(first.headers.get('idempotency-key')).toBe('idem-fp');
        // The same parameters in another body, keys in another order: the same request.
        const same = await send('idem-fp', 'application/json', { operationName: 'Make', variables: { n: 'idem fingerprint' }, query });
        expect(same.headers.get('idempotent-replayed')).toBe('true');
        expect(await same.json()).toEqual(await first.json());
        for (const changed of [{ ...p, variables: { n: 'idem fingerprint 2' } }, { ...p, operationName: 'Other' }, { ...p, extensions: { note: 1 } }]) {
          const r = await send('idem-fp', 'multipart/form-data', changed);
          expect(r.status, JSON.stringify(changed)).toBe(422);
          expect((await r.json()).errors[0].extensions.code).toBe('IDEMPOTENCY_KEY_REUSED');
        }
        expect(await keysNamed('idem fingerprint')).toBe(1);
        expect(await keysNamed('idem fingerprint 2')).toBe(0);
      });

      it('variables nested as deep as a body allows are fingerprinted too (no recursion to overflow): keyed and replayed, never a 500', async () => {
        const depth = 40_000;
        const body = `{"query": ${JSON.stringify(createKey('idem deep'))}, "variables": {"deep": ${'{"a":['.repeat(depth)}1${']}'.repeat(depth)}}}`;
        const post = () =>
          fetch(`${t.url}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${m.sessionToken}`, 'content-type': 'application/json', 'idempotency-key': 'idem-deep' }, body });
        const first = await post();
        expect(first.status).toBe(200);
        const again = await post();
        expect(again.headers.get('idempotent-replayed')).toBe('true');
        expect(await again.json()).toEqual(await first.json());
        expect(await keysNamed('idem deep')).toBe(1);
      });

      it('a request that executes other parameters than its key was decided on is refused, not run past its key', async () => {
        // A plugin that rewrites the parameters after parsing (as persisted operations do): the query decided on is
        // not the mutation that would run.
        let ran = 0;
        const yoga = createYoga<IdempotencyGuardContext>({
          schema: createSchema({ typeDefs: 'type Query { a: Int } type Mutation { m: Int }', resolvers: { Mutation: { m: () => ++ran } } }),
          maskedErrors: { maskError },
          logging: false,
          plugins: [{ onParams: ({ params, setParams }) => void (params.extensions?.persisted && setParams({ query: 'mutation { m }' })) }, useIdempotencyGuard()],
        });
        const request = () => new Request('http://x/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ a }', extensions: { persisted: true } }) });
        const idem = graphQLIdempotency(yoga.parseRequest as GraphQLRequestParser);
        expect(await idem.classify(request(), '')).toBeNull();
        const refused = await yoga.fetch(request(), idem.guard());
        expect(refused.status).toBe(400);
        expect((await refused.json()).errors[0].extensions.code).toBe('BAD_REQUEST');
        expect(ran).toBe(0);
        // Without the rewrite, what was decided on runs.
        const plain = () => new Request('http://x/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'mutation { m }' }) });
        const decided = graphQLIdempotency(yoga.parseRequest as GraphQLRequestParser);
        expect(await decided.classify(plain(), '')).not.toBeNull();
        expect(await (await yoga.fetch(plain(), decided.guard())).json()).toEqual({ data: { m: 1 } });
      });
    });
  });

  describe('metrics', () => {
    it('GET /metrics exposes HTTP and GraphQL timings, match outcomes, webhook attempts and outbox lag', async () => {
      await t.client.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds: [], customer: { name: '지표' }, amount: 8100 } });
      await t.client.deposit(m.bankAccount.notificationToken, { depositorName: '지표', amount: 8100 });
      await t.client.gql(`{ viewer { kind } }`, {}, m.apiKey.secret);
      const res = await fetch(`${t.url}/metrics`);
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).toMatch(/http_request_duration_seconds_count\{method="POST",route="\/v1\/invoices",status="201"\} \d+/);
      expect(text).toMatch(/graphql_operation_duration_seconds_count\{operation="anonymous",type="query"\} \d+/);
      expect(text).toMatch(/deposit_match_outcomes_total\{outcome="EXACT"\} [1-9]/);
      expect(text).toMatch(/deposit_match_outcomes_total\{outcome="VERIFICATION"\} [1-9]/);
      expect(text).toContain('webhook_delivery_attempts_total');
      expect(text).toMatch(/outbox_lag_seconds \d/);
      expect(text).toContain('process_cpu_user_seconds_total');
    });
  });

  describe('GraphQL protection and compliance', () => {
    const gql = (query: string, headers: Record<string, string> = {}) =>
      fetch(`${t.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${m.apiKey.secret}`, ...headers }, body: JSON.stringify({ query }) });

    it('too deep a query is refused before execution', async () => {
      let q = 'id';
      for (let i = 0; i < 15; i++) q = `transactions { matchedInvoice { ${q} } }`;
      const r = await (await gql(`{ invoices(first: 1) { edges { node { ${q} } } } }`)).json();
      expect(r.data).toBeUndefined();
      expect(JSON.stringify(r.errors)).toMatch(/depth/i);
    });

    it('an alias bomb is refused', async () => {
      const aliases = Array.from({ length: 200 }, (_, i) => `a${i}: viewer { kind }`).join(' ');
      const r = await (await gql(`{ ${aliases} }`)).json();
      expect(JSON.stringify(r.errors)).toMatch(/alias/i);
    });

    it('introspection is allowed (it is a public API)', async () => {
      const r = await (await gql(`{ __schema { queryType { name } types { name } } }`)).json();
      expect(r.data.__schema.queryType.name).toBe('Query');
    });

    it('CSRF: a GET without a preflight header is refused; with one it works; JSON POSTs need none', async () => {
      const url = `${t.url}/graphql?query=${encodeURIComponent('{ bankProviders { id } }')}`;
      const plain = await fetch(url, { headers: { accept: 'application/json' } });
      expect(plain.status).toBe(403);
      const withHeader = await fetch(url, { headers: { accept: 'application/json', 'x-graphql-csrf': '1' } });
      expect(withHeader.status).toBe(200);
      expect((await withHeader.json()).data.bankProviders).toHaveLength(7);
    });

    it('graphql-http audit of /graphql: no failures or warnings', async () => {
      const results = await auditServer({ url: `${t.url}/graphql`, fetchFn: (input: RequestInfo | URL, init?: RequestInit) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), 'x-graphql-csrf': '1' } }) });
      const bad = results.filter((r) => r.status !== 'ok').map((r) => `${r.status}: ${r.name}`);
      expect(bad).toEqual([]);
    });
  });

  describe('CLI', () => {
    it('simulate-deposit names: bracketed and truncated like banks do', () => {
      expect(simulatedDepositorName('홍길동', { bracket: '(123)' })).toBe('홍길동(123)');
      expect(simulatedDepositorName('가나다라마바사아자', { bank: 'SHINHAN' })).toBe('가나다라마바사');
      expect(simulatedDepositorName('가나다라마바사아자', { truncate: '4' })).toBe('가나다라');
    });

    it('listen streams the workspace’s events and forwards them signed to a local URL', async () => {
      const got: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];
      const receiver = createServer((req, res) => {
        let body = '';
        req.on('data', (d) => (body += d));
        req.on('end', () => {
          got.push({ headers: req.headers, body });
          res.end('ok');
        });
      });
      await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
      const port = (receiver.address() as { port: number }).port;
      const lines: string[] = [];
      const done = listen({ url: t.url, token: m.apiKey.secret, forwardTo: `http://127.0.0.1:${port}/hook`, out: (l) => lines.push(l), max: 2 });
      // Said once the workspace's last sequence is read: what is committed from then on is printed.
      await until(() => lines.find((l) => l.startsWith('Listening for events')), Boolean, 10_000);
      expect(lines.find((l) => l.startsWith('Listening for events'))).toMatch(/ after event #\d+ \(Ctrl-C to stop\)/);
      await t.client.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds: [], customer: { name: '리슨' }, amount: 9100 } });
      await t.client.deposit(m.bankAccount.notificationToken, { depositorName: '리슨', amount: 9100 });
      const { secret, received } = await done;
      expect(received).toBe(2);
      expect(lines.some((l) => l.includes('invoice.created'))).toBe(true);
      expect(lines.some((l) => l.includes('invoice.paid'))).toBe(true);
      // listen stops after its two (max: 2): what it forwarded is all the receiver gets.
      await until(() => got.length, (n) => n >= 2, 5_000);
      expect(got.map((g) => JSON.parse(g.body).type)).toEqual(['invoice.created', 'invoice.paid']);
      for (const g of got) {
        const key = Buffer.from(secret!.slice(6), 'base64');
        const sig = createHmac('sha256', key).update(`${g.headers['webhook-id']}.${g.headers['webhook-timestamp']}.${g.body}`).digest('base64');
        expect(g.headers['webhook-signature']).toBe(`v1,${sig}`);
      }
      receiver.close();
    });

    it('listen, its connection lost: subscribes again after the last event it printed, so an invoice made in the gap comes first', async () => {
      const proxy = await new TcpProxy('127.0.0.1', Number(new URL(t.url).port)).start();
      const lines: string[] = [];
      const controller = new AbortController();
      const done = listen({ url: `http://127.0.0.1:${proxy.port}`, token: m.apiKey.secret, out: (l) => lines.push(l), signal: controller.signal });
      const printed = () => lines.filter((l) => l.includes('invoice.')).map((l) => ({ sequence: l.split(/\s+/)[1]!.slice(1), id: l.split(/\s+/)[3]! }));
      const create = async (name: string, amount: number) => {
        const r = await t.client.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds: [], customer: { name }, amount } });
        expect(r.status).toBe(201);
        return r.body.data.id as string;
      };
      try {
        await until(() => lines.some((l) => l.startsWith('Listening for events')), Boolean, 10_000);
        const first = await create('리슨준비', 9200);
        await until(() => printed().some((p) => p.id === first), Boolean, 10_000);
        const before = printed().at(-1)!;
        expect(before.id).toBe(first);
        await proxy.cut();
        await until(() => lines.some((l) => l.startsWith('Connection lost')), Boolean, 10_000);
        expect(lines.find((l) => l.startsWith('Connection lost'))).toContain(`after event #${before.sequence}`);
        const gap = await create('끊긴동안리슨', 9300);
        await proxy.restore();
        await until(() => printed().some((p) => p.id === gap), Boolean, 20_000);
        const after = printed().slice(printed().findIndex((p) => p.sequence === before.sequence) + 1);
        expect(after[0]).toEqual({ sequence: expect.any(String), id: gap });
        expect(BigInt(after[0]!.sequence)).toBeGreaterThan(BigInt(before.sequence));
      } finally {
        controller.abort();
        await done;
        await proxy.cut();
      }
    }, 60_000);

    it('listen --since replays the events after it first; a sequence the service cannot resume from is said, and listening goes on from now', async () => {
      const lines: string[] = [];
      const controller = new AbortController();
      const create = async (name: string, amount: number) => (await t.client.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds: [], customer: { name }, amount } })).body.data.id as string;
      const a = await create('리슨다시가', 9400);
      const b = await create('리슨다시나', 9401);
      const seqOf = async (id: string) => (await t.client.gql<{ events: { sequence: string }[] }>(`query($id: ID!) { events(invoiceId: $id) { sequence } }`, { id }, m.apiKey.secret)).events[0]!.sequence;
      const done = listen({ url: t.url, token: m.apiKey.secret, since: await seqOf(a), out: (l) => lines.push(l), signal: controller.signal, max: 1 });
      expect((await done).received).toBe(1);
      expect(lines.filter((l) => l.includes('invoice.')).map((l) => l.split(/\s+/)[3])).toEqual([b]);

      // Beyond the workspace's last event (as after a restore): said, then from now.
      const beyond: string[] = [];
      const later = listen({ url: t.url, token: m.apiKey.secret, since: '9000000000000000000', out: (l) => beyond.push(l), signal: controller.signal, max: 1 });
      await until(() => beyond.some((l) => l.includes('cannot be caught up on')), Boolean, 10_000);
      expect(beyond.find((l) => l.includes('cannot be caught up on'))).toContain('VALIDATION_FAILED');
      // Said again once the workspace's last sequence is read: what is committed from then on is printed.
      await until(() => beyond.filter((l) => l.startsWith('Listening for events')).length, (n) => n === 2, 10_000);
      expect(beyond.filter((l) => l.startsWith('Listening for events')).at(-1)).toMatch(/ after event #\d+ \(Ctrl-C to stop\)/);
      const c = await create('리슨다시다', 9402);
      expect((await later).received).toBe(1);
      expect(beyond.filter((l) => l.includes('invoice.')).map((l) => l.split(/\s+/)[3])).toEqual([c]);
      controller.abort();
    }, 60_000);

    it('listen with a key the service refuses ends with the refusal instead of trying again', async () => {
      const lines: string[] = [];
      await expect(listen({ url: t.url, token: 'sk_live_not_a_real_key_000000000000', out: (l) => lines.push(l) })).rejects.toThrow(/4403|UNAUTHENTICATED|Invalid|Forbidden/i);
      expect(lines.some((l) => l.startsWith('Connection lost'))).toBe(false);
    }, 30_000);
  });
});

describe(`graceful shutdown on ${dbLabel}`, () => {
  it('stop() lets an in-flight request finish and tells subscribers to go away (1001)', async () => {
    const t = await startTestApp();
    const m = await bootstrap(t.client);
    const client = wsClient(t.url, m.apiKey.secret);
    const codes: number[] = [];
    client.on('closed', (e) => codes.push((e as { code: number }).code));
    await subscribeWs(client, `subscription { invoicePaid { id } }`);
    // A request the service is handling when stop() is called: with Expect: 100-continue the service says it has read
    // the headers and is reading the body (the request is in flight); the body follows the stop.
    const body = JSON.stringify({ bankAccountIds: [], customer: { name: '종료' }, amount: 1 });
    let reading!: () => void;
    const headersRead = new Promise<void>((r) => (reading = r));
    const inFlight = new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${t.url}/v1/invoices`, {
        method: 'POST',
        headers: { authorization: `Bearer ${m.apiKey.secret}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), expect: '100-continue' },
      });
      req.on('continue', () => {
        reading();
        // After stop() has begun: the body of a request in flight is still read, and the request answered.
        setImmediate(() => req.end(body));
      });
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      });
      req.on('error', reject);
      req.flushHeaders();
    });
    await headersRead;
    const stopping = t.stop();
    const status = await inFlight;
    await stopping;
    await until(() => codes.length, (n) => n > 0, 10_000, 20);
    expect(status).toBe(201);
    expect(codes).toContain(1001);
    await client.dispose();
  });
});
