/**
 * The `webhooks` section of /openapi.json describes what webhooks really receive: every event type, V1 and V2, is
 * produced through the API and each delivered payload validates against the document (ajv).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { dbLabel, startTestApp, type TestApp } from '../helpers/app.ts';
import { checkWebhookPayload } from '../helpers/openapi-check.ts';
import { Receiver } from '../helpers/receiver.ts';

const CREATE = `mutation($input: CreateWebhookInput!) { createWebhook(input: $input) { webhook { id } signingSecret } }`;

describe(`webhook payloads against /openapi.json on ${dbLabel}`, () => {
  let t: TestApp;
  let m: Bootstrapped;
  const rx = new Receiver();

  beforeAll(async () => {
    await rx.start();
    t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_DELAYS_MS: '30,30,30,30,30,30' } });
    m = await bootstrap(t.client);
    for (const version of ['V1', 'V2']) await t.client.gql(CREATE, { input: { url: `${rx.url}?v=${version}`, version } }, m.sessionToken);
  });
  afterAll(async () => {
    await t?.stop();
    await rx.stop();
  });

  it('every event of both versions validates: created, paid (deposit and API call), updated, canceled/deleted, receipt issued and failed', async () => {
    const key = m.apiKey.secret;
    const create = async (name: string, amount: number, extra: Record<string, unknown> = {}) => {
      const r = await t.client.request('POST', '/v1/invoices', { token: key, body: { bankAccountIds: [], customer: { name }, amount, expireAfter: '1d', ...extra } });
      expect(r.status).toBe(201);
      return r.body.data.id as string;
    };
    // invoice.created + invoice.paid (DEPOSIT) + receipt.issued
    await create('웹훅입금', 1100, { cashReceipt: { type: 'PERSONAL', identifier: '01012345678' }, metadata: { order: '1' } });
    expect((await t.client.deposit(m.bankAccount.notificationToken, { depositorName: '웹훅입금', amount: 1100 })).status).toBe(201);
    // invoice.paid (API_CALL) + receipt.failed (the simulated tax authority refuses 0100009...)
    const marked = await create('웹훅표시', 1200, { cashReceipt: { type: 'PERSONAL', identifier: '01000091234' } });
    expect((await t.client.request('POST', `/v1/invoices/${marked}/mark-as-paid`, { token: key })).status).toBe(200);
    // invoice.updated, then invoice.canceled (V2) / invoice.deleted (V1)
    const changed = await create('웹훅수정', 1300);
    expect((await t.client.request('PATCH', `/v2/invoices/${changed}`, { token: key, body: { amount: 1301 } })).status).toBe(200);
    expect((await t.client.request('POST', `/v2/invoices/${changed}/cancel`, { token: key, body: { reason: 'test' } })).status).toBe(200);

    const expected = ['invoice.created', 'invoice.paid', 'invoice.updated', 'invoice.canceled', 'invoice.deleted', 'receipt.issued', 'receipt.failed'];
    await rx.waitFor((all) => expected.every((type) => all.some((r) => r.json?.type === type)) && all.filter((r) => r.json?.type === 'invoice.paid').length >= 4, 30_000);
    const types = new Set<string>();
    for (const r of rx.received) {
      checkWebhookPayload(r.json);
      types.add(r.json.type);
    }
    expect([...types].sort()).toEqual([...expected].sort());
    // V1 and V2 shapes both checked: v1 timestamps are text, v2 ones Unix seconds.
    expect(new Set(rx.ofType('invoice.created').map((r) => typeof r.json.createdAt))).toEqual(new Set(['string', 'number']));
    const paid = rx.ofType('invoice.paid').map((r) => r.json.data.trigger);
    expect(new Set(paid)).toEqual(new Set(['DEPOSIT', 'API_CALL']));
  });
});
