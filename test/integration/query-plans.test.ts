/**
 * Plans and write paths of hot statements, checked on the database itself (the embedded PostgreSQL, and
 * TEST_DATABASE_URL): they must stay index-driven as tables grow (test/bench/README.md, events).
 *
 * Hot statements are prepared, so after a few executions PostgreSQL runs their generic plan, chosen without the
 * parameter values: that is the plan checked here (plan_cache_mode = force_generic_plan).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.ts';
import { DISPATCH_BATCH_SQL } from '../../src/events/outbox-dispatcher.ts';
import { exactCandidatesSql, nameCandidatesSql } from '../../src/domain/deposits/candidates.ts';
import { CONFLICTING_INVOICE_SQL } from '../../src/domain/invoices/invoices.ts';
import { SqlParams } from '../../src/domain/sql.ts';
import { dbLabel, freshDatabase, type TestDatabase } from '../helpers/app.ts';

const INVOICES = 5_000;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

/**
 * The plan of `sql` as EXPLAIN (FORMAT JSON) gives it; nothing is executed. With `generic`, the generic plan of the
 * statement prepared with parameters typed `types` and explained with `args` (how hot, prepared statements run after a
 * few executions); else the custom plan for `values`.
 */
async function explain(db: TestDatabase, sql: string, values: unknown[], generic?: { types: string[]; args: string[] }): Promise<PlanNode> {
  return db.database.sql.transaction(async (q) => {
    let rows: { 'QUERY PLAN': unknown }[];
    if (generic) {
      await q.query(`SET LOCAL plan_cache_mode = force_generic_plan`);
      await q.query(`PREPARE plan_check(${generic.types.join(', ')}) AS ${sql}`);
      try {
        rows = await q.query(`EXPLAIN (FORMAT JSON) EXECUTE plan_check(${generic.args.join(', ')})`);
      } finally {
        await q.query(`DEALLOCATE plan_check`);
      }
    } else {
      rows = await q.query(`EXPLAIN (FORMAT JSON) ${sql}`, values);
    }
    const json = typeof rows[0]!['QUERY PLAN'] === 'string' ? JSON.parse(rows[0]!['QUERY PLAN'] as string) : rows[0]!['QUERY PLAN'];
    return (json as { Plan: PlanNode }[])[0]!.Plan;
  });
}

describe(`query plans on ${dbLabel}`, () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase();
    await migrate(db.database);
    await db.database.sql.exec(
      `INSERT INTO "Account" (id, email, name, "passwordHash") VALUES ('acc_plan', 'plan@example.com', 'p', 'x');
       INSERT INTO "Workspace" (id, name, "ownerId") VALUES ('wsp_plan', 'w', 'acc_plan');
       INSERT INTO "Invoice" (id, "workspaceId", number, "issuerId", "customerName", amount, "searchText")
         SELECT 'ivc_plan' || g, 'wsp_plan', g, 'acc_plan', '손님' || g, 1000 + g, 'x' || g FROM generate_series(1, ${INVOICES}) g;
       INSERT INTO "Event" (id, "workspaceId", sequence, type, "invoiceId", data)
         SELECT 'evt_plan' || g, 'wsp_plan', g, 'invoice.paid', 'ivc_plan' || g, '{}'::jsonb FROM generate_series(1, ${INVOICES}) g;
       ANALYZE "Invoice"; ANALYZE "Event"; ANALYZE "OutboxEntry";`,
    );
  }, 120_000);
  afterAll(async () => {
    await db.database.close();
    await db.drop();
  });

  /** The generic plan of `sql` (parameters typed `types`), as EXPLAIN (FORMAT JSON) gives it. Nothing is executed. */
  const genericPlan = (sql: string, types: string[], args: string[]) => explain(db, sql, [], { types, args });


  it(`the outbox dispatcher reads each event's invoice by primary key, never by scanning every invoice (${INVOICES.toLocaleString('en')} invoices)`, async () => {
    const plan = await genericPlan(DISPATCH_BATCH_SQL, ['timestamptz', 'text[]', 'text[]'], [`now()`, `'{invoice.paid}'`, `'{invoice.paid}'`]);
    const onInvoice = nodes(plan).filter((n) => n['Relation Name'] === 'Invoice');
    expect(onInvoice.map((n) => n['Node Type'])).toEqual(['Index Scan']);
    expect(onInvoice[0]['Index Name']).toBe('Invoice_pkey');
  });

  it(`the outbox dispatcher reads each claimed event by primary key, never by scanning every event (${INVOICES.toLocaleString('en')} events)`, async () => {
    const plan = await genericPlan(DISPATCH_BATCH_SQL, ['timestamptz', 'text[]', 'text[]'], [`now()`, `'{invoice.paid}'`, `'{invoice.paid}'`]);
    const onEvent = nodes(plan).filter((n) => n['Relation Name'] === 'Event');
    expect(onEvent.map((n) => [n['Node Type'], n['Index Name']])).toEqual([['Index Scan', 'Event_pkey']]);
  });

  it('every inserted event is queued in its own transaction (a rolled-back one is not), and dispatching deletes the queue rows without updating an event', async () => {
    const queued = async (ids: string[]) =>
      (await db.database.sql.query<{ id: string }>(`SELECT "eventId" AS id FROM "OutboxEntry" WHERE "eventId" = ANY($1::text[]) ORDER BY "eventId"`, [ids])).map((r) => r.id);
    const insert = `INSERT INTO "Event" (id, "workspaceId", sequence, type, "invoiceId", data)
                    SELECT 'evt_queue' || g, 'wsp_plan', 100000 + g, 'invoice.paid', 'ivc_plan' || g, '{}'::jsonb FROM generate_series($1::int, $2::int) g`;
    await db.database.sql
      .transaction(async (q) => {
        await q.query(insert, [1, 2]);
        throw new Error('roll back');
      })
      .catch(() => {});
    expect(await queued(['evt_queue1', 'evt_queue2'])).toEqual([]);
    await db.database.sql.query(insert, [3, 4]);
    expect(await queued(['evt_queue3', 'evt_queue4'])).toEqual(['evt_queue3', 'evt_queue4']);
    // The dispatcher's statement takes queued events (the oldest first, up to its batch) off the queue, updating none.
    const updated = await db.database.sql.transaction(async (q) => {
      let claimed = 0;
      for (;;) {
        const rows = await q.query(DISPATCH_BATCH_SQL, [new Date().toISOString(), ['invoice.paid'], ['invoice.paid']]);
        if (rows.length === 0) break;
        claimed += rows.length;
      }
      expect(claimed).toBe(INVOICES + 2);
      const [row] = await q.query<{ n: string | number }>(`SELECT pg_stat_get_xact_tuples_updated('"Event"'::regclass) AS n`);
      return Number(row.n);
    });
    expect(updated).toBe(0);
    expect(await queued(['evt_queue3', 'evt_queue4'])).toEqual([]);
  });

  it('paying an invoice is a heap-only update: no index of "Invoice" covers a column the payment changes', async () => {
    const paidColumns = ['status', 'paidAt', 'paidTrigger', 'updatedAt'];
    const indexed = await db.database.sql.query<{ index: string; column: string }>(
      `SELECT c.relname AS index, a.attname AS column
         FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum > 0
        WHERE i.indrelid = '"Invoice"'::regclass
          AND (a.attnum = ANY (i.indkey) OR pg_get_expr(i.indexprs, i.indrelid) LIKE '%' || a.attname || '%'
               OR pg_get_expr(i.indpred, i.indrelid) LIKE '%' || a.attname || '%')`,
    );
    expect(indexed.length).toBeGreaterThan(5);
    expect(indexed.filter((r) => paidColumns.includes(r.column))).toEqual([]);
    // And PostgreSQL does update the row in place (the page has room: fillfactor).
    const hot = await db.database.sql.transaction(async (q) => {
      const paid = await q.query(
        `UPDATE "Invoice" SET status = 'PAID', "paidAt" = now(), "paidTrigger" = 'DEPOSIT', "updatedAt" = now() WHERE id = 'ivc_plan7' RETURNING id`,
      );
      expect(paid).toHaveLength(1);
      const [row] = await q.query<{ n: string | number }>(`SELECT pg_stat_get_xact_tuples_hot_updated('"Invoice"'::regclass) AS n`);
      return Number(row.n);
    });
    expect(hot).toBe(1);
  });

  it('every trigram GIN index merges its pending list at 256 kB, not at the 4 MB default (one long merge inside a deposit held the workspace up)', async () => {
    const gin = await db.database.sql.query<{ index: string; options: string[] | null }>(
      `SELECT c.relname AS index, c.reloptions AS options
         FROM pg_class c JOIN pg_am am ON am.oid = c.relam
        WHERE am.amname = 'gin' AND c.relnamespace = current_schema()::regnamespace ORDER BY c.relname`,
    );
    expect(gin.map((g) => g.index)).toEqual(['CashReceipt_searchText_idx', 'Invoice_searchText_idx', 'Transaction_searchText_idx']);
    for (const g of gin) expect({ index: g.index, options: g.options }).toEqual({ index: g.index, options: ['gin_pending_list_limit=256'] });
  });
});

/**
 * Depositor-name lookups (deposit matching, the conflict check) on a database of their own whose amounts look like a
 * shop's (a few prices, many names each), so that the planner has to pick the index by the name: they must look the
 * normalised name up in its index, never read every invoice of a price.
 */
describe(`depositor-name lookup plans on ${dbLabel}`, () => {
  const NAMES = 20_000;
  const NAME_INDEXES = ['Invoice_name_prefix_idx', 'Invoice_workspaceId_amount_customerNameBare_idx'];
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase();
    await migrate(db.database);
    // 40 prices x 500 names; the bracket-free names repeat across orders ('kim7(1507)', 'kim7(3507)', ...).
    await db.database.sql.exec(
      `INSERT INTO "Account" (id, email, name, "passwordHash") VALUES ('acc_names', 'names@example.com', 'p', 'x');
       INSERT INTO "Workspace" (id, name, "ownerId") VALUES ('wsp_names', 'w', 'acc_names');
       INSERT INTO "Invoice" (id, "workspaceId", number, "issuerId", "customerName", "customerNameKey", "customerNameBare", amount, "searchText")
         SELECT 'ivc_names' || g, 'wsp_names', g, 'acc_names', 'Kim' || (g % 2000) || '(' || g || ')', 'kim' || (g % 2000) || '(' || g || ')', 'kim' || (g % 2000),
                10000 + 100 * (g % 40), 'x' FROM generate_series(1, ${NAMES}) g;
       ANALYZE "Invoice";`,
    );
  }, 120_000);
  afterAll(async () => {
    await db.database.close();
    await db.drop();
  });

  const plan = (sql: string, values: unknown[], generic?: { types: string[]; args: string[] }) => explain(db, sql, values, generic);

  const scansOf = (p: PlanNode) => nodes(p).filter((n) => n['Relation Name'] === 'Invoice' || n['Index Name']).map((n) => [n['Node Type'], n['Index Name'] ?? null]);
  const e = (s: SqlParams) => ({ workspaceId: s.p('wsp_names'), bankAccountId: s.p('bac_x'), amount: s.p(10700, '::int'), now: new Date() });

  it('EXACT candidates (prepared: the generic plan) look the normalised name up in Invoice_name_prefix_idx', async () => {
    const s = new SqlParams();
    const sql = exactCandidatesSql(s, { ...e(s), name: s.p('kim7(1507)') });
    const p = await plan(sql, s.values, { types: ['text', 'text', 'int', 'text', 'timestamptz'], args: [`'wsp_names'`, `'bac_x'`, '10700', `'kim7(1507)'`, 'now()'] });
    expect(scansOf(p)).toEqual([['Index Scan', 'Invoice_name_prefix_idx']]);
  });

  it('the conflict check (prepared: the generic plan) looks the normalised name up in Invoice_name_prefix_idx', async () => {
    const p = await plan(CONFLICTING_INVOICE_SQL, [], { types: ['text', 'text', 'int', 'timestamptz', 'text', 'text[]'], args: [`'wsp_names'`, `'kim7(1507)'`, '10700', 'now()', `''`, `'{}'`] });
    expect(scansOf(p)).toEqual([['Index Scan', 'Invoice_name_prefix_idx']]);
  });

  it.each([
    ['BRACKET_REMOVAL only', 'kim7', null],
    ['BRACKET_REMOVAL or NAME_PREFIX', 'kim7(15', 'kim7(15%'],
  ])('the fallback candidates (%s; sent with their values) use only the name indexes', async (_label, bare, prefix) => {
    const s = new SqlParams();
    const p = await plan(nameCandidatesSql(s, { ...e(s), bare, prefix }), s.values);
    const scans = scansOf(p);
    expect(scans.filter(([type]) => type === 'Seq Scan')).toEqual([]);
    expect(scans.flatMap(([, index]) => (index ? [index] : [])).filter((i) => !NAME_INDEXES.includes(i))).toEqual([]);
    expect(scans.some(([, index]) => index !== null)).toBe(true);
  });
});
