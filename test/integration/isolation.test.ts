/**
 * Isolation matrix: every REST endpoint (v1 and v2, enumerated from the rest-compat routers, plus the two OAuth app
 * endpoints), every GraphQL query and mutation root field (enumerated from schema/schema.graphql) and every /api route
 * (the same root fields as REST, served by sofa; enumerated from /api/openapi.json) × the principals that must not see
 * or change the owner's data:
 *
 *   otherKey      an API key of a second workspace
 *   otherSession  a dashboard session of the second workspace (GraphQL and /api: sessions are refused on REST anyway)
 *   readOnlyKey   a read-only key of the owner's workspace (reads allowed, every write refused)
 *   limitedKey    a key of the owner's workspace limited to bank account B (the owner's data sits on account A or on
 *                 all accounts; cash receipts are not limited, spec: Authentication)
 *   revokedOAuth  an OAuth access token of the owner's workspace revoked through POST /v2/oauth-apps/revoke
 *   disabledKey   a key of the owner's workspace disabled in the dashboard
 *   session       the owner's own dashboard session token (REST only: "dashboard login tokens cannot call v1")
 *
 * Each cell asserts the exact outcome (HTTP status and code; for GraphQL also where the code is reported) and that
 * the response contains none of the data the principal must not see (ids, names, e-mails, phones, amounts, account
 * numbers... of the owner, walked value by value). Cells where the principal may act (a read-only key reading, a
 * limited key on cash receipts, the other workspace acting in its own workspace) are classified as allowed and
 * checked too (reads also positively: the owner's marker must be there, so the leak check is not vacuous). An /api
 * cell runs the GraphQL row's field with the same arguments and must answer what /graphql answers: the same code (as an
 * HTTP error with the status of the error table, in-band refusals included), the same data — another workspace's id
 * reads as a missing one there too.
 *
 * Refusals run first; then the owner's data is compared with a snapshot taken before (nothing changed); then the
 * allowed writes run (on their own targets where they change something). A route or root field added later fails the
 * coverage tests until it is classified here.
 */
import { readFileSync } from 'node:fs';
import { buildSchema, getNamedType, isUnionType, Kind, parse, valueFromASTUntyped, type FieldNode, type OperationDefinitionNode } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addVerifiedBankAccount, bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { v1Routes } from '../../rest-compat/v1/routes.ts';
import { v2Routes } from '../../rest-compat/v2/routes.ts';
import { OPERATIONS } from '../../rest-compat/openapi/operations.ts';
import { kstDate } from '../../src/domain/dates.ts';
import { ERROR_TABLE, isErrorCode, type ErrorCode } from '../../src/domain/errors.ts';
import { dbLabel, startTestApp, type TestApp } from '../helpers/app.ts';
import { basicAuth, createApiKey, formBody, oauthAccessToken } from '../helpers/credentials.ts';
import { until } from '../helpers/wait.ts';

// ───────────────────────────── principals ─────────────────────────────

const REST_PRINCIPALS = ['otherKey', 'readOnlyKey', 'limitedKey', 'revokedOAuth', 'disabledKey', 'session'] as const;
const GQL_PRINCIPALS = ['otherKey', 'otherSession', 'readOnlyKey', 'limitedKey', 'revokedOAuth', 'disabledKey'] as const;
type RestPrincipal = (typeof REST_PRINCIPALS)[number];
type GqlPrincipal = (typeof GQL_PRINCIPALS)[number];
type Principal = RestPrincipal | GqlPrincipal;

// ───────────────────────────── fixtures ─────────────────────────────

interface Fixtures {
  owner: Bootstrapped;
  other: Bootstrapped;
  A: { id: string; number: string; notificationToken: string };
  B: { id: string; number: string; notificationToken: string };
  tokens: Record<Principal, string>;
  keys: { readOnly: string; limited: string; disabled: string; victim: { id: string; secret: string } };
  /**
   * iA on [A] (the write target), iAll on all accounts, iB on [B], iPaidAll on all accounts paid by a deposit to B,
   * iBm on [B] paid by hand (dashboard) with a deposit to A.
   */
  inv: { iA: string; iAll: string; iB: string; iPaidAll: string; iBm: string };
  /** tA to A, tB to B, tBm to B (matched to iPaidAll), tAm to A (matched by hand to iBm). */
  trx: { tA: string; tB: string; tBm: string; tAm: string };
  /** rI issued (read/cancel/reissue/send-email target); rRevRest, rRevGql and rRevApi issued (revoke targets). */
  rct: { rI: string; rRevRest: string; rRevGql: string; rRevApi: string };
  webhookId: string;
  app: { id: string; secret: string; redirect: string };
  /** A live OAuth token of the owner's workspace and an unexchanged code (targets of the OAuth endpoint rows). */
  liveOAuth: string;
  pendingCode: string;
  eventId: string;
  emailId: string;
  /** A simulated shop connected to the owner's workspace (receiving on A), one of its orders (shop's id) and its import (sho_). */
  shop: { connectionId: string; orderNo: string; shopOrderId: string };
  /** A text forwarded for account A (no parser understands it: stored as received). */
  bankTextId: string;
  /** The owner's account-history feed (simulated aggregator) of account A. */
  historyFeedId: string;
  /** A deposit of the other workspace (unmatched): with the owner's invoice, a match tells the invoice side apart. */
  otherTrx: string;
  /** Values the principal must never receive. */
  forbidden: Record<Principal, Markers>;
}

interface Markers {
  strings: string[];
  numbers: number[];
}

const REDIRECT = 'https://iso-partner.example/callback';
const OWNER = {
  person: 'IsoOwnerPerson',
  company: 'IsoOwnerCompany',
  aliasB: 'IsoAliasB',
  hookPath: 'iso-owner-hook',
  appName: 'IsoOwnerApp',
  iA: { name: 'IsoOwnA', email: 'iso-own-a@example.com', phone: '01099990001', meta: 'iso-meta-a', amount: 731_111, patched: 731_444 },
  iAll: { name: 'IsoOwnAll', email: 'iso-own-all@example.com', phone: '01099990002', meta: 'iso-meta-all', amount: 731_222 },
  iB: { name: 'IsoOwnB', amount: 731_333 },
  iPaidAll: { name: 'IsoPaidAll', email: 'iso-paid-all@example.com', phone: '01099990004', meta: 'iso-meta-paid-all', amount: 731_555 },
  iBm: { name: 'IsoOwnBm', amount: 731_666 },
  tAm: { name: 'IsoDepAm', amount: 732_666 },
  tA: { name: 'IsoDepA', amount: 732_111 },
  tB: { name: 'IsoDepB', amount: 732_222 },
  rI: { identifier: '01077770001', amount: 733_111 },
  rRevRest: { identifier: '01077770002', amount: 733_222 },
  rRevGql: { identifier: '01077770003', amount: 733_333 },
  rRevApi: { identifier: '01077770004', amount: 733_444 },
  keyNames: ['IsoReadOnlyKey', 'IsoLimitedKey', 'IsoDisabledKey', 'IsoVictimKey'],
  shopName: 'iso-owner-shop',
  bankText: 'IsoBankTextMarker text',
  shopBuyer: 'IsoShopBuyer',
  shopAmount: 737_373,
};

let t: TestApp;
let f: Fixtures;


async function gqlOk<T = any>(query: string, variables: Record<string, unknown>, token: string): Promise<T> {
  return t.client.gql<T>(query, variables, token);
}

const createKey = (session: string, input: Record<string, unknown>) => createApiKey(t.client, session, input);
const form = formBody;
const basic = basicAuth;
const oauthToken = (session: string) => oauthAccessToken(t.client, session, f.app, REDIRECT);

async function setUp(): Promise<Fixtures> {
  const c = t.client;
  const [owner, other] = await Promise.all([bootstrap(c, { name: OWNER.person }), bootstrap(c, { name: 'IsoOtherPerson' })]);
  f = { owner, other } as Fixtures;
  const s = owner.sessionToken;
  const A = owner.bankAccount;
  const B = await addVerifiedBankAccount(c, s, { alias: OWNER.aliasB });
  f.A = A;
  f.B = B;
  await gqlOk(`mutation($i: RegisterBusinessInfoInput!) { registerBusinessInfo(input: $i) { workspace { id } } }`, { i: { corpNum: '1234567890', companyName: OWNER.company, representativeName: 'IsoRep' } }, s);

  const [readOnly, limited, disabled, victim] = await Promise.all([
    createKey(s, { name: OWNER.keyNames[0], readOnly: true }),
    createKey(s, { name: OWNER.keyNames[1], bankAccountIds: [B.id] }),
    createKey(s, { name: OWNER.keyNames[2] }),
    createKey(s, { name: OWNER.keyNames[3] }),
  ]);
  expect((await c.request('GET', '/v1/invoices?offset=0&limit=1', { token: disabled.secret })).status).toBe(200);
  await gqlOk(`mutation($id: ID!) { disableApiKey(id: $id) { apiKey { id } } }`, { id: disabled.id }, s);

  const create = async (body: Record<string, unknown>, token = owner.apiKey.secret) => {
    const r = await c.request('POST', '/v1/invoices', { token, body });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body.data.id as string;
  };
  const [iA, iAll, iB, iPaidAll, iBm] = await Promise.all([
    create({ bankAccountIds: [A.id], customer: { name: OWNER.iA.name, email: OWNER.iA.email, phoneNumber: OWNER.iA.phone }, amount: OWNER.iA.amount, expireAfter: '7d', metadata: { isoMarker: OWNER.iA.meta } }),
    create({ bankAccountIds: [], customer: { name: OWNER.iAll.name, email: OWNER.iAll.email, phoneNumber: OWNER.iAll.phone }, amount: OWNER.iAll.amount, metadata: { isoMarker: OWNER.iAll.meta } }),
    create({ bankAccountIds: [B.id], customer: { name: OWNER.iB.name }, amount: OWNER.iB.amount }),
    create({ bankAccountIds: [], customer: { name: OWNER.iPaidAll.name, email: OWNER.iPaidAll.email, phoneNumber: OWNER.iPaidAll.phone }, amount: OWNER.iPaidAll.amount, metadata: { isoMarker: OWNER.iPaidAll.meta } }),
    create({ bankAccountIds: [B.id], customer: { name: OWNER.iBm.name }, amount: OWNER.iBm.amount }),
  ]);
  f.inv = { iA, iAll, iB, iPaidAll, iBm };
  // The guide e-mail (an eml_ of the owner): iA has an e-mail, an expiry and a verified account.
  const patched = await c.request('PATCH', `/v2/invoices/${iA}`, { token: owner.apiKey.secret, body: { amount: OWNER.iA.patched, resendGuideEmail: true } });
  expect(patched.status, JSON.stringify(patched.body)).toBe(200);

  const dep = async (acc: { notificationToken: string }, depositorName: string, amount: number) => {
    const r = await c.deposit(acc.notificationToken, { depositorName, amount });
    expect(r.status).toBe(201);
    return r.body.transactionId as string;
  };
  const [tA, tB, tBm, tAm] = await Promise.all([
    dep(A, OWNER.tA.name, OWNER.tA.amount),
    dep(B, OWNER.tB.name, OWNER.tB.amount),
    dep(B, OWNER.iPaidAll.name, OWNER.iPaidAll.amount),
    dep(A, OWNER.tAm.name, OWNER.tAm.amount),
  ]);
  f.trx = { tA, tB, tBm, tAm };
  const paid = await c.request('GET', `/v1/transactions/${tBm}`, { token: owner.apiKey.secret });
  expect(paid.body.data.matchedInvoiceId).toBe(iPaidAll);
  // The buyer paid to the wrong account; the merchant matched it by hand.
  await gqlOk(`mutation($i: MatchTransactionInput!) { matchTransaction(input: $i) { transaction { matchedInvoiceId } } }`, { i: { transactionId: tAm, invoiceId: iBm } }, s);

  const issue = async (identifier: string, amount: number) => {
    const r = await c.request('POST', '/v1/cash-receipts', { token: owner.apiKey.secret, body: { type: 'PERSONAL', identifier, amount } });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const id = r.body.data.id as string;
    const settled = await until(() => c.request('GET', `/v2/cash-receipts/${id}`, { token: owner.apiKey.secret }), (x) => x.body.data?.status !== 'PENDING');
    expect(settled.body.data.status).toBe('ISSUED');
    return id;
  };
  const [rI, rRevRest, rRevGql, rRevApi] = await Promise.all(
    [OWNER.rI, OWNER.rRevRest, OWNER.rRevGql, OWNER.rRevApi].map((r) => issue(r.identifier, r.amount)),
  );
  f.rct = { rI, rRevRest, rRevGql, rRevApi };

  f.webhookId = (await gqlOk(`mutation($i: CreateWebhookInput!) { createWebhook(input: $i) { webhook { id } } }`, { i: { url: `http://127.0.0.1:9/${OWNER.hookPath}`, version: 'V2' } }, s)).createWebhook.webhook.id;

  const app = await gqlOk(`mutation($i: CreateOAuthAppInput!) { createOAuthApp(input: $i) { app { id } clientSecret } }`, { i: { name: OWNER.appName, redirectUris: [REDIRECT] } }, s);
  f.app = { id: app.createOAuthApp.app.id, secret: app.createOAuthApp.clientSecret, redirect: REDIRECT };
  const revoked = await oauthToken(s);
  expect((await c.request('GET', '/v1/invoices?offset=0&limit=1', { token: revoked })).status).toBe(200);
  const rv = await c.request('POST', '/v2/oauth-apps/revoke', { rawBody: form({ token: revoked }), headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(f.app.id, f.app.secret) } });
  expect(rv.status).toBe(200);
  expect((await c.request('GET', '/v1/invoices?offset=0&limit=1', { token: revoked })).status).toBe(401);
  f.liveOAuth = await oauthToken(s);
  expect((await c.request('GET', '/v1/invoices?offset=0&limit=1', { token: f.liveOAuth })).status).toBe(200);
  f.pendingCode = (await gqlOk(`mutation($i: AuthorizeOAuthAppInput!) { authorizeOAuthApp(input: $i) { code } }`, { i: { clientId: f.app.id, redirectUri: REDIRECT } }, s)).authorizeOAuthApp.code;

  const events = await gqlOk(`{ events(first: 100) { id type invoiceId } }`, {}, s);
  f.eventId = events.events.find((e: { invoiceId: string | null }) => e.invoiceId === iA).id;
  const emails = await until(() => gqlOk(`{ emails { id invoiceId } }`, {}, s), (r) => r.emails.some((e: { invoiceId: string | null }) => e.invoiceId === iA));
  f.emailId = emails.emails.find((e: { invoiceId: string | null }) => e.invoiceId === iA).id;

  // A simulated shop of the owner's, receiving on A, with one order imported as an invoice.
  const install = await gqlOk(
    `mutation($i: StartShopInstallInput!) { startShopInstall(input: $i) { ... on ShopInstallPayload { authorizeUrl connection { id } } } }`,
    { i: { platform: 'SIMULATED', shopId: OWNER.shopName, bankAccountIds: [A.id] } },
    s,
  );
  // The browser's part, in process: the approval page answers a redirect to the callback.
  const approval = await t.app.fetch(new Request(new URL(install.startShopInstall.authorizeUrl, t.url)));
  expect((await t.app.fetch(new Request(new URL(approval.headers.get('location')!, t.url)))).status).toBe(200);
  const shopConnectionId = install.startShopInstall.connection.id as string;
  const placed = await gqlOk(
    `mutation($i: SimulateShopOrderInput!) { simulateShopOrder(input: $i) { ... on SimulatedShopOrderPayload { order { id } } } }`,
    { i: { connectionId: shopConnectionId, buyerName: OWNER.shopBuyer, amount: OWNER.shopAmount } },
    s,
  );
  const imported = await until(
    () => gqlOk(`query($c: ID!) { shopConnection(id: $c) { orders { id state } } }`, { c: shopConnectionId }, s),
    (r) => r.shopConnection.orders.some((o: { state: string }) => o.state === 'LINKED'),
  );
  f.shop = { connectionId: shopConnectionId, orderNo: placed.simulateShopOrder.order.id, shopOrderId: imported.shopConnection.orders[0].id };

  // A forwarded bank text of account A.
  const forwarded = await c.request('POST', '/bank-texts', { token: A.notificationToken, body: { text: OWNER.bankText, receivedAt: new Date().toISOString(), channel: 'SMS' } });
  expect(forwarded.body.outcome).toBe('UNRECOGNIZED');
  f.bankTextId = forwarded.body.bankTextId;

  // The owner's account-history feed of A (simulated aggregator): a limited key's scope (B) leaves it out.
  const feed = await gqlOk(
    `mutation($i: ConnectHistoryFeedInput!) { connectHistoryFeed(input: $i) { ${ERR} ... on HistoryFeedPayload { feed { id bankAccountId state } } } }`,
    { i: { bankAccountId: A.id, aggregator: 'SIMULATED' } },
    s,
  );
  expect(feed.connectHistoryFeed).toMatchObject({ __typename: 'HistoryFeedPayload', feed: { bankAccountId: A.id, state: 'ACTIVE' } });
  f.historyFeedId = feed.connectHistoryFeed.feed.id;

  // The other workspace has data of its own, so its lists are not trivially empty.
  await create({ bankAccountIds: [], customer: { name: 'IsoOtherInv' }, amount: 5_555 }, other.apiKey.secret);
  f.otherTrx = (await c.deposit(other.bankAccount.notificationToken, { depositorName: 'IsoOtherDep', amount: 6_666 })).body.transactionId;

  f.keys = { readOnly: readOnly.secret, limited: limited.secret, disabled: disabled.secret, victim };
  f.tokens = {
    otherKey: other.apiKey.secret,
    otherSession: other.sessionToken,
    readOnlyKey: readOnly.secret,
    limitedKey: limited.secret,
    revokedOAuth: revoked,
    disabledKey: disabled.secret,
    session: s,
  };

  // Everything of the owner: ids, names, contact data, amounts, account numbers, key/app/hook names.
  const everything: Markers = {
    strings: [
      owner.accountId, owner.workspaceId, owner.email, owner.apiKey.id, A.id, A.number, B.id, B.number,
      iA, iAll, iB, iPaidAll, iBm, tA, tB, tBm, tAm, f.rct.rI, f.rct.rRevRest, f.rct.rRevGql, f.rct.rRevApi, f.webhookId, f.app.id, f.eventId, f.emailId,
      readOnly.id, limited.id, disabled.id, victim.id, f.shop.connectionId, f.shop.orderNo, f.shop.shopOrderId, OWNER.shopName, OWNER.shopBuyer, f.bankTextId, OWNER.bankText,
      f.historyFeedId, OWNER.person, OWNER.company, OWNER.aliasB, OWNER.hookPath, OWNER.appName, ...OWNER.keyNames,
      OWNER.iA.name, OWNER.iA.email, OWNER.iA.phone, OWNER.iA.meta, OWNER.iAll.name, OWNER.iAll.email, OWNER.iAll.phone, OWNER.iAll.meta,
      OWNER.iB.name, OWNER.iPaidAll.name, OWNER.iPaidAll.email, OWNER.iPaidAll.phone, OWNER.iPaidAll.meta,
      OWNER.iBm.name, OWNER.tA.name, OWNER.tB.name, OWNER.tAm.name, OWNER.rI.identifier, OWNER.rRevRest.identifier, OWNER.rRevGql.identifier, OWNER.rRevApi.identifier,
    ],
    numbers: [
      OWNER.iA.amount, OWNER.iA.patched, OWNER.iAll.amount, OWNER.iB.amount, OWNER.iPaidAll.amount, OWNER.iBm.amount, OWNER.tA.amount, OWNER.tB.amount, OWNER.tAm.amount,
      OWNER.rI.amount, OWNER.rRevRest.amount, OWNER.rRevGql.amount, OWNER.rRevApi.amount, OWNER.shopAmount,
    ],
  };
  // A key limited to B may see B's invoices and deposits (tBm says which invoice it paid: its id is a field of the
  // deposit; iBm's history says which deposit paid it: tAm's id) and every cash receipt, but nothing else of account A
  // (its deposits' names, amounts, the account number) or of the all-accounts invoices.
  const outsideB: Markers = {
    strings: [
      A.id, A.number, iA, iAll, tA, f.shop.connectionId, f.shop.orderNo, f.shop.shopOrderId, OWNER.shopName, OWNER.shopBuyer, f.bankTextId, OWNER.bankText, f.historyFeedId,
      OWNER.iA.name, OWNER.iA.email, OWNER.iA.phone, OWNER.iA.meta, OWNER.iAll.name, OWNER.iAll.email, OWNER.iAll.phone, OWNER.iAll.meta,
      OWNER.iPaidAll.email, OWNER.iPaidAll.phone, OWNER.iPaidAll.meta, OWNER.tA.name, OWNER.tAm.name,
    ],
    numbers: [OWNER.iA.amount, OWNER.iA.patched, OWNER.iAll.amount, OWNER.tA.amount, OWNER.tAm.amount, OWNER.shopAmount],
  };
  const nothing: Markers = { strings: [], numbers: [] };
  f.forbidden = { otherKey: everything, otherSession: everything, revokedOAuth: everything, disabledKey: everything, session: everything, limitedKey: outsideB, readOnlyKey: nothing };
  return f;
}

/** Every marker found in a JSON value (strings by substring, numbers by equality). */
function leaks(value: unknown, m: Markers): string[] {
  const found = new Set<string>();
  const walk = (v: unknown) => {
    if (typeof v === 'string') {
      for (const s of m.strings) if (v.includes(s)) found.add(s);
    } else if (typeof v === 'number') {
      if (m.numbers.includes(v)) found.add(String(v));
    } else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) (walk(k), walk(x));
  };
  walk(value);
  return [...found];
}

/** The markers minus those the request itself carries (an echo of the caller's own input tells it nothing new). */
function notIn(m: Markers, request: unknown): Markers {
  const sent = JSON.stringify(request);
  return { strings: m.strings.filter((x) => !sent.includes(x)), numbers: m.numbers.filter((n) => !sent.includes(String(n))) };
}

/** Markers that must be present (positive control). */
function sees(value: unknown, wanted: string[]): string[] {
  return leaks(value, { strings: wanted, numbers: [] });
}

// ───────────────────────────── REST table ─────────────────────────────

type RestExp =
  | { kind: 'refused'; status: number; body: unknown }
  | { kind: 'allowed'; status: number; code: string; sees?: (f: Fixtures) => string[] };

const v1Refused = (status: number, code: string): RestExp => ({ kind: 'refused', status, body: { code, data: null } });
const v2Refused = (status: number, code: string): RestExp => ({ kind: 'refused', status, body: { code, data: null } });
const allowed = (status: number, code: string, seen?: (f: Fixtures) => string[]): RestExp => ({ kind: 'allowed', status, code, sees: seen });

const V1_UNAUTHORIZED = v1Refused(401, 'NOT_AUTHORIZED');
const V1_FORBIDDEN = v1Refused(403, 'INSUFFICIENT_PERMISSIONS');
const V2_UNAUTHORIZED = v2Refused(401, '290006');
const V2_READ_ONLY = v2Refused(403, '290007');
const V2_OUT_OF_SCOPE = v2Refused(403, '80002');
/** Spec-silent: a dashboard session on v2 is refused like on v1, with the v2 permission code 290007. */
const V2_SESSION = v2Refused(403, '290007');
/**
 * Another workspace's invoice, deposit or receipt by id: v1 answers 403 INSUFFICIENT_PERMISSIONS, the spec's "other
 * account's resource" (v1 error body); v2 (spec-silent) and GraphQL do not tell it from a missing one (404 / *_NOT_FOUND).
 */
const FOREIGN_V1_INVOICE = v1Refused(403, 'INSUFFICIENT_PERMISSIONS');
const FOREIGN_V1_TRANSACTION = v1Refused(403, 'INSUFFICIENT_PERMISSIONS');
const FOREIGN_V1_RECEIPT = v1Refused(403, 'INSUFFICIENT_PERMISSIONS');
const FOREIGN_V2_INVOICE = v2Refused(404, '20014');
const FOREIGN_V2_RECEIPT = v2Refused(404, '20015');
const FOREIGN_V2_TRANSACTION = v2Refused(404, '20016');
const OAUTH_CLIENT_REFUSED: RestExp = { kind: 'refused', status: 401, body: { error: 'invalid_client', error_description: expect.any(String) } };

/** The v1 refusals of the three credentials that never get past authentication or the dashboard-token rule. */
const V1_DEAD = { revokedOAuth: V1_UNAUTHORIZED, disabledKey: V1_UNAUTHORIZED, session: V1_FORBIDDEN } as const;
const V2_DEAD = { revokedOAuth: V2_UNAUTHORIZED, disabledKey: V2_UNAUTHORIZED, session: V2_SESSION } as const;

interface RestRow {
  /** Router pattern (`/v1/invoices/:id`) or OAuth path. */
  route: string;
  method: string;
  label?: string;
  path: (f: Fixtures) => string;
  body?: (f: Fixtures) => unknown;
  form?: (f: Fixtures) => Record<string, string>;
  expect: Record<RestPrincipal, RestExp>;
}

const ownerInvoiceIds = (f: Fixtures) => [f.inv.iA, f.inv.iAll];
const PROBE_INVOICE = { customer: { name: 'IsoProbe' }, amount: 739_001 };

const REST_ROWS: RestRow[] = [
  // v1 (spec: v1 endpoints)
  {
    route: '/v1/invoices', method: 'POST', label: "naming the owner's account A",
    path: () => '/v1/invoices',
    body: (f) => ({ bankAccountIds: [f.A.id], ...PROBE_INVOICE }),
    expect: { otherKey: V1_FORBIDDEN, readOnlyKey: V1_FORBIDDEN, limitedKey: V1_FORBIDDEN, ...V1_DEAD },
  },
  {
    route: '/v1/invoices', method: 'GET', path: () => '/v1/invoices?offset=0&limit=100',
    expect: { otherKey: allowed(200, 'OK'), readOnlyKey: allowed(200, 'OK', ownerInvoiceIds), limitedKey: allowed(200, 'OK', (f) => [f.inv.iB]), ...V1_DEAD },
  },
  {
    route: '/v1/invoices/:id', method: 'GET', path: (f) => `/v1/invoices/${f.inv.iA}`,
    expect: { otherKey: FOREIGN_V1_INVOICE, readOnlyKey: allowed(200, 'OK', (f) => [f.inv.iA, OWNER.iA.name]), limitedKey: V1_FORBIDDEN, ...V1_DEAD },
  },
  {
    route: '/v1/invoices/:id/mark-as-paid', method: 'POST', path: (f) => `/v1/invoices/${f.inv.iA}/mark-as-paid`,
    expect: { otherKey: FOREIGN_V1_INVOICE, readOnlyKey: V1_FORBIDDEN, limitedKey: V1_FORBIDDEN, ...V1_DEAD },
  },
  {
    route: '/v1/invoices/:id', method: 'DELETE', path: (f) => `/v1/invoices/${f.inv.iA}`,
    expect: { otherKey: FOREIGN_V1_INVOICE, readOnlyKey: V1_FORBIDDEN, limitedKey: V1_FORBIDDEN, ...V1_DEAD },
  },
  {
    route: '/v1/invoices/:id', method: 'DELETE', label: 'the all-accounts invoice', path: (f) => `/v1/invoices/${f.inv.iAll}`,
    expect: { otherKey: FOREIGN_V1_INVOICE, readOnlyKey: V1_FORBIDDEN, limitedKey: V1_FORBIDDEN, ...V1_DEAD },
  },
  {
    route: '/v1/transactions', method: 'GET', path: () => '/v1/transactions?offset=0&limit=100',
    expect: { otherKey: allowed(200, 'OK'), readOnlyKey: allowed(200, 'OK', (f) => [f.trx.tA, f.trx.tB]), limitedKey: allowed(200, 'OK', (f) => [f.trx.tB, f.trx.tBm]), ...V1_DEAD },
  },
  {
    // Spec-silent for an unlimited key: another workspace's account as the filter matches nothing (like an unknown id).
    route: '/v1/transactions', method: 'GET', label: "filtered by the owner's account A", path: (f) => `/v1/transactions?offset=0&limit=100&bankAccountId=${f.A.id}`,
    expect: { otherKey: allowed(200, 'OK'), readOnlyKey: allowed(200, 'OK', (f) => [f.trx.tA]), limitedKey: V1_FORBIDDEN, ...V1_DEAD },
  },
  {
    route: '/v1/transactions/:id', method: 'GET', path: (f) => `/v1/transactions/${f.trx.tA}`,
    expect: { otherKey: FOREIGN_V1_TRANSACTION, readOnlyKey: allowed(200, 'OK', (f) => [f.trx.tA, OWNER.tA.name]), limitedKey: V1_FORBIDDEN, ...V1_DEAD },
  },
  {
    // The other workspace issues in its own workspace (it has business info): allowed, none of the owner's data.
    route: '/v1/cash-receipts', method: 'POST', path: () => '/v1/cash-receipts',
    body: () => ({ type: 'PERSONAL', identifier: '01066660001', amount: 739_002 }),
    expect: { otherKey: allowed(201, 'CREATED'), readOnlyKey: V1_FORBIDDEN, limitedKey: allowed(201, 'CREATED'), ...V1_DEAD },
  },
  {
    route: '/v1/cash-receipts', method: 'GET', path: () => '/v1/cash-receipts?offset=0&limit=100',
    expect: { otherKey: allowed(200, 'OK'), readOnlyKey: allowed(200, 'OK', (f) => [f.rct.rI]), limitedKey: allowed(200, 'OK', (f) => [f.rct.rI]), ...V1_DEAD },
  },
  {
    route: '/v1/cash-receipts/:id', method: 'GET', path: (f) => `/v1/cash-receipts/${f.rct.rI}`,
    expect: { otherKey: FOREIGN_V1_RECEIPT, readOnlyKey: allowed(200, 'OK', (f) => [f.rct.rI]), limitedKey: allowed(200, 'OK', (f) => [f.rct.rI, OWNER.rI.identifier]), ...V1_DEAD },
  },
  {
    route: '/v1/cash-receipts/:id/revoke', method: 'POST', path: (f) => `/v1/cash-receipts/${f.rct.rRevRest}/revoke`,
    expect: { otherKey: FOREIGN_V1_RECEIPT, readOnlyKey: V1_FORBIDDEN, limitedKey: allowed(200, 'OK', (f) => [f.rct.rRevRest]), ...V1_DEAD },
  },
  // v2 (spec: v2 endpoints; the reads are not shown in the spec)
  {
    route: '/v2/invoices', method: 'GET', path: () => '/v2/invoices?offset=0&limit=100',
    expect: { otherKey: allowed(200, '10001'), readOnlyKey: allowed(200, '10001', ownerInvoiceIds), limitedKey: allowed(200, '10001', (f) => [f.inv.iB]), ...V2_DEAD },
  },
  {
    route: '/v2/invoices/:id', method: 'GET', path: (f) => `/v2/invoices/${f.inv.iA}`,
    expect: { otherKey: FOREIGN_V2_INVOICE, readOnlyKey: allowed(200, '10001', (f) => [f.inv.iA, OWNER.iA.name]), limitedKey: V2_OUT_OF_SCOPE, ...V2_DEAD },
  },
  {
    route: '/v2/invoices/:id', method: 'GET', label: 'on B, paid by hand with a deposit to A', path: (f) => `/v2/invoices/${f.inv.iBm}`,
    expect: { otherKey: FOREIGN_V2_INVOICE, readOnlyKey: allowed(200, '10001', (f) => [f.inv.iBm, f.trx.tAm]), limitedKey: allowed(200, '10001', (f) => [f.inv.iBm]), ...V2_DEAD },
  },
  {
    route: '/v2/invoices/:id', method: 'PATCH', path: (f) => `/v2/invoices/${f.inv.iA}`, body: () => ({ amount: 739_003 }),
    expect: { otherKey: FOREIGN_V2_INVOICE, readOnlyKey: V2_READ_ONLY, limitedKey: V2_OUT_OF_SCOPE, ...V2_DEAD },
  },
  {
    route: '/v2/invoices/:id', method: 'PATCH', label: "moving it to the owner's account B", path: (f) => `/v2/invoices/${f.inv.iAll}`, body: (f) => ({ bankAccountIds: [f.B.id] }),
    expect: { otherKey: V2_OUT_OF_SCOPE, readOnlyKey: V2_READ_ONLY, limitedKey: V2_OUT_OF_SCOPE, ...V2_DEAD },
  },
  {
    route: '/v2/invoices/:id/cancel', method: 'POST', path: (f) => `/v2/invoices/${f.inv.iA}/cancel`, body: () => ({ reason: 'iso probe' }),
    expect: { otherKey: FOREIGN_V2_INVOICE, readOnlyKey: V2_READ_ONLY, limitedKey: V2_OUT_OF_SCOPE, ...V2_DEAD },
  },
  // POST /v2/transactions/{id}/match (ours): the deposit's scope, then the invoice's; never an all-accounts invoice.
  {
    route: '/v2/transactions/:id/match', method: 'POST', path: (f) => `/v2/transactions/${f.trx.tA}/match`, body: (f) => ({ invoiceId: f.inv.iA }),
    expect: { otherKey: FOREIGN_V2_TRANSACTION, readOnlyKey: V2_READ_ONLY, limitedKey: V2_OUT_OF_SCOPE, ...V2_DEAD },
  },
  {
    route: '/v2/transactions/:id/match', method: 'POST', label: 'a deposit to B and the all-accounts invoice', path: (f) => `/v2/transactions/${f.trx.tB}/match`, body: (f) => ({ invoiceId: f.inv.iAll }),
    expect: { otherKey: FOREIGN_V2_TRANSACTION, readOnlyKey: V2_READ_ONLY, limitedKey: V2_OUT_OF_SCOPE, ...V2_DEAD },
  },
  {
    route: '/v2/transactions/:id/match', method: 'POST', label: "the other workspace's deposit and the owner's invoice on B", path: (f) => `/v2/transactions/${f.otherTrx}/match`, body: (f) => ({ invoiceId: f.inv.iB }),
    expect: { otherKey: FOREIGN_V2_INVOICE, readOnlyKey: V2_READ_ONLY, limitedKey: FOREIGN_V2_TRANSACTION, ...V2_DEAD },
  },
  {
    route: '/v2/cash-receipts/:id', method: 'GET', path: (f) => `/v2/cash-receipts/${f.rct.rI}`,
    expect: { otherKey: FOREIGN_V2_RECEIPT, readOnlyKey: allowed(200, '10001', (f) => [f.rct.rI]), limitedKey: allowed(200, '10001', (f) => [f.rct.rI]), ...V2_DEAD },
  },
  {
    // Allowed for the limited key (receipts are not limited): an amount above the remainder proves it reached the
    // receipt (422 240004) without changing it.
    route: '/v2/cash-receipts/:id/cancel', method: 'POST', path: (f) => `/v2/cash-receipts/${f.rct.rI}/cancel`, body: () => ({ reason: 'iso probe', amount: 999_999_999 }),
    expect: { otherKey: FOREIGN_V2_RECEIPT, readOnlyKey: V2_READ_ONLY, limitedKey: allowed(422, '240004'), ...V2_DEAD },
  },
  {
    route: '/v2/cash-receipts/:id/reissue', method: 'POST', path: (f) => `/v2/cash-receipts/${f.rct.rI}/reissue`, body: () => ({ identifier: '01066660002' }),
    expect: { otherKey: FOREIGN_V2_RECEIPT, readOnlyKey: V2_READ_ONLY, limitedKey: allowed(409, '240007'), ...V2_DEAD },
  },
  {
    route: '/v2/cash-receipts/:id/send-email', method: 'POST', path: (f) => `/v2/cash-receipts/${f.rct.rI}/send-email`, body: () => ({ email: 'iso-probe@example.com' }),
    expect: { otherKey: FOREIGN_V2_RECEIPT, readOnlyKey: V2_READ_ONLY, limitedKey: allowed(200, '10001'), ...V2_DEAD },
  },
  // OAuth app endpoints: client authentication only; a bearer credential is no client credential.
  {
    route: '/v2/oauth-apps/token', method: 'POST', label: "with the owner's unexchanged code",
    path: () => '/v2/oauth-apps/token',
    form: (f) => ({ grant_type: 'authorization_code', code: f.pendingCode, redirect_uri: REDIRECT }),
    expect: { otherKey: OAUTH_CLIENT_REFUSED, readOnlyKey: OAUTH_CLIENT_REFUSED, limitedKey: OAUTH_CLIENT_REFUSED, revokedOAuth: OAUTH_CLIENT_REFUSED, disabledKey: OAUTH_CLIENT_REFUSED, session: OAUTH_CLIENT_REFUSED },
  },
  {
    route: '/v2/oauth-apps/revoke', method: 'POST', label: "the owner's live token",
    path: () => '/v2/oauth-apps/revoke',
    form: (f) => ({ token: f.liveOAuth }),
    expect: { otherKey: OAUTH_CLIENT_REFUSED, readOnlyKey: OAUTH_CLIENT_REFUSED, limitedKey: OAUTH_CLIENT_REFUSED, revokedOAuth: OAUTH_CLIENT_REFUSED, disabledKey: OAUTH_CLIENT_REFUSED, session: OAUTH_CLIENT_REFUSED },
  },
];

async function callRest(row: RestRow, token: string) {
  if (row.form) {
    return t.client.request(row.method, row.path(f), {
      rawBody: form(row.form(f)),
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${token}` },
    });
  }
  return t.client.request(row.method, row.path(f), { token, body: row.body?.(f) });
}

// ───────────────────────────── GraphQL table ─────────────────────────────

type GqlExp =
  | { kind: 'refused'; code: string }
  /** Allowed: no error, or a domain answer unrelated to who is asking (`code`, e.g. a state refusal). */
  | { kind: 'allowed'; code?: string; sees?: (f: Fixtures) => string[]; data?: (f: Fixtures) => unknown };

const R = (code: string): GqlExp => ({ kind: 'refused', code });
const OK = (opts: { code?: string; sees?: (f: Fixtures) => string[]; data?: (f: Fixtures) => unknown } = {}): GqlExp => ({ kind: 'allowed', ...opts });
const UNAUTH = R('UNAUTHENTICATED');
const DASH = R('DASHBOARD_ONLY');
const READ_ONLY = R('READ_ONLY_KEY');
const OUT_OF_SCOPE = R('OUT_OF_SCOPE');
const GQL_DEAD = { revokedOAuth: UNAUTH, disabledKey: UNAUTH } as const;
/** Dashboard-only fields: API keys are DASHBOARD_ONLY; the other workspace's session acts on its own workspace. */
const dashboard = (otherSession: GqlExp): Record<GqlPrincipal, GqlExp> => ({ otherKey: DASH, otherSession, readOnlyKey: DASH, limitedKey: DASH, ...GQL_DEAD });
/** Public fields: the same answer whoever calls. */
const everyone = (e: GqlExp): Record<GqlPrincipal, GqlExp> => ({ otherKey: e, otherSession: e, readOnlyKey: e, limitedKey: e, revokedOAuth: e, disabledKey: e });

interface GqlRow {
  field: string;
  label?: string;
  query: string;
  vars?: (f: Fixtures) => Record<string, unknown>;
  expect: Record<GqlPrincipal, GqlExp>;
  /**
   * The /api cell's own target where the GraphQL cell's write would leave nothing to do (or trip a limit): its
   * arguments from the GraphQL row's, and what an allowed call then shows.
   */
  api?: { args: (args: Record<string, any>, f: Fixtures) => Record<string, unknown>; sees?: (f: Fixtures) => string[] };
}

const ERR = '__typename ... on DomainError { code message field data }';
const INVOICE = `id bankAccountIds customer { name email phoneNumber } amount metadata status history { type data actor { name apiKeyId } } transactions { id description amount bankAccountId bankAccount { id number alias } }`;
const TRANSACTION = `id bankAccountId bankAccount { id number alias } description amount matchedInvoiceId matchNote matchedInvoice { id bankAccountIds customer { name email phoneNumber } amount metadata }`;
const RECEIPT = `id status identifier amount relatedInvoiceId cancellations { id amount }`;
const NODE = `__typename id
  ... on Invoice { customer { name email } amount metadata }
  ... on Transaction { description amount bankAccount { number } }
  ... on CashReceipt { identifier amount }
  ... on BankAccount { number alias }
  ... on Webhook { url }
  ... on WebhookDelivery { eventId }
  ... on ApiKey { name }
  ... on Event { type data }
  ... on EmailMessage { to subject text }
  ... on Account { email name }
  ... on Workspace { name ownerId }
  ... on OAuthApp { name }`;

/** node(id:) of each kind of the owner's objects: visible (same id back) or null. */
const nodeRow = (kind: string, id: (f: Fixtures) => string, limited: 'visible' | 'null', readOnly: 'visible' | 'null'): GqlRow => {
  const visible = (f: Fixtures) => ({ node: expect.objectContaining({ id: id(f) }) });
  const hidden = () => ({ node: null });
  return {
    field: 'node',
    label: kind,
    query: `query($id: ID!) { node(id: $id) { ${NODE} } }`,
    vars: (f) => ({ id: id(f) }),
    expect: {
      otherKey: OK({ data: hidden }),
      otherSession: OK({ data: hidden }),
      readOnlyKey: OK({ data: readOnly === 'visible' ? visible : hidden }),
      limitedKey: OK({ data: limited === 'visible' ? visible : hidden }),
      ...GQL_DEAD,
    },
  };
};

const ownerNodeIds = (f: Fixtures) => [
  f.inv.iA, f.inv.iAll, f.trx.tA, f.rct.rI, f.A.id, f.webhookId, f.keys.victim.id, f.eventId, f.emailId, f.owner.accountId, f.owner.workspaceId, f.app.id,
];

const HISTORY_FEED = 'id bankAccountId aggregator corpNum state intervalMs lastRows lastNew lastError';
const RECONCILIATION = 'date bankAccountId deposits { count amount } notified { count amount } announcedByText { count amount } foundByPolling { count amount } polledOnly { count amount } matchedAutomatically { count amount } matchedByHand { count amount } unmatched { count amount }';
/** Korean days around today: yesterday to tomorrow (KST). */
const reconciliationDays = () => ({ a: kstDate(new Date(Date.now() - 86_400_000)), b: kstDate(new Date(Date.now() + 86_400_000)) });

/** historyAggregators where Popbill is not configured (the test app). */
const ONLY_SIMULATED = OK({ data: () => ({ historyAggregators: ['SIMULATED'] }) });

const GQL_ROWS: GqlRow[] = [
  // ── queries ──
  { field: 'apiKeys', query: `{ apiKeys { id name secretHint bankAccountIds } }`, expect: dashboard(OK()) },
  {
    field: 'bankAccounts', query: `{ bankAccounts { id number alias ownerId } }`,
    expect: { otherKey: OK(), otherSession: OK(), readOnlyKey: OK({ sees: (f) => [f.A.id, f.B.id] }), limitedKey: OK({ sees: (f) => [f.B.id] }), ...GQL_DEAD },
  },
  { field: 'bankProviders', query: `{ bankProviders { id displayName depositorNameLength } }`, expect: everyone(OK()) },
  {
    field: 'cashReceipt', query: `query($id: ID!) { cashReceipt(id: $id) { ${RECEIPT} } }`, vars: (f) => ({ id: f.rct.rI }),
    expect: { otherKey: R('CASH_RECEIPT_NOT_FOUND'), otherSession: R('CASH_RECEIPT_NOT_FOUND'), readOnlyKey: OK({ sees: (f) => [f.rct.rI] }), limitedKey: OK({ sees: (f) => [f.rct.rI] }), ...GQL_DEAD },
  },
  {
    field: 'cashReceiptPage', query: `{ cashReceiptPage(offset: 0, limit: 100) { totalItems items { ${RECEIPT} } } }`,
    expect: { otherKey: OK(), otherSession: OK(), readOnlyKey: OK({ sees: (f) => [f.rct.rI] }), limitedKey: OK({ sees: (f) => [f.rct.rI] }), ...GQL_DEAD },
  },
  {
    field: 'cashReceipts', query: `{ cashReceipts(first: 100) { totalCount edges { node { ${RECEIPT} } } } }`,
    expect: { otherKey: OK(), otherSession: OK(), readOnlyKey: OK({ sees: (f) => [f.rct.rI] }), limitedKey: OK({ sees: (f) => [f.rct.rI] }), ...GQL_DEAD },
  },
  { field: 'emails', query: `{ emails(first: 100) { id to subject text invoiceId } }`, expect: dashboard(OK()) },
  {
    field: 'events', query: `{ events(first: 100) { id type invoiceId cashReceiptId data } }`,
    expect: { otherKey: OK(), otherSession: OK(), readOnlyKey: OK({ sees: (f) => [f.inv.iA, f.inv.iAll] }), limitedKey: OK({ sees: (f) => [f.inv.iB] }), ...GQL_DEAD },
  },
  {
    field: 'events', label: 'of invoice iA', query: `query($i: ID!) { events(invoiceId: $i) { id type invoiceId data } }`, vars: (f) => ({ i: f.inv.iA }),
    expect: { otherKey: R('INVOICE_NOT_FOUND'), otherSession: R('INVOICE_NOT_FOUND'), readOnlyKey: OK({ sees: (f) => [f.inv.iA] }), limitedKey: OUT_OF_SCOPE, ...GQL_DEAD },
  },
  {
    field: 'invoice', query: `query($id: ID!) { invoice(id: $id) { ${INVOICE} } }`, vars: (f) => ({ id: f.inv.iA }),
    expect: { otherKey: R('INVOICE_NOT_FOUND'), otherSession: R('INVOICE_NOT_FOUND'), readOnlyKey: OK({ sees: (f) => [f.inv.iA, OWNER.iA.email] }), limitedKey: OUT_OF_SCOPE, ...GQL_DEAD },
  },
  {
    field: 'invoice', label: 'the all-accounts invoice', query: `query($id: ID!) { invoice(id: $id) { ${INVOICE} } }`, vars: (f) => ({ id: f.inv.iAll }),
    expect: { otherKey: R('INVOICE_NOT_FOUND'), otherSession: R('INVOICE_NOT_FOUND'), readOnlyKey: OK({ sees: (f) => [f.inv.iAll] }), limitedKey: OUT_OF_SCOPE, ...GQL_DEAD },
  },
  {
    // On B, paid by hand with a deposit to A: the limited key reads the invoice, not that deposit.
    field: 'invoice', label: 'on B, paid by hand with a deposit to A', query: `query($id: ID!) { invoice(id: $id) { ${INVOICE} } }`, vars: (f) => ({ id: f.inv.iBm }),
    expect: { otherKey: R('INVOICE_NOT_FOUND'), otherSession: R('INVOICE_NOT_FOUND'), readOnlyKey: OK({ sees: (f) => [f.inv.iBm, f.trx.tAm, OWNER.tAm.name, f.A.number] }), limitedKey: OK({ sees: (f) => [f.inv.iBm] }), ...GQL_DEAD },
  },
  {
    field: 'events', label: 'of invoice iBm', query: `query($i: ID!) { events(invoiceId: $i) { id type invoiceId data } }`, vars: (f) => ({ i: f.inv.iBm }),
    expect: { otherKey: R('INVOICE_NOT_FOUND'), otherSession: R('INVOICE_NOT_FOUND'), readOnlyKey: OK({ sees: (f) => [f.inv.iBm, OWNER.tAm.name, f.A.number] }), limitedKey: OK({ sees: (f) => [f.inv.iBm, f.trx.tAm] }), ...GQL_DEAD },
  },
  {
    field: 'invoicePage', query: `{ invoicePage(offset: 0, limit: 100) { totalItems items { ${INVOICE} } } }`,
    expect: { otherKey: OK(), otherSession: OK(), readOnlyKey: OK({ sees: ownerInvoiceIds }), limitedKey: OK({ sees: (f) => [f.inv.iB] }), ...GQL_DEAD },
  },
  {
    field: 'invoices', query: `{ invoices(first: 100) { totalCount edges { node { ${INVOICE} } } } }`,
    expect: { otherKey: OK(), otherSession: OK(), readOnlyKey: OK({ sees: ownerInvoiceIds }), limitedKey: OK({ sees: (f) => [f.inv.iB] }), ...GQL_DEAD },
  },
  // Each workspace's own last sequence (a number, nothing of another workspace's).
  { field: 'lastEventSequence', query: `{ lastEventSequence }`, expect: { otherKey: OK(), otherSession: OK(), readOnlyKey: OK(), limitedKey: OK(), ...GQL_DEAD } },
  nodeRow('invoice on A', (f) => f.inv.iA, 'null', 'visible'),
  nodeRow('all-accounts invoice', (f) => f.inv.iAll, 'null', 'visible'),
  nodeRow('deposit to A', (f) => f.trx.tA, 'null', 'visible'),
  nodeRow('cash receipt', (f) => f.rct.rI, 'visible', 'visible'),
  nodeRow('bank account A', (f) => f.A.id, 'null', 'visible'),
  nodeRow('webhook', (f) => f.webhookId, 'null', 'null'),
  nodeRow('API key', (f) => f.keys.victim.id, 'null', 'null'),
  nodeRow('event of iA', (f) => f.eventId, 'null', 'visible'),
  nodeRow('e-mail', (f) => f.emailId, 'null', 'null'),
  nodeRow('owner account', (f) => f.owner.accountId, 'null', 'null'),
  nodeRow('workspace', (f) => f.owner.workspaceId, 'visible', 'visible'),
  nodeRow('OAuth app', (f) => f.app.id, 'null', 'null'),
  {
    field: 'nodes', query: `query($ids: [ID!]!) { nodes(ids: $ids) { ${NODE} } }`, vars: (f) => ({ ids: ownerNodeIds(f) }),
    expect: {
      otherKey: OK({ data: (f) => ({ nodes: ownerNodeIds(f).map(() => null) }) }),
      otherSession: OK({ data: (f) => ({ nodes: ownerNodeIds(f).map(() => null) }) }),
      readOnlyKey: OK({ sees: (f) => [f.inv.iA, f.trx.tA, f.rct.rI] }),
      limitedKey: OK({ sees: (f) => [f.rct.rI] }),
      ...GQL_DEAD,
    },
  },
  { field: 'oauthApps', query: `{ oauthApps { id name redirectUris } }`, expect: dashboard(OK()) },
  { field: 'oauthAuthorizations', query: `{ oauthAuthorizations { id revokedAt app { id name } } }`, expect: dashboard(OK()) },
  {
    field: 'transaction', query: `query($id: ID!) { transaction(id: $id) { ${TRANSACTION} } }`, vars: (f) => ({ id: f.trx.tA }),
    expect: { otherKey: R('TRANSACTION_NOT_FOUND'), otherSession: R('TRANSACTION_NOT_FOUND'), readOnlyKey: OK({ sees: (f) => [f.trx.tA] }), limitedKey: OUT_OF_SCOPE, ...GQL_DEAD },
  },
  {
    // A deposit to B that paid an all-accounts invoice: the limited key may read the deposit, not the invoice.
    field: 'transaction', label: 'deposit to B that paid the all-accounts invoice', query: `query($id: ID!) { transaction(id: $id) { ${TRANSACTION} } }`, vars: (f) => ({ id: f.trx.tBm }),
    expect: { otherKey: R('TRANSACTION_NOT_FOUND'), otherSession: R('TRANSACTION_NOT_FOUND'), readOnlyKey: OK({ sees: (f) => [f.trx.tBm, OWNER.iPaidAll.email] }), limitedKey: OK({ sees: (f) => [f.trx.tBm] }), ...GQL_DEAD },
  },
  {
    field: 'transactionPage', query: `{ transactionPage(offset: 0, limit: 100) { totalItems items { ${TRANSACTION} } } }`,
    expect: { otherKey: OK(), otherSession: OK(), readOnlyKey: OK({ sees: (f) => [f.trx.tA, f.trx.tB] }), limitedKey: OK({ sees: (f) => [f.trx.tB, f.trx.tBm] }), ...GQL_DEAD },
  },
  {
    field: 'transactions', query: `{ transactions(first: 100) { totalCount edges { node { ${TRANSACTION} } } } }`,
    expect: { otherKey: OK(), otherSession: OK(), readOnlyKey: OK({ sees: (f) => [f.trx.tA, f.trx.tB] }), limitedKey: OK({ sees: (f) => [f.trx.tB, f.trx.tBm] }), ...GQL_DEAD },
  },
  {
    field: 'viewer', query: `{ viewer { kind readOnly bankAccountIds apiKeyId account { id email name } workspace { id name ownerId paidEmailEnabled owner { email name } businessInfo { companyName } } } }`,
    expect: { otherKey: OK(), otherSession: OK(), readOnlyKey: OK({ sees: (f) => [f.owner.workspaceId] }), limitedKey: OK({ sees: (f) => [f.B.id] }), ...GQL_DEAD },
  },
  {
    field: 'bankTexts', query: `{ bankTexts { id bankAccountId text outcome reason transactionId } }`,
    expect: { otherKey: OK(), otherSession: OK(), readOnlyKey: OK({ sees: (f) => [f.bankTextId, OWNER.bankText] }), limitedKey: OK(), ...GQL_DEAD },
  },
  {
    // The aggregators this service offers (the test app configures none but the simulated one): the same for all.
    field: 'historyAggregators', query: `{ historyAggregators }`,
    expect: { otherKey: ONLY_SIMULATED, otherSession: ONLY_SIMULATED, readOnlyKey: ONLY_SIMULATED, limitedKey: ONLY_SIMULATED, ...GQL_DEAD },
  },
  {
    // The owner's feed is on A: the limited key (B) sees none; the other workspace its own (none).
    field: 'historyFeeds', query: `{ historyFeeds { ${HISTORY_FEED} } }`,
    expect: { otherKey: OK(), otherSession: OK(), readOnlyKey: OK({ sees: (f) => [f.historyFeedId, f.A.id] }), limitedKey: OK({ data: () => ({ historyFeeds: [] }) }), ...GQL_DEAD },
  },
  {
    // Today's deposits (KST; a day either side, so midnight cannot split the run): a limited key sees B's rows only,
    // the other workspace its own account's.
    field: 'depositReconciliation', query: `query($a: String!, $b: String!) { depositReconciliation(dateAfter: $a, dateBefore: $b) { ${RECONCILIATION} } }`, vars: reconciliationDays,
    expect: {
      otherKey: OK({ sees: (f) => [f.other.bankAccount.id] }),
      otherSession: OK({ sees: (f) => [f.other.bankAccount.id] }),
      readOnlyKey: OK({ sees: (f) => [f.A.id, f.B.id] }),
      limitedKey: OK({ sees: (f) => [f.B.id] }),
      ...GQL_DEAD,
    },
  },
  {
    // Only account A: nothing for the other workspace, OUT_OF_SCOPE for the limited key (the id is the caller's own
    // input, so the leak check cannot catch it: the answers are asserted whole).
    field: 'depositReconciliation', label: 'of account A', query: `query($a: String!, $b: String!, $acc: ID) { depositReconciliation(dateAfter: $a, dateBefore: $b, bankAccountId: $acc) { ${RECONCILIATION} } }`,
    vars: (f) => ({ ...reconciliationDays(), acc: f.A.id }),
    expect: {
      otherKey: OK({ data: () => ({ depositReconciliation: [] }) }),
      otherSession: OK({ data: () => ({ depositReconciliation: [] }) }),
      readOnlyKey: OK({ sees: (f) => [f.A.id], data: (f) => ({ depositReconciliation: [expect.objectContaining({ bankAccountId: f.A.id, deposits: { count: 2, amount: OWNER.tA.amount + OWNER.tAm.amount } })] }) }),
      limitedKey: OUT_OF_SCOPE,
      ...GQL_DEAD,
    },
  },
  {
    field: 'shopConnections', query: `{ shopConnections { id shopId orders { id orderId invoice { id } } } }`,
    expect: { otherKey: OK(), otherSession: OK(), readOnlyKey: OK({ sees: (f) => [f.shop.connectionId, f.shop.shopOrderId] }), limitedKey: OUT_OF_SCOPE, ...GQL_DEAD },
  },
  {
    field: 'shopConnection', query: `query($id: ID!) { shopConnection(id: $id) { id shopId orders { id orderId depositorName amount } } }`, vars: (f) => ({ id: f.shop.connectionId }),
    expect: { otherKey: R('SHOP_CONNECTION_NOT_FOUND'), otherSession: R('SHOP_CONNECTION_NOT_FOUND'), readOnlyKey: OK({ sees: (f) => [f.shop.connectionId, f.shop.orderNo] }), limitedKey: OUT_OF_SCOPE, ...GQL_DEAD },
  },
  {
    field: 'shopOrder', query: `query($id: ID!) { shopOrder(id: $id) { id orderId depositorName invoice { id } } }`, vars: (f) => ({ id: f.shop.shopOrderId }),
    expect: { otherKey: R('SHOP_ORDER_NOT_FOUND'), otherSession: R('SHOP_ORDER_NOT_FOUND'), readOnlyKey: OK({ sees: (f) => [f.shop.shopOrderId, OWNER.shopBuyer] }), limitedKey: OUT_OF_SCOPE, ...GQL_DEAD },
  },
  {
    field: 'simulatedShopOrders', query: `query($c: ID!) { simulatedShopOrders(connectionId: $c) { id buyerName amount status } }`, vars: (f) => ({ c: f.shop.connectionId }),
    expect: { otherKey: R('SHOP_CONNECTION_NOT_FOUND'), otherSession: R('SHOP_CONNECTION_NOT_FOUND'), readOnlyKey: OK({ sees: (f) => [f.shop.orderNo] }), limitedKey: OUT_OF_SCOPE, ...GQL_DEAD },
  },
  { field: 'webhook', query: `query($id: ID!) { webhook(id: $id) { id url deliveries { id eventId } } }`, vars: (f) => ({ id: f.webhookId }), expect: dashboard(R('NOT_FOUND')) },
  { field: 'webhooks', query: `{ webhooks { id url } }`, expect: dashboard(OK()) },

  // ── mutations ──
  {
    // Any workspace may consent to any app (OAuth); it gets a code for its own workspace, nothing of the owner's.
    field: 'authorizeOAuthApp', query: `mutation($i: AuthorizeOAuthAppInput!) { authorizeOAuthApp(input: $i) { code expiresAt } }`,
    vars: (f) => ({ i: { clientId: f.app.id, redirectUri: REDIRECT } }), expect: dashboard(OK()),
  },
  {
    field: 'cancelCashReceipt', query: `mutation($id: ID!) { cancelCashReceipt(id: $id, input: {reason: "iso probe", amount: 999999999}) { ${ERR} ... on CashReceiptPayload { cashReceipt { ${RECEIPT} } } } }`,
    vars: (f) => ({ id: f.rct.rI }),
    expect: { otherKey: R('CASH_RECEIPT_NOT_FOUND'), otherSession: R('CASH_RECEIPT_NOT_FOUND'), readOnlyKey: READ_ONLY, limitedKey: OK({ code: 'INVALID_CASH_RECEIPT_AMOUNT' }), ...GQL_DEAD },
  },
  ...(['cancelInvoice', 'deleteInvoice', 'markInvoicePaid'] as const).map(
    (field): GqlRow => ({
      field,
      query: `mutation($id: ID!) { ${field}(id: $id) { ${ERR} ... on InvoicePayload { invoice { ${INVOICE} } } } }`,
      vars: (f) => ({ id: f.inv.iA }),
      expect: { otherKey: R('INVOICE_NOT_FOUND'), otherSession: R('INVOICE_NOT_FOUND'), readOnlyKey: READ_ONLY, limitedKey: OUT_OF_SCOPE, ...GQL_DEAD },
    }),
  ),
  {
    field: 'createApiKey', label: "limited to the owner's account A", query: `mutation($i: CreateApiKeyInput!) { createApiKey(input: $i) { apiKey { id name bankAccountIds } secret } }`,
    vars: (f) => ({ i: { name: 'IsoProbeKey', bankAccountIds: [f.A.id] } }), expect: dashboard(R('BANK_ACCOUNT_NOT_FOUND')),
  },
  {
    field: 'createInvoice', label: "naming the owner's account A", query: `mutation($i: CreateInvoiceInput!) { createInvoice(input: $i) { ${ERR} ... on InvoicePayload { invoice { ${INVOICE} } } } }`,
    vars: (f) => ({ i: { bankAccountIds: [f.A.id], ...PROBE_INVOICE } }),
    expect: { otherKey: OUT_OF_SCOPE, otherSession: OUT_OF_SCOPE, readOnlyKey: READ_ONLY, limitedKey: OUT_OF_SCOPE, ...GQL_DEAD },
  },
  {
    field: 'createOAuthApp', query: `mutation { createOAuthApp(input: {name: "IsoProbeApp", redirectUris: ["https://probe.example/cb"]}) { app { id name } clientSecret } }`,
    expect: dashboard(OK()),
  },
  {
    field: 'createWebhook', query: `mutation { createWebhook(input: {url: "http://127.0.0.1:9/iso-probe-hook", version: V1}) { webhook { id url } signingSecret } }`,
    expect: dashboard(OK()),
  },
  ...(['deleteApiKey', 'disableApiKey'] as const).map(
    (field): GqlRow => ({
      field,
      query: `mutation($id: ID!) { ${field}(id: $id) { apiKey { id name } } }`,
      vars: (f) => ({ id: f.keys.victim.id }),
      expect: dashboard(R('NOT_FOUND')),
    }),
  ),
  ...(['deleteWebhook', 'disableWebhook', 'enableWebhook', 'rotateWebhookSecret'] as const).map(
    (field): GqlRow => ({
      field,
      query: `mutation($id: ID!) { ${field}(id: $id) { ${ERR} ... on ${field === 'rotateWebhookSecret' ? 'WebhookSecretPayload { signingSecret' : 'WebhookPayload {'} webhook { id url } } } }`,
      vars: (f) => ({ id: f.webhookId }),
      expect: dashboard(R('NOT_FOUND')),
    }),
  ),
  {
    // Any workspace may connect a shop of its own; nothing of the owner's is reached.
    field: 'startShopInstall', query: `mutation { startShopInstall(input: {platform: SIMULATED, shopId: "iso-probe-shop"}) { ${ERR} ... on ShopInstallPayload { authorizeUrl connection { id shopId } } } }`,
    expect: dashboard(OK()),
  },
  {
    field: 'completeShopInstall', query: `mutation { completeShopInstall(state: "iso-probe-state", code: "simulated-approval") { ${ERR} ... on ShopConnectionPayload { connection { id } } } }`,
    expect: dashboard(OK({ code: 'SHOP_INSTALL_INVALID' })),
  },
  {
    field: 'disconnectShop', query: `mutation($id: ID!) { disconnectShop(id: $id) { ${ERR} ... on ShopConnectionPayload { connection { id state } } } }`, vars: (f) => ({ id: f.shop.connectionId }),
    expect: dashboard(R('SHOP_CONNECTION_NOT_FOUND')),
  },
  // Account-history feeds: connect, pause, resume and disconnect are the dashboard's; a poll and a simulated booking
  // are any writer's (a limited key within its accounts: the owner's feed is on A).
  {
    field: 'connectHistoryFeed', label: "the owner's account A",
    query: `mutation($i: ConnectHistoryFeedInput!) { connectHistoryFeed(input: $i) { ${ERR} ... on HistoryFeedPayload { feed { ${HISTORY_FEED} } } } }`,
    vars: (f) => ({ i: { bankAccountId: f.A.id, aggregator: 'SIMULATED' } }),
    expect: dashboard(R('BANK_ACCOUNT_NOT_FOUND')),
  },
  ...(['pauseHistoryFeed', 'resumeHistoryFeed', 'disconnectHistoryFeed'] as const).map(
    (field): GqlRow => ({
      field,
      query: `mutation($id: ID!) { ${field}(id: $id) { ${ERR} ... on HistoryFeedPayload { feed { ${HISTORY_FEED} } } } }`,
      vars: (f) => ({ id: f.historyFeedId }),
      expect: dashboard(R('HISTORY_FEED_NOT_FOUND')),
    }),
  ),
  {
    field: 'pollHistoryNow', query: `mutation($id: ID!) { pollHistoryNow(feedId: $id) { ${ERR} ... on HistoryPollPayload { rows created skipped feed { ${HISTORY_FEED} } } } }`,
    vars: (f) => ({ id: f.historyFeedId }),
    expect: { otherKey: R('HISTORY_FEED_NOT_FOUND'), otherSession: R('HISTORY_FEED_NOT_FOUND'), readOnlyKey: READ_ONLY, limitedKey: OUT_OF_SCOPE, ...GQL_DEAD },
  },
  {
    field: 'simulateHistoryDeposit',
    query: `mutation($id: ID!) { simulateHistoryDeposit(input: {feedId: $id, depositorName: "IsoProbeDepositor", amount: 739005}) { ${ERR} ... on SimulatedHistoryRowPayload { row { id feedId rowId amount depositorName balanceAfter } } } }`,
    vars: (f) => ({ id: f.historyFeedId }),
    expect: { otherKey: R('HISTORY_FEED_NOT_FOUND'), otherSession: R('HISTORY_FEED_NOT_FOUND'), readOnlyKey: READ_ONLY, limitedKey: OUT_OF_SCOPE, ...GQL_DEAD },
  },
  // Forwarded texts the service could not take: entered or dismissed in the dashboard only (the owner's text is on A).
  {
    field: 'enterBankTextDeposit',
    query: `mutation($id: ID!) { enterBankTextDeposit(input: {bankTextId: $id, amount: 739006, depositorName: "IsoProbeEntered"}) { ${ERR} ... on BankTextDepositPayload { bankText { id text outcome resolution } transaction { ${TRANSACTION} } } } }`,
    vars: (f) => ({ id: f.bankTextId }),
    expect: dashboard(R('BANK_TEXT_NOT_FOUND')),
  },
  {
    field: 'dismissBankText', query: `mutation($id: ID!) { dismissBankText(id: $id) { ${ERR} ... on BankTextPayload { bankText { id text outcome resolution } } } }`,
    vars: (f) => ({ id: f.bankTextId }),
    expect: dashboard(R('BANK_TEXT_NOT_FOUND')),
  },
  ...(
    [
      ['syncShopOrders', `mutation($c: ID!) { syncShopOrders(connectionId: $c) { ${ERR} ... on ShopSyncPayload { imported connection { id } } } }`, (f: Fixtures) => ({ c: f.shop.connectionId }), 'SHOP_CONNECTION_NOT_FOUND'],
      ['retryShopOrderConfirmation', `mutation($id: ID!) { retryShopOrderConfirmation(id: $id) { ${ERR} ... on ShopOrderPayload { shopOrder { id } } } }`, (f: Fixtures) => ({ id: f.shop.shopOrderId }), 'SHOP_ORDER_NOT_FOUND'],
      [
        'simulateShopOrder',
        `mutation($c: ID!) { simulateShopOrder(input: {connectionId: $c, buyerName: "IsoProbeBuyer", amount: 1}) { ${ERR} ... on SimulatedShopOrderPayload { order { id } } } }`,
        (f: Fixtures) => ({ c: f.shop.connectionId }),
        'SHOP_CONNECTION_NOT_FOUND',
      ],
      [
        'cancelSimulatedShopOrder',
        `mutation($c: ID!, $o: String!) { cancelSimulatedShopOrder(connectionId: $c, orderId: $o) { ${ERR} ... on SimulatedShopOrderPayload { order { id status } } } }`,
        (f: Fixtures) => ({ c: f.shop.connectionId, o: f.shop.orderNo }),
        'SHOP_CONNECTION_NOT_FOUND',
      ],
    ] as const
  ).map(
    ([field, query, vars, notFound]): GqlRow => ({
      field,
      query,
      vars,
      expect: { otherKey: R(notFound), otherSession: R(notFound), readOnlyKey: READ_ONLY, limitedKey: OUT_OF_SCOPE, ...GQL_DEAD },
    }),
  ),
  {
    field: 'issueCashReceipt', query: `mutation { issueCashReceipt(input: {type: PERSONAL, identifier: "01066660003", amount: 739004}) { ${ERR} ... on CashReceiptPayload { cashReceipt { ${RECEIPT} } } } }`,
    expect: { otherKey: OK(), otherSession: OK(), readOnlyKey: READ_ONLY, limitedKey: OK(), ...GQL_DEAD },
  },
  {
    // An invoice's receipt: the invoice decides (limited by its accounts), unlike a receipt on its own.
    field: 'issueInvoiceCashReceipt', query: `mutation($id: ID!) { issueInvoiceCashReceipt(input: {invoiceId: $id, type: PERSONAL, identifier: "01066660004"}) { ${ERR} ... on CashReceiptPayload { cashReceipt { ${RECEIPT} } } } }`,
    vars: (f) => ({ id: f.inv.iA }),
    expect: { otherKey: R('INVOICE_NOT_FOUND'), otherSession: R('INVOICE_NOT_FOUND'), readOnlyKey: READ_ONLY, limitedKey: OUT_OF_SCOPE, ...GQL_DEAD },
  },
  {
    // Public: a wrong password for the owner's e-mail says nothing but INVALID_CREDENTIALS, whoever asks.
    field: 'logIn', query: `mutation($i: LogInInput!) { logIn(input: $i) { token account { id email } workspace { id } } }`,
    vars: (f) => ({ i: { email: f.owner.email, password: 'not-the-password-123' } }), expect: everyone(OK({ code: 'INVALID_CREDENTIALS' })),
    // Another e-mail on /api: twelve failures for one e-mail would pass the log-in limit (10 in 15 minutes).
    api: { args: (a, f) => ({ input: { ...a.input, email: f.other.email } }) },
  },
  // matchTransaction: any writer (dashboard, key, OAuth token), a limited key only within its accounts.
  {
    field: 'matchTransaction', query: `mutation($i: MatchTransactionInput!) { matchTransaction(input: $i) { transaction { ${TRANSACTION} } } }`,
    vars: (f) => ({ i: { transactionId: f.trx.tA, invoiceId: f.inv.iA } }),
    expect: { otherKey: R('TRANSACTION_NOT_FOUND'), otherSession: R('TRANSACTION_NOT_FOUND'), readOnlyKey: READ_ONLY, limitedKey: OUT_OF_SCOPE, ...GQL_DEAD },
  },
  {
    field: 'matchTransaction', label: 'a deposit to B and the all-accounts invoice', query: `mutation($i: MatchTransactionInput!) { matchTransaction(input: $i) { transaction { ${TRANSACTION} } } }`,
    vars: (f) => ({ i: { transactionId: f.trx.tB, invoiceId: f.inv.iAll } }),
    expect: { otherKey: R('TRANSACTION_NOT_FOUND'), otherSession: R('TRANSACTION_NOT_FOUND'), readOnlyKey: READ_ONLY, limitedKey: OUT_OF_SCOPE, ...GQL_DEAD },
  },
  {
    field: 'matchTransaction', label: "the other workspace's deposit and the owner's invoice on B", query: `mutation($i: MatchTransactionInput!) { matchTransaction(input: $i) { transaction { ${TRANSACTION} } } }`,
    vars: (f) => ({ i: { transactionId: f.otherTrx, invoiceId: f.inv.iB } }),
    expect: { otherKey: R('INVOICE_NOT_FOUND'), otherSession: R('INVOICE_NOT_FOUND'), readOnlyKey: READ_ONLY, limitedKey: R('TRANSACTION_NOT_FOUND'), ...GQL_DEAD },
  },
  {
    field: 'redeliverWebhookEvent', query: `mutation($w: ID!, $e: ID!) { redeliverWebhookEvent(webhookId: $w, eventId: $e) { ${ERR} ... on RedeliverWebhookEventPayload { webhookId eventId } } }`,
    vars: (f) => ({ w: f.webhookId, e: f.eventId }), expect: dashboard(R('NOT_FOUND')),
  },
  {
    field: 'registerBankAccount', query: `mutation { registerBankAccount(input: {provider: "SHINHAN", type: PERSONAL, number: "1999000011122", alias: "IsoProbeAlias"}) { bankAccount { id number } verificationCode } }`,
    expect: dashboard(OK()),
    api: { args: (a) => ({ input: { ...a.input, number: '1999000011133' } }) },
  },
  {
    field: 'registerBusinessInfo', query: `mutation { registerBusinessInfo(input: {corpNum: "2234567890", companyName: "IsoProbeCo", representativeName: "Probe"}) { workspace { id name businessInfo { companyName } } } }`,
    expect: dashboard(OK()),
  },
  {
    field: 'reissueCashReceipt', query: `mutation($id: ID!) { reissueCashReceipt(id: $id, input: {identifier: "01066660002"}) { ${ERR} ... on CashReceiptPayload { cashReceipt { ${RECEIPT} } } } }`,
    vars: (f) => ({ id: f.rct.rI }),
    expect: { otherKey: R('CASH_RECEIPT_NOT_FOUND'), otherSession: R('CASH_RECEIPT_NOT_FOUND'), readOnlyKey: READ_ONLY, limitedKey: OK({ code: 'RECEIPT_NOT_REISSUABLE' }), ...GQL_DEAD },
  },
  {
    field: 'revokeCashReceipt', query: `mutation($id: ID!) { revokeCashReceipt(id: $id) { ${ERR} ... on CashReceiptPayload { cashReceipt { ${RECEIPT} } } } }`,
    vars: (f) => ({ id: f.rct.rRevGql }),
    expect: { otherKey: R('CASH_RECEIPT_NOT_FOUND'), otherSession: R('CASH_RECEIPT_NOT_FOUND'), readOnlyKey: READ_ONLY, limitedKey: OK({ sees: (f) => [f.rct.rRevGql] }), ...GQL_DEAD },
    api: { args: (a, f) => ({ ...a, id: f.rct.rRevApi }), sees: (f) => [f.rct.rRevApi] },
  },
  {
    field: 'sendCashReceiptEmail', query: `mutation($id: ID!) { sendCashReceiptEmail(id: $id, email: "iso-probe@example.com") { ${ERR} ... on SendCashReceiptEmailPayload { cashReceiptId } } }`,
    vars: (f) => ({ id: f.rct.rI }),
    expect: { otherKey: R('CASH_RECEIPT_NOT_FOUND'), otherSession: R('CASH_RECEIPT_NOT_FOUND'), readOnlyKey: READ_ONLY, limitedKey: OK(), ...GQL_DEAD },
  },
  {
    field: 'setTransactionHidden', query: `mutation($id: ID!) { setTransactionHidden(id: $id, hidden: true) { transaction { ${TRANSACTION} } } }`,
    vars: (f) => ({ id: f.trx.tA }), expect: dashboard(R('TRANSACTION_NOT_FOUND')),
  },
  {
    // Public: a new account and workspace of its own, whatever credential is sent along.
    field: 'signUp', query: `mutation($i: SignUpInput!) { signUp(input: $i) { token account { id email } workspace { id name } } }`,
    vars: () => ({ i: { email: `iso-signup-${Math.random().toString(36).slice(2)}@example.com`, password: 'iso-password-123', name: 'IsoSignUp' } }),
    expect: everyone(OK()),
  },
  { field: 'unmatchTransaction', query: `mutation($id: ID!) { unmatchTransaction(id: $id) { transaction { ${TRANSACTION} } } }`, vars: (f) => ({ id: f.trx.tBm }), expect: dashboard(R('TRANSACTION_NOT_FOUND')) },
  {
    // Renaming or deactivating is the dashboard's; another workspace's account reads as a missing one.
    field: 'updateBankAccount', query: `mutation($i: UpdateBankAccountInput!) { updateBankAccount(input: $i) { ${ERR} ... on BankAccountPayload { bankAccount { id number alias active } } } }`,
    vars: (f) => ({ i: { bankAccountId: f.A.id, alias: 'IsoProbeRenamed', active: false } }),
    expect: dashboard(R('BANK_ACCOUNT_NOT_FOUND')),
  },
  {
    field: 'updateInvoice', query: `mutation($id: ID!) { updateInvoice(id: $id, input: {amount: 739003}) { ${ERR} ... on InvoicePayload { invoice { ${INVOICE} } } } }`,
    vars: (f) => ({ id: f.inv.iA }),
    expect: { otherKey: R('INVOICE_NOT_FOUND'), otherSession: R('INVOICE_NOT_FOUND'), readOnlyKey: READ_ONLY, limitedKey: OUT_OF_SCOPE, ...GQL_DEAD },
  },
  {
    field: 'updateWebhook', query: `mutation($id: ID!) { updateWebhook(id: $id, url: "http://127.0.0.1:9/iso-probe-moved") { ${ERR} ... on WebhookPayload { webhook { id url } } } }`,
    vars: (f) => ({ id: f.webhookId }), expect: dashboard(R('NOT_FOUND')),
  },
  {
    field: 'updateWorkspaceSettings', query: `mutation { updateWorkspaceSettings(input: {paidEmailEnabled: true}) { ${ERR} ... on WorkspacePayload { workspace { id name paidEmailEnabled } } } }`,
    expect: dashboard(OK()),
  },
];

/** The GraphQL schema's root fields, from the committed SDL. */
const sdl = buildSchema(readFileSync(new URL('../../schema/schema.graphql', import.meta.url), 'utf8'));
const ROOT_FIELDS = [
  ...Object.keys(sdl.getQueryType()!.getFields()).map((n) => ({ field: n, op: 'query' as const })),
  ...Object.keys(sdl.getMutationType()!.getFields()).map((n) => ({ field: n, op: 'mutation' as const })),
];
const MUTATIONS = new Set(Object.keys(sdl.getMutationType()!.getFields()));
/** Mutations whose result is a union with DomainError (refusals in-band) rather than a GraphQL error. */
const UNION_MUTATIONS = new Set(Object.values(sdl.getMutationType()!.getFields()).filter((fd) => isUnionType(getNamedType(fd.type))).map((fd) => fd.name));

async function callGql(row: GqlRow, variables: Record<string, unknown>, token: string): Promise<{ status: number; body: any }> {
  const res = await t.fetch(`${t.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: row.query, variables }),
  });
  return { status: res.status, body: await res.json() };
}

/** What a GraphQL answer says: the code (top-level error or in-band DomainError) and where it was reported. */
function gqlOutcome(row: GqlRow, body: any): { code: string | null; via: 'error' | 'union' | null } {
  const err = body.errors?.[0];
  if (err) return { code: err.extensions?.code ?? 'NO_CODE', via: 'error' };
  const v = body.data?.[row.field];
  if (v && v.__typename === 'DomainError') return { code: v.code, via: 'union' };
  return { code: null, via: null };
}


// ───────────────────────────── /api table ─────────────────────────────

/** The root field's arguments in a GraphQL row: its variables and the literals written in the query. */
function fieldArgs(row: GqlRow, f: Fixtures): Record<string, unknown> {
  const op = parse(row.query).definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
  const field = op.selectionSet.selections.find((x): x is FieldNode => x.kind === Kind.FIELD && x.name.value === row.field)!;
  const vars = row.vars?.(f) ?? {};
  const args = Object.fromEntries((field.arguments ?? []).map((a) => [a.name.value, valueFromASTUntyped(a.value, vars)]));
  return row.api ? row.api.args(args, f) : args;
}

/** The /api route of each root field (sofa names it after the field: `createOAuthApp` → `/create-o-auth-app`). */
let apiRoutes: Map<string, { method: 'GET' | 'POST'; path: string }>;
async function loadApiRoutes() {
  const doc = (await (await t.fetch(`${t.url}/api/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
  apiRoutes = new Map();
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const method of Object.keys(ops)) apiRoutes.set(path.split('/')[1].replaceAll('-', ''), { method: method.toUpperCase() as 'GET' | 'POST', path });
  }
}
const apiRoute = (field: string) => apiRoutes.get(field.toLowerCase());

/** Calls a GraphQL row's field on /api: a query by GET (the id in the path where sofa puts it, the rest in the query string), a mutation by POST with a JSON body of its arguments. */
async function callApi(row: GqlRow, args: Record<string, unknown>, token: string): Promise<{ status: number; body: any }> {
  const route = apiRoute(row.field)!;
  const headers: Record<string, string> = { accept: 'application/json', authorization: `Bearer ${token}` };
  let path = route.path;
  let body: string | undefined;
  if (route.method === 'GET') {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(args)) {
      if (path.includes(`{${name}}`)) path = path.replace(`{${name}}`, encodeURIComponent(String(value)));
      else if (Array.isArray(value)) value.forEach((v, i) => query.append(`${name}[${i}]`, String(v)));
      else query.append(name, typeof value === 'object' ? JSON.stringify(value) : String(value));
    }
    if ([...query].length) path += `?${query}`;
  } else {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(args);
  }
  const res = await t.fetch(`${t.url}/api${path}`, { method: route.method, headers, body });
  return { status: res.status, body: await res.json() };
}

/** What an /api error looks like: the GraphQL error body (graphQLErrorBody), alone, with the status of the error table. */
function expectApiError(res: { status: number; body: any }, code: string, detail: string) {
  expect(isErrorCode(code), `${code} is a domain code`).toBe(true);
  expect(res, detail).toEqual({ status: ERROR_TABLE[code as ErrorCode].v1.status, body: { errors: [{ message: expect.any(String), extensions: expect.objectContaining({ code }) }] } });
  expect(Object.keys(res.body.errors[0].extensions).filter((k) => !['code', 'field', 'data'].includes(k)), detail).toEqual([]);
}

function apiCell(row: GqlRow, principal: GqlPrincipal): Cell {
  const exp = row.expect[principal];
  const name = `/api ${MUTATIONS.has(row.field) ? 'mutation' : 'query'} ${row.field}${row.label ? ` (${row.label})` : ''} × ${principal}`;
  return {
    name,
    write: MUTATIONS.has(row.field),
    refused: exp.kind === 'refused',
    run: async () => {
      const args = fieldArgs(row, f);
      const res = await callApi(row, args, f.tokens[principal]);
      const detail = `${name}: ${res.status} ${JSON.stringify(res.body).slice(0, 400)}`;
      // The same answer as /graphql's: a refusal (thrown or in-band) as an HTTP error with the same code ...
      if (exp.code) expectApiError(res, exp.code, detail);
      else {
        // ... or the field's data.
        expect(res.status, detail).toBe(200);
        if (exp.kind === 'allowed' && exp.data) expect(res.body, detail).toEqual((exp.data(f) as Record<string, unknown>)[row.field]);
        const seen = exp.kind === 'allowed' ? (row.api?.sees ?? exp.sees) : undefined;
        if (seen) expect(sees(res.body, seen(f)), `${detail}\nmust see`).toEqual(expect.arrayContaining(seen(f)));
      }
      expect(leaks(res.body, notIn(f.forbidden[principal], [row.query, args])), `${name} leaks: ${JSON.stringify(res.body).slice(0, 600)}`).toEqual([]);
    },
  };
}

// ───────────────────────────── the owner's state ─────────────────────────────

/** Everything of the owner a refused write could have changed. */
async function ownerState() {
  const key = f.owner.apiKey.secret;
  const get = async (path: string) => {
    const r = await t.client.request('GET', path, { token: key });
    expect(r.status, path).toBe(200);
    return r.body.data;
  };
  const invoices = await Promise.all(Object.values(f.inv).map((id) => get(`/v2/invoices/${id}`)));
  const deposits = await Promise.all(Object.values(f.trx).map((id) => get(`/v1/transactions/${id}`)));
  const receipts = await Promise.all([f.rct.rI, f.rct.rRevRest, f.rct.rRevGql, f.rct.rRevApi].map((id) => get(`/v2/cash-receipts/${id}`)));
  const dashboardView = await gqlOk(
    `{ apiKeys { id name readOnly bankAccountIds disabledAt deletedAt } webhooks { id url enabled disabledAt previousSecretExpiresAt }
       bankAccounts { id number alias active } oauthApps { id name } oauthAuthorizations { id revokedAt }
       historyFeeds { id bankAccountId aggregator corpNum state intervalMs createdAt } bankTexts { id bankAccountId outcome resolution resolvedAt transactionId }
       viewer { workspace { name paidEmailEnabled businessInfo { corpNum companyName } } } }`,
    {},
    f.owner.sessionToken,
  );
  const invoiceCount = (await t.client.request('GET', '/v2/invoices?offset=0&limit=1', { token: key })).body.totalItems;
  const receiptCount = (await t.client.request('GET', '/v1/cash-receipts?offset=0&limit=1', { token: key })).body.totalItems;
  // A refused booking in the owner's history feed would become a deposit at its next poll.
  const depositCount = (await t.client.request('GET', '/v1/transactions?offset=0&limit=1', { token: key })).body.totalItems;
  return { invoices, deposits, receipts, dashboardView, invoiceCount, receiptCount, depositCount };
}

// ───────────────────────────── the matrix ─────────────────────────────

interface Cell {
  name: string;
  write: boolean;
  refused: boolean;
  run: () => Promise<void>;
}

function restCell(row: RestRow, principal: RestPrincipal): Cell {
  const exp = row.expect[principal];
  const name = `${row.method} ${row.route}${row.label ? ` (${row.label})` : ''} × ${principal}`;
  return {
    name,
    write: row.method !== 'GET',
    refused: exp.kind === 'refused',
    run: async () => {
      const res = await callRest(row, f.tokens[principal]);
      if (exp.kind === 'refused') {
        expect({ status: res.status, body: res.body }, name).toEqual({ status: exp.status, body: exp.body });
      } else {
        expect({ status: res.status, code: res.body?.code }, `${name}: ${JSON.stringify(res.body).slice(0, 300)}`).toEqual({ status: exp.status, code: exp.code });
        if (exp.sees) expect(sees(res.body, exp.sees(f)), `${name} must see the owner's data it may see`).toEqual(expect.arrayContaining(exp.sees(f)));
      }
      expect(leaks(res.body, notIn(f.forbidden[principal], [row.path(f), row.body?.(f), row.form?.(f)])), `${name} leaks: ${JSON.stringify(res.body).slice(0, 600)}`).toEqual([]);
    },
  };
}

function gqlCell(row: GqlRow, principal: GqlPrincipal): Cell {
  const exp = row.expect[principal];
  const name = `${MUTATIONS.has(row.field) ? 'mutation' : 'query'} ${row.field}${row.label ? ` (${row.label})` : ''} × ${principal}`;
  return {
    name,
    write: MUTATIONS.has(row.field),
    refused: exp.kind === 'refused',
    run: async () => {
      const vars = row.vars?.(f) ?? {};
      const res = await callGql(row, vars, f.tokens[principal]);
      const outcome = gqlOutcome(row, res.body);
      const detail = `${name}: ${res.status} ${JSON.stringify(res.body).slice(0, 400)}`;
      if (exp.kind === 'refused') {
        // In-band for result-union mutations when the resolver refuses; a GraphQL error otherwise (scope checks of
        // dashboard fields, queries). Either way the field carries no data.
        expect(outcome.code, detail).toBe(exp.code);
        if (outcome.via === 'error') expect(res.body.data?.[row.field] ?? null, detail).toBeNull();
        else expect(UNION_MUTATIONS.has(row.field), detail).toBe(true);
        expect(res.status, detail).toBe(gqlStatus(exp.code, outcome.via!));
      } else {
        expect(outcome.code, detail).toBe(exp.code ?? null);
        expect(res.status, detail).toBe(exp.code ? gqlStatus(exp.code, outcome.via!) : 200);
        if (exp.data) expect(res.body.data, detail).toEqual(exp.data(f));
        if (exp.sees) expect(sees(res.body, exp.sees(f)), `${detail}\nmust see`).toEqual(expect.arrayContaining(exp.sees(f)));
      }
      expect(leaks(res.body, notIn(f.forbidden[principal], [row.query, vars])), `${name} leaks: ${JSON.stringify(res.body).slice(0, 600)}`).toEqual([]);
    },
  };
}

/**
 * The HTTP status of a GraphQL answer that carries a code: an in-band refusal is 200 (the operation ran, its result
 * says no); a top-level error carries the status of the error table (extensions.http), like the REST faces' v1 status.
 */
function gqlStatus(code: string, via: 'error' | 'union'): number {
  if (via === 'union') return 200;
  expect(isErrorCode(code), `${code} is a domain code`).toBe(true);
  return ERROR_TABLE[code as ErrorCode].v1.status;
}

const REST_CELLS = REST_ROWS.flatMap((row) => REST_PRINCIPALS.map((p) => restCell(row, p)));
const GQL_CELLS = GQL_ROWS.flatMap((row) => GQL_PRINCIPALS.map((p) => gqlCell(row, p)));
const API_CELLS = GQL_ROWS.flatMap((row) => GQL_PRINCIPALS.map((p) => apiCell(row, p)));
const ALL_CELLS = [...REST_CELLS, ...GQL_CELLS, ...API_CELLS];
/** Refusals and reads first; the allowed writes after the owner's state was checked. */
const FIRST = ALL_CELLS.filter((c) => c.refused || !c.write);
const LAST = ALL_CELLS.filter((c) => !c.refused && c.write);

describe(`isolation matrix on ${dbLabel}`, () => {
  let before: Awaited<ReturnType<typeof ownerState>>;

  beforeAll(async () => {
    t = await startTestApp({ socket: false, env: { RATE_LIMIT_PER_SECOND: '0', WEBHOOK_ALLOW_PRIVATE: 'true' } });
    await setUp();
    await loadApiRoutes();
    before = await ownerState();
  });
  afterAll(() => t?.stop());

  describe('coverage', () => {
    it('every route of the v1 and v2 routers and every documented REST operation has a row', () => {
      const routes = [...v1Routes.list(), ...v2Routes.list()].map((r) => `${r.method} ${r.pattern}`);
      const documented = OPERATIONS.filter((o) => o.face === 'v1' || o.face === 'v2' || o.face === 'oauth').map((o) => `${o.method.toUpperCase()} ${o.path.replace(/\{(\w+)\}/g, ':$1')}`);
      const covered = new Set(REST_ROWS.map((r) => `${r.method} ${r.route}`));
      expect([...new Set([...routes, ...documented])].filter((r) => !covered.has(r))).toEqual([]);
      expect([...covered].filter((r) => !routes.includes(r) && !documented.includes(r))).toEqual([]);
    });

    it('every Query and Mutation root field of schema/schema.graphql has a row', () => {
      const covered = new Set(GQL_ROWS.map((r) => r.field));
      expect(ROOT_FIELDS.filter((r) => !covered.has(r.field)).map((r) => `${r.op} ${r.field}`)).toEqual([]);
      expect([...covered].filter((c) => !ROOT_FIELDS.some((r) => r.field === c))).toEqual([]);
    });

    it('every /api route has a row (the GraphQL rows, called through /api), and every row an /api route', () => {
      const routes = [...apiRoutes.keys()];
      const fields = new Set(GQL_ROWS.map((r) => r.field.toLowerCase()));
      expect(routes.filter((r) => !fields.has(r))).toEqual([]);
      expect([...fields].filter((r) => !apiRoutes.has(r))).toEqual([]);
      expect(routes.length).toBe(ROOT_FIELDS.length);
    });

    it(`the matrix: ${REST_CELLS.length} REST cells (${REST_ROWS.length} rows × ${REST_PRINCIPALS.length}), ${GQL_CELLS.length} GraphQL cells and ${API_CELLS.length} /api cells (${GQL_ROWS.length} rows × ${GQL_PRINCIPALS.length} each)`, () => {
      expect(ALL_CELLS.length).toBe(REST_ROWS.length * REST_PRINCIPALS.length + 2 * GQL_ROWS.length * GQL_PRINCIPALS.length);
      expect(new Set(ALL_CELLS.map((c) => c.name)).size).toBe(ALL_CELLS.length);
    });
  });

  // Concurrent within a block (bounded by vitest's maxConcurrency): the blocks still run one after the other.
  describe.concurrent('refusals and reads', () => {
    for (const cell of FIRST) it(cell.name, cell.run);
  });

  it("no refused call changed the owner's data; the owner's OAuth code and token still work", async () => {
    expect(await ownerState()).toEqual(before);
    expect((await t.client.request('GET', '/v1/invoices?offset=0&limit=1', { token: f.liveOAuth })).status).toBe(200);
    expect((await t.client.request('GET', '/v1/invoices?offset=0&limit=1', { token: f.keys.victim.secret })).status).toBe(200);
    const exchanged = await t.client.request('POST', '/v2/oauth-apps/token', {
      rawBody: form({ grant_type: 'authorization_code', code: f.pendingCode, redirect_uri: REDIRECT }),
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(f.app.id, f.app.secret) },
    });
    expect(exchanged.status).toBe(200);
  });

  describe.concurrent('allowed writes', () => {
    for (const cell of LAST) it(cell.name, cell.run);
  });

  it("after the allowed writes, only the limited key's revokes changed the owner's data", async () => {
    const after = await ownerState();
    const revoked = (r: any) => ({ ...r, status: 'REVOKED', revokedAt: expect.any(Number), canceledAmount: r.amount, remainingAmount: 0, cancelReason: 'REVOKED' });
    expect(after.invoices).toEqual(before.invoices);
    expect(after.deposits).toEqual(before.deposits);
    expect(after.receipts).toEqual([before.receipts[0], revoked(before.receipts[1]), revoked(before.receipts[2]), revoked(before.receipts[3])]);
    expect(after.dashboardView).toEqual(before.dashboardView);
    expect(after.invoiceCount).toBe(before.invoiceCount);
    expect(after.depositCount).toBe(before.depositCount);
  });
});
