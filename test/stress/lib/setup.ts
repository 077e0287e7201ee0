/**
 * The app under fuzz: the real app (buildApp) on a fresh database, reached in-process through `app.fetch` (fast) and
 * over a real socket (for bytes a `Request` cannot carry), seeded with a workspace and one resource of every kind so
 * that path ids, filters and state transitions have something real to hit.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { addVerifiedBankAccount, bootstrap, ServiceClient, type Bootstrapped } from '../../../src/cli/client.ts';
import { loadConfig } from '../../../src/config/config.ts';
import { buildApp, type App } from '../../../src/http/app.ts';
import { freshDatabase } from '../../helpers/app.ts';

export interface Seeded {
  m: Bootstrapped;
  /** A read-only key and a key limited to a second bank account. */
  readOnlyKey: string;
  limitedKey: string;
  secondBankAccountId: string;
  invoiceIds: string[];
  paidInvoiceId: string;
  canceledInvoiceId: string;
  transactionIds: string[];
  receiptIds: string[];
  issuedReceiptId: string;
  webhookId: string;
  oauth: { clientId: string; clientSecret: string; redirectUri: string; accessToken: string };
  /** Every id and secret above, for generators that throw real values at the service. */
  ids: string[];
}

export interface FuzzApp {
  app: App;
  url: string;
  /** In-process client (no socket). */
  client: ServiceClient;
  seeded: Seeded;
  stop(): Promise<void>;
}

export async function startFuzzApp(): Promise<FuzzApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'btp-fuzz-'));
  const { database, drop } = await freshDatabase();
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    AGENCY_SIM_DELAY_MS: '0',
    // Background workers would POST fuzzed webhook URLs; the jobs the seed needs are run by hand below.
    WORKERS: 'false',
    // The coming per-key rate limit: 0 disables it (429 RATE_LIMITED stays an accepted answer).
    RATE_LIMIT_PER_SECOND: '0',
  });
  const app = await buildApp(config, {
    database,
    logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    // Fuzzed webhook URLs must not reach DNS: every host resolves to one public documentation address.
    resolveHost: async () => ['93.184.216.34'],
  });
  const { url } = await app.start();
  const client = new ServiceClient('http://fuzz.local', (input, init) => app.fetch(new Request(input as string, init)));
  const seeded = await seed(app, client);
  return {
    app,
    url,
    client,
    seeded,
    async stop() {
      await app.stop({ graceMs: 2000 });
      await drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function ok(res: Promise<{ status: number; body: any }>, what: string): Promise<any> {
  const r = await res;
  if (r.status >= 300) throw new Error(`seed: ${what} answered ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

async function seed(app: App, client: ServiceClient): Promise<Seeded> {
  const m = await bootstrap(client);
  const key = m.apiKey.secret;
  const second = await addVerifiedBankAccount(client, m.sessionToken, { alias: 'second' });
  const keys = await client.gql<{ ro: { secret: string }; limited: { secret: string } }>(
    `mutation($ids: [ID!]) { ro: createApiKey(input: { name: "ro", readOnly: true }) { secret } limited: createApiKey(input: { name: "limited", bankAccountIds: $ids }) { secret } }`,
    { ids: [second.id] },
    m.sessionToken,
  );

  const invoiceIds: string[] = [];
  for (let i = 0; i < 6; i++) {
    const body = await ok(
      client.request('POST', '/v1/invoices', {
        token: key,
        body: { bankAccountIds: i % 2 ? [m.bankAccount.id] : [], customer: { name: `seed${i}`, email: 'buyer@example.com' }, amount: 1000 + i, expireAfter: '7d', metadata: { order: `o${i}` } },
      }),
      'create invoice',
    );
    invoiceIds.push(body.data.id);
  }
  // One paid by a deposit, one by API call, one canceled.
  const dep = await ok(client.deposit(m.bankAccount.notificationToken, { depositorName: 'seed0', amount: 1000 }), 'deposit');
  await ok(client.request('POST', `/v1/invoices/${invoiceIds[1]}/mark-as-paid`, { token: key }), 'mark paid');
  await ok(client.request('POST', `/v2/invoices/${invoiceIds[2]}/cancel`, { token: key, body: { reason: 'seed' } }), 'cancel');
  const unmatched = await ok(client.deposit(m.bankAccount.notificationToken, { depositorName: 'nobody', amount: 777 }), 'deposit');

  const receiptIds: string[] = [];
  for (const [type, identifier] of [
    ['PERSONAL', '01012345678'],
    ['CORPORATE', '1234567890'],
  ]) {
    const body = await ok(client.request('POST', '/v1/cash-receipts', { token: key, body: { type, identifier, amount: 11_000 } }), 'issue receipt');
    receiptIds.push(body.data.id);
  }
  // Let the simulated agency settle the receipts (workers are off).
  for (let i = 0; i < 5; i++) await app.workers.jobs.runOnce();

  const webhook = await client.gql<{ createWebhook: { webhook: { id: string } } }>(
    `mutation { createWebhook(input: { url: "https://hooks.example.com/fuzz", version: V2 }) { webhook { id } } }`,
    {},
    m.sessionToken,
  );

  const redirectUri = 'https://shop.example.com/callback';
  const oa = await client.gql<{ createOAuthApp: { app: { id: string }; clientSecret: string } }>(
    `mutation($input: CreateOAuthAppInput!) { createOAuthApp(input: $input) { app { id } clientSecret } }`,
    { input: { name: 'fuzz-app', redirectUris: [redirectUri] } },
    m.sessionToken,
  );
  const clientId = oa.createOAuthApp.app.id;
  const clientSecret = oa.createOAuthApp.clientSecret;
  const auth = await client.gql<{ authorizeOAuthApp: { code: string } }>(
    `mutation($input: AuthorizeOAuthAppInput!) { authorizeOAuthApp(input: $input) { code } }`,
    { input: { clientId, redirectUri } },
    m.sessionToken,
  );
  const tokenRes = await app.fetch(
    new Request('http://fuzz.local/v2/oauth-apps/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: auth.authorizeOAuthApp.code, redirect_uri: redirectUri, client_id: clientId, client_secret: clientSecret }).toString(),
    }),
  );
  const token = (await tokenRes.json()) as { access_token: string };
  if (!token.access_token) throw new Error(`seed: no access token ${JSON.stringify(token)}`);

  const seeded: Omit<Seeded, 'ids'> = {
    m,
    readOnlyKey: keys.ro.secret,
    limitedKey: keys.limited.secret,
    secondBankAccountId: second.id,
    invoiceIds,
    paidInvoiceId: invoiceIds[1],
    canceledInvoiceId: invoiceIds[2],
    transactionIds: [dep.transactionId, unmatched.transactionId],
    receiptIds,
    issuedReceiptId: receiptIds[0],
    webhookId: webhook.createWebhook.webhook.id,
    oauth: { clientId, clientSecret, redirectUri, accessToken: token.access_token },
  };
  const ids = [
    ...invoiceIds,
    ...seeded.transactionIds,
    ...receiptIds,
    m.bankAccount.id,
    second.id,
    m.accountId,
    m.workspaceId,
    seeded.webhookId,
    clientId,
  ];
  return { ...seeded, ids };
}
