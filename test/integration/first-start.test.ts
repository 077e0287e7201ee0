/**
 * The README's first start, exactly as a new user runs it: `npm start` (the README's command, through npm, as a child
 * process) on an empty DATA_DIR, so the embedded database is created and migrated by the very process that then serves
 * the tour. The other tests start from a migrated template dump and never see a first start; this one drives the whole
 * tour through it — the CLI's bootstrap, webhooks V1 and V2, an invoice with a cash receipt, a deposit, the receipt
 * settling, the buyer's e-mail job, an endpoint that fails until its 7 attempts are spent, one that answers 410 — and
 * fails on any error-level line the server logs. It then restarts the server on the same data directory and checks
 * nothing is delivered again. In the PostgreSQL run of the suite the same tour runs with DATABASE_URL naming a new,
 * empty database, so the first start is checked on both databases.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceClient, type Bootstrapped } from '../../src/cli/client.ts';
import { sign } from '../../src/domain/webhooks/signing.ts';
import { freshDatabase, onPostgres } from '../helpers/app.ts';
import { freePort, ROOT, runScript } from '../helpers/process.ts';
import { Receiver } from '../helpers/receiver.ts';
import { eventually, until } from '../helpers/wait.ts';
import { launchChromium, openPage, runBrowserTests } from '../helpers/browser.ts';
import { checkPage } from '../helpers/dashboard.ts';

/** The README's `npm start`, in its own process group (npm runs node through a shell) so the test can stop all of it. */
class NpmStart {
  child!: ChildProcess;
  out = '';
  constructor(
    readonly env: Record<string, string>,
    readonly port: number,
  ) {}

  async start(timeoutMs = 90_000): Promise<void> {
    const inherited: Record<string, string | undefined> = { ...process.env };
    // A first start must not lean on anything the test runner's environment happens to carry.
    for (const k of ['DATABASE_URL', 'REDIS_URL', 'TEST_DATABASE_URL', 'ENCRYPTION_KEY', 'NODE_OPTIONS', 'VITEST', 'VITEST_POOL_ID', 'VITEST_WORKER_ID']) delete inherited[k];
    const env = { ...inherited, ...this.env, PORT: String(this.port) };
    this.child = spawn('npm', ['start'], { cwd: ROOT, env: env as NodeJS.ProcessEnv, detached: true });
    this.child.stdout!.on('data', (d) => (this.out += d));
    this.child.stderr!.on('data', (d) => (this.out += d));
    const healthy = await until(
      () => this.child.exitCode === null && fetch(`http://127.0.0.1:${this.port}/healthz`).then((r) => r.status === 200, () => false),
      (up) => up || this.child.exitCode !== null,
      timeoutMs,
      200,
    );
    if (this.child.exitCode !== null) throw new Error(`npm start exited with ${this.child.exitCode}: ${this.out}`);
    if (healthy) return;
    this.kill('SIGKILL');
    throw new Error(`npm start did not become healthy: ${this.out}`);
  }

  kill(signal: NodeJS.Signals): void {
    try {
      process.kill(-this.child.pid!, signal);
    } catch {
      /* already gone */
    }
  }

  async stop(): Promise<void> {
    if (!this.child || this.child.exitCode !== null) return;
    const exited = new Promise((r) => this.child.once('exit', r));
    this.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
    this.kill('SIGKILL');
  }

  /** The JSON log lines (pino); anything else npm prints is kept as text. */
  lines(): { level?: number; msg?: string; [k: string]: unknown }[] {
    return this.out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => {
        try {
          return JSON.parse(l);
        } catch {
          return { msg: l };
        }
      });
  }

  /** pino levels: 50 error, 60 fatal. */
  errorLines(): string[] {
    return this.lines()
      .filter((l) => typeof l.level === 'number' && l.level >= 50)
      .map((l) => `${l.msg} ${(l.err as { message?: string } | undefined)?.message ?? ''}`.replace(/\s+/g, ' ').slice(0, 300));
  }
}

const RETRY_MS = 150;

/** Deliveries grouped by event (Map.groupBy needs Node 21). */
function byEventId<T extends { eventId: string }>(ds: T[]): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const d of ds) m.set(d.eventId, [...(m.get(d.eventId) ?? []), d]);
  return m;
}

describe(`first start: npm start on an empty ${onPostgres ? 'PostgreSQL database' : 'data directory'}, the README tour through it`, () => {
  let dataDir: string;
  let dropDatabase = async () => {};
  let server: NpmStart;
  let url: string;
  let client: ServiceClient;
  let me: Bootstrapped;
  const okV1 = new Receiver();
  const okV2 = new Receiver();
  const failing = new Receiver();
  const gone = new Receiver();
  const hooks: Record<string, string> = {};
  const secrets: Record<string, string> = {};

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'btp-first-start-'));
    await Promise.all([okV1.start(), okV2.start(), failing.start(), gone.start()]);
    failing.respond = () => 500;
    gone.respond = () => 410;
    const postgres: Record<string, string> = {};
    if (onPostgres) {
      // Empty, not a copy of the migrated template: the server must migrate it itself.
      const fresh = await freshDatabase({ migrated: false });
      await fresh.database.close();
      dropDatabase = fresh.drop;
      postgres.DATABASE_URL = fresh.url!;
    }
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    client = new ServiceClient(url);
    server = new NpmStart(
      {
        ...postgres,
        DATA_DIR: dataDir,
        LOG_LEVEL: 'info',
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_RETRY_DELAYS_MS: Array(6).fill(RETRY_MS).join(','),
        AGENCY_SIM_DELAY_MS: '200',
      },
      port,
    );
    await server.start();
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await Promise.all([okV1.stop(), okV2.stop(), failing.stop(), gone.stop()]);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    await dropDatabase();
  });

  it('the server created and migrated the embedded database itself', () => {
    const applied = server.lines().find((l) => l.msg === 'migrations applied');
    expect(applied?.applied).toEqual(expect.arrayContaining([expect.stringMatching(/_init$/)]));
  });

  it('npm run cli -- bootstrap makes a merchant', async () => {
    const r = await runScript('cli', ['bootstrap', '--url', url]);
    expect(r.code, r.stderr).toBe(0);
    me = JSON.parse(r.stdout);
    expect(me.apiKey.secret).toMatch(/^sk_live_/);
    expect(me.bankAccount.verifiedAt).not.toBeNull();
  });

  it("the tour's commands as the README writes them: `npm run -s cli -- bootstrap > me.json` is JSON; a bad argument gets the usage (exit 2), never a stack trace", async () => {
    const npm = (args: string[]) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn('npm', ['run', '-s', 'cli', '--', ...args], { cwd: ROOT, env: { ...process.env, SERVICE_URL: url } });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d) => (stdout += d));
        child.stderr.on('data', (d) => (stderr += d));
        child.on('close', (code) => resolve({ code, stdout, stderr }));
      });
    const made = await npm(['bootstrap']);
    expect(made.code, made.stderr).toBe(0);
    expect(JSON.parse(made.stdout).apiKey.secret).toMatch(/^sk_live_/);
    for (const args of [['listen', '--token', 'sk_x', '--since', '-1'], ['listen', '--token', 'sk_x', '--since'], ['listen', '--token', 'sk_x', '--since', 'abc'], ['listen', '--from', '3']]) {
      const r = await runScript('cli', [...args, '--url', url]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain('Usage');
      expect(r.stderr, args.join(' ')).not.toMatch(/\n\s+at /);
    }
  });

  it('registers webhooks V1 and V2, a failing one and one that answers 410', async () => {
    for (const [name, hookUrl, version] of [
      ['v1', okV1.url, 'V1'],
      ['v2', okV2.url, 'V2'],
      ['failing', failing.url, 'V2'],
      ['gone', gone.url, 'V2'],
    ] as const) {
      const r = await client.gql<{ createWebhook: { webhook: { id: string }; signingSecret: string } }>(
        `mutation($input: CreateWebhookInput!) { createWebhook(input: $input) { webhook { id } signingSecret } }`,
        { input: { url: hookUrl, version } },
        me.sessionToken,
      );
      expect(r.createWebhook.signingSecret).toMatch(/^whsec_/);
      hooks[name] = r.createWebhook.webhook.id;
      secrets[name] = r.createWebhook.signingSecret;
    }
    const settings = await client.gql(
      `mutation { updateWorkspaceSettings(input: {paidEmailEnabled: true}) { ... on WorkspacePayload { workspace { paidEmailEnabled } } } }`,
      {},
      me.sessionToken,
    );
    expect(JSON.stringify(settings)).toContain('"paidEmailEnabled":true');
  });

  let invoiceId = '';
  it('an invoice with a cash receipt, paid by a simulated deposit (the tour step 5)', async () => {
    const inv = await client.request('POST', '/v1/invoices', {
      token: me.apiKey.secret,
      body: {
        bankAccountIds: [],
        customer: { name: '홍길동', email: 'buyer@example.com' },
        amount: 10000,
        expireAfter: '1d',
        cashReceipt: { type: 'PERSONAL', identifier: '01012345678' },
      },
    });
    expect(inv.status, JSON.stringify(inv.body)).toBe(201);
    invoiceId = inv.body.data.id;
    const dep = await runScript('cli', ['simulate-deposit', '--url', url, '--token', me.bankAccount.notificationToken, '--name', '홍길동', '--amount', '10000', '--bracket', '(주문123)']);
    expect(dep.code, dep.stderr + dep.stdout).toBe(0);
    expect(JSON.parse(dep.stdout)).toMatchObject({ status: 201, depositorName: '홍길동(주문123)' });
    const read = await client.request('GET', '/v1/invoices?offset=0&limit=10&paid=true', { token: me.apiKey.secret });
    expect(read.body.data.map((i: { id: string }) => i.id)).toContain(invoiceId);
  });

  /** A webhook's record: its state and its delivery attempts. */
  const hook = async (id: string) =>
    (
      await client.gql<{
        webhook: { enabled: boolean; disabledAt: string | null; deliveries: { attempt: number; status: string; responseStatus: number | null; nextAttemptAt: string | null; eventId: string }[] };
      }>(`query($id: ID!) { webhook(id: $id) { enabled disabledAt deliveries(first: 100) { attempt status responseStatus nextAttemptAt eventId } } }`, { id }, me.sessionToken)
    ).webhook;

  it('each event reaches each working endpoint once, signed, and each delivery is recorded as SUCCEEDED', async () => {
    // V1: invoice.created and invoice.paid. V2: those two, the deposit's transaction.received and receipt.issued (the
    // simulated tax authority settles).
    await okV1.waitFor((r) => r.length >= 2);
    await okV2.waitFor((r) => r.length >= 4);
    expect(okV1.received.map((r) => r.json.type).sort()).toEqual(['invoice.created', 'invoice.paid']);
    expect(okV2.received.map((r) => r.json.type).sort()).toEqual(['invoice.created', 'invoice.paid', 'receipt.issued', 'transaction.received']);
    for (const [receiver, secret] of [
      [okV1, secrets.v1!],
      [okV2, secrets.v2!],
    ] as const) {
      for (const r of receiver.received) {
        expect(r.headers['webhook-id']).toBe(r.json.id);
        expect(r.headers['webhook-signature']).toBe(sign(secret, r.json.id, Number(r.headers['webhook-timestamp']), r.body));
      }
    }
    for (const [id, receiver] of [
      [hooks.v1!, okV1],
      [hooks.v2!, okV2],
    ] as const) {
      const h = await eventually('deliveries recorded', async () => {
        const x = await hook(id);
        return x.deliveries.length === receiver.received.length && x;
      });
      expect(h.deliveries.every((d) => d.status === 'SUCCEEDED' && d.responseStatus === 200 && d.attempt === 1 && d.nextAttemptAt === null)).toBe(true);
      expect(h.deliveries.map((d) => d.eventId).sort()).toEqual(receiver.received.map((r) => r.json.id).sort());
    }
    // Nothing is sent again (the first-start bug re-sent each every ~15 s): once the retry schedule has passed, a marker
    // invoice's event reaches both endpoints, and nothing of the earlier events came again before it.
    await new Promise((r) => setTimeout(r, RETRY_MS * 7));
    const marker = await client.request('POST', '/v1/invoices', { token: me.apiKey.secret, body: { bankAccountIds: [], customer: { name: '표시' }, amount: 1000 } });
    expect(marker.status).toBe(201);
    const isMarker = (r: { body: string }) => r.body.includes(marker.body.data.id);
    await okV1.waitFor((rs) => rs.some(isMarker));
    await okV2.waitFor((rs) => rs.some(isMarker));
    expect(okV1.received.filter((r) => !isMarker(r))).toHaveLength(2);
    expect(okV2.received.filter((r) => !isMarker(r))).toHaveLength(4);
  });

  it('a failing endpoint gets exactly 7 attempts; one that answers 410 is disabled after the first', async () => {
    const f = await eventually(
      'seven attempts of each event at the failing endpoint',
      async () => {
        const h = await hook(hooks.failing!);
        const byEvent = byEventId(h.deliveries);
        // Five events: the invoice's created, the deposit's transaction.received, paid, receipt.issued, and the marker's created.
        return byEvent.size >= 5 && [...byEvent.values()].every((ds) => ds.length === 7) && h;
      },
      60_000,
    );
    for (const ds of byEventId(f.deliveries).values()) {
      expect(ds.map((d) => d.attempt).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7]);
      expect(ds.every((d) => d.status === 'FAILED' && d.responseStatus === 500)).toBe(true);
      expect(ds.find((d) => d.attempt === 7)!.nextAttemptAt).toBeNull();
    }
    await new Promise((r) => setTimeout(r, RETRY_MS * 10));
    expect(failing.received.length).toBe(f.deliveries.length);

    const g = await eventually('the 410 webhook disabled', async () => {
      const h = await hook(hooks.gone!);
      return !h.enabled && h;
    });
    expect(g.disabledAt).not.toBeNull();
    expect(g.deliveries).toHaveLength(1);
    expect(g.deliveries[0]).toMatchObject({ attempt: 1, status: 'FAILED', responseStatus: 410, nextAttemptAt: null });
    expect(gone.received).toHaveLength(1);
  }, 90_000);

  it('the cash receipt settles and the buyer gets the payment e-mail', async () => {
    const receipt = await eventually('the receipt ISSUED', async () => {
      const r = await client.request('GET', `/v1/cash-receipts?offset=0&limit=10`, { token: me.apiKey.secret });
      const found = (r.body.data ?? []).find((c: { invoiceId?: string; status: string }) => c.status === 'ISSUED');
      return found;
    });
    expect(receipt).toMatchObject({ status: 'ISSUED', amount: 10000 });
    const email = await eventually('the invoice_paid e-mail sent', async () => {
      const r = await client.gql<{ emails: { kind: string; status: string; invoiceId: string | null }[] }>(`{ emails(first: 50) { kind status invoiceId } }`, {}, me.sessionToken);
      return r.emails.find((e) => e.kind === 'invoice_paid' && e.status === 'SENT');
    });
    expect(email.invoiceId).toBe(invoiceId);
  });

  it('the server logged no error-level line', () => {
    expect(server.errorLines()).toEqual([]);
  });

  it('after a restart on the same data directory nothing is delivered again and nothing logs an error', async () => {
    const count = () => [okV1, okV2, failing, gone].map((r) => r.received.length);
    const before = count();
    await server.stop();
    const port = await freePort();
    server = new NpmStart(server.env, port);
    await server.start();
    client = new ServiceClient(`http://127.0.0.1:${port}`);
    // The database is the one the first start made: the merchant's key still works.
    const r = await client.request('GET', `/v1/invoices/${invoiceId}`, { token: me.apiKey.secret });
    expect(r.body.data.paid).toBe(true);
    expect(server.lines().find((l) => l.msg === 'migrations applied')).toBeUndefined();
    // The signing secrets sealed with the key the first start created still sign after the restart.
    const inv = await client.request('POST', '/v1/invoices', { token: me.apiKey.secret, body: { bankAccountIds: [], customer: { name: '김철수' }, amount: 5000 } });
    expect(inv.status).toBe(201);
    await okV2.waitFor((rs) => rs.some((r) => r.json?.data?.invoice?.id === inv.body.data.id));
    const delivered = okV2.received.find((r) => r.json?.data?.invoice?.id === inv.body.data.id)!;
    expect(delivered.json.type).toBe('invoice.created');
    expect(delivered.headers['webhook-signature']).toBe(sign(secrets.v2!, delivered.json.id, Number(delivered.headers['webhook-timestamp']), delivered.body));
    // That invoice's event is the marker: anything delivered again after the restart would have come before it.
    const beforeMarker = () => [okV1, okV2, failing, gone].map((r) => r.received.filter((x) => !x.body.includes(inv.body.data.id)).length);
    expect(beforeMarker()).toEqual(before);
    expect(server.errorLines()).toEqual([]);
  });

  it('a shop order paid end to end in the simulated shop, by the CLI (the tour step 6), after the restart', async () => {
    const cli = async (args: string[]) => {
      const r = await runScript('cli', [...args, '--url', client.baseUrl]);
      expect(r.code, r.stderr + r.stdout).toBe(0);
      return JSON.parse(r.stdout);
    };
    const shop = await cli(['connect-simulated-shop', '--token', me.sessionToken, '--shop', 'demo-shop']);
    expect(shop).toMatchObject({ platform: 'SIMULATED', shopId: 'demo-shop', state: 'CONNECTED' });
    const order = await cli(['simulate-shop-order', '--token', me.apiKey.secret, '--connection', shop.id, '--name', '이영희', '--amount', '32000']);
    expect(order.imported).toMatchObject({ state: 'LINKED', invoice: { status: 'PENDING', amount: 32000, customer: { name: '이영희' } } });
    await cli(['simulate-deposit', '--token', me.bankAccount.notificationToken, '--name', '이영희', '--amount', '32000']);
    const paid = await cli(['shop-order', '--token', me.apiKey.secret, '--connection', shop.id, '--order', order.shopOrderId, '--wait-for', 'CONFIRMED']);
    expect(paid.order).toMatchObject({ state: 'CONFIRMED', confirmAttempts: 1, invoice: { status: 'PAID' } });
    expect(paid.shop).toMatchObject({ status: 'PAID', confirmCalls: 1 });
    // The V2 webhook hears of it with the invoice and the order.
    await okV2.waitFor((r) => r.some((x) => x.json.type === 'shop_order.confirmed'));
    const event = okV2.received.find((x) => x.json.type === 'shop_order.confirmed')!.json;
    expect(event.data.shopOrder).toMatchObject({ orderId: order.shopOrderId, state: 'CONFIRMED', platform: 'SIMULATED' });
    expect(event.data.invoice.id).toBe(order.imported.invoice.id);
    expect(server.errorLines()).toEqual([]);
  });

  it('a deposit whose text was lost, found by polling the simulated history, by the CLI (the tour step 7)', async () => {
    const cli = async (args: string[]) => {
      const r = await runScript('cli', [...args, '--url', client.baseUrl]);
      expect(r.code, r.stderr + r.stdout).toBe(0);
      return JSON.parse(r.stdout);
    };
    const feed = await cli(['connect-simulated-history', '--token', me.sessionToken, '--account', me.bankAccount.id]);
    expect(feed).toMatchObject({ aggregator: 'SIMULATED', state: 'ACTIVE', bankAccountId: me.bankAccount.id });
    const inv = await client.request('POST', '/v1/invoices', { token: me.apiKey.secret, body: { bankAccountIds: [], customer: { name: '박민수' }, amount: 27000 } });
    expect(inv.status).toBe(201);
    const found = await cli(['simulate-history-deposit', '--token', me.apiKey.secret, '--feed', feed.id, '--name', '박민수', '--amount', '27000']);
    expect(found.deposit).toMatchObject({ source: 'HISTORY', amount: 27000, matchedInvoiceId: inv.body.data.id });
    expect(server.errorLines()).toEqual([]);
  });
  it.skipIf(!runBrowserTests)('the tour in the browser: a new merchant signs up in the dashboard and reaches a first paid invoice with the simulated bank, no CLI', async () => {
    const browser = await launchChromium();
    const hook = await new Receiver().start();
    try {
      const { page, foreign, problems } = await openPage(browser, `${client.baseUrl}/dashboard`, { locale: 'en-US', viewport: { width: 1280, height: 900 } });
      await page.getByRole('button', { name: 'No account yet? Sign up' }).click();
      await page.getByLabel('Business or your name').fill('Tour shop');
      await page.getByLabel('E-mail').fill(`tour-${Date.now()}@example.com`);
      await page.getByLabel('Password').fill('a-long-password-1');
      await page.getByRole('button', { name: 'Sign up', exact: true }).click();
      await page.getByRole('heading', { name: 'Get started' }).waitFor();
      const step = (id: string) => page.locator(`[data-step="${id}"]`);
      const done = (id: string) => page.locator(`[data-step="${id}"][data-done="true"]`).waitFor();
      // 1. The account, verified by the 1-won deposit booked in the simulated bank (2.): the merchant's browser alone.
      const account = step('bank-account');
      // The select's accessible name is its label's text with the option shown ("Bank KB국민은행"): matched by its start.
      await account.getByRole('combobox', { name: /^Bank\b/ }).selectOption('SHINHAN');
      await account.getByLabel('Account number').fill('110-555-000111');
      await account.getByLabel('Account type').selectOption('PERSONAL');
      await account.getByLabel('Alias').fill('Main');
      await account.getByRole('button', { name: 'Register', exact: true }).click();
      await step('bank-account').locator('code.code').waitFor();
      await step('feed').getByLabel('Aggregator').selectOption('SIMULATED');
      await step('feed').getByRole('button', { name: 'Connect the history' }).click();
      await page.getByRole('button', { name: 'Book the 1-won verification deposit in the simulated bank' }).click();
      await done('bank-account');
      await done('feed');
      await page.getByLabel('Company name', { exact: true }).fill('Tour shop');
      await page.getByLabel('Business registration number').fill('123-45-67890');
      await page.getByLabel('Representative').fill('Hong Gildong');
      await page.getByRole('button', { name: 'Save' }).click();
      await done('business');
      await page.getByLabel('Key name').fill('tour');
      await page.getByRole('button', { name: 'Create key' }).click();
      const key = (await step('api-key').locator('[data-secret]').innerText()).trim();
      await done('api-key');
      await page.getByLabel('Webhook URL').fill(hook.url);
      await page.getByRole('button', { name: 'Register webhook' }).click();
      await done('webhook');
      await page.getByLabel('Depositor').fill('최투어');
      await page.getByLabel('Amount').fill('15000');
      await page.getByRole('button', { name: 'Create a test invoice' }).click();
      await page.getByRole('button', { name: 'Book this deposit in the simulated bank' }).click();
      await done('test-deposit');
      await checkPage(page, 'first-start-tour-done-en');
      // The key shown once reads the paid invoice; the webhook heard of the payment.
      const paid = await client.request('GET', '/v1/invoices?offset=0&limit=10&paid=true', { token: key });
      expect(paid.body.data.map((i: { customer: { name: string }; amount: number }) => [i.customer.name, i.amount])).toEqual([['최투어', 15_000]]);
      const paidId = paid.body.data[0].id as string;
      await hook.waitFor((rs) => rs.some((r) => r.json?.type === 'invoice.paid' && r.json?.data?.invoice?.id === paidId));
      expect(foreign).toEqual([]);
      expect(problems.filter((p) => !/status of 401/.test(p))).toEqual([]);
      expect(server.errorLines()).toEqual([]);
    } finally {
      await browser.close();
      await hook.stop();
    }
  }, 120_000);
});
