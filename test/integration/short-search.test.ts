/**
 * List search (spec: GET /v1/invoices and /v1/transactions `search`) through the n-gram tables: a term of one or two
 * characters with a non-ASCII character is answered from "InvoiceSearchGram" / "TransactionSearchGram" (kept by
 * triggers), every other term as before. Whatever the path, a term must find exactly the rows, in the order and with
 * the total, that the plain `"searchText" LIKE '%term%'` predicate finds over the same rows: checked here for every
 * gram the data holds and many other terms (Hangul, Latin, digits, e-mails, full-width and NFD input, spaces across
 * words, LIKE wildcards, 1-5 characters), with each filter that sends the search one way or the other, after inserts,
 * renames, cancellations, payments, deletions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.ts';
import type { Principal } from '../../src/domain/auth/principal.ts';
import type { Deps } from '../../src/domain/deps.ts';
import { listCashReceiptIds } from '../../src/domain/cash-receipts/reads.ts';
import { listTransactionIds } from '../../src/domain/deposits/transaction-reads.ts';
import { invoiceSearchText } from '../../src/domain/invoices/invoice-input.ts';
import { listInvoiceIds } from '../../src/domain/invoices/invoices.ts';
import { shortSearchGram } from '../../src/domain/search-grams.ts';
import { likeContains } from '../../src/domain/sql.ts';
import { searchNormalize } from '../../src/domain/validation.ts';
import { searchTerm } from '../../src/domain/workspace-rows.ts';
import { dbLabel, freshDatabase, type TestDatabase } from '../helpers/app.ts';

const WS = 'wsp_search';
const OTHER_WS = 'wsp_search_other';
const ACCOUNTS = ['bac_search1', 'bac_search2'];
const ACCOUNT_NUMBERS = ['1002-345-678901', '3333-01-2345678'];

/** A small deterministic PRNG (mulberry32), so a failure reproduces. */
function rng(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SURNAMES = ['김', '김', '김', '이', '이', '박', '최', '정', '민', '수'];
const GIVEN = ['민', '수', '지', '현', '준', '영', '서', '연', '길', '동', '김'];
/** Names as merchants and banks send them: Hangul, spaced, bracketed, Latin, full-width, NFD, emoji, mixed. */
function nameOf(r: () => number, i: number): string {
  const pick = <T,>(xs: T[]) => xs[Math.floor(r() * xs.length)]!;
  const hangul = pick(SURNAMES) + pick(GIVEN) + pick(GIVEN);
  switch (i % 10) {
    case 0: return `${pick(SURNAMES)} ${pick(GIVEN)}${pick(GIVEN)}`;
    case 1: return `${hangul}(주문${100 + Math.floor(r() * 900)})`;
    case 2: return pick(['KIM MINSU', 'Lee Jieun', 'park-seoyeon', 'Choi_Min%su']);
    case 3: return pick(['ｋｉｍ민수', '김민수'.normalize('NFD'), '민수😀', 'Lee 지은', '（주）김가네']);
    default: return hangul;
  }
}

const EMAILS = ['minsu.kim@naver.com', 'lee-jieun@gmail.com', 'park_100%@daum.net', '김민수@예시.kr', 'sky@hanmail.net'];

interface Row { id: string; text: string }

describe(`short search terms (n-gram tables) find what LIKE finds, on ${dbLabel}`, () => {
  let db: TestDatabase;
  let deps: Deps;
  const invoices: Row[] = [];
  const deposits: Row[] = [];
  const principal = (bankAccountIds: string[] | null): Principal => ({
    kind: 'API_KEY', workspaceId: WS, workspaceOwnerId: 'acc_search', accountId: null, apiKeyId: 'apk_search', oauthAppId: null,
    credentialId: 'apk_search', name: 'k', readOnly: true, bankAccountIds,
  });

  beforeAll(async () => {
    db = await freshDatabase();
    await migrate(db.database);
    deps = { prisma: db.database.prisma, sql: db.database.sql, clock: { now: () => new Date('2026-11-25T12:00:00Z') } } as unknown as Deps;
    const q = (sql: string, params: unknown[] = []) => db.database.sql.query(sql, params);
    await db.database.sql.exec(
      `INSERT INTO "Account" (id, email, name, "passwordHash") VALUES ('acc_search', 'search@example.com', 'p', 'x');
       INSERT INTO "Workspace" (id, name, "ownerId") VALUES ('${WS}', 'w', 'acc_search'), ('${OTHER_WS}', 'o', 'acc_search');`,
    );
    for (const [i, id] of ACCOUNTS.entries()) {
      await q(
        `INSERT INTO "BankAccount" (id, "workspaceId", "ownerId", provider, type, number, alias, "verificationCode", "notificationTokenHash")
         VALUES ($1, $2, 'acc_search', 'KB', 'PERSONAL', $3, 'a', '123456', $1)`,
        [id, WS, ACCOUNT_NUMBERS[i]],
      );
    }
    const r = rng(20261125);
    // Several rows share a createdAt, so the tie-breakers (number, id) decide the order.
    const at = (i: number) => new Date(Date.UTC(2026, 10, 20 + (i % 5), 3, Math.floor(i / 15))).toISOString();
    for (let i = 0; i < 150; i++) {
      const ws = i % 25 === 24 ? OTHER_WS : WS;
      const fields = {
        customerName: nameOf(r, i),
        customerEmail: r() < 0.6 ? EMAILS[Math.floor(r() * EMAILS.length)]! : null,
        customerPhoneNumber: r() < 0.5 ? `010-${1000 + Math.floor(r() * 9000)}-${1000 + Math.floor(r() * 9000)}` : null,
        cashReceiptIdentifier: r() < 0.2 ? '01012345678' : null,
      };
      const id = `ivc_search${String(i).padStart(18, '0')}`;
      const text = invoiceSearchText(fields);
      await q(
        `INSERT INTO "Invoice" (id, "workspaceId", number, "issuerId", "customerName", "customerEmail", "customerPhoneNumber", "cashReceiptIdentifier",
                                amount, "searchText", "bankAccountIds", "createdAt", "updatedAt")
         VALUES ($1, $2, $3, 'acc_search', $4, $5, $6, $7, 1000, $8, $9::text[], $10::timestamptz, $10::timestamptz)`,
        [id, ws, i + 1, fields.customerName, fields.customerEmail, fields.customerPhoneNumber, fields.cashReceiptIdentifier, text,
          i % 3 === 0 ? [ACCOUNTS[0]] : i % 3 === 1 ? [ACCOUNTS[1]] : [], at(i)],
      );
      invoices.push({ id, text });
    }
    // Deposits: several rows per statement (as a batch of deposits is stored), some in another workspace.
    for (let b = 0; b < 10; b++) {
      const values: string[] = [];
      const params: unknown[] = [];
      for (let k = 0; k < 10; k++) {
        const i = b * 10 + k;
        const account = i % 2;
        const name = nameOf(r, i);
        const text = [ACCOUNT_NUMBERS[account]!, name].map(searchNormalize).join('\u0001');
        const id = `trx_search${String(i).padStart(18, '0')}`;
        const p = (v: unknown) => `$${params.push(v)}`;
        values.push(`(${p(id)}, ${p(i % 20 === 19 ? OTHER_WS : WS)}, ${p(ACCOUNTS[account])}, '{}'::jsonb, ${p(`n${i}`)}, 1000, ${p(name)}, ${p(text)},
                      ${p(i % 7 === 0)}, ${p(at(i))}::timestamptz, ${p(at(i))}::timestamptz, ${p(at(i))}::timestamptz)`);
        deposits.push({ id, text });
      }
      await q(
        `INSERT INTO "Transaction" (id, "workspaceId", "bankAccountId", "bankAccountSnapshot", "notificationId", amount, description, "searchText",
                                    hidden, "receivedAt", "createdAt", "updatedAt") VALUES ${values.join(', ')}`,
        params,
      );
    }
    // Changes after the inserts: renames (the PATCH path), cancellations, payments, a deletion, a withdrawn deposit.
    for (const i of [5, 6, 40, 41]) {
      const text = invoiceSearchText({ customerName: i % 2 ? '민수김' : '새 이름', customerEmail: 'renamed@naver.com', customerPhoneNumber: null, cashReceiptIdentifier: null });
      await q(`UPDATE "Invoice" SET "customerName" = 'x', "searchText" = $2 WHERE id = $1`, [invoices[i]!.id, text]);
      invoices[i]!.text = text;
    }
    await q(`UPDATE "Invoice" SET status = 'CANCELED' WHERE number % 9 = 0`);
    await q(`UPDATE "Invoice" SET status = 'PAID', "paidAt" = now() WHERE number % 4 = 0 AND status = 'PENDING'`);
    await q(`UPDATE "Invoice" SET status = 'PENDING' WHERE number = 18`); // a cancellation undone (not an API path; the trigger must follow it)
    await q(`DELETE FROM "Invoice" WHERE number = 30`);
    await q(`UPDATE "Transaction" SET "deletedAt" = now() WHERE "notificationId" IN ('n3', 'n4')`);
    await q(`UPDATE "Transaction" SET "matchedInvoiceId" = $1, "matchMethod" = 'EXACT', "matchedAt" = now() WHERE "notificationId" = 'n8'`, [invoices[8]!.id]);
  }, 180_000);

  afterAll(async () => {
    await db?.database.close();
    await db?.drop();
  });

  /** Every term the comparison runs: each gram of the data (the indexed path), and ASCII and longer terms around it. */
  function terms(rows: Row[]): string[] {
    const out = new Set<string>(['김', '민수', '수 ', ' 김', '김-', '-김', 'ｋ', 'ｋｉｍ', '김'.normalize('NFD'), '민수'.normalize('NFD'), '😀', '수😀', '（주', '(주',
      '%', '_', '\\', 'n%', '0%', 'a', 'k', '0', '01', '-', '010-', 'kim', 'KIM', 'Kim M', 'm m', '@', '@n', '.c', '김 민', 'e 지', '지은', '길동(', '%su', '_m']);
    const r = rng(7);
    for (const { text } of rows) {
      for (const field of text.split('\u0001')) {
        const cs = [...field];
        for (let i = 0; i < cs.length; i++) {
          out.add(cs[i]!);
          if (i + 1 < cs.length) out.add(cs[i]! + cs[i + 1]!);
          if (r() < 0.08) out.add(cs.slice(i, i + 3 + Math.floor(r() * 3)).join(''));
        }
      }
    }
    return [...out];
  }

  /** Every id the list gives without a search, in its order (pages of 100). */
  async function unsearched(list: (offset: number) => Promise<{ ids: string[]; total: number }>): Promise<string[]> {
    const ids: string[] = [];
    for (;;) {
      const got = await list(ids.length);
      ids.push(...got.ids);
      if (got.ids.length === 0 || ids.length >= got.total) return ids;
    }
  }

  /**
   * What the list answered before the gram tables: the rows its filters give, of those the ones the plain predicate
   * finds (`id = raw OR "searchText" LIKE '%term%'`, deposits also by account or matched invoice id), in the list's order.
   */
  async function likeAnswer(table: 'Invoice' | 'Transaction', listed: string[], search: string): Promise<{ ids: string[]; total: number }> {
    const raw = searchTerm(search);
    const term = searchNormalize(raw);
    const exact = table === 'Invoice' ? `id = $2` : `id = $2 OR "bankAccountId" = $2 OR "matchedInvoiceId" = $2`;
    const rows = await db.database.sql.query<{ id: string }>(`SELECT id FROM "${table}" WHERE id = ANY($1::text[]) AND (${exact} OR "searchText" LIKE $3)`, [
      listed,
      raw,
      likeContains(term),
    ]);
    const found = new Set(rows.map((x) => x.id));
    const ids = term ? listed.filter((id) => found.has(id)) : listed;
    return { ids: ids.slice(0, 100), total: ids.length };
  }

  const invoiceCases: [string, Principal, Record<string, unknown>][] = [
    ['v1 (canceled hidden)', principal(null), { hideCanceled: true }],
    ['all statuses', principal(null), {}],
    ['a KST date range', principal(null), { dateAfter: '2026-11-21', dateBefore: '2026-11-23', hideCanceled: true }],
    ['statuses PENDING and PAID (joined with the grams)', principal(null), { statuses: ['PENDING', 'PAID'] }],
    ['an account-limited key (joined with the grams)', principal([ACCOUNTS[0]!]), { hideCanceled: true }],
  ];

  it.each(invoiceCases)('invoices, %s: every term finds what LIKE finds, in order, with the same total', async (_label, p, filter) => {
    const listed = await unsearched((offset) => listInvoiceIds(deps, p, { ...filter, offset, limit: 100 }));
    expect(listed.length).toBeGreaterThan(20);
    // Every term for the first case, every fourth for the others (PGlite runs a statement at a time).
    const all = terms(invoices).filter((_, i) => p === invoiceCases[0]![1] || i % 4 === 0);
    expect(all.filter((t) => shortSearchGram(searchNormalize(t))).length).toBeGreaterThan(30);
    let found = 0;
    for (const search of all) {
      const expected = await likeAnswer('Invoice', listed, search);
      const actual = await listInvoiceIds(deps, p, { ...filter, offset: 0, limit: 100, search });
      expect({ search, ...actual }).toEqual({ search, ...expected });
      if (expected.total > 0) found++;
    }
    expect(found).toBeGreaterThan(all.length / 3);
  }, 300_000);

  const transactionCases: [string, Principal, Record<string, unknown>][] = [
    ['unfiltered', principal(null), {}],
    ['a KST date range', principal(null), { dateAfter: '2026-11-21', dateBefore: '2026-11-23' }],
    ['hidden=false (joined with the grams)', principal(null), { hidden: false }],
    ['one bank account (joined with the grams)', principal(null), { bankAccountId: ACCOUNTS[1] }],
    ['an account-limited key (joined with the grams)', principal([ACCOUNTS[0]!]), {}],
  ];

  it.each(transactionCases)('transactions, %s: every term finds what LIKE finds, in order, with the same total', async (_label, p, filter) => {
    const listed = await unsearched((offset) => listTransactionIds(deps, p, { ...filter, offset, limit: 100 }));
    expect(listed.length).toBeGreaterThan(20);
    const all = terms(deposits).filter((_, i) => p === transactionCases[0]![1] || i % 4 === 0);
    expect(all.filter((t) => shortSearchGram(searchNormalize(t))).length).toBeGreaterThan(20);
    let found = 0;
    for (const search of all) {
      const expected = await likeAnswer('Transaction', listed, search);
      const actual = await listTransactionIds(deps, p, { ...filter, offset: 0, limit: 100, search });
      expect({ search, ...actual }).toEqual({ search, ...expected });
      if (expected.total > 0) found++;
    }
    expect(found).toBeGreaterThan(all.length / 3);
  }, 300_000);

  it('cash receipts: a search of digits (served by the trigram index) finds what the plain identifier and corpNum predicate finds', async () => {
    const q = (sql: string, params: unknown[] = []) => db.database.sql.query(sql, params);
    const r = rng(3);
    const corpNums = ['1234567890', '2208123456'];
    for (let i = 0; i < 60; i++) {
      const identifier = i % 3 === 0 ? `010${String(Math.floor(r() * 1e8)).padStart(8, '0')}` : i % 3 === 1 ? `0${Math.floor(1e9 + r() * 8e9)}` : `${Math.floor(1e9 + r() * 8e9)}`;
      const corpNum = corpNums[i % 2]!;
      await q(
        `INSERT INTO "CashReceipt" (id, "workspaceId", "issuerId", "corpNum", type, identifier, amount, "supplyCost", tax, "remainingAmount", "agencyKey", "searchText", "issuedAt")
         VALUES ($1, $2, 'acc_search', $3, 'PERSONAL', $4, 1000, 909, 91, 1000, $1, $5, $6::timestamptz)`,
        [`crt_search${String(i).padStart(18, '0')}`, WS, corpNum, identifier, [identifier, corpNum].map(searchNormalize).join('\u0001'), new Date(Date.UTC(2026, 10, 20, 0, i % 7)).toISOString()],
      );
    }
    const listed = await unsearched((offset) => listCashReceiptIds(deps, principal(null), { offset, limit: 100 }));
    expect(listed).toHaveLength(60);
    const searches = new Set(['010', '1234567890', '123-456-7890', '220', '0-1-0', '000', '99', '5', 'crt_search000000000000000001', '12a']);
    const rows = await q(`SELECT identifier FROM "CashReceipt"`) as { identifier: string }[];
    for (const { identifier } of rows.slice(0, 20)) for (const n of [3, 4, 6]) searches.add(identifier.slice(2, 2 + n));
    let found = 0;
    for (const search of searches) {
      const raw = searchTerm(search);
      const digits = raw.replace(/-/g, '');
      const hits = new Set((await q(`SELECT id FROM "CashReceipt" WHERE id = $1 OR "relatedInvoiceId" = $1 OR "corpNum" = $2 OR identifier LIKE $3`, [raw, digits, likeContains(digits)]) as { id: string }[]).map((x) => x.id));
      const expected = listed.filter((id) => hits.has(id));
      const actual = await listCashReceiptIds(deps, principal(null), { offset: 0, limit: 100, search });
      expect({ search, ...actual }).toEqual({ search, ids: expected, total: expected.length });
      if (expected.length > 0) found++;
    }
    expect(found).toBeGreaterThan(searches.size / 2);
  });

  it('a page further down is the same slice of the LIKE answer (ties on createdAt broken the same way)', async () => {
    const INVOICE_ORDER = '"createdAt" DESC, number DESC';
    for (const search of ['김', '민', '수']) {
      const all = (await db.database.sql.query<{ id: string }>(`SELECT id FROM "Invoice" WHERE "workspaceId" = $1 AND "searchText" LIKE $2 ORDER BY ${INVOICE_ORDER}`, [WS, likeContains(search)])).map((x) => x.id);
      expect(all.length).toBeGreaterThan(10);
      const actual = await listInvoiceIds(deps, principal(null), { offset: 3, limit: 5, search });
      expect(actual).toEqual({ ids: all.slice(3, 8), total: all.length });
    }
  });

  it('the gram tables hold exactly the grams of the rows as they are now (the triggers followed every change)', async () => {
    const q = (sql: string) => db.database.sql.query<{ n: string | number }>(sql).then((r) => Number(r[0]!.n));
    const invoiceGrams = `SELECT i."workspaceId", g, i."createdAt", i.number, i.status = 'CANCELED' AS canceled, i.id FROM "Invoice" i, unnest(search_grams(i."searchText")) g`;
    const invoiceTable = `SELECT "workspaceId", gram, "createdAt", number, canceled, id FROM "InvoiceSearchGram"`;
    expect(await q(`SELECT count(*) AS n FROM "InvoiceSearchGram"`)).toBeGreaterThan(300);
    expect(await q(`SELECT count(*) AS n FROM (${invoiceGrams} EXCEPT ALL ${invoiceTable}) d`)).toBe(0);
    expect(await q(`SELECT count(*) AS n FROM (${invoiceTable} EXCEPT ALL ${invoiceGrams}) d`)).toBe(0);
    const depositGrams = `SELECT t."workspaceId", g, t."createdAt", t.id FROM "Transaction" t, unnest(search_grams(t."searchText")) g WHERE t."deletedAt" IS NULL`;
    const depositTable = `SELECT "workspaceId", gram, "createdAt", id FROM "TransactionSearchGram"`;
    expect(await q(`SELECT count(*) AS n FROM "TransactionSearchGram"`)).toBeGreaterThan(200);
    expect(await q(`SELECT count(*) AS n FROM (${depositGrams} EXCEPT ALL ${depositTable}) d`)).toBe(0);
    expect(await q(`SELECT count(*) AS n FROM (${depositTable} EXCEPT ALL ${depositGrams}) d`)).toBe(0);
  });

  it('search_grams (SQL) holds, of a text, the one- and two-character substrings with a non-ASCII character and no field separator', async () => {
    const [row] = await db.database.sql.query<{ g: string[] }>(`SELECT search_grams($1) AS g`, [['홍길동(주문1)', 'a😀b', 'kim@x.kr', '김'].join('\u0001')]);
    expect([...row!.g].sort()).toEqual(['(주', 'a😀', '길', '길동', '동', '동(', '문', '문1', '주', '주문', '홍', '홍길', '😀', '😀b', '김'].sort());
  });
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Parent Relationship'?: string;
  Plans?: PlanNode[];
}

const nodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)];

/**
 * The plans of the statements a short search runs, over a workspace large enough that reading every row would show:
 * the statements are caught as the list function sends them and explained with their parameters.
 */
describe(`short search plans on ${dbLabel}`, () => {
  const ROWS = 20_000;
  let db: TestDatabase;
  let deps: Deps;
  let sent: { sql: string; params: unknown[] }[] = [];
  const principal = (bankAccountIds: string[] | null): Principal => ({
    kind: 'API_KEY', workspaceId: 'wsp_plans', workspaceOwnerId: 'acc_plans', accountId: null, apiKeyId: 'apk_plans', oauthAppId: null,
    credentialId: 'apk_plans', name: 'k', readOnly: true, bankAccountIds,
  });

  beforeAll(async () => {
    db = await freshDatabase();
    await migrate(db.database);
    // Names of 3 syllables, the surname 김 in ~1 of 5 (as in Korea), e-mails and phones; deposits the same names.
    const given = `ARRAY['민','서','지','현','준','영','수','은','하','윤','도','우','진','예','주','연','아','성','원','재','호','희','동','혜','정','경','훈','상','태','승']`;
    const name = (salt: number) => `(ARRAY['김','김','이','박','최'])[1 + abs(hashint4(g + ${salt})) % 5]
      || (${given})[1 + abs(hashint4(g + ${salt + 1})) % 30] || (${given})[1 + abs(hashint4(g + ${salt + 2})) % 30]`;
    await db.database.sql.exec(
      `INSERT INTO "Account" (id, email, name, "passwordHash") VALUES ('acc_plans', 'plans@example.com', 'p', 'x');
       INSERT INTO "Workspace" (id, name, "ownerId") VALUES ('wsp_plans', 'w', 'acc_plans');
       INSERT INTO "BankAccount" (id, "workspaceId", "ownerId", provider, type, number, alias, "verificationCode", "notificationTokenHash")
         VALUES ('bac_plans', 'wsp_plans', 'acc_plans', 'KB', 'PERSONAL', '1002345678901', 'a', '123456', 'h');
       INSERT INTO "Invoice" (id, "workspaceId", number, "issuerId", "customerName", amount, "searchText", "bankAccountIds", "createdAt")
         SELECT 'ivc_plans' || g, 'wsp_plans', g, 'acc_plans', n, 1000, n || chr(1) || 'user' || g || '@naver.com' || chr(1) || '010' || (10000000 + g),
                CASE WHEN g % 2 = 0 THEN '{bac_plans}'::text[] ELSE '{}' END, timestamptz '2026-11-01' + g * interval '1 minute'
           FROM (SELECT g, ${name(0)} AS n FROM generate_series(1, ${ROWS}) g) s;
       INSERT INTO "Transaction" (id, "workspaceId", "bankAccountId", "bankAccountSnapshot", "notificationId", amount, description, "searchText", "receivedAt", "createdAt")
         SELECT 'trx_plans' || g, 'wsp_plans', 'bac_plans', '{}', 'n' || g, 1000, n, '1002345678901' || chr(1) || n, now(), timestamptz '2026-11-01' + g * interval '1 minute'
           FROM (SELECT g, ${name(10)} AS n FROM generate_series(1, ${ROWS}) g) s;`,
    );
    // As autovacuum leaves them (the visibility map is what lets a count read the key alone). The test files share one
    // PostgreSQL: a transaction another file holds open keeps VACUUM from marking the new rows' pages all-visible (seen
    // in CI: the planner then read the n-grams through a bitmap heap scan). VACUUM again until every page is.
    const tables = ['Invoice', 'Transaction', 'InvoiceSearchGram', 'TransactionSearchGram'];
    for (let attempt = 0; ; attempt++) {
      for (const table of tables) await db.database.sql.query(`VACUUM ANALYZE "${table}"`);
      const [v] = await db.database.sql.query<{ visible: boolean }>(
        `SELECT bool_and(relallvisible >= relpages) AS visible FROM pg_class WHERE relname = ANY($1::text[]) AND relkind = 'r'`,
        [tables],
      );
      if (v?.visible || attempt >= 60) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const sql = db.database.sql;
    // The list functions read through the driver (deps.sql): record what they send, and run it.
    const recording: Deps['sql'] = {
      ...sql,
      query: (text, params = [], opts) => {
        sent.push({ sql: text, params });
        return sql.query(text, params, opts);
      },
    };
    deps = { prisma: db.database.prisma, sql: recording, clock: { now: () => new Date('2026-11-25T12:00:00Z') } } as unknown as Deps;
  }, 180_000);

  afterAll(async () => {
    await db?.database.close();
    await db?.drop();
  });

  /**
   * The plans of the count and the page `list` sends, and what it answered. A page near the start sends both in one
   * statement (`SELECT (<count>) AS n, ARRAY(<page>) AS ids`): a Result over one InitPlan each, taken as two plans.
   */
  async function plansOf(list: () => Promise<{ total: number }>): Promise<{ total: number; plans: PlanNode[] }> {
    sent = [];
    const { total } = await list();
    expect(sent.length).toBeGreaterThan(0);
    const plans: PlanNode[] = [];
    for (const { sql, params } of sent) {
      const [row] = await db.database.sql.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) ${sql}`, params);
      const json = typeof row!['QUERY PLAN'] === 'string' ? JSON.parse(row!['QUERY PLAN'] as string) : row!['QUERY PLAN'];
      const plan = (json as { Plan: PlanNode }[])[0]!.Plan;
      const parts = plan['Node Type'] === 'Result' && plan.Plans?.length === 2 && plan.Plans.every((p) => p['Parent Relationship'] === 'InitPlan');
      plans.push(...(parts ? plan.Plans! : [plan]));
    }
    return { total, plans };
  }

  const scans = (plans: PlanNode[]) => plans.flatMap(nodes).filter((n) => n['Relation Name']).map((n) => `${n['Node Type']} ${n['Index Name'] ?? n['Relation Name']}`);

  it.each([
    ['invoices, one syllable (v1)', '김', () => listInvoiceIds(deps, principal(null), { offset: 0, limit: 20, search: '김', hideCanceled: true }), 'InvoiceSearchGram_pkey'],
    ['invoices, two syllables (GraphQL: canceled included)', '민수', () => listInvoiceIds(deps, principal(null), { offset: 0, limit: 20, search: '민수' }), 'InvoiceSearchGram_pkey'],
    ['invoices, one syllable, a date range', '김', () => listInvoiceIds(deps, principal(null), { offset: 0, limit: 20, search: '김', dateAfter: '2026-11-05' }), 'InvoiceSearchGram_pkey'],
    ['deposits, one syllable', '김', () => listTransactionIds(deps, principal(null), { offset: 0, limit: 20, search: '김' }), 'TransactionSearchGram_pkey'],
    ['deposits, two syllables', '민수', () => listTransactionIds(deps, principal(null), { offset: 0, limit: 20, search: '민수' }), 'TransactionSearchGram_pkey'],
  ])('%s: the count and the page read only the n-grams\' key (index-only), never every row', async (_label, term, list, index) => {
    const { total, plans } = await plansOf(list);
    expect(total).toBeGreaterThan(term === '김' ? 2_000 : 5);
    expect(plans).toHaveLength(2);
    for (const plan of plans) expect(scans([plan])).toEqual([`Index Only Scan ${index}`]);
  });

  it.each([
    ['invoices, two syllables, status filter', () => listInvoiceIds(deps, principal(null), { offset: 0, limit: 20, search: '민수', statuses: ['PENDING'] }), 'Invoice'],
    ['invoices, two syllables, account-limited key', () => listInvoiceIds(deps, principal(['bac_plans']), { offset: 0, limit: 20, search: '민수', hideCanceled: true }), 'Invoice'],
    ['deposits, two syllables, hidden=false', () => listTransactionIds(deps, principal(null), { offset: 0, limit: 20, search: '민수', hidden: false }), 'Transaction'],
    ['invoices, three syllables (trigram index)', () => listInvoiceIds(deps, principal(null), { offset: 0, limit: 20, search: '김민수', hideCanceled: true }), 'Invoice'],
    ['deposits, three syllables (trigram index)', () => listTransactionIds(deps, principal(null), { offset: 0, limit: 20, search: '김민수' }), 'Transaction'],
  ])('%s: no statement reads every row of the table', async (_label, list, table) => {
    const { total, plans } = await plansOf(list);
    expect(total).toBeGreaterThan(3);
    const all = scans(plans);
    expect(all.length).toBeGreaterThan(0);
    expect(all.filter((s) => s.startsWith('Seq Scan'))).toEqual([]);
    expect(all.some((s) => s.includes(table))).toBe(true);
  });
});
