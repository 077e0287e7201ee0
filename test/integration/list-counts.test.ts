/**
 * The lists' `totalItems` stays exact (spec: totalItems is the number of items matching the filter) while it is read
 * from the counts kept per workspace (src/domain/list-counts.ts, the ListCount triggers): after creates, payments by
 * deposit and by API call, cancels, v1 deletes, expiry changes, hidden and un-matched deposits, issued and revoked
 * receipts; as expiries pass (also across a UTC midnight, where the per-day counters change hands); and after a storm
 * of concurrent writes. Each total is checked against the list itself, paged through to the end (the pages do not use
 * the counts), and the kept counts against a count of the rows. Pages read from the far end (deep offsets) are the
 * same pages. Run on PGlite and on PostgreSQL (TEST_DATABASE_URL).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addVerifiedBankAccount, bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { OffsetClock } from '../../src/domain/clock.ts';
import { foldPastExpiryDays, utcDayOf } from '../../src/domain/list-counts.ts';
import { LIST_PAGING } from '../../src/domain/workspace-rows.ts';
import { dbLabel, startTestApp, type TestApp } from '../helpers/app.ts';
import { until } from '../helpers/wait.ts';

const HOUR = 3_600_000;

describe(`list totals from kept counts on ${dbLabel}`, () => {
  let t: TestApp;
  let m: Bootstrapped;
  let accountB: { id: string; notificationToken: string };
  let limitedSecret: string;
  const clock = new OffsetClock();

  beforeAll(async () => {
    t = await startTestApp({ clock, socket: false, env: { RATE_LIMIT_PER_SECOND: '0' } });
    m = await bootstrap(t.client);
    accountB = await addVerifiedBankAccount(t.client, m.sessionToken, { alias: 'second' });
    const key = await t.client.gql<{ createApiKey: { secret: string } }>(
      `mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { secret } }`,
      { input: { name: 'account A only', bankAccountIds: [m.bankAccount.id] } },
      m.sessionToken,
    );
    limitedSecret = key.createApiKey.secret;
  }, 120_000);
  afterAll(async () => {
    LIST_PAGING.deepOffset = 1000;
    await t?.stop();
  });

  const req = (method: string, path: string, body?: unknown, token = m.apiKey.secret) => t.client.request(method, path, { token, body });
  let n = 0;
  const create = async (opts: { expireAfter?: string; accounts?: string[]; name?: string } = {}) => {
    n += 1;
    const r = await req('POST', '/v1/invoices', {
      bankAccountIds: opts.accounts ?? [],
      customer: { name: opts.name ?? `합계손님${n}`, email: `c${n}@example.com` },
      amount: 10_000 + n,
      ...(opts.expireAfter ? { expireAfter: opts.expireAfter } : {}),
    });
    expect(r.status).toBe(201);
    return { id: r.body.data.id as string, name: opts.name ?? `합계손님${n}`, amount: 10_000 + n };
  };
  const deposit = async (name: string, amount: number, token = m.bankAccount.notificationToken) => {
    const r = await t.client.deposit(token, { depositorName: name, amount });
    expect(r.status).toBe(201);
    return r.body.transactionId as string;
  };

  /** Every page of `path` (limit 7): the ids, and the totalItems each page said (all the same). */
  async function pageThrough(path: string, token = m.apiKey.secret): Promise<{ total: number; ids: string[] }> {
    const ids: string[] = [];
    const totals = new Set<number>();
    for (let offset = 0; ; offset += 7) {
      const r = await req('GET', `${path}${path.includes('?') ? '&' : '?'}offset=${offset}&limit=7`, undefined, token);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      totals.add(r.body.totalItems);
      ids.push(...r.body.data.map((x: { id: string }) => x.id));
      if (r.body.data.length < 7) break;
    }
    expect([...totals]).toHaveLength(1);
    return { total: [...totals][0]!, ids };
  }

  const LISTS: { path: string; limited?: boolean }[] = [
    ...['', 'paid=true', 'paid=false', 'expired=true', 'expired=false', 'paid=false&expired=false', 'paid=false&expired=true', 'paid=true&expired=true'].map((q) => ({ path: `/v1/invoices?${q}` })),
    { path: '/v1/invoices', limited: true },
    { path: '/v1/invoices?paid=false&expired=false', limited: true },
    { path: '/v1/invoices?search=합계손님1' },
    ...['', 'status=PENDING', 'status=EXPIRED', 'status=PAID', 'status=CANCELED', 'status=PENDING,EXPIRED', 'status=EXPIRED,CANCELED'].map((q) => ({ path: `/v2/invoices?${q}` })),
    ...['', 'matched=true', 'matched=false', 'hidden=true', 'hidden=false', 'matched=false&hidden=false'].map((q) => ({ path: `/v1/transactions?${q}` })),
    { path: '/v1/transactions', limited: true },
    ...['', 'status=ISSUED', 'status=REVOKED', 'type=CORPORATE', 'type=PERSONAL&status=ISSUED'].map((q) => ({ path: `/v1/cash-receipts?${q}` })),
  ];

  /**
   * Kept counts per cell that differ from a count of the rows (none when the triggers kept them exact). Expiry days
   * before the fold's cutoff count as one day on both sides (folded or not yet, they read alike).
   */
  async function drift(): Promise<unknown[]> {
    const cutoff = new Date(utcDayOf(clock.now()).getTime() - 2 * 24 * HOUR).toISOString();
    return t.app.db.sql.query(
      `WITH kept AS (SELECT "workspaceId", list, k1, k2, CASE WHEN "expiryDay" < $1::timestamptz THEN '-infinity' ELSE "expiryDay" END AS "expiryDay", sum(n)::int AS n
                       FROM "ListCount" GROUP BY 1, 2, 3, 4, 5),
            counted AS (
              SELECT "workspaceId", 'Invoice' AS list, status::text AS k1, list_count_accounts("bankAccountIds") AS k2,
                     CASE WHEN list_count_day("expiresAt") < $1::timestamptz THEN '-infinity' ELSE list_count_day("expiresAt") END AS "expiryDay", count(*)::int AS n
                FROM "Invoice" GROUP BY 1, 2, 3, 4, 5
              UNION ALL SELECT "workspaceId", 'Transaction', "bankAccountId", CASE WHEN "matchedInvoiceId" IS NULL THEN 'U' ELSE 'M' END || CASE WHEN hidden THEN 'H' ELSE '' END, 'infinity'::timestamptz, count(*)::int
                FROM "Transaction" WHERE "deletedAt" IS NULL GROUP BY 1, 2, 3, 4, 5
              UNION ALL SELECT "workspaceId", 'CashReceipt', status::text, type::text, 'infinity'::timestamptz, count(*)::int FROM "CashReceipt" WHERE "deletedAt" IS NULL GROUP BY 1, 2, 3, 4, 5)
       SELECT coalesce(k.list, c.list) AS list, coalesce(k.k1, c.k1) AS k1, coalesce(k.k2, c.k2) AS k2, coalesce(k."expiryDay", c."expiryDay") AS day, k.n AS kept, c.n AS counted
         FROM kept k FULL JOIN counted c USING ("workspaceId", list, k1, k2, "expiryDay")
        WHERE coalesce(k.n, 0) <> coalesce(c.n, 0)`,
      [cutoff],
    );
  }

  /** Every list's totalItems is the number of items it pages through, from either end; the kept counts are exact. */
  async function checkAll(when: string) {
    expect(await drift(), when).toEqual([]);
    for (const l of LISTS) {
      const token = l.limited ? limitedSecret : m.apiKey.secret;
      LIST_PAGING.deepOffset = 1000;
      const forward = await pageThrough(l.path, token);
      expect(forward.ids.length, `${when}: ${l.path}${l.limited ? ' (limited key)' : ''}`).toBe(forward.total);
      expect(new Set(forward.ids).size).toBe(forward.ids.length);
      LIST_PAGING.deepOffset = 1;
      const fromEitherEnd = await pageThrough(l.path, token);
      expect(fromEitherEnd, `${when}: ${l.path} read from the far end past the middle`).toEqual(forward);
    }
    LIST_PAGING.deepOffset = 1000;
  }

  it("a cell's accounts key: sorted, distinct, NULL elements dropped, '' for none (the fast paths agree with the general one)", async () => {
    const cases: ((string | null)[] | null)[] = [[], ['b'], [null], ['b', 'a', 'b'], ['a', null, 'c'], ['c', 'b', 'a'], null];
    for (const ids of cases) {
      const [row] = await t.app.db.sql.query<{ key: string; general: string }>(
        `SELECT list_count_accounts($1::text[]) AS key,
                coalesce(array_to_string(ARRAY(SELECT DISTINCT x FROM unnest($1::text[]) x ORDER BY x), ','), '') AS general`,
        [ids],
      );
      expect(row!.key, JSON.stringify(ids)).toBe(row!.general);
    }
    const [one] = await t.app.db.sql.query<{ key: string }>(`SELECT list_count_accounts(ARRAY['acc_1']) AS key`);
    expect(one!.key).toBe('acc_1');
  });

  it('every filter, after every kind of change and as expiries pass (also across a UTC midnight)', async () => {
    const A = m.bankAccount.id;
    const B = accountB.id;
    const expiries = ['30m', '2h', '1d', '3d', undefined];
    const accountSets = [[], [A], [B], [A, B]];
    const made = [];
    for (let i = 0; i < 20; i++) made.push(await create({ expireAfter: expiries[i % expiries.length], accounts: accountSets[i % accountSets.length] }));
    await checkAll('created');

    // Paid by deposit (account A receives invoices for [] and [A] and [A, B]), by API call; canceled (v2), deleted (v1).
    await deposit(made[0]!.name, made[0]!.amount);
    await deposit(made[1]!.name, made[1]!.amount);
    const matchedTrx = await deposit(made[4]!.name, made[4]!.amount);
    expect((await req('POST', `/v1/invoices/${made[2]!.id}/mark-as-paid`)).status).toBe(200);
    expect((await req('POST', `/v2/invoices/${made[3]!.id}/cancel`, { reason: 'test' })).status).toBe(200);
    expect((await req('DELETE', `/v1/invoices/${made[5]!.id}`)).status).toBe(200);
    // A new expiry moves an invoice to another day's counter; an unmatched, a hidden and an un-matched deposit.
    const in5Days = Math.floor((clock.now().getTime() + 5 * 24 * HOUR) / 1000);
    expect((await req('PATCH', `/v2/invoices/${made[6]!.id}`, { expiresAt: in5Days })).status).toBe(200);
    const stray = await deposit('모르는사람', 1_234);
    await deposit('다른계좌', 2_345, accountB.notificationToken);
    const hide = await t.client.gql(`mutation { setTransactionHidden(id: "${stray}", hidden: true) { __typename } }`, {}, m.sessionToken);
    expect(hide).toBeTruthy();
    const unmatch = await t.client.gql<{ unmatchTransaction: { __typename: string } }>(`mutation { unmatchTransaction(id: "${matchedTrx}") { __typename } }`, {}, m.sessionToken);
    expect(unmatch.unmatchTransaction.__typename).toBe('TransactionPayload');
    // Receipts: issued (settled by the simulated agency), one revoked, one corporate.
    const receipts = [];
    for (const [type, identifier] of [['PERSONAL', '01012345678'], ['PERSONAL', '01087654321'], ['CORPORATE', '1234567890']]) {
      const r = await req('POST', '/v1/cash-receipts', { type, identifier, amount: 11_000 });
      expect(r.status).toBe(201);
      receipts.push(r.body.data.id as string);
    }
    for (const id of receipts) await until(() => req('GET', `/v2/cash-receipts/${id}`), (r) => r.body.data?.status !== 'PENDING');
    expect((await req('POST', `/v1/cash-receipts/${receipts[0]}/revoke`)).status).toBe(200);
    await checkAll('after changes');

    clock.advance(HOUR);
    await checkAll('an hour later (the 30-minute expiries passed)');
    clock.advance(25 * HOUR);
    await checkAll('a day later');
    expect((await req('POST', `/v1/invoices/${made[10]!.id}/mark-as-paid`)).status).toBe(200);
    // Just before and just after the next UTC midnight, with invoices expiring on either side of it.
    const now = clock.now();
    const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
    clock.offsetMs += midnight - 60_000 - now.getTime();
    await create({ expireAfter: '1m' });
    await create({ expireAfter: '2m' });
    await checkAll('a minute before a UTC midnight');
    clock.advance(90_000);
    await checkAll('30 seconds after it');
    clock.advance(60_000);
    await checkAll('90 seconds after it');

    // Days long past folded into one cell per status and accounts; the totals do not move.
    clock.advance(4 * 24 * HOUR);
    const cells = async () => (await t.app.db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM "ListCount" WHERE list = 'Invoice'`))[0]!.n;
    const before = await cells();
    const folded = await foldPastExpiryDays(t.app.deps.sql, clock.now());
    expect(folded).toBeGreaterThan(0);
    expect(await cells()).toBeLessThan(before);
    const [left] = await t.app.db.sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "ListCount" WHERE list = 'Invoice' AND "expiryDay" < $1::timestamptz AND "expiryDay" <> '-infinity'`,
      [new Date(utcDayOf(clock.now()).getTime() - 2 * 24 * HOUR).toISOString()],
    );
    expect(left!.n).toBe(0);
    await checkAll('after folding the days long past');
    // An invoice of a folded day changes: its day's cell comes back (at -1), the sums stay exact; folded again.
    const pendingOld = made.filter((_, i) => i % expiries.length < 3 && i > 10);
    expect(pendingOld.length).toBeGreaterThan(0);
    expect((await req('DELETE', `/v1/invoices/${pendingOld[0]!.id}`)).status).toBe(200);
    await checkAll('a folded day\'s invoice deleted (v1)');
    expect(await foldPastExpiryDays(t.app.deps.sql, clock.now())).toBeGreaterThan(0);
    await checkAll('folded again');
    expect(await foldPastExpiryDays(t.app.deps.sql, clock.now())).toBe(0);
  }, 600_000);

  it('after a storm of concurrent creates, deposits, payments, cancels and folds, and while it runs', async () => {
    // Invoices of a day soon long past, deleted during the storm while the fold runs too.
    const old = [];
    for (let i = 0; i < 6; i++) old.push(await create({ expireAfter: '30m' }));
    clock.advance(4 * 24 * HOUR);
    const pending = [];
    for (let i = 0; i < 16; i++) pending.push(await create({ expireAfter: i % 2 ? '1d' : undefined, accounts: i % 3 ? [] : [m.bankAccount.id] }));
    const writes = [
      ...Array.from({ length: 16 }, (_, i) => () => create({ expireAfter: i % 2 ? '2h' : undefined })),
      ...pending.slice(0, 6).map((p) => () => deposit(p.name, p.amount)),
      ...pending.slice(6, 10).map((p) => () => req('POST', `/v1/invoices/${p.id}/mark-as-paid`)),
      ...pending.slice(10, 13).map((p) => () => req('POST', `/v2/invoices/${p.id}/cancel`, {})),
      ...pending.slice(13, 16).map((p) => () => req('DELETE', `/v1/invoices/${p.id}`)),
      ...Array.from({ length: 10 }, (_, i) => () => deposit(`폭풍입금${i}`, 3_000 + i)),
      // The same invoices paid twice and canceled at once: one of each pair wins, the other is refused.
      ...pending.slice(0, 3).map((p) => () => req('POST', `/v1/invoices/${p.id}/mark-as-paid`)),
      ...old.map((p) => () => req('DELETE', `/v1/invoices/${p.id}`)),
      ...Array.from({ length: 3 }, () => () => foldPastExpiryDays(t.app.deps.sql, clock.now())),
    ];
    const reads = Array.from({ length: 12 }, (_, i) => () => req('GET', i % 2 ? '/v1/invoices?offset=0&limit=20&paid=false&expired=false' : '/v1/transactions?offset=0&limit=20&matched=false'));
    const results = await Promise.all([...writes, ...reads].map((f) => f()));
    for (const r of results) {
      if (typeof r !== 'object' || !r || !('status' in r)) continue;
      // mark-as-paid after the deposit already paid the invoice is refused with 403 INVOICE_ALREADY_PAID (the spec).
      if (r.status === 403) expect((r.body as { code?: string }).code, JSON.stringify(r.body)).toBe('INVOICE_ALREADY_PAID');
      else expect([200, 201, 409], JSON.stringify(r.body)).toContain(r.status);
    }
    await checkAll('after the storm');
  }, 600_000);
});
