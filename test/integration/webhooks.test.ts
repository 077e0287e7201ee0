/**
 * Webhooks: registration (SSRF refusals), Standard Webhooks signatures verified by an independent implementation,
 * V1/V2 routing and payloads, retries (7 attempts, any 2xx succeeds, 410 stops), rotation, replay.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { dbLabel, startTestApp, type TestApp } from '../helpers/app.ts';
import { Receiver, type Received } from '../helpers/receiver.ts';
import { until } from '../helpers/wait.ts';

/** Independent Standard Webhooks verification (node:crypto only). */
function verify(secret: string, r: Received): boolean {
  const id = r.headers['webhook-id'] as string;
  const ts = r.headers['webhook-timestamp'] as string;
  const sigs = String(r.headers['webhook-signature']).split(' ');
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${ts}.${r.body}`).digest();
  return sigs.some((s) => {
    const [v, b64] = s.split(',');
    const got = Buffer.from(b64 ?? '', 'base64');
    return v === 'v1' && got.length === expected.length && timingSafeEqual(got, expected);
  });
}

const CREATE = `mutation($input: CreateWebhookInput!) { createWebhook(input: $input) { webhook { id url version enabled } signingSecret } }`;

describe(`webhooks on ${dbLabel}`, () => {
  let t: TestApp;
  let m: Bootstrapped;
  const rx = new Receiver();

  beforeAll(async () => {
    await rx.start();
    // A timeout a delivery to this process's own receiver never reaches on a loaded machine (but the hanging endpoint does).
    t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_DELAYS_MS: '30,30,30,30,30,30', WEBHOOK_TIMEOUT_MS: '4000' } });
    m = await bootstrap(t.client);
  });
  afterAll(async () => {
    await t?.stop();
    await rx.stop();
  });

  async function register(version: 'V1' | 'V2', url = rx.url, session = m.sessionToken) {
    const r = await t.client.gql(CREATE, { input: { url, version } }, session);
    return r.createWebhook as { webhook: { id: string }; signingSecret: string };
  }

  it('createWebhook returns the webhook and a whsec_ secret shown once (stored sealed, not in plain text)', async () => {
    const w = await register('V1');
    expect(w.signingSecret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const rows = await t.app.db.sql.query<{ secretEncrypted: string }>(`SELECT "secretEncrypted" FROM "Webhook" WHERE id = $1`, [w.webhook.id]);
    expect(rows[0].secretEncrypted).not.toContain(w.signingSecret.slice(6));
    const listed = await t.client.gql(`{ webhooks { id url version enabled } }`, {}, m.sessionToken);
    expect(listed.webhooks).toContainEqual({ id: w.webhook.id, url: rx.url, version: 'V1', enabled: true });
    expect(JSON.stringify(listed)).not.toContain(w.signingSecret);
    await t.client.gql(`mutation($id: ID!) { deleteWebhook(id: $id) { ... on WebhookPayload { webhook { id } } } }`, { id: w.webhook.id }, m.sessionToken);
  });

  it('V1 and V2 webhooks receive the right events, signed, in their version’s format', async () => {
    const ws = await bootstrap(t.client);
    const v1 = await register('V1', rx.url + '?v=1', ws.sessionToken);
    const v2 = await register('V2', rx.url + '?v=2', ws.sessionToken);
    const inv = await t.client.request('POST', '/v1/invoices', { token: ws.apiKey.secret, body: { bankAccountIds: [], customer: { name: '웹훅', email: 'buyer@example.com' }, amount: 15000 } });
    const id = inv.body.data.id;
    await t.client.deposit(ws.bankAccount.notificationToken, { depositorName: '웹훅', amount: 15000 });
    const inv2 = await t.client.request('POST', '/v1/invoices', { token: ws.apiKey.secret, body: { bankAccountIds: [], customer: { name: '취소' }, amount: 1 } });
    await t.client.request('DELETE', `/v1/invoices/${inv2.body.data.id}`, { token: ws.apiKey.secret });
    const inv3 = await t.client.request('POST', '/v1/invoices', { token: ws.apiKey.secret, body: { bankAccountIds: [], customer: { name: '수동' }, amount: 2 } });
    await t.client.request('POST', `/v1/invoices/${inv3.body.data.id}/mark-as-paid`, { token: ws.apiKey.secret });

    const mine = (v: string) => rx.received.filter((r) => r.json?.workspaceId === ws.workspaceId && r.headers['webhook-id'] && r.json && (r as Received & { url?: string }) && r.json.type && v);
    await rx.waitFor((all) => all.filter((r) => r.json?.workspaceId === ws.workspaceId).length >= 13);
    const forV = (v: string) => mine(v).filter((r) => (v === '1' ? typeof r.json.createdAt === 'string' : typeof r.json.createdAt === 'number'));
    const v1Types = forV('1').map((r) => r.json.type).sort();
    const v2Types = forV('2').map((r) => r.json.type).sort();
    expect(v1Types).toEqual(['invoice.created', 'invoice.created', 'invoice.created', 'invoice.deleted', 'invoice.paid', 'invoice.paid']);
    // The deposit's transaction.received: V2 only.
    expect(v2Types).toEqual(['invoice.canceled', 'invoice.created', 'invoice.created', 'invoice.created', 'invoice.paid', 'invoice.paid', 'transaction.received']);
    for (const r of forV('1')) expect(verify(v1.signingSecret, r)).toBe(true);
    for (const r of forV('2')) expect(verify(v2.signingSecret, r)).toBe(true);
    for (const r of forV('1')) expect(verify(v2.signingSecret, r)).toBe(false);

    const paidV1 = forV('1').find((r) => r.json.type === 'invoice.paid' && r.json.data.invoice.id === id)!;
    expect(paidV1.headers['webhook-id']).toBe(paidV1.json.id);
    expect(paidV1.json).toMatchObject({
      id: expect.stringMatching(/^evt_/),
      type: 'invoice.paid',
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000\+00:00$/),
      workspaceId: ws.workspaceId,
      data: {
        invoice: { id, issuerId: ws.accountId, paid: true, amount: 15000, customer: { name: '웹훅', email: 'buyer@example.com', phoneNumber: null }, deletedAt: null },
        trigger: 'DEPOSIT',
        transaction: { matchedInvoiceId: id, matchMethod: 'EXACT', amount: 15000, description: '웹훅', deletedAt: null },
      },
    });
    const paidV2 = forV('2').find((r) => r.json.type === 'invoice.paid' && r.json.data.invoice.id === id)!;
    expect(paidV2.json.data.invoice).toMatchObject({ id, status: 'PAID', amount: 15000, number: expect.any(Number), paidAt: expect.any(Number), createdAt: expect.any(Number) });
    expect(paidV2.json.data.trigger).toBe('DEPOSIT');
    const apiCall = forV('1').find((r) => r.json.type === 'invoice.paid' && r.json.data.invoice.id === inv3.body.data.id)!;
    expect(apiCall.json.data).toMatchObject({ trigger: 'API_CALL', transaction: null });
    expect(Math.abs(Number(paidV1.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
  });

  it('a failing endpoint is retried: 500, 500, then 200 → three attempts recorded, the last SUCCEEDED', async () => {
    const ws = await bootstrap(t.client);
    const path = '/retry-' + ws.workspaceId;
    rx.respond = (_n, r) => {
      if (!r.json || r.json.workspaceId !== ws.workspaceId) return 200;
      const seen = rx.received.filter((x) => x.json?.workspaceId === ws.workspaceId).length;
      return seen <= 2 ? 500 : 200;
    };
    const w = await register('V1', rx.url.replace('/hook', path), ws.sessionToken);
    await t.client.request('POST', '/v1/invoices', { token: ws.apiKey.secret, body: { bankAccountIds: [], customer: { name: '재시도' }, amount: 3 } });
    await rx.waitFor((all) => all.filter((x) => x.json?.workspaceId === ws.workspaceId).length >= 3);
    await expectDeliveries(w.webhook.id, ws.sessionToken, (d) => d.length === 3);
    const d = await deliveries(w.webhook.id, ws.sessionToken);
    expect(d.map((x) => [x.attempt, x.status, x.responseStatus])).toEqual([
      [3, 'SUCCEEDED', 200],
      [2, 'FAILED', 500],
      [1, 'FAILED', 500],
    ]);
    expect(new Set(rx.received.filter((x) => x.json?.workspaceId === ws.workspaceId).map((x) => x.headers['webhook-id'])).size).toBe(1);
    rx.respond = () => 200;
  });

  it('an endpoint that hangs, then resets the connection, then answers: three attempts, the last SUCCEEDED', async () => {
    const ws = await bootstrap(t.client);
    const path = '/hang-' + ws.workspaceId;
    rx.respond = (_n, r) => {
      if (!r.json || r.json.workspaceId !== ws.workspaceId) return 200;
      const seen = rx.received.filter((x) => x.json?.workspaceId === ws.workspaceId).length;
      return seen === 1 ? 'hang' : seen === 2 ? 'reset' : 200;
    };
    const w = await register('V1', rx.url.replace('/hook', path), ws.sessionToken);
    await t.client.request('POST', '/v1/invoices', { token: ws.apiKey.secret, body: { bankAccountIds: [], customer: { name: '멈춤' }, amount: 4 } });
    await rx.waitFor((all) => all.filter((x) => x.json?.workspaceId === ws.workspaceId).length >= 3, 30_000);
    await expectDeliveries(w.webhook.id, ws.sessionToken, (d) => d.length === 3);
    const d = await deliveries(w.webhook.id, ws.sessionToken);
    expect(d.map((x) => [x.attempt, x.status])).toEqual([
      [3, 'SUCCEEDED'],
      [2, 'FAILED'],
      [1, 'FAILED'],
    ]);
    expect(d[0].responseStatus).toBe(200);
    // The hung and the reset attempts got no HTTP answer.
    expect(d.slice(1).map((x) => x.responseStatus)).toEqual([null, null]);
    rx.respond = () => 200;
  });

  it('an endpoint that always fails gets exactly 7 attempts (1 + 6 retries), then the delivery is FAILED', async () => {
    const ws = await bootstrap(t.client);
    rx.respond = (_n, r) => (r.json?.workspaceId === ws.workspaceId ? 503 : 200);
    const w = await register('V1', rx.url, ws.sessionToken);
    await t.client.request('POST', '/v1/invoices', { token: ws.apiKey.secret, body: { bankAccountIds: [], customer: { name: '실패' }, amount: 4 } });
    await expectDeliveries(w.webhook.id, ws.sessionToken, (d) => d.length >= 7);
    // No eighth attempt: the last is FAILED with no next attempt, and the dispatch is FAILED (what the worker reads).
    const d = await deliveries(w.webhook.id, ws.sessionToken);
    expect(d).toHaveLength(7);
    expect(d[0]).toMatchObject({ attempt: 7, status: 'FAILED', responseStatus: 503, nextAttemptAt: null });
    expect(d[1].nextAttemptAt).not.toBeNull();
    expect(await dispatches(w.webhook.id)).toEqual([{ status: 'FAILED', attempts: 7 }]);
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    expect(metrics).toMatch(/webhook_delivery_attempts_total\{result="failure"\} ([7-9]|\d\d+)/);
    rx.respond = () => 200;
  });

  it.each([200, 201, 202, 204, 299])('any 2xx (%d) counts as success', async (status) => {
    const ws = await bootstrap(t.client);
    rx.respond = (_n, r) => (r.json?.workspaceId === ws.workspaceId ? status : 200);
    const w = await register('V2', rx.url, ws.sessionToken);
    await t.client.request('POST', '/v1/invoices', { token: ws.apiKey.secret, body: { bankAccountIds: [], customer: { name: '성공' }, amount: 5 } });
    await expectDeliveries(w.webhook.id, ws.sessionToken, (d) => d.length >= 1);
    // No retry: the one delivery has no next attempt, and the dispatch is done.
    const d = await deliveries(w.webhook.id, ws.sessionToken);
    expect(d.map((x) => [x.status, x.responseStatus, x.nextAttemptAt])).toEqual([['SUCCEEDED', status, null]]);
    expect(await dispatches(w.webhook.id)).toEqual([{ status: 'SUCCEEDED', attempts: 1 }]);
    rx.respond = () => 200;
  });

  it('410 Gone stops the retries and disables the webhook', async () => {
    const ws = await bootstrap(t.client);
    rx.respond = (_n, r) => (r.json?.workspaceId === ws.workspaceId ? 410 : 200);
    const w = await register('V1', rx.url, ws.sessionToken);
    await t.client.request('POST', '/v1/invoices', { token: ws.apiKey.secret, body: { bankAccountIds: [], customer: { name: '사라짐' }, amount: 6 } });
    await expectDeliveries(w.webhook.id, ws.sessionToken, (d) => d.length >= 1);
    // No retry: the one delivery has no next attempt, and the dispatch is FAILED.
    expect((await deliveries(w.webhook.id, ws.sessionToken)).map((x) => [x.status, x.responseStatus, x.nextAttemptAt])).toEqual([['FAILED', 410, null]]);
    expect(await dispatches(w.webhook.id)).toEqual([{ status: 'FAILED', attempts: 1 }]);
    const hook = await t.client.gql(`query($id: ID!) { webhook(id: $id) { enabled disabledAt } }`, { id: w.webhook.id }, ws.sessionToken);
    expect(hook.webhook.enabled).toBe(false);
    rx.respond = () => 200;
  });

  it('rotation: for 24 hours deliveries carry signatures by the new and the old secret', async () => {
    const ws = await bootstrap(t.client);
    const w = await register('V1', rx.url, ws.sessionToken);
    const rot = await t.client.gql(`mutation($id: ID!) { rotateWebhookSecret(id: $id) { ... on WebhookSecretPayload { signingSecret webhook { previousSecretExpiresAt } } } }`, { id: w.webhook.id }, ws.sessionToken);
    const fresh = rot.rotateWebhookSecret.signingSecret;
    expect(fresh).not.toBe(w.signingSecret);
    const oldSecretUntil = new Date(rot.rotateWebhookSecret.webhook.previousSecretExpiresAt).getTime();
    expect(oldSecretUntil - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    await t.client.request('POST', '/v1/invoices', { token: ws.apiKey.secret, body: { bankAccountIds: [], customer: { name: '회전' }, amount: 7 } });
    await rx.waitFor((all) => all.some((r) => r.json?.workspaceId === ws.workspaceId));
    const r = rx.received.find((x) => x.json?.workspaceId === ws.workspaceId)!;
    expect(String(r.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verify(fresh, r)).toBe(true);
    expect(verify(w.signingSecret, r)).toBe(true);
  });

  it('redeliverWebhookEvent replays an event with the same webhook-id', async () => {
    const ws = await bootstrap(t.client);
    const w = await register('V1', rx.url, ws.sessionToken);
    await t.client.request('POST', '/v1/invoices', { token: ws.apiKey.secret, body: { bankAccountIds: [], customer: { name: '재전송' }, amount: 8 } });
    await rx.waitFor((all) => all.some((r) => r.json?.workspaceId === ws.workspaceId));
    const first = rx.received.find((x) => x.json?.workspaceId === ws.workspaceId)!;
    const r = await t.client.gql(`mutation($w: ID!, $e: ID!) { redeliverWebhookEvent(webhookId: $w, eventId: $e) { ... on RedeliverWebhookEventPayload { eventId } } }`, { w: w.webhook.id, e: first.json.id }, ws.sessionToken);
    expect(r.redeliverWebhookEvent.eventId).toBe(first.json.id);
    await rx.waitFor((all) => all.filter((x) => x.json?.workspaceId === ws.workspaceId).length >= 2);
    const both = rx.received.filter((x) => x.json?.workspaceId === ws.workspaceId);
    expect(both.map((x) => x.headers['webhook-id'])).toEqual([first.json.id, first.json.id]);
    expect(both[1].body).toBe(first.body);
  });

  it('a disabled webhook receives nothing; another workspace cannot see or change it', async () => {
    const ws = await bootstrap(t.client);
    const w = await register('V1', rx.url, ws.sessionToken);
    const other = await t.client.graphql(`mutation($id: ID!) { disableWebhook(id: $id) { __typename ... on DomainError { code } ... on WebhookPayload { webhook { id } } } }`, { id: w.webhook.id }, m.sessionToken);
    expect(other.data!.disableWebhook).toEqual({ __typename: 'DomainError', code: 'NOT_FOUND' });
    await t.client.gql(`mutation($id: ID!) { disableWebhook(id: $id) { ... on WebhookPayload { webhook { enabled } } } }`, { id: w.webhook.id }, ws.sessionToken);
    await t.client.request('POST', '/v1/invoices', { token: ws.apiKey.secret, body: { bankAccountIds: [], customer: { name: '비활성' }, amount: 9 } });
    await t.app.workers.dispatcher.loop.drain();
    await t.app.workers.webhooks.loop.drain();
    expect(rx.received.some((x) => x.json?.workspaceId === ws.workspaceId)).toBe(false);
  });

  async function deliveries(id: string, session: string) {
    const r = await t.client.gql(`query($id: ID!) { webhook(id: $id) { deliveries { attempt status responseStatus nextAttemptAt error eventId } } }`, { id }, session);
    return r.webhook.deliveries as { attempt: number; status: string; responseStatus: number | null; nextAttemptAt: string | null }[];
  }
  async function expectDeliveries(id: string, session: string, pred: (d: Awaited<ReturnType<typeof deliveries>>) => boolean) {
    const d = await until(() => deliveries(id, session), pred);
    if (!pred(d)) throw new Error('deliveries did not arrive: ' + JSON.stringify(d));
  }
  /** A webhook's dispatches as the worker reads them: done (SUCCEEDED / FAILED) or still to attempt. */
  async function dispatches(webhookId: string) {
    return t.app.db.sql.query<{ status: string; attempts: number }>(`SELECT status::text, attempts FROM "WebhookDispatch" WHERE "webhookId" = $1`, [webhookId]);
  }
});

describe('webhook URL rules (SSRF)', () => {
  let t: TestApp;
  let m: Bootstrapped;
  const dns: Record<string, string[]> = {
    'hooks.example': ['203.0.113.10'],
    'internal.example': ['10.0.0.5'],
    'meta.example': ['169.254.169.254'],
    'mixed.example': ['203.0.113.11', '192.168.1.1'],
    'v6local.example': ['fd00::1'],
  };
  beforeAll(async () => {
    t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'false' } });
    (t.app.deps as { resolveHost: (h: string) => Promise<string[]> }).resolveHost = async (h) => {
      if (!dns[h]) throw new Error('ENOTFOUND');
      return dns[h];
    };
    m = await bootstrap(t.client);
  });
  afterAll(() => t?.stop());

  it.each([
    ['http://127.0.0.1:8080/hook', 'loopback literal'],
    ['http://localhost/hook', 'unresolvable in this test, refused'],
    ['http://internal.example/hook', 'private address'],
    ['http://meta.example/latest', 'cloud metadata'],
    ['https://mixed.example/hook', 'one private address among public ones'],
    ['http://v6local.example/hook', 'IPv6 unique local'],
    ['http://[::1]/hook', 'IPv6 loopback literal'],
    ['ftp://hooks.example/hook', 'not http(s)'],
    ['https://user:pw@hooks.example/hook', 'credentials in the URL'],
    ['not a url', 'not a URL'],
  ])('%s is refused (%s) with WEBHOOK_URL_FORBIDDEN', async (url) => {
    const r = await t.client.graphql(CREATE, { input: { url, version: 'V1' } }, m.sessionToken);
    expect(r.errors?.[0].extensions?.code).toBe('WEBHOOK_URL_FORBIDDEN');
    expect(r.errors?.[0].extensions?.field).toEqual(['url']);
  });

  it('a public https URL is accepted', async () => {
    const r = await t.client.gql(CREATE, { input: { url: 'https://hooks.example/payments', version: 'V2' } }, m.sessionToken);
    expect(r.createWebhook.webhook).toMatchObject({ url: 'https://hooks.example/payments', version: 'V2' });
  });

  it('needs a dashboard session', async () => {
    const r = await t.client.graphql(CREATE, { input: { url: 'https://hooks.example/x', version: 'V1' } }, m.apiKey.secret);
    expect(r.errors?.[0].extensions?.code).toBe('DASHBOARD_ONLY');
  });
});
