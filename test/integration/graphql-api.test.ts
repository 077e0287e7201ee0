/** The GraphQL face: typed errors on mutations, node(id:) over prefixed ids with the same visibility rules, literals. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addVerifiedBankAccount, bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { dbLabel, startTestApp, type TestApp } from '../helpers/app.ts';

const CREATE = `mutation($input: CreateInvoiceInput!) { createInvoice(input: $input) { __typename ... on InvoicePayload { invoice { id status } } ... on DomainError { code message field data } } }`;

describe(`GraphQL API on ${dbLabel}`, () => {
  let t: TestApp;
  let a: Bootstrapped;
  let b: Bootstrapped;
  beforeAll(async () => {
    t = await startTestApp();
    [a, b] = await Promise.all([bootstrap(t.client), bootstrap(t.client)]);
  });
  afterAll(() => t?.stop());

  describe('typed errors (result unions)', () => {
    it('createInvoice returns InvoicePayload on success', async () => {
      const r = await t.client.gql(CREATE, { input: { bankAccountIds: [], customer: { name: '그래프' }, amount: 1000 } }, a.apiKey.secret);
      expect(r.createInvoice).toEqual({ __typename: 'InvoicePayload', invoice: { id: expect.stringMatching(/^ivc_/), status: 'PENDING' } });
    });

    it('a conflict is a DomainError with the code and the conflicting invoice in data', async () => {
      const first = await t.client.gql(CREATE, { input: { bankAccountIds: [], customer: { name: '중복' }, amount: 2000 } }, a.apiKey.secret);
      const r = await t.client.graphql(CREATE, { input: { bankAccountIds: [], customer: { name: '중복' }, amount: 2000 } }, a.apiKey.secret);
      expect(r.errors).toBeUndefined();
      expect(r.data!.createInvoice).toEqual({
        __typename: 'DomainError',
        code: 'INVOICE_ALREADY_EXISTS',
        message: expect.any(String),
        field: null,
        data: { invoiceId: first.createInvoice.invoice.id, number: expect.any(Number) },
      });
    });

    it('a validation failure names the field', async () => {
      const r = await t.client.gql(CREATE, { input: { bankAccountIds: [], customer: { name: '공백 있음' }, amount: 1 } }, a.apiKey.secret);
      expect(r.createInvoice).toMatchObject({ __typename: 'DomainError', code: 'INVALID_CUSTOMER_NAME', field: ['customer', 'name'] });
    });

    it('inline literal input objects are accepted (not only variables)', async () => {
      const r = await t.client.gql(`mutation { createInvoice(input: {bankAccountIds: [], customer: {name: "리터럴"}, amount: 3000, metadata: {order: "A-1"}}) { ... on InvoicePayload { invoice { amount metadata } } } }`, {}, a.apiKey.secret);
      expect(r.createInvoice.invoice).toEqual({ amount: 3000, metadata: { order: 'A-1' } });
    });

    it('an unauthenticated call is refused with UNAUTHENTICATED', async () => {
      const r = await t.client.graphql(CREATE, { input: { bankAccountIds: [], customer: { name: 'x' }, amount: 1 } });
      expect(r.data?.createInvoice ?? null).toMatchObject({ __typename: 'DomainError', code: 'UNAUTHENTICATED' });
    });
  });

  describe('node(id:)', () => {
    it('fetches invoices, deposits and receipts by prefixed id with __typename', async () => {
      const inv = await t.client.gql(CREATE, { input: { bankAccountIds: [], customer: { name: '노드' }, amount: 4000 } }, a.apiKey.secret);
      const id = inv.createInvoice.invoice.id;
      const dep = await t.client.deposit(a.bankAccount.notificationToken, { depositorName: '노드', amount: 4000 });
      const r = await t.client.gql(
        `query($i: ID!, $t: ID!) { i: node(id: $i) { __typename id ... on Invoice { status } } t: node(id: $t) { __typename id ... on Transaction { matchedInvoiceId } } }`,
        { i: id, t: dep.body.transactionId },
        a.apiKey.secret,
      );
      expect(r.i).toEqual({ __typename: 'Invoice', id, status: 'PAID' });
      expect(r.t).toEqual({ __typename: 'Transaction', id: dep.body.transactionId, matchedInvoiceId: id });
      const many = await t.client.gql(`query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, { ids: [dep.body.transactionId, 'ivc_' + 'x'.repeat(24), id] }, a.apiKey.secret);
      expect(many.nodes).toEqual([{ id: dep.body.transactionId }, null, { id }]);
    });

    it('another workspace gets null; an account-limited key gets null for an invoice outside its accounts', async () => {
      const inv = await t.client.gql(CREATE, { input: { bankAccountIds: [a.bankAccount.id], customer: { name: '격리노드' }, amount: 5000 } }, a.apiKey.secret);
      const id = inv.createInvoice.invoice.id;
      expect((await t.client.gql(`query($id: ID!) { node(id: $id) { id } }`, { id }, b.apiKey.secret)).node).toBeNull();
      const other = await addVerifiedBankAccount(t.client, a.sessionToken);
      const key = await t.client.gql(`mutation($i: CreateApiKeyInput!) { createApiKey(input: $i) { secret } }`, { i: { name: 'lim', bankAccountIds: [other.id] } }, a.sessionToken);
      expect((await t.client.gql(`query($id: ID!) { node(id: $id) { id } }`, { id }, key.createApiKey.secret)).node).toBeNull();
      expect((await t.client.gql(`query($id: ID!) { node(id: $id) { id } }`, { id }, a.apiKey.secret)).node).toEqual({ id });
    });

    it('dashboard objects (webhooks, API keys) only for sessions', async () => {
      const k = await t.client.gql(`{ apiKeys { id } }`, {}, a.sessionToken);
      const keyId = k.apiKeys[0].id;
      expect((await t.client.gql(`query($id: ID!) { node(id: $id) { __typename id } }`, { id: keyId }, a.sessionToken)).node).toEqual({ __typename: 'ApiKey', id: keyId });
      expect((await t.client.gql(`query($id: ID!) { node(id: $id) { id } }`, { id: keyId }, a.apiKey.secret)).node).toBeNull();
      expect((await t.client.gql(`query($id: ID!) { node(id: $id) { id } }`, { id: keyId }, b.sessionToken)).node).toBeNull();
    });

    it('the workspace and the signed-in account are nodes too', async () => {
      const r = await t.client.gql(`query($w: ID!, $a: ID!) { w: node(id: $w) { __typename id } a: node(id: $a) { __typename id } }`, { w: a.workspaceId, a: a.accountId }, a.sessionToken);
      expect(r).toEqual({ w: { __typename: 'Workspace', id: a.workspaceId }, a: { __typename: 'Account', id: a.accountId } });
    });
  });

  it('an ambiguous deposit: a key limited to bank accounts sees only the candidate invoices within them in matchNote', async () => {
    const second = await addVerifiedBankAccount(t.client, a.sessionToken);
    const create = async (name: string, bankAccountIds: string[]) => {
      const r = await t.client.request('POST', '/v1/invoices', { token: a.apiKey.secret, body: { bankAccountIds, customer: { name }, amount: 31_000 } });
      expect(r.status).toBe(201);
      return r.body.data.id as string;
    };
    // Both bracket-free names are 모호함: a deposit named so on the second account could pay either (one takes every account).
    const everywhere = await create('모호함(1)', []);
    const onSecond = await create('모호함(2)', [second.id]);
    const dep = await t.client.deposit(second.notificationToken, { depositorName: '모호함', amount: 31_000 });
    expect(dep.status).toBe(201);
    const limited = await t.client.gql(`mutation($i: CreateApiKeyInput!) { createApiKey(input: $i) { secret } }`, { i: { name: 'limited', bankAccountIds: [second.id] } }, a.sessionToken);
    const Q = `query($id: ID!) { transaction(id: $id) { matchedInvoiceId matchNote } }`;
    const full = await t.client.gql(Q, { id: dep.body.transactionId }, a.apiKey.secret);
    expect(full.transaction.matchedInvoiceId).toBeNull();
    expect(full.transaction.matchNote).toMatchObject({ reason: 'AMBIGUOUS' });
    expect([...full.transaction.matchNote.candidateInvoiceIds].sort()).toEqual([everywhere, onSecond].sort());
    const seen = await t.client.gql(Q, { id: dep.body.transactionId }, limited.createApiKey.secret);
    expect(seen.transaction.matchNote).toMatchObject({ reason: 'AMBIGUOUS', candidateInvoiceIds: [onSecond] });
  });
});

