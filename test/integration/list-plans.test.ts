/**
 * The lists' totals and deep pages stay cheap as a workspace grows (test/bench/README.md, lists): checked on the plans
 * the database runs (EXPLAIN ANALYZE of the statements the list functions send), on PGlite and on PostgreSQL.
 *  - `totalItems` of a filter the kept counts answer reads the counters (ListCount) and, of the invoices, only those
 *    expiring today: never every row of the workspace (it did: `count(*)` over all rows);
 *  - a page near the end is read from the other end: the rows walked are those after it, not all before it.
 * The bound is the rows the plan reads from the listed table (returned plus removed by a filter, times loops).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.ts';
import type { Principal } from '../../src/domain/auth/principal.ts';
import { listCashReceiptIds } from '../../src/domain/cash-receipts/reads.ts';
import { systemClock } from '../../src/domain/clock.ts';
import { listTransactionIds } from '../../src/domain/deposits/transaction-reads.ts';
import type { Deps } from '../../src/domain/deps.ts';
import { listInvoiceIds } from '../../src/domain/invoices/invoices.ts';
import { workspaceRowsSql } from '../helpers/sql-fixtures.ts';
import { dbLabel, freshDatabase, type TestDatabase } from '../helpers/app.ts';

const ROWS = 6_000;
/** Rows a cheap plan may read from the listed table (a page, the invoices expiring today; all rows are 6,000). */
const BOUND = 400;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Parent Relationship'?: string;
  Plans?: PlanNode[];
}
const nodes = (p: PlanNode): PlanNode[] => [p, ...(p.Plans ?? []).flatMap(nodes)];

describe(`list plans on ${dbLabel}`, () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase();
    await migrate(db.database);
    // Invoices over 400 days, a third expiring (some today), mixed statuses; deposits and receipts likewise.
    await db.database.sql.transaction(async (q) => {
      for (const statement of workspaceRowsSql('lplan')) await q.query(statement);
      await q.query(
        `INSERT INTO "Invoice" (id, "workspaceId", number, "issuerId", "customerName", amount, "searchText", status, "expiresAt", "createdAt", "bankAccountIds")
           SELECT 'ivc_lplan' || g, 'wsp_lplan', g, 'acc_lplan', '손님' || g, 1000 + g, 'x' || g,
                  (ARRAY['PENDING', 'PAID', 'PAID', 'CANCELED'])[1 + g % 4]::"InvoiceStatus",
                  CASE WHEN g % 3 = 0 THEN now() - interval '400 days' + g * interval '96 minutes' END,
                  now() - interval '400 days' + g * interval '96 minutes', CASE WHEN g % 5 = 0 THEN ARRAY['bac_lplan'] ELSE '{}' END
             FROM generate_series(1, ${ROWS}) g`,
      );
      await q.query(
        `INSERT INTO "Transaction" (id, "workspaceId", "bankAccountId", "bankAccountSnapshot", "notificationId", amount, description, "searchText", hidden, "receivedAt", "createdAt")
           SELECT 'trx_lplan' || g, 'wsp_lplan', 'bac_lplan', '{}'::jsonb, 'n' || g, 1000 + g, '입금' || g, 'x' || g, g % 20 = 0,
                  now() - g * interval '96 minutes', now() - g * interval '96 minutes'
             FROM generate_series(1, ${ROWS}) g`,
      );
      await q.query(
        `INSERT INTO "CashReceipt" (id, "workspaceId", "issuerId", status, "corpNum", type, identifier, amount, "supplyCost", tax, "remainingAmount", "agencyKey", "searchText", "issuedAt")
           SELECT 'crt_lplan' || g, 'wsp_lplan', 'acc_lplan', 'ISSUED', '1234567890', (ARRAY['PERSONAL', 'CORPORATE'])[1 + g % 2]::"CashReceiptType",
                  '010' || lpad(g::text, 8, '0'), 1100, 1000, 100, 1100, 'k' || g, 'x' || g, now() - g * interval '96 minutes'
             FROM generate_series(1, ${ROWS}) g`,
      );
    });
    for (const table of ['Invoice', 'Transaction', 'CashReceipt', 'ListCount']) await db.database.sql.query(`VACUUM ANALYZE "${table}"`);
  }, 180_000);
  afterAll(async () => {
    await db.database.close();
    await db.drop();
  });

  const principal: Principal = {
    kind: 'API_KEY',
    workspaceId: 'wsp_lplan',
    workspaceOwnerId: 'acc_lplan',
    accountId: null,
    apiKeyId: 'apk_lplan',
    oauthAppId: null,
    credentialId: 'apk_lplan',
    name: 'k',
    readOnly: false,
    bankAccountIds: null,
  };

  /**
   * The parts `list` sends — the total and the page, each with the rows its plan reads from `table` — and what it
   * returned. A page near the start sends both in one statement (`SELECT (<total>) AS n, ARRAY(<page>) AS ids`), whose
   * plan is a Result over one InitPlan each: they are told apart as two parts.
   */
  async function statementsOf(table: string, list: (deps: Deps) => Promise<{ ids: string[]; total: number }>) {
    const sent: { text: string; params: unknown[] }[] = [];
    const record = (text: string, params: unknown[]) => void (/^\s*SET /i.test(text) || sent.push({ text, params }));
    const sql = db.database.sql;
    const deps = {
      clock: systemClock,
      prisma: db.database.prisma,
      sql: {
        query: (text: string, params: unknown[] = []) => (record(text, params), sql.query(text, params)),
        transaction: (fn: (q: { query: typeof sql.query }) => Promise<unknown>) =>
          sql.transaction((q) => fn({ query: (text: string, params: unknown[] = []) => (record(text, params), q.query(text, params)) })),
      },
    } as unknown as Deps;
    const result = await list(deps);
    const out = [];
    for (const s of sent) {
      const rows = await sql.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${s.text}`, s.params);
      const raw = rows[0]!['QUERY PLAN'];
      const plan = ((typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: PlanNode }[])[0]!.Plan;
      const read = (p: PlanNode) =>
        nodes(p)
          .filter((n) => n['Relation Name'] === table)
          .reduce((sum, n) => sum + ((n['Actual Rows'] ?? 0) + (n['Rows Removed by Filter'] ?? 0)) * (n['Actual Loops'] ?? 1), 0);
      const text = s.text.replace(/\s+/g, ' ');
      const combined = /^SELECT \((.*)\) AS n, ARRAY\((SELECT id .*)\) AS ids$/.exec(text);
      if (combined) {
        expect(plan['Node Type']).toBe('Result');
        expect(plan.Plans?.map((p) => p['Parent Relationship'])).toEqual(['InitPlan', 'InitPlan']);
        out.push({ text: combined[1]!, read: read(plan.Plans![0]!) }, { text: combined[2]!, read: read(plan.Plans![1]!) });
      } else out.push({ text, read: read(plan) });
    }
    return { result, statements: out };
  }

  /** `countOnly`: a filter whose page the planner may take by scanning a table this small; its count is checked. */
  const CASES: { name: string; table: string; countOnly?: boolean; list: (deps: Deps) => Promise<{ ids: string[]; total: number }> }[] = [
    { name: 'invoices, no filter (v2)', table: 'Invoice', list: (d) => listInvoiceIds(d, principal, { offset: 0, limit: 20 }) },
    { name: 'invoices, v1 (canceled hidden)', table: 'Invoice', list: (d) => listInvoiceIds(d, principal, { offset: 0, limit: 20, hideCanceled: true }) },
    { name: 'invoices paid=false&expired=false', table: 'Invoice', list: (d) => listInvoiceIds(d, principal, { offset: 0, limit: 20, hideCanceled: true, paid: false, expired: false }) },
    { name: 'invoices expired=true', table: 'Invoice', list: (d) => listInvoiceIds(d, principal, { offset: 0, limit: 20, hideCanceled: true, expired: true }) },
    { name: 'invoices status EXPIRED', table: 'Invoice', list: (d) => listInvoiceIds(d, principal, { offset: 0, limit: 20, statuses: ['EXPIRED'] }) },
    { name: 'invoices, a key limited to one account', table: 'Invoice', list: (d) => listInvoiceIds(d, { ...principal, bankAccountIds: ['bac_lplan'] }, { offset: 0, limit: 20 }) },
    { name: `invoices offset ${ROWS - 30}`, table: 'Invoice', list: (d) => listInvoiceIds(d, principal, { offset: ROWS - 30, limit: 20 }) },
    { name: 'deposits, no filter', table: 'Transaction', list: (d) => listTransactionIds(d, principal, { offset: 0, limit: 20 }) },
    { name: 'deposits matched=false&hidden=false', table: 'Transaction', list: (d) => listTransactionIds(d, principal, { offset: 0, limit: 20, matched: false, hidden: false }) },
    { name: `deposits offset ${ROWS - 30}`, table: 'Transaction', list: (d) => listTransactionIds(d, principal, { offset: ROWS - 30, limit: 20 }) },
    { name: 'receipts, no filter', table: 'CashReceipt', list: (d) => listCashReceiptIds(d, principal, { offset: 0, limit: 20 }) },
    { name: 'receipts status=ISSUED, type=CORPORATE', table: 'CashReceipt', countOnly: true, list: (d) => listCashReceiptIds(d, principal, { offset: 0, limit: 20, status: 'ISSUED', type: 'CORPORATE' }) },
    { name: `receipts offset ${ROWS - 30}`, table: 'CashReceipt', list: (d) => listCashReceiptIds(d, principal, { offset: ROWS - 30, limit: 20 }) },
  ];

  for (const c of CASES) {
    it(`${c.name}: the total${c.countOnly ? '' : ' and the page'} read at most ${BOUND} of the ${ROWS.toLocaleString('en')} rows`, async () => {
      const { result, statements } = await statementsOf(c.table, c.list);
      expect(result.ids.length).toBeGreaterThan(0);
      expect(statements.length).toBe(2);
      for (const s of c.countOnly ? statements.slice(0, 1) : statements) expect(s.read, s.text).toBeLessThanOrEqual(BOUND);
    });
  }

  it('a filter the counts do not keep (a date range) is still counted from the rows, exactly', async () => {
    const { result, statements } = await statementsOf('Invoice', (d) => listInvoiceIds(d, principal, { offset: 0, limit: 20, dateAfter: '2000-01-01' }));
    expect(result.total).toBe(ROWS);
    expect(statements[0]!.text).toMatch(/^SELECT count\(\*\)/);
  });
});
