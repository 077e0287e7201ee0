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
});
