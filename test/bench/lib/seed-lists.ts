/**
 * Seeds the `lists` scenario's workspace in SQL (INSERT ... SELECT over generate_series, never row by row): invoices,
 * deposits (Transaction rows) and cash receipts, spread over the last two years, each row as the app would have
 * written it (the row-level rules of test/helpers/invariants.ts and the schema):
 *
 *  - invoices: 3-character Korean names (surnames weighted as in Korea: 김 ~21 %, 이 ~15 %, 박 ~8 %, 최, 정 ...; two-
 *    syllable given names), 5 % company names, 5 % romanized; e-mail (~35 %) and phone (~60 %); (name, amount) pairs
 *    distinct (the create conflict check); 37 % PENDING, 55 % PAID (60 % of them by a deposit, the rest API_CALL),
 *    8 % CANCELED (half through v1 DELETE); 60 % with an expiry 1-14 days after creation (so most pending ones are
 *    EXPIRED, the recent ones not); 30 % limited to the workspace's account;
 *  - deposits: one EXACT-matched deposit per invoice paid by DEPOSIT (same name and amount, at its paidAt), the rest
 *    unmatched deposits of other names (3 % hidden), to the workspace's account;
 *  - receipts: ORIGINAL receipts (85 % ISSUED, 5 % FAILED, 10 % REVOKED — each revoked one with its ISSUED
 *    CANCELLATION receipt of the full amount), PERSONAL (phone) and CORPORATE (business number).
 *
 * Not seeded: the history lines and outbox events of these rows (the lists do not read them).
 * Secondary indexes of the three tables are dropped and re-created with their exact definitions around the inserts,
 * then VACUUM ANALYZE (the usual bulk-load practice; same indexes afterwards). Triggers are off during the load
 * (session_replication_role = replica); where the migrations keep list counts, they are rebuilt from the rows after.
 */
import pg from 'pg';
import { bareNameSql, nameKeySql } from '../../../src/domain/deposits/depositor-name.ts';

/** Surnames with their approximate share (per mille) of the Korean population; the rest spread over the tail. */
const SURNAME_WEIGHTS: [string, number][] = [
  ['김', 215], ['이', 147], ['박', 84], ['최', 47], ['정', 43], ['강', 24], ['조', 21], ['윤', 21], ['장', 20], ['임', 17],
  ['한', 15], ['오', 15], ['서', 15], ['신', 14], ['권', 14], ['황', 14], ['안', 14], ['송', 13], ['류', 12], ['전', 11],
  ['홍', 11], ['고', 9], ['문', 9], ['양', 9], ['손', 9], ['배', 8], ['백', 8], ['허', 6], ['유', 6], ['남', 6],
  ['심', 6], ['노', 5], ['하', 4], ['곽', 4], ['성', 4], ['차', 4], ['주', 4], ['우', 4], ['구', 4], ['민', 3],
  ['진', 3], ['나', 3], ['지', 3], ['엄', 3], ['채', 3], ['원', 3], ['천', 2], ['방', 2], ['공', 2], ['현', 2],
  ['함', 2], ['변', 2], ['염', 2], ['여', 2], ['추', 1], ['도', 1], ['소', 1], ['석', 1], ['선', 1], ['설', 1],
];
const SURNAMES = SURNAME_WEIGHTS.flatMap(([s, w]) => Array<string>(w).fill(s));
const SYLLABLES = '민서지현준영수은하윤도우진예주연아성원재호희동혜정경훈상태승유채빈용철석규나리라미소다인혁환찬기선란숙자순옥명애화남길중일범건율온별솔결담슬'.split('');
const ROMAN_SURNAMES = ['KIM', 'LEE', 'PARK', 'CHOI', 'JUNG', 'KANG', 'CHO', 'YOON', 'JANG', 'LIM'];
const ROMAN_GIVEN = ['MINSU', 'JIHOON', 'SEOYEON', 'HYUNWOO', 'JIWOO', 'YUNA', 'DOHYUN', 'SUBIN', 'HAEUN', 'JUNHO', 'YERIN', 'SIWOO'];
const COMPANY_SUFFIX = ['상사', '컴퍼니', '물산', '디자인', '스튜디오', '커머스'];
const MAIL_DOMAINS = ['naver.com', 'gmail.com', 'daum.net', 'kakao.com', 'hanmail.net', 'nate.com'];
const POPULAR_AMOUNTS = [
  10000, 9900, 20000, 30000, 15000, 50000, 29000, 5000, 19900, 39000, 12000, 25000, 35000, 49000, 100000, 45000, 59000, 8900, 99000, 150000,
];

const lit = (xs: readonly (string | number)[]) => `ARRAY[${xs.map((x) => (typeof x === 'number' ? String(x) : `'${x}'`)).join(',')}]`;
const pick = (xs: readonly (string | number)[], hash: string) => `(${lit(xs)})[1 + ${hash} % ${xs.length}]`;

export interface ListsSeedTarget {
  workspaceId: string;
  ownerId: string;
  apiKeyId: string;
  bankAccountId: string;
  /** bankAccountSnapshot() of that account (stored on each deposit). */
  bankAccountSnapshot: unknown;
  bankAccountNumber: string;
  corpNum: string;
  invoices: number;
  deposits: number;
  receipts: number;
}

export interface ListsSeedResult {
  invoices: number;
  deposits: number;
  receipts: number;
  seconds: number;
}

const DAYS = 730;

export async function seedLists(databaseUrl: string, t: ListsSeedTarget): Promise<ListsSeedResult> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  const t0 = performance.now();
  try {
    await c.query(`SET maintenance_work_mem = '512MB'`);
    await c.query(`SET work_mem = '256MB'`);
    // Triggers off for the bulk load (the list counts' per-row triggers would queue 2.2 million events); the counts
    // are then computed once from the rows, where the migrations keep them.
    await c.query(`SET session_replication_role = replica`);
    const h = (k: number, v = 'g') => `abs(hashint8extended(${v}, ${k}))`;
    const korean = (v: string) => `${pick(SURNAMES, h(2, v))} || ${pick(SYLLABLES, h(3, v))} || ${pick(SYLLABLES, h(4, v))}`;
    const name = (v: string) => `CASE
        WHEN ${h(1, v)} % 100 < 90 THEN ${korean(v)}
        WHEN ${h(1, v)} % 100 < 95 THEN ${pick(SYLLABLES, h(3, v))} || ${pick(SYLLABLES, h(4, v))} || ${pick(SYLLABLES, h(5, v))} || ${pick(COMPANY_SUFFIX, h(7, v))}
        ELSE ${pick(ROMAN_SURNAMES, h(2, v))} || ${pick(ROMAN_GIVEN, h(3, v))}
      END`;
    const amount = (v: string) => `CASE
        WHEN ${h(10, v)} % 100 < 50 THEN (${lit(POPULAR_AMOUNTS)})[1 + floor(${POPULAR_AMOUNTS.length} * power((${h(11, v)} % 100000) / 100000.0, 2))::int]
        ELSE 1000 + (${h(12, v)} % 30000) * 10
      END`;

    await c.query('BEGIN');
    const indexDefs = (
      await c.query<{ indexname: string; indexdef: string }>(
        `SELECT i.indexname, i.indexdef FROM pg_indexes i
          WHERE i.schemaname = current_schema() AND i.tablename IN ('Invoice', 'Transaction', 'CashReceipt')
            AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conname = i.indexname)`,
      )
    ).rows;
    for (const d of indexDefs) await c.query(`DROP INDEX "${d.indexname}"`);

    // ── invoices ──
    const [{ invoiceSeq: base }] = (await c.query<{ invoiceSeq: number }>(`SELECT "invoiceSeq" FROM "Workspace" WHERE id = $1 FOR UPDATE`, [t.workspaceId])).rows;
    await c.query(
      `CREATE TEMP TABLE seed_pairs ON COMMIT DROP AS
         SELECT row_number() OVER (ORDER BY hashint8extended(g, 7)) AS rn, g, name, amount
           FROM (SELECT DISTINCT ON (name, amount) g, name, amount
                   FROM (SELECT g, ${name('g')} AS name, ${amount('g')} AS amount FROM generate_series(1, ($1::int * 3) / 2 + 100) g) s
                  ORDER BY name, amount, g) d`,
      [t.invoices],
    );
    const canceledBy = `jsonb_build_object('type', 'SECRET_API_KEY', 'accountId', NULL, 'apiKeyId', $3::text, 'name', 'default')`;
    const inv = await c.query(
      `INSERT INTO "Invoice" (id, "workspaceId", number, "issuerId", "createdByApiKeyId", status, "bankAccountIds", "customerName",
           "customerNameKey", "customerNameBare", "customerEmail", "customerPhoneNumber", amount, metadata, "searchText", "expiresAt",
           "paidAt", "paidTrigger", "canceledAt", "cancelReason", "canceledBy", "deletedViaV1", "createdAt", "updatedAt")
       SELECT 'ivc_' || substr(md5('i:' || p.g::text), 1, 24), $1, $5 + p.rn, $2, $3, x.status::"InvoiceStatus",
              CASE WHEN ${h(20, 'p.g')} % 10 < 3 THEN ARRAY[$4]::text[] ELSE '{}'::text[] END,
              p.name, ${nameKeySql('p.name')}, ${bareNameSql(nameKeySql('p.name'))}, x.email, x.phone, p.amount,
              CASE WHEN ${h(23, 'p.g')} % 5 = 0 THEN jsonb_build_object('orderId', 'ord-' || p.g::text) END,
              array_to_string(ARRAY[lower(p.name), replace(x.email, '-', ''), replace(x.phone, '-', '')], chr(1)),
              x.expires,
              CASE WHEN x.status = 'PAID' THEN x.done END,
              CASE WHEN x.status = 'PAID' THEN (CASE WHEN ${h(31, 'p.g')} % 100 < 60 THEN 'DEPOSIT' ELSE 'API_CALL' END)::"PaidTrigger" END,
              CASE WHEN x.status = 'CANCELED' THEN x.done END,
              CASE WHEN x.status = 'CANCELED' AND ${h(34, 'p.g')} % 2 = 1 THEN '고객 요청' END,
              CASE WHEN x.status = 'CANCELED' THEN ${canceledBy} END,
              x.status = 'CANCELED' AND ${h(34, 'p.g')} % 2 = 0,
              x.created, coalesce(x.done, x.created)
         FROM seed_pairs p
         CROSS JOIN LATERAL (SELECT now() - make_interval(secs => (($6::int - p.rn) * (${DAYS}.0 * 86400 / $6::int))) - interval '1 minute' AS created) c0
         CROSS JOIN LATERAL (SELECT c0.created,
              CASE WHEN ${h(30, 'p.g')} % 100 < 37 THEN 'PENDING' WHEN ${h(30, 'p.g')} % 100 < 92 THEN 'PAID' ELSE 'CANCELED' END AS status,
              CASE WHEN ${h(21, 'p.g')} % 100 < 35 THEN ${pick(['minsu', 'jiwoo', 'seoyeon', 'hana', 'dool', 'sky', 'happy', 'sun'], h(26, 'p.g'))} || (${h(27, 'p.g')} % 100000)::text || '@' || ${pick(MAIL_DOMAINS, h(28, 'p.g'))} END AS email,
              CASE WHEN ${h(22, 'p.g')} % 100 < 60 THEN '010-' || lpad((${h(22, 'p.g')} % 10000)::text, 4, '0') || '-' || lpad((${h(29, 'p.g')} % 10000)::text, 4, '0') END AS phone,
              CASE WHEN ${h(24, 'p.g')} % 10 < 6 THEN c0.created + make_interval(days => 1 + (${h(25, 'p.g')} % 14)::int) END AS expires,
              least(c0.created + make_interval(secs => (${h(32, 'p.g')} % 80000)::int), now() - interval '1 second') AS done) x
        WHERE p.rn <= $6`,
      [t.workspaceId, t.ownerId, t.apiKeyId, t.bankAccountId, base, t.invoices],
    );
    await c.query(`UPDATE "Workspace" SET "invoiceSeq" = "invoiceSeq" + $2 WHERE id = $1`, [t.workspaceId, inv.rowCount]);

    // ── deposits: one per invoice paid by DEPOSIT, then unmatched ones ──
    const matched = await c.query(
      `INSERT INTO "Transaction" (id, "workspaceId", "bankAccountId", "bankAccountSnapshot", "notificationId", amount, description, "searchText",
           hidden, verification, "matchedInvoiceId", "matchMethod", "matchedAt", "receivedAt", "createdAt", "updatedAt")
       SELECT 'trx_' || substr(md5('m:' || i.id), 1, 24), $1, $2, $3::jsonb, 'seed-m-' || i.number, i.amount, i."customerName",
              $4 || chr(1) || lower(i."customerName"), false, false, i.id, 'EXACT', i."paidAt", i."paidAt", i."paidAt", i."paidAt"
         FROM "Invoice" i WHERE i."workspaceId" = $1 AND i.status = 'PAID' AND i."paidTrigger" = 'DEPOSIT'
        ORDER BY i."paidAt" LIMIT $5`,
      [t.workspaceId, t.bankAccountId, JSON.stringify(t.bankAccountSnapshot), t.bankAccountNumber.replace(/-/g, ''), t.deposits],
    );
    const rest = Math.max(0, t.deposits - (matched.rowCount ?? 0));
    // (Skipped when none are left: the spread over the days divides by their number.)
    if (rest > 0) await c.query(
      `INSERT INTO "Transaction" (id, "workspaceId", "bankAccountId", "bankAccountSnapshot", "notificationId", amount, description, "searchText",
           hidden, verification, "receivedAt", "createdAt", "updatedAt")
       SELECT 'trx_' || substr(md5('u:' || g::text), 1, 24), $1, $2, $3::jsonb, 'seed-u-' || g, ${amount('g + 5000000')}, x.name,
              $4 || chr(1) || lower(x.name), ${h(40)} % 100 < 3, false, x.at, x.at, x.at
         FROM generate_series(1, $5::int) g
         CROSS JOIN LATERAL (SELECT ${name('g + 5000000')} AS name,
              now() - make_interval(secs => (($5::int - g) * (${DAYS}.0 * 86400 / $5::int))) - interval '30 seconds' AS at) x`,
      [t.workspaceId, t.bankAccountId, JSON.stringify(t.bankAccountSnapshot), t.bankAccountNumber.replace(/-/g, ''), rest],
    );

    // ── receipts: originals, and a full cancellation of each revoked one ──
    const originals = Math.round(t.receipts / 1.1);
    if (originals > 0) await c.query(
      `INSERT INTO "CashReceipt" (id, "workspaceId", "issuerId", status, kind, "corpNum", type, identifier, amount, "supplyCost", tax,
           "canceledAmount", "remainingAmount", "ntsConfirmNum", "ntsResultCode", "agencyKey", "failureReason", "searchText",
           "issuedAt", "confirmedAt", "revokedAt", "updatedAt")
       SELECT x.id, $1, $2, x.status::"CashReceiptStatus", 'ORIGINAL', $3, x.type::"CashReceiptType", x.identifier, x.amount,
              round(x.amount / 1.1)::int, x.amount - round(x.amount / 1.1)::int,
              CASE WHEN x.status = 'REVOKED' THEN x.amount ELSE 0 END, CASE WHEN x.status = 'REVOKED' THEN 0 ELSE x.amount END,
              CASE WHEN x.status <> 'FAILED' THEN 'T' || lpad((g * 7919 % 1000000000)::text, 9, '0') END,
              CASE WHEN x.status = 'FAILED' THEN '-99' ELSE '0000' END, x.id,
              CASE WHEN x.status = 'FAILED' THEN '식별번호 오류' END,
              x.identifier || chr(1) || $3, x.at, x.at + interval '2 seconds',
              CASE WHEN x.status = 'REVOKED' THEN x.at + interval '1 hour' END, x.at
         FROM generate_series(1, $4::int) g
         CROSS JOIN LATERAL (SELECT 'crt_' || substr(md5('r:' || g::text), 1, 24) AS id,
              CASE WHEN ${h(50)} % 100 < 85 THEN 'ISSUED' WHEN ${h(50)} % 100 < 90 THEN 'FAILED' ELSE 'REVOKED' END AS status,
              CASE WHEN ${h(51)} % 100 < 80 THEN 'PERSONAL' ELSE 'CORPORATE' END AS type,
              CASE WHEN ${h(51)} % 100 < 80 THEN '010' || lpad((${h(52)} % 100000000)::text, 8, '0') ELSE lpad((${h(53)} % 10000000000)::text, 10, '1') END AS identifier,
              ${amount('g + 9000000')} AS amount,
              now() - make_interval(secs => (($4::int - g) * (${DAYS}.0 * 86400 / $4::int))) - interval '2 hours' AS at) x`,
      [t.workspaceId, t.ownerId, t.corpNum, originals],
    );
    await c.query(
      `INSERT INTO "CashReceipt" (id, "workspaceId", "issuerId", status, kind, "corpNum", type, identifier, amount, "supplyCost", tax,
           "originalId", "cancelReason", "canceledAmount", "remainingAmount", "ntsConfirmNum", "ntsResultCode", "agencyKey", "searchText",
           "issuedAt", "confirmedAt", "updatedAt")
       SELECT 'crt_' || substr(md5('c:' || o.id), 1, 24), o."workspaceId", o."issuerId", 'ISSUED', 'CANCELLATION', o."corpNum", o.type, o.identifier,
              o.amount, o."supplyCost", o.tax, o.id, '거래 취소', 0, o.amount, 'C' || substr(o."ntsConfirmNum", 2), '0000',
              'crt_' || substr(md5('c:' || o.id), 1, 24), o."searchText", o."revokedAt", o."revokedAt" + interval '2 seconds', o."revokedAt"
         FROM "CashReceipt" o WHERE o."workspaceId" = $1 AND o.status = 'REVOKED' AND o.kind = 'ORIGINAL'`,
      [t.workspaceId],
    );
    for (const d of indexDefs) await c.query(d.indexdef);
    await c.query('COMMIT');
    await c.query(`SET session_replication_role = DEFAULT`);
    const [{ rebuild }] = (await c.query<{ rebuild: string | null }>(`SELECT to_regproc('list_counts_rebuild')::text AS rebuild`)).rows;
    if (rebuild) await c.query(`SELECT list_counts_rebuild($1)`, [t.workspaceId]);
    // The short n-grams (one- and two-syllable searches) the triggers write, off during the load: filled from the rows
    // as the short_search_grams migration backfills them.
    const [{ grams }] = (await c.query<{ grams: string | null }>(`SELECT to_regproc('search_grams')::text AS grams`)).rows;
    if (grams) await fillSearchGrams(c, t.workspaceId);
    for (const table of ['Invoice', 'Transaction', 'CashReceipt']) await c.query(`VACUUM (ANALYZE) "${table}"`);
    const n = async (table: string) => Number((await c.query<{ n: string }>(`SELECT count(*) AS n FROM "${table}" WHERE "workspaceId" = $1`, [t.workspaceId])).rows[0].n);
    return { invoices: await n('Invoice'), deposits: await n('Transaction'), receipts: await n('CashReceipt'), seconds: (performance.now() - t0) / 1000 };
  } catch (e) {
    await c.query('ROLLBACK').catch(() => {});
    throw e;
  } finally {
    await c.end();
  }
}

/** The workspace's InvoiceSearchGram and TransactionSearchGram rows, from its invoices and visible deposits. */
export async function fillSearchGrams(c: { query(text: string, values?: unknown[]): Promise<unknown> }, workspaceId: string): Promise<void> {
  await c.query(
    `INSERT INTO "InvoiceSearchGram" ("workspaceId", gram, "createdAt", number, canceled, id)
     SELECT i."workspaceId", g, i."createdAt", i.number, i.status = 'CANCELED', i.id FROM "Invoice" i, unnest(search_grams(i."searchText")) g
      WHERE i."workspaceId" = $1 ON CONFLICT DO NOTHING`,
    [workspaceId],
  );
  await c.query(
    `INSERT INTO "TransactionSearchGram" ("workspaceId", gram, "createdAt", id)
     SELECT t."workspaceId", g, t."createdAt", t.id FROM "Transaction" t, unnest(search_grams(t."searchText")) g
      WHERE t."workspaceId" = $1 AND t."deletedAt" IS NULL ON CONFLICT DO NOTHING`,
    [workspaceId],
  );
  for (const table of ['InvoiceSearchGram', 'TransactionSearchGram']) await c.query(`VACUUM (ANALYZE) "${table}"`);
}
