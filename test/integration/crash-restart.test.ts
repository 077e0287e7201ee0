/**
 * A process killed at any moment loses nothing: SIGKILL the server mid-load, restart it, and every event committed
 * before the kill is delivered to the webhook at least once.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, ServiceClient } from '../../src/cli/client.ts';
import { webhookEventType } from '../../src/domain/webhooks/routing.ts';
import { dbLabel, freshDatabase, onPostgres } from '../helpers/app.ts';
import { freePort, startServerProcess } from '../helpers/process.ts';
import { Receiver } from '../helpers/receiver.ts';
import { until } from '../helpers/wait.ts';

describe(`crash and restart on ${dbLabel}`, () => {
  const rx = new Receiver();
  let env: Record<string, string>;
  let drop = async () => {};
  let child: ChildProcess | null = null;

  beforeAll(async () => {
    await rx.start();
    env = {
      LOG_LEVEL: 'warn',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_RETRY_DELAYS_MS: '100,100,100,100,100,100',
      // A delivery cut short by the kill is retried when its lease (timeout + 5 s) runs out.
      WEBHOOK_TIMEOUT_MS: '2000',
      ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      DATA_DIR: mkdtempSync(join(tmpdir(), 'crash-')),
      DATABASE_URL: '',
    };
    if (onPostgres) {
      const fresh = await freshDatabase();
      await fresh.database.close();
      env.DATABASE_URL = fresh.url!;
      drop = fresh.drop;
    }
  });
  afterAll(async () => {
    child?.kill('SIGKILL');
    await rx.stop();
    await drop();
  });

  it('every event committed before a SIGKILL is delivered after the restart', { timeout: 240_000 }, async () => {
    const t0 = Date.now();
    const phase = (name: string) => process.env.TEST_DEBUG && console.log(`[crash] ${name} at ${Date.now() - t0} ms`);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    ({ child } = await startServerProcess(env, port));
    const client = new ServiceClient(url);
    const m = await bootstrap(client);
    await client.gql(`mutation($i: CreateWebhookInput!) { createWebhook(input: $i) { webhook { id } } }`, { i: { url: rx.url, version: 'V1' } }, m.sessionToken);

    // Mixed load: creates, deposits that pay them, deletes; the kill lands in the middle of it.
    let stop = false;
    let done = 0;
    const load = Array.from({ length: 6 }, async (_, w) => {
      for (let i = 0; !stop; i++) {
        const name = `크래시${w}_${i}`;
        try {
          const r = await client.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds: [], customer: { name }, amount: 1000 + i } });
          if (r.status !== 201) continue;
          done++;
          if (i % 3 === 0) await client.deposit(m.bankAccount.notificationToken, { depositorName: name, amount: 1000 + i, notificationId: `c-${w}-${i}` });
          else if (i % 3 === 1) await client.request('DELETE', `/v1/invoices/${r.body.data.id}`, { token: m.apiKey.secret });
        } catch {
          return;
        }
      }
    });
    phase('started and bootstrapped');
    // Kill mid-load, once enough has happened to make the check meaningful (whatever the machine's speed).
    await until(() => done, (n) => n >= 25, 30_000, 50);
    child!.kill('SIGKILL');
    phase('killed');
    stop = true;
    await Promise.all(load);
    if (child!.exitCode === null && child!.signalCode === null) await new Promise((r) => child!.once('exit', r));
    // The server is really gone: nothing answers on its port until the restart.
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    const deliveredBeforeRestart = new Set(rx.received.map((r) => r.headers['webhook-id']));

    ({ child } = await startServerProcess(env, port));
    phase('restarted');

    // Every committed event a V1 webhook receives, from the restarted service's own record.
    const expected: string[] = [];
    let since: string | null = null;
    for (;;) {
      const page: any = await client.gql(`query($s: String) { events(sinceSequence: $s, first: 100) { id type sequence } }`, { s: since }, m.sessionToken);
      if (page.events.length === 0) break;
      for (const e of page.events) if (webhookEventType('V1', e.type)) expected.push(e.id);
      since = page.events.at(-1).sequence;
    }
    phase(`listed ${expected.length} events`);
    expect(expected.length).toBeGreaterThan(10);
    await rx.waitFor((all) => {
      const got = new Set(all.map((r) => r.headers['webhook-id']));
      return expected.every((id) => got.has(id));
    }, 60_000);
    const got = new Set(rx.received.map((r) => r.headers['webhook-id']));
    const lost = expected.filter((id) => !got.has(id));
    expect(lost).toEqual([]);
    // The restart delivered what the kill interrupted (unless the kill happened to land after every delivery).
    expect(expected.length).toBeGreaterThanOrEqual(deliveredBeforeRestart.size);
    const stillUsable = await client.request('GET', '/v1/invoices?offset=0&limit=1', { token: m.apiKey.secret });
    expect(stillUsable.status).toBe(200);
  });

  it('a receipt pending at the tax authority when the server is killed is settled after the restart', { timeout: 240_000 }, async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const slowAgency = { ...env, AGENCY_SIM_DELAY_MS: '1500' };
    child?.kill('SIGKILL');
    ({ child } = await startServerProcess(slowAgency, port));
    const client = new ServiceClient(url);
    const m = await bootstrap(client);
    const direct = await client.request('POST', '/v1/cash-receipts', { token: m.apiKey.secret, body: { type: 'PERSONAL', identifier: '01012345678', amount: 1000 } });
    expect(direct.body.data.status).toBe('PENDING');
    const inv = await client.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds: [], customer: { name: '재시작' }, amount: 2000, cashReceipt: { type: 'PERSONAL', identifier: '01099998888' } } });
    await client.request('POST', `/v1/invoices/${inv.body.data.id}/mark-as-paid`, { token: m.apiKey.secret });
    child!.kill('SIGKILL');
    if (child!.exitCode === null && child!.signalCode === null) await new Promise((r) => child!.once('exit', r));
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();

    ({ child } = await startServerProcess(slowAgency, port));
    const statuses = await until(
      async () => (await client.request('GET', '/v1/cash-receipts?offset=0&limit=10', { token: m.apiKey.secret })).body.data.map((r: { status: string }) => r.status) as string[],
      (s) => s.length === 2 && s.every((x) => x === 'ISSUED'),
      60_000,
      200,
    );
    expect(statuses).toEqual(['ISSUED', 'ISSUED']);
  });
});
