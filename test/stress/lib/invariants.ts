/**
 * "Nothing half-written": what the database must look like after any number of hostile requests.
 *  - every row the fuzz created was named in a successful answer (no write behind an error answer);
 *  - every invoice has exactly one `created` history line and one invoice.created event, and each later state change
 *    its line and its event (paid, canceled, deleted, updated, unmatched ↔ invoice.paid/canceled/deleted/updated/unpaid);
 *  - states agree with their columns (PAID ⇔ paidAt and paidTrigger; CANCELED ⇔ canceledAt; a deposit-paid invoice
 *    has its one matched deposit; a matched deposit's invoice is PAID by DEPOSIT);
 *  - stored input obeys the spec's limits (name 1-16 characters without spaces, amount > 0, metadata at most 5 string
 *    pairs with keys ≤ 64 and values ≤ 1024 characters);
 *  - per workspace, invoice numbers and event sequences never pass their counters;
 *  - receipts conserve money (supplyCost + tax = amount; canceled + remaining = amount; cancellation receipts point at
 *    an original);
 *  - no Idempotency-Key is left IN_PROGRESS once every request has finished.
 */
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
  const out: string[] = [];
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

  const pairs: [string, string][] = [
    ['created', 'invoice.created'],
    ['paid', 'invoice.paid'],
    ['canceled', 'invoice.canceled'],
    ['deleted', 'invoice.deleted'],
    ['updated', 'invoice.updated'],
    ['unmatched', 'invoice.unpaid'],
  ];
  for (const [h, e] of pairs) {
    report(
      `history '${h}' and event '${e}' do not pair`,
      await q(
        `SELECT i.id, (SELECT count(*)::int FROM "InvoiceHistoryEntry" x WHERE x."invoiceId" = i.id AND x.type = '${h}') AS history,
                (SELECT count(*)::int FROM "Event" v WHERE v."invoiceId" = i.id AND v.type = '${e}') AS events
           FROM "Invoice" i
          WHERE (SELECT count(*) FROM "InvoiceHistoryEntry" x WHERE x."invoiceId" = i.id AND x.type = '${h}')
             <> (SELECT count(*) FROM "Event" v WHERE v."invoiceId" = i.id AND v.type = '${e}')`,
      ),
    );
  }
  report(
    'invoice without exactly one created line',
    await q(`SELECT i.id FROM "Invoice" i WHERE (SELECT count(*) FROM "InvoiceHistoryEntry" x WHERE x."invoiceId" = i.id AND x.type = 'created') <> 1`),
  );
  report(
    'PAID ⇔ paidAt and paidTrigger',
    await q(`SELECT id, status, "paidAt", "paidTrigger" FROM "Invoice" WHERE (status = 'PAID') <> ("paidAt" IS NOT NULL AND "paidTrigger" IS NOT NULL)`),
  );
  report('CANCELED ⇔ canceledAt', await q(`SELECT id, status, "canceledAt" FROM "Invoice" WHERE (status = 'CANCELED') <> ("canceledAt" IS NOT NULL)`));
  report(
    'deposit-paid invoice without exactly one matched deposit',
    await q(`SELECT i.id FROM "Invoice" i WHERE i.status = 'PAID' AND i."paidTrigger" = 'DEPOSIT' AND (SELECT count(*) FROM "Transaction" t WHERE t."matchedInvoiceId" = i.id) <> 1`),
  );
  report(
    'matched deposit whose invoice is not PAID by DEPOSIT, or match columns disagree',
    await q(
      `SELECT t.id, i.status, i."paidTrigger" FROM "Transaction" t LEFT JOIN "Invoice" i ON i.id = t."matchedInvoiceId"
        WHERE (t."matchedInvoiceId" IS NOT NULL AND (i.status IS DISTINCT FROM 'PAID' OR i."paidTrigger" IS DISTINCT FROM 'DEPOSIT' OR i.amount <> t.amount))
           OR (t."matchedInvoiceId" IS NULL) <> (t."matchMethod" IS NULL) OR (t."matchedInvoiceId" IS NULL) <> (t."matchedAt" IS NULL)`,
    ),
  );
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
    'invoice number or event sequence past its counter',
    await q(
      `SELECT w.id, w."invoiceSeq", w."eventSeq",
              (SELECT max(number) FROM "Invoice" i WHERE i."workspaceId" = w.id) AS "maxNumber",
              (SELECT max(sequence) FROM "Event" e WHERE e."workspaceId" = w.id) AS "maxSequence"
         FROM "Workspace" w
        WHERE (SELECT max(number) FROM "Invoice" i WHERE i."workspaceId" = w.id) > w."invoiceSeq"
           OR (SELECT max(sequence) FROM "Event" e WHERE e."workspaceId" = w.id) > w."eventSeq"`,
    ),
  );
  report('event of an invoice that does not exist', await q(`SELECT e.id, e."invoiceId" FROM "Event" e WHERE e."invoiceId" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "Invoice" i WHERE i.id = e."invoiceId")`));
  report(
    'receipt money not conserved',
    await q(
      `SELECT id, amount, "supplyCost", tax, "canceledAmount", "remainingAmount" FROM "CashReceipt"
        WHERE "supplyCost" + tax <> amount OR amount <= 0
           OR (kind = 'ORIGINAL' AND ("canceledAmount" + "remainingAmount" <> amount OR "canceledAmount" < 0 OR "remainingAmount" < 0))
           OR (kind = 'CANCELLATION') <> ("originalId" IS NOT NULL)`,
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
