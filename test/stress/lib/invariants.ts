/**
 * "Nothing half-written": what the database must look like after any number of hostile requests. The money-path
 * invariants every test shares (paid once, matched once, receipt money conserved, one event and one history line per
 * state change, gap-free sequences: test/helpers/invariants.ts) plus what only a fuzz run can say:
 *  - every row the fuzz created was named in a successful answer (no write behind an error answer);
 *  - states agree with their columns (PAID ⇔ paidAt and paidTrigger; CANCELED ⇔ canceledAt; a deposit's match columns
 *    are all set or all empty);
 *  - stored input obeys the spec's limits (name 1-16 characters without spaces, amount > 0, metadata at most 5 string
 *    pairs with keys ≤ 64 and values ≤ 1024 characters);
 *  - reissue links are symmetric; cancellation receipts point at an original;
 *  - no Idempotency-Key is left IN_PROGRESS once every request has finished; at most 20 webhooks per workspace.
 */
import { checkInvariants as checkMoneyPaths } from '../../helpers/invariants.ts';
import type { Database } from '../../../src/db/database.ts';

export interface InvariantInput {
  db: Database;
  /** Ids of rows that existed before the fuzz (the seed). */
  before: Set<string>;
  /** Every ivc_/trx_/crt_ id seen in an answer. */
  seen: Set<string>;
}

export async function checkInvariants({ db, before, seen }: InvariantInput): Promise<string[]> {
  const q = <T>(text: string) => db.sql.query<T>(text);
  const out: string[] = [...(await checkMoneyPaths(db.sql))];
  const report = (rule: string, rows: unknown[]) => {
    if (rows.length) out.push(`${rule}: ${rows.length} row(s), e.g. ${JSON.stringify(rows.slice(0, 3))}`);
  };

  // Rows written behind an error answer. Receipts issued by a payment (relatedInvoiceId) are made by the server
  // itself and are not named in the answer that paid the invoice.
  const created = await q<{ id: string; kind: string; detail: string }>(
    `SELECT id, 'invoice' AS kind, status::text AS detail FROM "Invoice"
     UNION ALL SELECT id, 'transaction', coalesce("matchedInvoiceId", '') FROM "Transaction" WHERE NOT verification
     UNION ALL SELECT id, 'receipt', concat_ws(' ', kind, status, 'original=' || "originalId", 'reissuedFrom=' || "reissuedFromId", 'invoice=' || "relatedInvoiceId")
       FROM "CashReceipt" WHERE "relatedInvoiceId" IS NULL OR kind = 'CANCELLATION' OR "reissuedFromId" IS NOT NULL`,
  );
  report('rows no successful answer named', created.filter((r) => !before.has(r.id) && !seen.has(r.id)));

  report(
    'PAID ⇔ paidAt and paidTrigger',
    await q(`SELECT id, status, "paidAt", "paidTrigger" FROM "Invoice" WHERE (status = 'PAID') <> ("paidAt" IS NOT NULL AND "paidTrigger" IS NOT NULL)`),
  );
  report('CANCELED ⇔ canceledAt', await q(`SELECT id, status, "canceledAt" FROM "Invoice" WHERE (status = 'CANCELED') <> ("canceledAt" IS NOT NULL)`));
  report(
    'match columns disagree (matchedInvoiceId, matchMethod, matchedAt all set or all empty)',
    await q(`SELECT id FROM "Transaction" WHERE ("matchedInvoiceId" IS NULL) <> ("matchMethod" IS NULL) OR ("matchedInvoiceId" IS NULL) <> ("matchedAt" IS NULL)`),
  );
  report('cancellation receipt without an original', await q(`SELECT id FROM "CashReceipt" WHERE (kind = 'CANCELLATION') <> ("originalId" IS NOT NULL)`));
  report(
    'stored invoice input outside the limits',
    await q(
      `SELECT id, "customerName", amount FROM "Invoice"
        WHERE amount <= 0 OR char_length("customerName") NOT BETWEEN 1 AND 16 OR "customerName" ~ '\\s'
           OR (metadata IS NOT NULL AND (jsonb_typeof(metadata) <> 'object'
               OR (SELECT count(*) FROM jsonb_each(metadata)) > 5
               OR EXISTS (SELECT 1 FROM jsonb_each(metadata) e WHERE jsonb_typeof(e.value) <> 'string' OR char_length(e.key) > 64 OR char_length(e.value #>> '{}') > 1024)))`,
    ),
  );
  report(
    'reissue links not symmetric',
    await q(`SELECT a.id FROM "CashReceipt" a LEFT JOIN "CashReceipt" b ON b.id = a."reissuedToId" WHERE a."reissuedToId" IS NOT NULL AND b."reissuedFromId" IS DISTINCT FROM a.id`),
  );
  report('Idempotency-Key left IN_PROGRESS', await q(`SELECT "workspaceId", key FROM "IdempotencyKey" WHERE state = 'IN_PROGRESS'`));
  report('more than 20 webhooks in a workspace', await q(`SELECT "workspaceId", count(*)::int AS n FROM "Webhook" WHERE "deletedAt" IS NULL GROUP BY 1 HAVING count(*) > 20`));
  return out;
}
