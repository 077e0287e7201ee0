/** N+1-free GraphQL: a list of 100 invoices with their deposits and history costs a bounded number of SQL statements. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { dbLabel, startTestApp, type TestApp } from '../helpers/app.ts';

describe(`GraphQL query counts on ${dbLabel}`, () => {
  let t: TestApp;
  let m: Bootstrapped;
  beforeAll(async () => {
    t = await startTestApp();
    m = await bootstrap(t.client);
    for (let i = 0; i < 100; i++) {
      const r = await t.client.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds: [], customer: { name: `고객${i}` }, amount: 1000 + i } });
      expect(r.status).toBe(201);
      if (i % 3 === 0) await t.client.deposit(m.bankAccount.notificationToken, { depositorName: `고객${i}`, amount: 1000 + i });
    }
    for (let i = 0; i < 7; i++) expect((await t.client.request('POST', '/v1/cash-receipts', { token: m.apiKey.secret, body: { type: 'PERSONAL', identifier: '01012345678', amount: 1000 + i } })).status).toBe(201);
    // Background workers also talk to the database; stop them so only the request's statements are counted.
    await Promise.all([t.app.workers.dispatcher.stop(), t.app.workers.webhooks.stop(), t.app.workers.jobs.stop()]);
  });
  afterAll(() => t?.stop());

  const LIST = `query($n: Int!) { invoicePage(offset: 0, limit: $n) { totalItems items { id status customer { name } transactions { id amount matchMethod bankAccount { id } } history { type createdAt } } } }`;
  const CONN = `query($n: Int!) { invoices(first: $n) { totalCount edges { cursor node { id transactions { id matchedInvoice { id } } } } } }`;

  async function countFor(query: string, n: number) {
    const { result, queries } = await t.app.db.queryCounter.measure(() => t.client.gql(query, { n }, m.apiKey.secret));
    return { result, queries };
  }

  it('100 invoices with deposits and history: the same small number of statements as 10', async () => {
    const ten = await countFor(LIST, 10);
    const hundred = await countFor(LIST, 100);
    expect(hundred.result.invoicePage.items).toHaveLength(100);
    expect(hundred.result.invoicePage.items.filter((i: { transactions: unknown[] }) => i.transactions.length === 1)).toHaveLength(34);
    expect(hundred.queries).toBe(ten.queries);
    expect(hundred.queries).toBeLessThanOrEqual(8);
  });

  it('the Relay connection is bounded the same way', async () => {
    const ten = await countFor(CONN, 10);
    const hundred = await countFor(CONN, 100);
    expect(hundred.result.invoices.totalCount).toBe(100);
    expect(hundred.result.invoices.edges).toHaveLength(100);
    expect(hundred.queries).toBe(ten.queries);
    expect(hundred.queries).toBeLessThanOrEqual(8);
  });

  it('pages follow each other by cursor without overlap', async () => {
    const first = await t.client.gql(`{ invoices(first: 40) { edges { cursor node { id } } pageInfo { hasNextPage endCursor } } }`, {}, m.apiKey.secret);
    const second = await t.client.gql(`query($a: String) { invoices(first: 40, after: $a) { edges { node { id } } pageInfo { hasNextPage hasPreviousPage } } }`, { a: first.invoices.pageInfo.endCursor }, m.apiKey.secret);
    const ids1 = first.invoices.edges.map((e: { node: { id: string } }) => e.node.id);
    const ids2 = second.invoices.edges.map((e: { node: { id: string } }) => e.node.id);
    expect(ids1).toHaveLength(40);
    expect(ids2).toHaveLength(40);
    expect(ids1.filter((id: string) => ids2.includes(id))).toEqual([]);
    expect(first.invoices.pageInfo.hasNextPage).toBe(true);
    expect(second.invoices.pageInfo).toEqual({ hasNextPage: true, hasPreviousPage: true });
  });

  it('first above 100 is refused with LIMIT_EXCEEDS_MAXIMUM', async () => {
    const r = await t.client.graphql(`{ invoices(first: 101) { totalCount } }`, {}, m.apiKey.secret);
    expect(r.errors?.[0].extensions?.code).toBe('LIMIT_EXCEEDS_MAXIMUM');
  });

  // The three lists share one helper; each connection must window the same ids as its offset page.
  describe.each([
    ['invoices', 'invoicePage'],
    ['transactions', 'transactionPage'],
    ['cashReceipts', 'cashReceiptPage'],
  ])('%s (Relay) against %s (offset)', (conn, page) => {
    type Conn = { totalCount: number; edges: { cursor: string; node: { id: string } }[]; pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null } };
    const SELECT = `totalCount edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor }`;
    const query = (args: string, vars: Record<string, unknown>, select: string) => {
      const decl = Object.keys(vars).map((k) => `$${k}: String`).join(', ');
      return `query${decl ? `(${decl})` : ''} { c: ${conn}(${args}) { ${select} } }`;
    };
    const connection = async (args: string, vars: Record<string, unknown> = {}) => (await t.client.gql(query(args, vars, SELECT), vars, m.apiKey.secret)).c as Conn;
    const ids = (c: Conn) => c.edges.map((e) => e.node.id);
    let all: { totalItems: number; items: { id: string }[] };
    beforeAll(async () => {
      all = (await t.client.gql(`{ p: ${page}(offset: 0, limit: 100) { totalItems items { id } } }`, {}, m.apiKey.secret)).p;
      expect(all.items.length).toBeGreaterThanOrEqual(7);
    });

    it('first, then first/after from a cursor, give the page\'s ids in its order', async () => {
      const head = await connection('first: 5');
      expect(ids(head)).toEqual(all.items.slice(0, 5).map((i) => i.id));
      expect(head.totalCount).toBe(all.totalItems);
      expect(head.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false, startCursor: head.edges[0]!.cursor, endCursor: head.edges[4]!.cursor });
      const next = await connection('first: 2, after: $a', { a: head.edges[2]!.cursor });
      expect(ids(next)).toEqual(all.items.slice(3, 5).map((i) => i.id));
      expect(next.pageInfo.hasPreviousPage).toBe(true);
    });

    it('last/before pages backwards', async () => {
      const head = await connection('first: 6');
      const back = await connection('last: 2, before: $b', { b: head.edges[5]!.cursor });
      expect(ids(back)).toEqual(all.items.slice(3, 5).map((i) => i.id));
      expect(back.totalCount).toBe(all.totalItems);
    });

    it('first: 0 gives the total and no edges', async () => {
      expect(await connection('first: 0')).toEqual({ totalCount: all.totalItems, edges: [], pageInfo: { hasNextPage: true, hasPreviousPage: false, startCursor: null, endCursor: null } });
    });

    it.each([
      ['first: 1, last: 1', {}],
      ['last: 1', {}],
      ['first: 1, after: $a', { a: 'not-a-cursor' }],
    ])('%s is VALIDATION_FAILED', async (args, vars) => {
      const r = await t.client.graphql(query(args, vars, 'totalCount'), vars, m.apiKey.secret);
      expect(r.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
    });

    it('the offset page refuses a limit above 100 and a negative offset as the REST lists do', async () => {
      const over = await t.client.graphql(`{ ${page}(offset: 0, limit: 101) { totalItems } }`, {}, m.apiKey.secret);
      expect(over.errors?.[0]?.extensions?.code).toBe('LIMIT_EXCEEDS_MAXIMUM');
      const negative = await t.client.graphql(`{ ${page}(offset: -1, limit: 1) { totalItems } }`, {}, m.apiKey.secret);
      expect(negative.errors?.[0]?.extensions?.code).toBe('INVALID_OFFSET');
    });
  });
});
