/**
 * Seeds pending invoices into one workspace in SQL (INSERT ... SELECT over generate_series, never row by row), valid
 * for the app: ids of the `ivc_` form, numbers unique per workspace and the workspace's invoiceSeq bumped past them,
 * searchText as invoiceSearchText() builds it, bankAccountIds empty (= all accounts) or the workspace's account,
 * status PENDING and unexpired, createdAt spread over the last 90 days in number order, updatedAt = createdAt.
 *
 * The spread is meant to look like a shop's: 3-syllable Korean names from weighted surnames (most), names with a
 * bracketed order note, long company names (longer than the banks' depositor-name truncation) and romanized names;
 * half the amounts at ~40 popular price points (skewed: 10,000 won alone is ~8% of all invoices), half cart totals
 * between 1,000 and 300,990 won in 10-won steps. (name, amount) pairs are distinct, as the conflict check guarantees
 * for pending invoices that share accounts.
 *
 * Above BULK_THRESHOLD rows the secondary indexes of "Invoice" are dropped and re-created with their exact
 * definitions around the insert (the usual bulk-load practice; same indexes afterwards), then VACUUM ANALYZE.
 */
import pg from 'pg';
import { bareNameSql, nameKeySql } from '../../../src/domain/deposits/depositor-name.ts';

const BULK_THRESHOLD = 50_000;

const SURNAMES = '김김김김김김김김이이이이이이박박박박최최최정정정강강조조윤윤장장임임한오서신권황안송류전홍고문양손배백허유남심노하곽성차주우구민진나지엄채원천방공현함변염여추도소석선설마길연위표명기반왕금옥육인맹제모탁국'.split('');
const SYLLABLES = '민서지현준영수은하윤도우진예주연아성원재호희동혜정경훈상태승유채빈용철석규나리라미소다인진혁환찬기선진태우혜란숙자순옥명애화남길중일범건율온별솔결담슬'.split('');
const ROMAN_SURNAMES = ['KIM', 'LEE', 'PARK', 'CHOI', 'JUNG', 'KANG', 'CHO', 'YOON', 'JANG', 'LIM'];
const ROMAN_GIVEN = ['MINSU', 'JIHOON', 'SEOYEON', 'HYUNWOO', 'JIWOO', 'YUNA', 'DOHYUN', 'SUBIN', 'HAEUN', 'JUNHO', 'YERIN', 'SIWOO'];
const COMPANY_SUFFIX = ['상사', '컴퍼니', '물산', '디자인', '스튜디오', '커머스'];
const POPULAR_AMOUNTS = [
  10000, 9900, 20000, 30000, 15000, 50000, 29000, 5000, 19900, 39000, 12000, 25000, 35000, 49000, 100000, 45000, 59000, 8900, 99000, 150000,
  13000, 18000, 22000, 27000, 33000, 55000, 69000, 79000, 89000, 120000, 3000, 4500, 6900, 7500, 11000, 14900, 24900, 34900, 44000, 200000,
];

const lit = (xs: readonly (string | number)[]) => `ARRAY[${xs.map((x) => (typeof x === 'number' ? String(x) : `'${x}'`)).join(',')}]`;

export interface SeedTarget {
  workspaceId: string;
  ownerId: string;
  apiKeyId: string;
  bankAccountId: string;
  count: number;
  /** Varies the pseudo-random stream between seeds. */
  salt: number;
}

export interface SeedResult {
  inserted: number;
  firstNumber: number;
  lastNumber: number;
  seconds: { generate: number; insert: number; indexes: number; vacuumAnalyze: number };
}

export async function seedInvoices(databaseUrl: string, t: SeedTarget): Promise<SeedResult> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  const clock = () => performance.now() / 1000;
  try {
    await c.query(`SET maintenance_work_mem = '512MB'`);
    await c.query(`SET work_mem = '256MB'`);
    const h = (k: number, v = 'g') => `abs(hashint8extended(${v}, ${t.salt * 100 + k}))`;
    const name = `CASE
        WHEN ${h(1)} % 100 < 85 THEN (${lit(SURNAMES)})[1 + ${h(2)} % ${SURNAMES.length}] || (${lit(SYLLABLES)})[1 + ${h(3)} % ${SYLLABLES.length}] || (${lit(SYLLABLES)})[1 + ${h(4)} % ${SYLLABLES.length}]
        WHEN ${h(1)} % 100 < 90 THEN (${lit(SURNAMES)})[1 + ${h(2)} % ${SURNAMES.length}] || (${lit(SYLLABLES)})[1 + ${h(3)} % ${SYLLABLES.length}] || (${lit(SYLLABLES)})[1 + ${h(4)} % ${SYLLABLES.length}] || '(' || (100 + ${h(5)} % 9900)::text || ')'
        WHEN ${h(1)} % 100 < 95 THEN (${lit(SYLLABLES)})[1 + ${h(3)} % ${SYLLABLES.length}] || (${lit(SYLLABLES)})[1 + ${h(4)} % ${SYLLABLES.length}] || (${lit(SYLLABLES)})[1 + ${h(5)} % ${SYLLABLES.length}] || (${lit(SYLLABLES)})[1 + ${h(6)} % ${SYLLABLES.length}] || (${lit(COMPANY_SUFFIX)})[1 + ${h(7)} % ${COMPANY_SUFFIX.length}]
        ELSE (${lit(ROMAN_SURNAMES)})[1 + ${h(2)} % ${ROMAN_SURNAMES.length}] || (${lit(ROMAN_GIVEN)})[1 + ${h(3)} % ${ROMAN_GIVEN.length}]
      END`;
    const amount = `CASE
        WHEN ${h(10)} % 100 < 50 THEN (${lit(POPULAR_AMOUNTS)})[1 + floor(${POPULAR_AMOUNTS.length} * power((${h(11)} % 100000) / 100000.0, 2))::int]
        ELSE 1000 + (${h(12)} % 30000) * 10
      END`;

    let t0 = clock();
    await c.query(`DROP TABLE IF EXISTS seed_pairs`);
    await c.query(
      `CREATE TEMP TABLE seed_pairs AS
         SELECT row_number() OVER (ORDER BY hashint8extended(g, $2::bigint)) AS rn, g, name, amount
           FROM (SELECT DISTINCT ON (name, amount) g, name, amount
                   FROM (SELECT g, ${name} AS name, ${amount} AS amount FROM generate_series(1, ($1::int * 3) / 2 + 100) g) s
                  ORDER BY name, amount, g) d`,
      [t.count, t.salt],
    );
    const [{ n: distinct }] = (await c.query<{ n: string }>(`SELECT count(*) AS n FROM seed_pairs`)).rows;
    if (Number(distinct) < t.count) throw new Error(`seed: only ${distinct} distinct (name, amount) pairs for ${t.count} invoices`);
    const generate = clock() - t0;

    await c.query('BEGIN');
    const [{ invoiceSeq: base }] = (await c.query<{ invoiceSeq: number }>(`SELECT "invoiceSeq" FROM "Workspace" WHERE id = $1 FOR UPDATE`, [t.workspaceId])).rows;
    const bulk = t.count > BULK_THRESHOLD;
    const indexDefs = bulk
      ? (
          await c.query<{ indexname: string; indexdef: string }>(
            `SELECT i.indexname, i.indexdef FROM pg_indexes i
              WHERE i.schemaname = current_schema() AND i.tablename = 'Invoice'
                AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conname = i.indexname)`,
          )
        ).rows
      : [];
    for (const d of indexDefs) await c.query(`DROP INDEX "${d.indexname}"`);

    t0 = clock();
    const ins = await c.query(
      `INSERT INTO "Invoice" (id, "workspaceId", number, "issuerId", "createdByApiKeyId", status, "bankAccountIds", "customerName",
           "customerNameKey", "customerNameBare", "customerEmail", "customerPhoneNumber", "cashReceiptType", "cashReceiptIdentifier", amount, metadata, "searchText", "expiresAt",
           "createdAt", "updatedAt")
       SELECT 'ivc_' || substr(md5($6::text || ':' || p.g::text), 1, 24),
              $1, $5 + p.rn, $2, $3, 'PENDING',
              CASE WHEN ${h(20, 'p.g')} % 10 < 3 THEN ARRAY[$4]::text[] ELSE '{}'::text[] END,
              p.name, ${nameKeySql('p.name')}, ${bareNameSql(nameKeySql('p.name'))},
              x.email, x.phone, NULL, NULL, p.amount,
              CASE WHEN ${h(23, 'p.g')} % 5 = 0 THEN jsonb_build_object('orderId', 'ord-' || p.g::text) END,
              array_to_string(ARRAY[lower(replace(p.name, '-', '')), lower(replace(x.email, '-', '')), replace(x.phone, '-', '')], chr(1)),
              CASE WHEN ${h(24, 'p.g')} % 4 = 0 THEN now() + make_interval(days => 1 + (${h(25, 'p.g')} % 30)::int) END,
              x.created, x.created
         FROM seed_pairs p
         CROSS JOIN LATERAL (SELECT
              CASE WHEN ${h(21, 'p.g')} % 10 < 3 THEN 'buyer' || p.g::text || '@example.com' END AS email,
              CASE WHEN ${h(22, 'p.g')} % 10 < 4 THEN '010' || lpad((${h(22, 'p.g')} % 100000000)::text, 8, '0') END AS phone,
              now() - make_interval(secs => (($7::int - p.rn) * (90.0 * 86400 / $7::int))) - interval '1 minute' AS created) x
        WHERE p.rn <= $7`,
      [t.workspaceId, t.ownerId, t.apiKeyId, t.bankAccountId, base, t.salt, t.count],
    );
    const insert = clock() - t0;
    t0 = clock();
    for (const d of indexDefs) await c.query(d.indexdef);
    const indexes = clock() - t0;
    await c.query(`UPDATE "Workspace" SET "invoiceSeq" = "invoiceSeq" + $2 WHERE id = $1`, [t.workspaceId, ins.rowCount]);
    await c.query('COMMIT');
    await c.query(`DROP TABLE seed_pairs`);
    t0 = clock();
    await c.query(`VACUUM (ANALYZE) "Invoice"`);
    const vacuumAnalyze = clock() - t0;
    return { inserted: ins.rowCount ?? 0, firstNumber: base + 1, lastNumber: base + (ins.rowCount ?? 0), seconds: { generate, insert, indexes, vacuumAnalyze } };
  } catch (e) {
    await c.query('ROLLBACK').catch(() => {});
    throw e;
  } finally {
    await c.end();
  }
}

export interface DepositTarget {
  /** The invoice the deposit is meant to pay (null: none should match). */
  invoiceId: string | null;
  depositorName: string;
  amount: number;
}

export type DepositKind = 'exact' | 'prefix' | 'bracket' | 'none';

/**
 * Deposits for a deterministic random sample of seeded, pending, unexpired invoices that can receive on the account:
 *  exact    the depositor name is the invoice's name (EXACT);
 *  prefix   a long name as a bank that keeps `truncation` characters sends it (NAME_PREFIX);
 *  bracket  the name without its bracketed note, e.g. 김민수(1234) → 김민수 (BRACKET_REMOVAL, unless an invoice is
 *           named exactly that);
 *  none     a name no invoice has, at the most common amount (no match: the slowest path).
 */
export async function pickDeposits(
  databaseUrl: string,
  t: { workspaceId: string; bankAccountId: string; truncation: number },
  kind: DepositKind,
  count: number,
  salt: number,
): Promise<DepositTarget[]> {
  if (kind === 'none') return Array.from({ length: count }, (_, k) => ({ invoiceId: null, depositorName: `미확인입금${salt}${k}`, amount: 10000 }));
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  const name =
    kind === 'exact' ? `"customerName"` : kind === 'prefix' ? `left("customerName", $5)` : `regexp_replace("customerName", '\\([^()]*\\)', '', 'g')`;
  const filter =
    kind === 'exact' ? 'TRUE' : kind === 'prefix' ? `char_length("customerName") > $5` : `"customerName" ~ '^[^()]+\\([^()]*\\)$'`;
  try {
    const r = await c.query<DepositTarget>(
      `SELECT id AS "invoiceId", ${name} AS "depositorName", amount FROM "Invoice"
        WHERE "workspaceId" = $1 AND status = 'PENDING' AND ("expiresAt" IS NULL OR "expiresAt" > now() + interval '1 hour')
          AND (cardinality("bankAccountIds") = 0 OR $2 = ANY("bankAccountIds")) AND ${filter}
        ORDER BY md5(id || $3::text) LIMIT $4`,
      [t.workspaceId, t.bankAccountId, `${kind}${salt}`, count, ...(kind === 'prefix' ? [t.truncation] : [])],
    );
    return r.rows;
  } finally {
    await c.end();
  }
}
