/**
 * Idempotency isolation matrix: every idempotent operation (every POST of REST v1 and v2, every GraphQL mutation) ×
 * every other credential of the same workspace. One credential makes the first request with an Idempotency-Key; each
 * other credential then sends the same key and the same request. A stored answer is the first credential's only:
 *
 *   session       the owner's dashboard session
 *   session2      a second dashboard session of the owner (another logIn)
 *   fullKey       the bootstrap API key
 *   fullKey2      another full-access API key
 *   readOnlyKey   a read-only key
 *   limitedKey    a key limited to bank account A (the targets here are all-accounts invoices: out of its scope)
 *   oauth         a live OAuth access token
 *   disabledKey   a key disabled in the dashboard
 *   revokedOAuth  an OAuth access token revoked through POST /v2/oauth-apps/revoke
 *
 * Each cell asserts that the other credential gets exactly what a fresh call of its own gets: not marked replayed; the
 * same status and body, ids, secrets and times aside, as the same call without the key made right after (a refusal is
 * the very same refusal, a fresh execution the same kind of answer); the refusal the credential's rules give where
 * they refuse (401 for a dead credential, 403 for a read-only key or a dashboard token on REST, DASHBOARD_ONLY for an
 * API key on a dashboard mutation); and none of the secrets of the first answer anywhere in its response. The first
 * credential's own retry replays the first answer, secrets included; the stored row holds none of them in clear.
 */
import { readFileSync } from 'node:fs';
import { buildSchema, getNamedType, isUnionType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addVerifiedBankAccount, bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { v1Routes } from '../../rest-compat/v1/routes.ts';
import { v2Routes } from '../../rest-compat/v2/routes.ts';
import { renderV1, renderV2, type ErrorCode } from '../../src/domain/errors.ts';
import { dbLabel, startTestApp, type TestApp } from '../helpers/app.ts';
import { basicAuth, createApiKey, formBody, oauthAccessToken } from '../helpers/credentials.ts';
import { until } from '../helpers/wait.ts';

// ───────────────────────────── credentials ─────────────────────────────

const CREDENTIALS = ['session', 'session2', 'fullKey', 'fullKey2', 'readOnlyKey', 'limitedKey', 'oauth', 'disabledKey', 'revokedOAuth'] as const;
type Credential = (typeof CREDENTIALS)[number];
const isSession = (c: Credential) => c === 'session' || c === 'session2';
const isDead = (c: Credential) => c === 'disabledKey' || c === 'revokedOAuth';

// ───────────────────────────── fixtures ─────────────────────────────

interface Fixtures {
  owner: Bootstrapped;
  tokens: Record<Credential, string>;
  /** Targets, one per operation that acts on something (each operation changes its own). */
  inv: Record<'markV1' | 'cancelV2' | 'cancelG' | 'deleteG' | 'markG' | 'updateG' | 'matchG' | 'matchV2' | 'receiptG', string>;
  rct: Record<'revokeV1' | 'cancelV2' | 'mailV2' | 'cancelG' | 'revokeG' | 'mailG', string>;
  /** FAILED receipts (reissue targets). */
  failed: Record<'reissueV2' | 'reissueG', string>;
  trx: Record<'match' | 'matchV2' | 'unmatch' | 'hide', string>;
  hooks: Record<'rotate' | 'update' | 'disable' | 'enable' | 'delete' | 'redeliver', string>;
  keys: Record<'toDelete' | 'toDisable', string>;
  app: { id: string; secret: string };
  eventId: string;
  /** Simulated shops: one to sync, one to place orders in (and an order of it to cancel), one to disconnect; an install's state; a FAILED order of a paid invoice. */
  shop: { syncOn: string; placeIn: string; cancelOrder: string; disconnect: string; installState: string; retryOrder: string };
  /**
   * Account-history feeds (simulated aggregator), one per account: to pause, to resume (paused), to disconnect, to poll
   * (on the owner's first account: within the limited key's scope), to book in; and an account without a feed to connect.
   */
  history: { connectOn: string; pause: string; resume: string; disconnect: string; poll: string; simulate: string };
  /** UNRECOGNIZED forwarded texts of the owner's first account: one to enter a deposit from, one to dismiss. */
  texts: { enter: string; dismiss: string };
}

const REDIRECT = 'https://idem-partner.example/callback';
let t: TestApp;
let f: Fixtures;


const gqlOk = <T = any>(query: string, variables: Record<string, unknown>, token: string) => t.client.gql<T>(query, variables, token);
const form = formBody;
const basic = basicAuth;
const createKey = (session: string, input: Record<string, unknown>) => createApiKey(t.client, session, input);
const oauthToken = (session: string, app: { id: string; secret: string }) => oauthAccessToken(t.client, session, app, REDIRECT);

async function revokeOAuth(app: { id: string; secret: string }, token: string) {
  const r = await t.client.request('POST', '/v2/oauth-apps/revoke', { rawBody: form({ token }), headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(app.id, app.secret) } });
  expect(r.status).toBe(200);
}

async function setUp(): Promise<Fixtures> {
  const c = t.client;
  const owner = await bootstrap(c, { name: 'IdemOwner' });
  const s = owner.sessionToken;
  const key = owner.apiKey.secret;
  const session2 = (await c.gql(`mutation($i: LogInInput!) { logIn(input: $i) { token } }`, { i: { email: owner.email, password: owner.password } })).logIn.token as string;
  const [fullKey2, readOnly, limited, disabled, toDelete, toDisable] = await Promise.all([
    createKey(s, { name: 'IdemFull2' }),
    createKey(s, { name: 'IdemReadOnly', readOnly: true }),
    createKey(s, { name: 'IdemLimited', bankAccountIds: [owner.bankAccount.id] }),
    createKey(s, { name: 'IdemDisabled' }),
    createKey(s, { name: 'IdemToDelete' }),
    createKey(s, { name: 'IdemToDisable' }),
  ]);
  await gqlOk(`mutation($id: ID!) { disableApiKey(id: $id) { apiKey { id } } }`, { id: disabled.id }, s);
  const created = await gqlOk(`mutation { createOAuthApp(input: {name: "IdemApp", redirectUris: ["${REDIRECT}"]}) { app { id } clientSecret } }`, {}, s);
  const app = { id: created.createOAuthApp.app.id as string, secret: created.createOAuthApp.clientSecret as string };
  // Revoking a token revokes its grant's tokens: the live one is authorized after.
  const revoked = await oauthToken(s, app);
  await revokeOAuth(app, revoked);
  const oauth = await oauthToken(s, app);

  const invoice = async (name: string, amount: number) => {
    const r = await c.request('POST', '/v1/invoices', { token: key, body: { bankAccountIds: [], customer: { name }, amount } });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body.data.id as string;
  };
  const [markV1, cancelV2, cancelG, deleteG, markG, updateG, matchG, matchV2] = await Promise.all(
    ['IdemMarkV1', 'IdemCancelV2', 'IdemCancelG', 'IdemDeleteG', 'IdemMarkG', 'IdemUpdateG', 'IdemMatchG', 'IdemMatchV2'].map((name, i) => invoice(name, 41_000 + i)),
  );
  await invoice('IdemAutoPaid', 41_100);
  // A paid invoice (the target of issueInvoiceCashReceipt).
  const receiptG = await invoice('IdemReceiptG', 41_200);
  expect((await c.request('POST', `/v1/invoices/${receiptG}/mark-as-paid`, { token: key })).status).toBe(200);

  const receipt = async (identifier: string, amount: number, settled: string) => {
    const r = await c.request('POST', '/v1/cash-receipts', { token: key, body: { type: 'PERSONAL', identifier, amount } });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const id = r.body.data.id as string;
    const done = await until(() => c.request('GET', `/v2/cash-receipts/${id}`, { token: key }), (x) => x.body.data?.status !== 'PENDING');
    expect(done.body.data.status).toBe(settled);
    return id;
  };
  const [revokeV1, rCancelV2, mailV2, rCancelG, revokeG, mailG, reissueV2, reissueG] = await Promise.all([
    ...['01077710001', '01077710002', '01077710003', '01077710004', '01077710005', '01077710006'].map((id, i) => receipt(id, 42_000 + i, 'ISSUED')),
    // Identifiers 0100009... are rejected by the simulated tax authority: FAILED originals can be reissued.
    ...['01000090001', '01000090002'].map((id, i) => receipt(id, 42_100 + i, 'FAILED')),
  ]);

  const dep = async (depositorName: string, amount: number) => {
    const r = await c.deposit(owner.bankAccount.notificationToken, { depositorName, amount });
    expect(r.status).toBe(201);
    return r.body.transactionId as string;
  };
  const [match, matchTrxV2, unmatch, hide] = await Promise.all([dep('IdemLoose', 43_000), dep('IdemLooseV2', 43_002), dep('IdemAutoPaid', 41_100), dep('IdemHidden', 43_001)]);
  const paid = await c.request('GET', `/v1/transactions/${unmatch}`, { token: key });
  expect(paid.body.data.matchedInvoiceId).toMatch(/^ivc_/);

  const hook = async (path: string) =>
    (await gqlOk(`mutation($i: CreateWebhookInput!) { createWebhook(input: $i) { webhook { id } } }`, { i: { url: `http://127.0.0.1:9/${path}`, version: 'V2' } }, s)).createWebhook.webhook.id as string;
  const [rotate, update, disable, enable, del, redeliver] = await Promise.all(['idem-rotate', 'idem-update', 'idem-disable', 'idem-enable', 'idem-delete', 'idem-redeliver'].map(hook));
  const events = await gqlOk(`{ events(first: 1) { id } }`, {}, s);

  // Simulated shops: connected through the approval page and the callback (in process).
  const startInstall = async (shopId: string) => {
    const r = await gqlOk(`mutation($i: StartShopInstallInput!) { startShopInstall(input: $i) { ... on ShopInstallPayload { authorizeUrl connection { id } } } }`, { i: { platform: 'SIMULATED', shopId } }, s);
    return { id: r.startShopInstall.connection.id as string, authorizeUrl: r.startShopInstall.authorizeUrl as string };
  };
  const connectShop = async (shopId: string) => {
    const started = await startInstall(shopId);
    const approval = await t.app.fetch(new Request(new URL(started.authorizeUrl, t.url)));
    expect((await t.app.fetch(new Request(new URL(approval.headers.get('location')!, t.url)))).status).toBe(200);
    return started.id;
  };
  const [syncOn, placeIn, disconnect, retryShop] = await Promise.all(['idem-sync', 'idem-place', 'idem-disconnect', 'idem-retry'].map(connectShop));
  const installState = new URL((await startInstall('idem-complete')).authorizeUrl, t.url).searchParams.get('state')!;
  const placed = async (connectionId: string, buyerName: string, amount: number) =>
    (await gqlOk(`mutation($i: SimulateShopOrderInput!) { simulateShopOrder(input: $i) { ... on SimulatedShopOrderPayload { order { id } } } }`, { i: { connectionId, buyerName, amount } }, s)).simulateShopOrder.order.id as string;
  const cancelOrder = await placed(placeIn, 'IdemShopCancel', 46_000);
  // A FAILED confirmation: the order canceled at the shop, then its invoice paid here before a sync noticed.
  const retryNo = await placed(retryShop, 'IdemShopRetry', 46_100);
  const shopOrders = (c: string) => gqlOk(`query($c: ID!) { shopConnection(id: $c) { orders { id orderId state invoice { id } } } }`, { c }, s);
  const linked = (await until(() => shopOrders(retryShop), (r) => r.shopConnection.orders.some((o: { state: string }) => o.state === 'LINKED'))).shopConnection.orders[0];
  await t.app.deps.prisma.simulatedShopOrder.update({ where: { id: retryNo }, data: { status: 'CANCELED' } });
  expect((await c.request('POST', `/v1/invoices/${linked.invoice.id}/mark-as-paid`, { token: key })).status).toBe(200);
  await until(() => shopOrders(retryShop), (r) => r.shopConnection.orders[0].state === 'FAILED');

  // Account-history feeds: a feed per account, so each operation has its own; the polling account is the limited key's.
  const [connectOn, pauseOn, resumeOn, disconnectOn, simulateOn] = await Promise.all(
    ['IdemConnect', 'IdemPause', 'IdemResume', 'IdemDisconnect', 'IdemSimulate'].map((alias) => addVerifiedBankAccount(c, s, { alias })),
  );
  const connectFeed = async (bankAccountId: string) => {
    const r = await gqlOk(
      `mutation($i: ConnectHistoryFeedInput!) { connectHistoryFeed(input: $i) { ${ERR} ... on HistoryFeedPayload { feed { id state } } } }`,
      { i: { bankAccountId, aggregator: 'SIMULATED' } },
      s,
    );
    expect(r.connectHistoryFeed, JSON.stringify(r)).toMatchObject({ __typename: 'HistoryFeedPayload', feed: { state: 'ACTIVE' } });
    return r.connectHistoryFeed.feed.id as string;
  };
  const [pauseFeed, resumeFeed, disconnectFeed, pollFeed, simulateFeed] = await Promise.all([pauseOn.id, resumeOn.id, disconnectOn.id, owner.bankAccount.id, simulateOn.id].map(connectFeed));
  // The first polls (due at once) done: the schedule's next is HISTORY_POLL_INTERVAL_MS away, so pollHistoryNow meets no
  // running poll (CONFLICT) in the matrix.
  const feeds = [pauseFeed, resumeFeed, disconnectFeed, pollFeed, simulateFeed];
  await until(
    () => t.app.deps.prisma.historyFeed.findMany({ where: { id: { in: feeds } } }),
    (rows) => rows.length === feeds.length && rows.every((r) => r.lastPolledAt !== null && r.pollLeaseUntil === null),
  );
  const paused = await gqlOk(`mutation($id: ID!) { pauseHistoryFeed(id: $id) { ${ERR} ... on HistoryFeedPayload { feed { state } } } }`, { id: resumeFeed }, s);
  expect(paused.pauseHistoryFeed.feed.state).toBe('PAUSED');

  // Texts no parser reads (stored UNRECOGNIZED: open to enter or dismiss).
  const unreadText = async (text: string) => {
    const r = await c.request('POST', '/bank-texts', { token: owner.bankAccount.notificationToken, body: { text, receivedAt: new Date().toISOString(), channel: 'SMS' } });
    expect(r.body.outcome, JSON.stringify(r.body)).toBe('UNRECOGNIZED');
    return r.body.bankTextId as string;
  };
  const [enterText, dismissText] = await Promise.all(['IdemBankText to enter: no deposit here', 'IdemBankText to dismiss: no deposit here'].map(unreadText));

  return {
    owner,
    tokens: {
      session: s,
      session2,
      fullKey: key,
      fullKey2: fullKey2.secret,
      readOnlyKey: readOnly.secret,
      limitedKey: limited.secret,
      oauth,
      disabledKey: disabled.secret,
      revokedOAuth: revoked,
    },
    inv: { markV1, cancelV2, cancelG, deleteG, markG, updateG, matchG, matchV2, receiptG },
    rct: { revokeV1, cancelV2: rCancelV2, mailV2, cancelG: rCancelG, revokeG, mailG },
    failed: { reissueV2, reissueG },
    trx: { match, matchV2: matchTrxV2, unmatch, hide },
    hooks: { rotate, update, disable, enable, delete: del, redeliver },
    keys: { toDelete: toDelete.id, toDisable: toDisable.id },
    app,
    eventId: events.events[0].id,
    shop: { syncOn, placeIn, cancelOrder, disconnect, installState, retryOrder: linked.id },
    history: { connectOn: connectOn.id, pause: pauseFeed, resume: resumeFeed, disconnect: disconnectFeed, poll: pollFeed, simulate: simulateFeed },
    texts: { enter: enterText, dismiss: dismissText },
  };
}

// ───────────────────────────── operations ─────────────────────────────

/** Who may call a GraphQL mutation: anyone (signUp, logIn), a dashboard session, or any writer. */
type Access = 'public' | 'dashboard' | 'write';

interface Op {
  name: string;
  face: 'v1' | 'v2' | 'graphql';
  /** Router pattern (REST) or root field (GraphQL). */
  route: string;
  access: Access;
  /** The credential that makes the first request. */
  first: Credential;
  path: (f: Fixtures) => string;
  /** JSON body (REST) or {query, variables} (GraphQL). */
  body: (f: Fixtures) => unknown;
}

const rest = (face: 'v1' | 'v2', route: string, first: Credential, path: (f: Fixtures) => string, body: (f: Fixtures) => unknown = () => undefined): Op => ({
  name: `POST ${route}`,
  face,
  route,
  access: 'write',
  first,
  path,
  body,
});

const REST_OPS: Op[] = [
  rest('v1', '/v1/invoices', 'fullKey', () => '/v1/invoices', () => ({ bankAccountIds: [], customer: { name: 'IdemRestNew', email: 'idem@example.com' }, amount: 44_000 })),
  rest('v1', '/v1/invoices/:id/mark-as-paid', 'fullKey', (f) => `/v1/invoices/${f.inv.markV1}/mark-as-paid`),
  rest('v1', '/v1/cash-receipts', 'fullKey', () => '/v1/cash-receipts', () => ({ type: 'PERSONAL', identifier: '01077720001', amount: 44_001 })),
  rest('v1', '/v1/cash-receipts/:id/revoke', 'oauth', (f) => `/v1/cash-receipts/${f.rct.revokeV1}/revoke`),
  rest('v2', '/v2/invoices/:id/cancel', 'oauth', (f) => `/v2/invoices/${f.inv.cancelV2}/cancel`, () => ({ reason: 'idem' })),
  rest('v2', '/v2/transactions/:id/match', 'oauth', (f) => `/v2/transactions/${f.trx.matchV2}/match`, (f) => ({ invoiceId: f.inv.matchV2 })),
  rest('v2', '/v2/cash-receipts/:id/cancel', 'fullKey', (f) => `/v2/cash-receipts/${f.rct.cancelV2}/cancel`, () => ({ reason: 'idem' })),
  rest('v2', '/v2/cash-receipts/:id/reissue', 'fullKey', (f) => `/v2/cash-receipts/${f.failed.reissueV2}/reissue`, () => ({ identifier: '01077730001' })),
  rest('v2', '/v2/cash-receipts/:id/send-email', 'fullKey', (f) => `/v2/cash-receipts/${f.rct.mailV2}/send-email`, () => ({ email: 'idem-mail@example.com' })),
];

const ERR = '__typename ... on DomainError { code message field data }';
const INVOICE = 'id number status amount customer { name } createdAt';
const RECEIPT = 'id status identifier amount';
const TRANSACTION = 'id matchedInvoiceId hidden';
const FEED = 'id bankAccountId aggregator corpNum state intervalMs';

const gql = (route: string, access: Access, first: Credential, query: string, variables: (f: Fixtures) => Record<string, unknown> = () => ({})): Op => ({
  name: `mutation ${route}`,
  face: 'graphql',
  route,
  access,
  first,
  path: () => '/graphql',
  body: (f) => ({ query, variables: variables(f) }),
});

const GQL_OPS: Op[] = [
  gql('authorizeOAuthApp', 'dashboard', 'session', `mutation($i: AuthorizeOAuthAppInput!) { authorizeOAuthApp(input: $i) { code expiresAt } }`, (f) => ({ i: { clientId: f.app.id, redirectUri: REDIRECT } })),
  gql('cancelCashReceipt', 'write', 'fullKey', `mutation($id: ID!) { cancelCashReceipt(id: $id, input: {reason: "idem"}) { ${ERR} ... on CashReceiptPayload { cashReceipt { ${RECEIPT} } } } }`, (f) => ({ id: f.rct.cancelG })),
  gql('cancelInvoice', 'write', 'oauth', `mutation($id: ID!) { cancelInvoice(id: $id, reason: "idem") { ${ERR} ... on InvoicePayload { invoice { ${INVOICE} } } } }`, (f) => ({ id: f.inv.cancelG })),
  gql('createApiKey', 'dashboard', 'session', `mutation { createApiKey(input: {name: "IdemNewKey"}) { apiKey { id name } secret } }`),
  gql('createInvoice', 'write', 'session', `mutation { createInvoice(input: {bankAccountIds: [], customer: {name: "IdemGqlNew"}, amount: 44100}) { ${ERR} ... on InvoicePayload { invoice { ${INVOICE} } } } }`),
  gql('createOAuthApp', 'dashboard', 'session', `mutation { createOAuthApp(input: {name: "IdemNewApp", redirectUris: ["https://idem-new.example/cb"]}) { app { id name } clientSecret } }`),
  gql('createWebhook', 'dashboard', 'session', `mutation { createWebhook(input: {url: "http://127.0.0.1:9/idem-new", version: V2}) { webhook { id url } signingSecret } }`),
  gql('deleteApiKey', 'dashboard', 'session', `mutation($id: ID!) { deleteApiKey(id: $id) { apiKey { id deletedAt } } }`, (f) => ({ id: f.keys.toDelete })),
  gql('deleteInvoice', 'write', 'fullKey', `mutation($id: ID!) { deleteInvoice(id: $id) { ${ERR} ... on InvoicePayload { invoice { id status } } } }`, (f) => ({ id: f.inv.deleteG })),
  gql('deleteWebhook', 'dashboard', 'session', `mutation($id: ID!) { deleteWebhook(id: $id) { ${ERR} ... on WebhookPayload { webhook { id } } } }`, (f) => ({ id: f.hooks.delete })),
  gql('disableApiKey', 'dashboard', 'session', `mutation($id: ID!) { disableApiKey(id: $id) { apiKey { id disabledAt } } }`, (f) => ({ id: f.keys.toDisable })),
  gql('disableWebhook', 'dashboard', 'session', `mutation($id: ID!) { disableWebhook(id: $id) { ${ERR} ... on WebhookPayload { webhook { id enabled } } } }`, (f) => ({ id: f.hooks.disable })),
  gql('enableWebhook', 'dashboard', 'session', `mutation($id: ID!) { enableWebhook(id: $id) { ${ERR} ... on WebhookPayload { webhook { id enabled } } } }`, (f) => ({ id: f.hooks.enable })),
  gql('issueCashReceipt', 'write', 'fullKey', `mutation { issueCashReceipt(input: {type: PERSONAL, identifier: "01077740001", amount: 44200}) { ${ERR} ... on CashReceiptPayload { cashReceipt { ${RECEIPT} } } } }`),
  gql('issueInvoiceCashReceipt', 'write', 'fullKey', `mutation($id: ID!) { issueInvoiceCashReceipt(input: {invoiceId: $id, type: PERSONAL, identifier: "01077760001"}) { ${ERR} ... on CashReceiptPayload { cashReceipt { ${RECEIPT} } } } }`, (f) => ({ id: f.inv.receiptG })),
  gql('logIn', 'public', 'session', `mutation($i: LogInInput!) { logIn(input: $i) { token account { id } } }`, (f) => ({ i: { email: f.owner.email, password: f.owner.password } })),
  gql('markInvoicePaid', 'write', 'fullKey', `mutation($id: ID!) { markInvoicePaid(id: $id) { ${ERR} ... on InvoicePayload { invoice { id status } } } }`, (f) => ({ id: f.inv.markG })),
  gql('matchTransaction', 'write', 'fullKey', `mutation($i: MatchTransactionInput!) { matchTransaction(input: $i) { transaction { ${TRANSACTION} } } }`, (f) => ({ i: { transactionId: f.trx.match, invoiceId: f.inv.matchG } })),
  gql('redeliverWebhookEvent', 'dashboard', 'session', `mutation($w: ID!, $e: ID!) { redeliverWebhookEvent(webhookId: $w, eventId: $e) { ${ERR} ... on RedeliverWebhookEventPayload { webhookId eventId } } }`, (f) => ({ w: f.hooks.redeliver, e: f.eventId })),
  gql('registerBankAccount', 'dashboard', 'session', `mutation { registerBankAccount(input: {provider: "SHINHAN", type: PERSONAL, number: "1999000044300", alias: "IdemNew"}) { bankAccount { id } verificationCode notificationToken } }`),
  gql('registerBusinessInfo', 'dashboard', 'session', `mutation { registerBusinessInfo(input: {corpNum: "2234567890", companyName: "IdemCo", representativeName: "Idem"}) { workspace { id } } }`),
  gql('reissueCashReceipt', 'write', 'fullKey', `mutation($id: ID!) { reissueCashReceipt(id: $id, input: {identifier: "01077750001"}) { ${ERR} ... on CashReceiptPayload { cashReceipt { ${RECEIPT} } } } }`, (f) => ({ id: f.failed.reissueG })),
  gql('revokeCashReceipt', 'write', 'oauth', `mutation($id: ID!) { revokeCashReceipt(id: $id) { ${ERR} ... on CashReceiptPayload { cashReceipt { ${RECEIPT} } } } }`, (f) => ({ id: f.rct.revokeG })),
  gql('rotateWebhookSecret', 'dashboard', 'session', `mutation($id: ID!) { rotateWebhookSecret(id: $id) { ${ERR} ... on WebhookSecretPayload { webhook { id } signingSecret } } }`, (f) => ({ id: f.hooks.rotate })),
  gql('sendCashReceiptEmail', 'write', 'fullKey', `mutation($id: ID!) { sendCashReceiptEmail(id: $id, email: "idem-mail@example.com") { ${ERR} ... on SendCashReceiptEmailPayload { cashReceiptId } } }`, (f) => ({ id: f.rct.mailG })),
  gql('setTransactionHidden', 'dashboard', 'session', `mutation($id: ID!) { setTransactionHidden(id: $id, hidden: true) { transaction { ${TRANSACTION} } } }`, (f) => ({ id: f.trx.hide })),
  gql('signUp', 'public', 'session', `mutation { signUp(input: {email: "idem-signup@example.com", password: "idem-password-123", name: "IdemSignUp"}) { token account { id } } }`),
  gql('unmatchTransaction', 'dashboard', 'session', `mutation($id: ID!) { unmatchTransaction(id: $id) { transaction { ${TRANSACTION} } } }`, (f) => ({ id: f.trx.unmatch })),
  gql('updateInvoice', 'write', 'fullKey', `mutation($id: ID!) { updateInvoice(id: $id, input: {amount: 44400}) { ${ERR} ... on InvoicePayload { invoice { ${INVOICE} } } } }`, (f) => ({ id: f.inv.updateG })),
  gql('updateWebhook', 'dashboard', 'session', `mutation($id: ID!) { updateWebhook(id: $id, url: "http://127.0.0.1:9/idem-moved") { ${ERR} ... on WebhookPayload { webhook { id url } } } }`, (f) => ({ id: f.hooks.update })),
  gql('startShopInstall', 'dashboard', 'session', `mutation { startShopInstall(input: {platform: SIMULATED, shopId: "idem-new-shop"}) { ${ERR} ... on ShopInstallPayload { authorizeUrl connection { id shopId } } } }`),
  gql('completeShopInstall', 'dashboard', 'session', `mutation($s: String!) { completeShopInstall(state: $s, code: "simulated-approval") { ${ERR} ... on ShopConnectionPayload { connection { id state } } } }`, (f) => ({ s: f.shop.installState })),
  gql('disconnectShop', 'dashboard', 'session', `mutation($id: ID!) { disconnectShop(id: $id) { ${ERR} ... on ShopConnectionPayload { connection { id state } } } }`, (f) => ({ id: f.shop.disconnect })),
  gql('syncShopOrders', 'write', 'fullKey', `mutation($c: ID!) { syncShopOrders(connectionId: $c) { ${ERR} ... on ShopSyncPayload { imported waiting refused connection { id } } } }`, (f) => ({ c: f.shop.syncOn })),
  gql('simulateShopOrder', 'write', 'fullKey', `mutation($c: ID!) { simulateShopOrder(input: {connectionId: $c, buyerName: "IdemShopNew", amount: 46200}) { ${ERR} ... on SimulatedShopOrderPayload { order { status amount } } } }`, (f) => ({ c: f.shop.placeIn })),
  gql('cancelSimulatedShopOrder', 'write', 'fullKey', `mutation($c: ID!, $o: String!) { cancelSimulatedShopOrder(connectionId: $c, orderId: $o) { ${ERR} ... on SimulatedShopOrderPayload { order { status } } } }`, (f) => ({ c: f.shop.placeIn, o: f.shop.cancelOrder })),
  gql('retryShopOrderConfirmation', 'write', 'fullKey', `mutation($id: ID!) { retryShopOrderConfirmation(id: $id) { ${ERR} ... on ShopOrderPayload { shopOrder { id } } } }`, (f) => ({ id: f.shop.retryOrder })),
  // Account-history feeds: connect, pause, resume and disconnect are the dashboard's; a poll and a booking any writer's.
  // Only what two executions of the same call answer alike is selected (not the poll times and counts the worker moves).
  gql('connectHistoryFeed', 'dashboard', 'session', `mutation($i: ConnectHistoryFeedInput!) { connectHistoryFeed(input: $i) { ${ERR} ... on HistoryFeedPayload { feed { ${FEED} } } } }`, (f) => ({ i: { bankAccountId: f.history.connectOn, aggregator: 'SIMULATED' } })),
  gql('pauseHistoryFeed', 'dashboard', 'session', `mutation($id: ID!) { pauseHistoryFeed(id: $id) { ${ERR} ... on HistoryFeedPayload { feed { ${FEED} } } } }`, (f) => ({ id: f.history.pause })),
  gql('resumeHistoryFeed', 'dashboard', 'session', `mutation($id: ID!) { resumeHistoryFeed(id: $id) { ${ERR} ... on HistoryFeedPayload { feed { ${FEED} } } } }`, (f) => ({ id: f.history.resume })),
  gql('disconnectHistoryFeed', 'dashboard', 'session', `mutation($id: ID!) { disconnectHistoryFeed(id: $id) { ${ERR} ... on HistoryFeedPayload { feed { ${FEED} } } } }`, (f) => ({ id: f.history.disconnect })),
  gql('pollHistoryNow', 'write', 'fullKey', `mutation($id: ID!) { pollHistoryNow(feedId: $id) { ${ERR} ... on HistoryPollPayload { rows created skipped feed { ${FEED} } } } }`, (f) => ({ id: f.history.poll })),
  gql(
    'simulateHistoryDeposit',
    'write',
    'fullKey',
    `mutation($id: ID!) { simulateHistoryDeposit(input: {feedId: $id, depositorName: "IdemHistoryBooked", amount: 47000}) { ${ERR} ... on SimulatedHistoryRowPayload { row { id feedId amount depositorName occurredAt } } } }`,
    (f) => ({ id: f.history.simulate }),
  ),
  // Forwarded texts the service could not take: entered or dismissed in the dashboard.
  gql(
    'enterBankTextDeposit',
    'dashboard',
    'session',
    `mutation($id: ID!) { enterBankTextDeposit(input: {bankTextId: $id, amount: 47100, depositorName: "IdemEntered"}) { ${ERR} ... on BankTextDepositPayload { bankText { id outcome resolution transactionId } transaction { id amount description source matchedInvoiceId } } } }`,
    (f) => ({ id: f.texts.enter }),
  ),
  gql('dismissBankText', 'dashboard', 'session', `mutation($id: ID!) { dismissBankText(id: $id) { ${ERR} ... on BankTextPayload { bankText { id outcome resolution transactionId } } } }`, (f) => ({ id: f.texts.dismiss })),
  gql(
    'updateBankAccount',
    'dashboard',
    'session',
    `mutation($i: UpdateBankAccountInput!) { updateBankAccount(input: $i) { ${ERR} ... on BankAccountPayload { bankAccount { id alias active } } } }`,
    (f) => ({ i: { bankAccountId: f.history.connectOn, alias: 'IdemRenamed' } }),
  ),
  gql('updateWorkspaceSettings', 'dashboard', 'session', `mutation { updateWorkspaceSettings(input: {paidEmailEnabled: true}) { ${ERR} ... on WorkspacePayload { workspace { id paidEmailEnabled } } } }`),
];

const OPS = [...REST_OPS, ...GQL_OPS];

// ───────────────────────────── calls and outcomes ─────────────────────────────

interface Answer {
  status: number;
  replayed: string | null;
  body: any;
  text: string;
}

async function send(op: Op, credential: Credential, key: string | null): Promise<Answer> {
  const token = f.tokens[credential];
  const headers: Record<string, string> = key ? { 'idempotency-key': key } : {};
  if (op.face === 'graphql') {
    const res = await t.fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${token}`, ...headers },
      body: JSON.stringify(op.body(f)),
    });
    const text = await res.text();
    return { status: res.status, replayed: res.headers.get('idempotent-replayed'), body: JSON.parse(text), text };
  }
  const res = await t.client.request('POST', op.path(f), { token, body: op.body(f), headers });
  return { status: res.status, replayed: res.headers.get('idempotent-replayed'), body: res.body, text: JSON.stringify(res.body) };
}

/**
 * Secrets by their form: API keys, session tokens, notification tokens and webhook signing secrets (40 random
 * characters after the prefix; whsec_ base64). OAuth client secrets, access tokens and codes have the form of an id of
 * their prefix (an access token's id is oat_ too): they are found by the field that carries them.
 */
const SECRET_RE = /(?:sk_live_|bnt_|sess_)[a-z0-9]{32,}|whsec_[A-Za-z0-9+/=]{32,}/g;
const SECRET_FIELDS = new Set(['secret', 'signingSecret', 'clientSecret', 'notificationToken', 'verificationCode', 'token', 'access_token', 'authorizeUrl']);
const ID_RE = /\b(ivc|trx|crt|bac|acc|whd|whm|apk|oat|oap|oas|oac|wsp|ses|evt|ivh|whp|eml|job|oag|lga|shc|sho|hfd|hsr|btx)_[a-z0-9]{24}\b/g;
/** A shop install's state nonce (in an authorizeUrl): a secret of the answer, new at each execution. */
const INSTALL_STATE_RE = /state=[A-Za-z0-9_-]{43}/g;
const TIME_RE = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})/g;

/** The secrets an answer carries: tokens, API keys, signing and client secrets, authorization codes, verification codes. */
function secretsOf(answer: Answer): string[] {
  const found = new Set(answer.text.match(SECRET_RE) ?? []);
  const walk = (v: unknown, k?: string) => {
    if (typeof v === 'string' && ((k && SECRET_FIELDS.has(k)) || (k === 'code' && v.startsWith('oac_')))) found.add(v);
    else if (Array.isArray(v)) v.forEach((x) => walk(x));
    else if (v && typeof v === 'object') for (const [kk, x] of Object.entries(v)) walk(x, kk);
  };
  walk(answer.body);
  return [...found];
}

/** An answer with what differs between two executions of the same call (ids, secrets, times, numbers) blanked. */
function normalized(a: Answer): { status: number; body: unknown } {
  const text = a.text
    .replace(SECRET_RE, (s) => s.replace(/_[A-Za-z0-9+/=]+$/, '_*'))
    .replace(ID_RE, '$1_*')
    .replace(TIME_RE, '<time>')
    .replace(INSTALL_STATE_RE, 'state=*')
    .replace(/"(number|verificationCode|\w*At)":("[^"]*"|\d+)/g, '"$1":"*"');
  return { status: a.status, body: JSON.parse(text) };
}

const sdl = buildSchema(readFileSync(new URL('../../schema/schema.graphql', import.meta.url), 'utf8'));
const MUTATIONS = Object.keys(sdl.getMutationType()!.getFields());
const UNION_MUTATIONS = new Set(Object.values(sdl.getMutationType()!.getFields()).filter((fd) => isUnionType(getNamedType(fd.type))).map((fd) => fd.name));

/** The refusal code of a GraphQL answer (a top-level error or an in-band DomainError), or null for a success. */
function gqlCode(op: Op, body: any): string | null {
  if (body.errors?.length) return body.errors[0].extensions?.code ?? 'NO_CODE';
  const v = body.data?.[op.route];
  return v && v.__typename === 'DomainError' ? v.code : null;
}

function isSuccess(op: Op, a: Answer): boolean {
  return op.face === 'graphql' ? a.status === 200 && gqlCode(op, a.body) === null : a.status >= 200 && a.status < 300;
}

/** What the credential's own rules refuse before the operation runs, or null where the operation itself decides. */
function authRefusal(op: Op, c: Credential): ErrorCode | null {
  if (op.access === 'public') return null;
  if (isDead(c)) return 'UNAUTHENTICATED';
  if (op.face !== 'graphql') return isSession(c) ? 'SESSION_TOKEN_NOT_ALLOWED' : c === 'readOnlyKey' ? 'READ_ONLY_KEY' : null;
  if (op.access === 'dashboard') return isSession(c) ? null : 'DASHBOARD_ONLY';
  return c === 'readOnlyKey' ? 'READ_ONLY_KEY' : null;
}

function expectRefusal(op: Op, a: Answer, code: ErrorCode, label: string) {
  if (op.face === 'v1') expect({ status: a.status, body: a.body }, label).toEqual(renderV1(code));
  else if (op.face === 'v2') expect({ status: a.status, body: a.body }, label).toEqual(renderV2(code));
  else expect(gqlCode(op, a.body), label).toBe(code);
}

async function storedRows(key: string): Promise<string[]> {
  const rows = await t.app.db.sql.query<{ j: string }>(`SELECT row_to_json(k)::text AS j FROM "IdempotencyKey" k WHERE k.key = $1`, [key]);
  return rows.map((r) => r.j);
}

// ───────────────────────────── the matrix ─────────────────────────────

describe(`idempotency isolation matrix on ${dbLabel}`, () => {
  beforeAll(async () => {
    t = await startTestApp({ socket: false, env: { RATE_LIMIT_PER_SECOND: '0', WEBHOOK_ALLOW_PRIVATE: 'true' } });
    f = await setUp();
  });
  afterAll(() => t?.stop());

  it('covers every POST of the v1 and v2 routers and every GraphQL mutation', () => {
    const posts = [...v1Routes.list(), ...v2Routes.list()].filter((r) => r.method === 'POST').map((r) => r.pattern);
    expect(REST_OPS.map((o) => o.route).sort()).toEqual(posts.sort());
    expect(GQL_OPS.map((o) => o.route).sort()).toEqual([...MUTATIONS].sort());
    // A refusal of a result-union mutation is in-band: its selection must ask for it.
    for (const op of GQL_OPS.filter((o) => UNION_MUTATIONS.has(o.route))) expect((op.body(f) as { query: string }).query, op.name).toContain('... on DomainError');
  });

  /** Every secret any first answer carried (checked against the whole table at the end). */
  const allSecrets: string[] = [];

  for (const op of OPS) {
    describe(op.name, () => {
      const key = `idem-${op.face}-${op.route}`;
      let first: Answer;
      let secrets: string[];

      it(`the first request (${op.first}) succeeds and its stored answer holds none of its secrets in clear`, async () => {
        first = await send(op, op.first, key);
        expect(isSuccess(op, first), `${first.status} ${first.text.slice(0, 400)}`).toBe(true);
        expect(first.replayed).toBeNull();
        secrets = secretsOf(first);
        allSecrets.push(...secrets);
        const rows = await storedRows(key);
        expect(rows).toHaveLength(1);
        for (const s of secrets) expect(rows[0], 'a secret stored in clear').not.toContain(s);
        expect(rows[0], 'the answer stored in clear').not.toContain(JSON.stringify(first.text).slice(1, -1));
      });

      it(`${op.first} retrying with the same key gets the first answer again (Idempotent-Replayed: true)`, async () => {
        const again = await send(op, op.first, key);
        expect({ status: again.status, replayed: again.replayed, text: again.text }).toEqual({ status: first.status, replayed: 'true', text: first.text });
      });

      for (const c of CREDENTIALS.filter((x) => x !== op.first)) {
        const refusal = authRefusal(op, c);
        it(`× ${c}: ${refusal ? `refused ${refusal}` : 'a fresh call'}, never the first answer`, async () => {
          const replay = await send(op, c, key);
          const label = `${op.name} × ${c}: ${replay.status} ${replay.text.slice(0, 400)}`;
          expect(replay.replayed, label).toBeNull();
          for (const s of secrets) expect(replay.text, `${label}\ncarries the first answer's secret`).not.toContain(s);
          if (refusal) expectRefusal(op, replay, refusal, label);
          // The same call, without the key: what a fresh call of this credential gets now.
          const fresh = await send(op, c, null);
          expect(normalized(replay), label).toEqual(normalized(fresh));
        });
      }
    });
  }

  describe("a credential's own retry", () => {
    const newInvoice = (name: string, amount: number, bankAccountIds: string[] = []) => ({ bankAccountIds, customer: { name }, amount });
    const v1Create = (token: string, key: string, body: unknown) => t.client.request('POST', '/v1/invoices', { token, body, headers: { 'idempotency-key': key } });
    const gqlWithKey = async (token: string, key: string, query: string) => {
      const res = await t.fetch(`${t.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'idempotency-key': key }, body: JSON.stringify({ query }) });
      return { status: res.status, replayed: res.headers.get('idempotent-replayed'), text: await res.text() };
    };

    it('a key disabled after its first request: the retry is 401 NOT_AUTHORIZED, not the stored 201', async () => {
      const k = await createKey(f.tokens.session, { name: 'IdemSoonDisabled' });
      const body = newInvoice('IdemSoonDisabled', 45_000);
      expect((await v1Create(k.secret, 'own-disabled', body)).status).toBe(201);
      await gqlOk(`mutation($id: ID!) { disableApiKey(id: $id) { apiKey { id } } }`, { id: k.id }, f.tokens.session);
      const retry = await v1Create(k.secret, 'own-disabled', body);
      expect({ status: retry.status, body: retry.body, replayed: retry.headers.get('idempotent-replayed') }).toEqual({ ...renderV1('UNAUTHENTICATED'), replayed: null });
    });

    it('a key deleted after its first request: the GraphQL retry is refused UNAUTHENTICATED', async () => {
      const k = await createKey(f.tokens.session, { name: 'IdemSoonDeleted' });
      const q = `mutation { createInvoice(input: {bankAccountIds: [], customer: {name: "IdemSoonDeleted"}, amount: 45001}) { ${ERR} ... on InvoicePayload { invoice { id } } } }`;
      const firstAnswer = await gqlWithKey(k.secret, 'own-deleted', q);
      expect(JSON.parse(firstAnswer.text).data.createInvoice.invoice.id).toMatch(/^ivc_/);
      await gqlOk(`mutation($id: ID!) { deleteApiKey(id: $id) { apiKey { id } } }`, { id: k.id }, f.tokens.session);
      const retry = await gqlWithKey(k.secret, 'own-deleted', q);
      // createInvoice answers a refusal in-band (its result union), as for any call without a credential.
      expect({ status: retry.status, replayed: retry.replayed, body: JSON.parse(retry.text) }).toEqual({
        status: 200,
        replayed: null,
        body: { data: { createInvoice: { __typename: 'DomainError', code: 'UNAUTHENTICATED', message: expect.any(String), field: null, data: null } } },
      });
    });

    it('an OAuth token revoked after its first request: the v2 retry is 401 290006', async () => {
      const token = await oauthToken(f.tokens.session, f.app);
      const inv = await t.client.request('POST', '/v1/invoices', { token: f.tokens.fullKey, body: newInvoice('IdemSoonRevoked', 45_002) });
      const cancel = () => t.client.request('POST', `/v2/invoices/${inv.body.data.id}/cancel`, { token, body: { reason: 'idem' }, headers: { 'idempotency-key': 'own-revoked' } });
      expect((await cancel()).status).toBe(200);
      await revokeOAuth(f.app, token);
      const retry = await cancel();
      expect({ status: retry.status, body: retry.body, replayed: retry.headers.get('idempotent-replayed') }).toEqual({ ...renderV2('UNAUTHENTICATED'), replayed: null });
      // The revoke took the live token of the matrix with it (one grant): authorize it again for what follows.
      f.tokens.oauth = await oauthToken(f.tokens.session, f.app);
    });

    it("a session expired after its first request: the retry is UNAUTHENTICATED and carries nothing of the stored secret", async () => {
      const session = (await t.client.gql(`mutation($i: LogInInput!) { logIn(input: $i) { token } }`, { i: { email: f.owner.email, password: f.owner.password } })).logIn.token as string;
      const q = `mutation { createApiKey(input: {name: "IdemSoonExpired"}) { apiKey { id } secret } }`;
      const firstAnswer = await gqlWithKey(session, 'own-expired', q);
      const secret = JSON.parse(firstAnswer.text).data.createApiKey.secret as string;
      expect(secret).toMatch(/^sk_live_/);
      await t.app.db.sql.query(`UPDATE "Session" SET "expiresAt" = now() - interval '1 minute' WHERE "tokenHash" = encode(sha256(convert_to($1, 'UTF8')), 'hex')`, [session]);
      const retry = await gqlWithKey(session, 'own-expired', q);
      expect({ status: retry.status, replayed: retry.replayed, code: JSON.parse(retry.text).errors?.[0]?.extensions?.code }).toEqual({ status: 401, replayed: null, code: 'UNAUTHENTICATED' });
      expect(retry.text).not.toContain(secret);
    });

    it("a key whose account limits changed since its first request: the retry is refused IDEMPOTENCY_KEY_REUSED, not the stored answer", async () => {
      const k = await createKey(f.tokens.session, { name: 'IdemLimitsChanged', bankAccountIds: [f.owner.bankAccount.id] });
      const body = newInvoice('IdemLimits', 45_003, [f.owner.bankAccount.id]);
      expect((await v1Create(k.secret, 'own-limits', body)).status).toBe(201);
      // No API edits a key's limits today; the database does, as a future edit would.
      await t.app.db.sql.query(`UPDATE "ApiKey" SET "bankAccountIds" = '{}', "allBankAccounts" = true WHERE id = $1`, [k.id]);
      const retry = await v1Create(k.secret, 'own-limits', body);
      expect({ status: retry.status, body: retry.body, replayed: retry.headers.get('idempotent-replayed') }).toEqual({ ...renderV1('IDEMPOTENCY_KEY_REUSED'), replayed: null });
    });

    it('an answer sealed under another encryption key: the retry is refused IDEMPOTENCY_ANSWER_UNREADABLE (409), never a 500 nor a second run', async () => {
      const k = await createKey(f.tokens.session, { name: 'IdemOtherKey' });
      const body = newInvoice('IdemOtherKey', 45_005);
      const first = await v1Create(k.secret, 'own-other-key', body);
      expect(first.status).toBe(201);
      // What ENCRYPTION_KEY changing does to a stored answer: it no longer decrypts.
      const { encryptSecret } = await import('../../src/domain/secrets.ts');
      await t.app.db.sql.query(`UPDATE "IdempotencyKey" SET "sealedResponse" = $1 WHERE key = 'own-other-key'`, [encryptSecret('{}', Buffer.alloc(32, 7))]);
      const retry = await v1Create(k.secret, 'own-other-key', body);
      expect({ status: retry.status, body: retry.body, replayed: retry.headers.get('idempotent-replayed') }).toEqual({ ...renderV1('IDEMPOTENCY_ANSWER_UNREADABLE'), replayed: null });
      const list = await t.client.request('GET', '/v1/invoices?offset=0&limit=100&search=IdemOtherKey', { token: k.secret });
      expect(list.body.data.map((i: { id: string }) => i.id)).toEqual([first.body.data.id]);
    });

    it('a key made read-only since its first request: the retry is refused like any write of a read-only key', async () => {
      const k = await createKey(f.tokens.session, { name: 'IdemNowReadOnly' });
      const body = newInvoice('IdemNowReadOnly', 45_004);
      expect((await v1Create(k.secret, 'own-read-only', body)).status).toBe(201);
      await t.app.db.sql.query(`UPDATE "ApiKey" SET "readOnly" = true WHERE id = $1`, [k.id]);
      const retry = await v1Create(k.secret, 'own-read-only', body);
      expect({ status: retry.status, body: retry.body, replayed: retry.headers.get('idempotent-replayed') }).toEqual({ ...renderV1('READ_ONLY_KEY'), replayed: null });
    });

    it('two credentials sending one key at once do not wait on or collide with each other: each runs once', async () => {
      const [a, b] = await Promise.all([createKey(f.tokens.session, { name: 'IdemRaceA' }), createKey(f.tokens.session, { name: 'IdemRaceB' })]);
      const q = `mutation { createApiKey(input: {name: "IdemRaced"}) { apiKey { id } secret } }`;
      const sessions = await Promise.all(
        [0, 1].map(async () => (await t.client.gql(`mutation($i: LogInInput!) { logIn(input: $i) { token } }`, { i: { email: f.owner.email, password: f.owner.password } })).logIn.token as string),
      );
      const answers = await Promise.all([...sessions, ...sessions, ...sessions].map((s) => gqlWithKey(s, 'raced-key', q)));
      const secretOf = (x: { text: string }) => JSON.parse(x.text).data.createApiKey.secret as string;
      // Three calls per session: one execution each, two replays of it; the two sessions' secrets differ.
      for (const s of [0, 1]) {
        const mine = answers.filter((_, i) => i % 2 === s);
        expect(new Set(mine.map(secretOf)).size).toBe(1);
        expect(mine.filter((x) => x.replayed === 'true')).toHaveLength(2);
      }
      expect(secretOf(answers[0])).not.toBe(secretOf(answers[1]));
      // And REST: two keys, the same key and body at once.
      const body = newInvoice('IdemRaceRest', 45_005);
      const rs = await Promise.all([a.secret, b.secret, a.secret, b.secret].map((tok) => v1Create(tok, 'raced-rest', body)));
      // One invoice: the first execution creates it, the other credential's execution meets the conflict check.
      expect(rs.map((r) => r.status).sort()).toEqual([201, 201, 409, 409]);
      expect(rs[0].body).toEqual(rs[2].body);
      expect(rs[1].body).toEqual(rs[3].body);
    });

    it('/api (sofa) POSTs do not take Idempotency-Key: every call runs, and never gets an answer stored for /graphql', async () => {
      const q = `mutation { createApiKey(input: {name: "IdemSofa"}) { apiKey { id } secret } }`;
      const viaGraphql = await gqlWithKey(f.tokens.session, 'sofa-key', q);
      const stored = JSON.parse(viaGraphql.text).data.createApiKey.secret as string;
      const sofa = () =>
        t.fetch(`${t.url}/api/create-api-key`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${f.tokens.session}`, 'idempotency-key': 'sofa-key' },
          body: JSON.stringify({ input: { name: 'IdemSofa' } }),
        });
      const [one, two] = [await sofa(), await sofa()];
      const [b1, b2] = [(await one.json()) as { secret: string }, (await two.json()) as { secret: string }];
      expect([one.status, two.status, one.headers.get('idempotent-replayed'), two.headers.get('idempotent-replayed')]).toEqual([200, 200, null, null]);
      expect(new Set([stored, b1.secret, b2.secret]).size).toBe(3);
    });
  });

  it('no stored answer holds a secret in clear', async () => {
    expect(allSecrets.length).toBeGreaterThan(8);
    const rows = await t.app.db.sql.query<{ j: string }>(`SELECT row_to_json(k)::text AS j FROM "IdempotencyKey" k`);
    expect(rows.length).toBeGreaterThan(OPS.length);
    const dump = rows.map((r) => r.j).join('\n');
    expect(allSecrets.filter((s) => dump.includes(s))).toEqual([]);
    expect(dump.match(SECRET_RE)).toBeNull();
  });
});
