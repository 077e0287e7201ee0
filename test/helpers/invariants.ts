/**
 * Whole-database invariants of the money paths, checked from the stored rows alone (so they hold whatever happened
 * before: races, crashes, restarts). `checkInvariants` returns one line per violation; an empty list means all hold.
 *
 *  - invoices paid once: (invoice.paid events − invoice.unpaid events) is 1 for a PAID invoice and 0 otherwise (so
 *    without a dashboard un-match: at most one invoice.paid, exactly one when PAID); the latest invoice.paid says the
 *    invoice's paidTrigger (and, for DEPOSIT, the matched deposit); a CANCELED invoice has exactly one cancel event;
 *  - deposits matched once: a deposit pays at most one invoice and an invoice is paid by at most one deposit (unique
 *    by schema, checked anyway); a matched deposit's invoice is PAID with trigger DEPOSIT, in its workspace, for its
 *    amount (unless matched by hand in the dashboard, MANUAL); a PAID-by-DEPOSIT invoice has exactly one deposit, any
 *    other has none;
 *  - receipts conserve money: for every ORIGINAL receipt, the cancellation receipts that took effect (all but FAILED
 *    ones, which give their amount back) sum to canceledAmount, 0 ≤ canceledAmount ≤ amount, remainingAmount =
 *    amount − canceledAmount, fully canceled ⇔ CANCELED/REVOKED; supplyCost + tax = amount; a PENDING receipt has a
 *    pending job that will settle it; receipt.issued/receipt.failed once each, matching the receipt's outcome;
 *  - names compared as one rule says: every invoice's customerNameKey and customerNameBare are what
 *    depositor-name.ts computes from its customerName (whatever wrote the row); a 1-won deposit named with its
 *    account's verification code (normalised) is a verification deposit, never matched;
 *  - one event per state change: every invoice has exactly one `created` history line and one invoice.created event;
 *    history lines paid/canceled/deleted/updated/unmatched and events invoice.paid/canceled/deleted/updated/unpaid
 *    come in equal numbers per invoice; per workspace the event sequence is gap-free (1..eventSeq) and invoice
 *    numbers are 1..invoiceSeq; every event's invoice exists;
 *  - one transaction.received per deposit: every deposit but a verification deposit has exactly one, naming it and
 *    recorded with its account (so one written with the deposit, in its transaction, and none for a rolled-back or
 *    repeated one); a verification deposit has none; none names a deposit that does not exist.
 *
 * Event types and history types are those written by src/domain (events/outbox.ts EVENT_TYPES; addHistory callers).
 */
import { openDatabase, type Database } from '../../src/db/database.ts';
import { invoiceNameColumns } from '../../src/domain/deposits/depositor-name.ts';
import { isVerificationDeposit } from '../../src/domain/deposits/deposit-row.ts';

/** Anything with `query(text, params)`: the app's `db.sql`, a pg Client/Pool, a PGlite instance. */
export interface QueryLike {
  query(text: string, params?: any[]): Promise<unknown>;
}

async function rows<T>(sql: QueryLike, text: string, params: unknown[] = []): Promise<T[]> {
  const r = (await sql.query(text, params as any[])) as T[] | { rows: T[] };
  return Array.isArray(r) ? r : r.rows;
}

/** History line type ↔ the outbox event type every such state change writes with it (same transaction). */
const HISTORY_EVENT_PAIRS: [history: string, event: string][] = [
  ['created', 'invoice.created'],
  ['paid', 'invoice.paid'],
  ['canceled', 'invoice.canceled'],
  ['deleted', 'invoice.deleted'],
  ['updated', 'invoice.updated'],
  ['unmatched', 'invoice.unpaid'],
];

interface InvoiceRow {
  id: string;
  workspaceId: string;
  status: 'PENDING' | 'PAID' | 'CANCELED';
  paidTrigger: 'DEPOSIT' | 'API_CALL' | null;
  paidAt: unknown;
  canceledAt: unknown;
  deletedViaV1: boolean;
  amount: number;
  cashReceiptType: string | null;
}

export interface InvariantOptions {
  /** Only this workspace's rows (default: the whole database). */
  workspaceId?: string;
  /** Report at most this many violations per rule (default 5), plus a count of the rest. */
  perRule?: number;
}

/**
 * Checks every invariant above; returns the violations (empty = all hold). Read-only. Given the app's `db.sql` (which
 * has `transaction`), it reads one snapshot (REPEATABLE READ), so background work committing meanwhile cannot make
 * two reads disagree; given a bare connection or a transaction's executor, it reads through it as it is.
 */
export async function checkInvariants(sql: QueryLike & { transaction?: unknown }, opts: InvariantOptions = {}): Promise<string[]> {
  if (typeof sql.transaction === 'function') {
    const tx = sql.transaction as (fn: (q: QueryLike) => Promise<string[]>) => Promise<string[]>;
    return tx.call(sql, async (q) => {
      await q.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
      return checkAll(q, opts);
    });
  }
  return checkAll(sql, opts);
}

async function checkAll(sql: QueryLike, opts: InvariantOptions): Promise<string[]> {
  const perRule = opts.perRule ?? 5;
  const byRule = new Map<string, string[]>();
  const fail = (rule: string, detail: string) => {
    const list = byRule.get(rule) ?? [];
    list.push(detail);
    byRule.set(rule, list);
  };
  // `$1` is the workspace filter (NULL = all) in every query below.
  const ws = [opts.workspaceId ?? null];
  const inWs = (col = '"workspaceId"') => `($1::text IS NULL OR ${col} = $1::text)`;

  // ── Invoices, their history lines and their events ──
  const invoices = await rows<InvoiceRow>(
    sql,
    `SELECT id, "workspaceId", status::text AS status, "paidTrigger"::text AS "paidTrigger", "paidAt", "canceledAt", "deletedViaV1", amount, "cashReceiptType"::text AS "cashReceiptType"
       FROM "Invoice" WHERE ${inWs()}`,
    ws,
  );
  const counts = (list: { invoiceId: string; type: string; n: number }[]) => {
    const m = new Map<string, Map<string, number>>();
    for (const r of list) {
      if (!m.has(r.invoiceId)) m.set(r.invoiceId, new Map());
      m.get(r.invoiceId)!.set(r.type, Number(r.n));
    }
    return (invoiceId: string, type: string) => m.get(invoiceId)?.get(type) ?? 0;
  };
  const historyCount = counts(
    await rows(
      sql,
      `SELECT h."invoiceId", h.type, count(*)::int AS n FROM "InvoiceHistoryEntry" h JOIN "Invoice" i ON i.id = h."invoiceId" WHERE ${inWs('i."workspaceId"')} GROUP BY 1, 2`,
      ws,
    ),
  );
  const eventCount = counts(await rows(sql, `SELECT "invoiceId", type, count(*)::int AS n FROM "Event" WHERE "invoiceId" IS NOT NULL AND ${inWs()} GROUP BY 1, 2`, ws));
  const lastPaid = new Map(
    (
      await rows<{ invoiceId: string; trigger: string | null; transactionId: string | null }>(
        sql,
        `SELECT DISTINCT ON ("invoiceId") "invoiceId", data->>'trigger' AS trigger, data->'transaction'->>'id' AS "transactionId"
           FROM "Event" WHERE type = 'invoice.paid' AND ${inWs()} ORDER BY "invoiceId", sequence DESC`,
        ws,
      )
    ).map((r) => [r.invoiceId, r]),
  );
  const matchedTo = new Map<string, string[]>();
  const transactions = await rows<{ id: string; workspaceId: string; amount: number; matchedInvoiceId: string; matchMethod: string | null; verification: boolean }>(
    sql,
    `SELECT id, "workspaceId", amount, "matchedInvoiceId", "matchMethod"::text AS "matchMethod", verification FROM "Transaction" WHERE "matchedInvoiceId" IS NOT NULL AND ${inWs()}`,
    ws,
  );
  for (const t of transactions) matchedTo.set(t.matchedInvoiceId, [...(matchedTo.get(t.matchedInvoiceId) ?? []), t.id]);
  const autoReceipts = counts(
    await rows(
      sql,
      `SELECT "relatedInvoiceId" AS "invoiceId", 'auto' AS type, count(*)::int AS n FROM "CashReceipt"
        WHERE kind = 'ORIGINAL' AND "reissuedFromId" IS NULL AND "relatedInvoiceId" IS NOT NULL AND ${inWs()} GROUP BY 1`,
      ws,
    ),
  );

  const invoiceById = new Map(invoices.map((i) => [i.id, i]));
  for (const i of invoices) {
    const h = (type: string) => historyCount(i.id, type);
    const e = (type: string) => eventCount(i.id, type);
    if (e('invoice.created') !== 1) fail('one invoice.created event per invoice', `${i.id}: ${e('invoice.created')} invoice.created events`);
    for (const [ht, et] of HISTORY_EVENT_PAIRS) {
      if (h(ht) !== e(et)) fail('one event per state change', `history ↔ events of ${i.id} (${i.status}): ${h(ht)} '${ht}' history lines but ${e(et)} ${et} events`);
    }
    const paidNet = e('invoice.paid') - e('invoice.unpaid');
    if (paidNet !== (i.status === 'PAID' ? 1 : 0)) {
      fail('invoice paid once', `${i.id} (${i.status}): ${e('invoice.paid')} invoice.paid and ${e('invoice.unpaid')} invoice.unpaid events`);
    }
    const cancels = e('invoice.canceled') + e('invoice.deleted');
    if (cancels !== (i.status === 'CANCELED' ? 1 : 0)) fail('invoice canceled once', `${i.id} (${i.status}): ${cancels} cancel/delete events`);
    if (i.status === 'CANCELED' && i.deletedViaV1 !== (e('invoice.deleted') === 1)) fail('invoice canceled once', `${i.id}: deletedViaV1=${i.deletedViaV1} but ${e('invoice.deleted')} invoice.deleted events`);
    if ((i.status === 'PAID') !== (i.paidTrigger !== null && i.paidAt !== null)) fail('paid fields match the status', `${i.id} (${i.status}): paidTrigger=${i.paidTrigger} paidAt=${i.paidAt}`);
    if ((i.status === 'CANCELED') !== (i.canceledAt !== null)) fail('canceled fields match the status', `${i.id} (${i.status}): canceledAt=${i.canceledAt}`);
    const deposits = matchedTo.get(i.id) ?? [];
    const wantDeposits = i.status === 'PAID' && i.paidTrigger === 'DEPOSIT' ? 1 : 0;
    if (deposits.length !== wantDeposits) fail('deposit ↔ invoice', `${i.id} (${i.status}, ${i.paidTrigger}): matched by ${deposits.length} deposits [${deposits.join(', ')}]`);
    const last = lastPaid.get(i.id);
    if (i.status === 'PAID' && last) {
      if (last.trigger !== i.paidTrigger) fail('invoice.paid says how it was paid', `${i.id}: paidTrigger ${i.paidTrigger} but its invoice.paid says ${last.trigger}`);
      if (i.paidTrigger === 'DEPOSIT' && deposits.length === 1 && last.transactionId !== deposits[0]) {
        fail('invoice.paid says how it was paid', `${i.id}: matched by ${deposits[0]} but its invoice.paid names ${last.transactionId}`);
      }
    }
    // Auto-issue on payment: one receipt request per payment at most; a paid invoice with cashReceipt got one (or a
    // history line saying why not) in the payment's transaction.
    const auto = autoReceipts(i.id, 'auto');
    if (auto !== h('cash_receipt_requested')) fail('auto-issued receipts', `${i.id}: ${auto} auto-issued receipts but ${h('cash_receipt_requested')} cash_receipt_requested lines`);
    if (auto > e('invoice.paid')) fail('auto-issued receipts', `${i.id}: ${auto} auto-issued receipts for ${e('invoice.paid')} payments`);
    if (i.status === 'PAID' && i.cashReceiptType && auto === 0 && h('cash_receipt_skipped') === 0) fail('auto-issued receipts', `${i.id}: paid with cashReceipt but no receipt and no cash_receipt_skipped line`);
  }

  // ── Deposits ──
  for (const t of transactions) {
    const i = invoiceById.get(t.matchedInvoiceId);
    if (!i) {
      if (!opts.workspaceId) fail('deposit ↔ invoice', `deposit ${t.id} matched to missing invoice ${t.matchedInvoiceId}`);
      continue;
    }
    if (i.workspaceId !== t.workspaceId) fail('deposit ↔ invoice', `deposit ${t.id} matched to ${i.id} of another workspace`);
    if (i.status !== 'PAID' || i.paidTrigger !== 'DEPOSIT') fail('deposit ↔ invoice', `deposit ${t.id} matched to ${i.id} which is ${i.status}/${i.paidTrigger}`);
    // A dashboard match by hand (MANUAL) may pair different amounts on purpose; automatic matching never does.
    if (i.amount !== t.amount && t.matchMethod !== 'MANUAL') fail('deposit ↔ invoice', `deposit ${t.id} of ${t.amount} matched (${t.matchMethod}) to ${i.id} of ${i.amount}`);
    if (t.matchMethod === null) fail('deposit ↔ invoice', `deposit ${t.id} matched without a matchMethod`);
    if (t.verification) fail('deposit ↔ invoice', `verification deposit ${t.id} matched to ${i.id}`);
  }
  for (const [invoiceId, ids] of matchedTo) if (ids.length > 1) fail('deposit matched once', `invoice ${invoiceId} matched by ${ids.length} deposits`);
  for (const r of await rows<{ id: string }>(sql, `SELECT id FROM "Transaction" WHERE "matchedInvoiceId" IS NULL AND ("matchMethod" IS NOT NULL OR "matchedAt" IS NOT NULL) AND ${inWs()}`, ws)) {
    fail('deposit ↔ invoice', `unmatched deposit ${r.id} has a matchMethod or matchedAt`);
  }

  // ── Names: the stored comparison columns and verification deposits follow the one normalisation rule ──
  for (const r of await rows<{ id: string; customerName: string; customerNameKey: string; customerNameBare: string }>(
    sql,
    `SELECT id, "customerName", "customerNameKey", "customerNameBare" FROM "Invoice" WHERE ${inWs()}`,
    ws,
  )) {
    const want = invoiceNameColumns(r.customerName);
    if (want.customerNameKey !== r.customerNameKey || want.customerNameBare !== r.customerNameBare) {
      fail('invoice name columns', `${r.id} ${JSON.stringify(r.customerName)}: stored key/bare ${JSON.stringify([r.customerNameKey, r.customerNameBare])}, the rule gives ${JSON.stringify([want.customerNameKey, want.customerNameBare])}`);
    }
  }
  for (const r of await rows<{ id: string; description: string; verificationCode: string; verification: boolean; matchedInvoiceId: string | null }>(
    sql,
    `SELECT t.id, t.description, a."verificationCode", t.verification, t."matchedInvoiceId" FROM "Transaction" t JOIN "BankAccount" a ON a.id = t."bankAccountId"
      WHERE t.amount = 1 AND ${inWs('t."workspaceId"')}`,
    ws,
  )) {
    if (isVerificationDeposit(r, { amount: 1, depositorName: r.description }) && (!r.verification || r.matchedInvoiceId)) {
      fail('verification deposits', `${r.id}: a 1-won deposit named with its account's code stored verification=${r.verification}, matched to ${r.matchedInvoiceId}`);
    }
  }

  // ── Events: sequences and subjects ──
  for (const r of await rows<{ id: string; eventSeq: string; n: string; max: string | null; invoiceSeq: number; invoices: string; maxNumber: number | null }>(
    sql,
    `SELECT w.id, w."eventSeq"::text AS "eventSeq", w."invoiceSeq",
            (SELECT count(*) FROM "Event" e WHERE e."workspaceId" = w.id)::text AS n,
            (SELECT max(sequence) FROM "Event" e WHERE e."workspaceId" = w.id)::text AS max,
            (SELECT count(*) FROM "Invoice" i WHERE i."workspaceId" = w.id)::text AS invoices,
            (SELECT max(number) FROM "Invoice" i WHERE i."workspaceId" = w.id) AS "maxNumber"
       FROM "Workspace" w WHERE ($1::text IS NULL OR w.id = $1::text)`,
    ws,
  )) {
    if (r.n !== r.eventSeq || (r.max ?? '0') !== r.eventSeq) fail('event sequence gap-free', `workspace ${r.id}: eventSeq ${r.eventSeq}, ${r.n} events, max sequence ${r.max}`);
    if (r.invoices !== String(r.invoiceSeq) || (r.maxNumber ?? 0) !== r.invoiceSeq) fail('invoice numbers gap-free', `workspace ${r.id}: invoiceSeq ${r.invoiceSeq}, ${r.invoices} invoices, max number ${r.maxNumber}`);
  }
  for (const r of await rows<{ id: string; type: string; invoiceId: string }>(
    sql,
    `SELECT e.id, e.type, e."invoiceId" FROM "Event" e LEFT JOIN "Invoice" i ON i.id = e."invoiceId" WHERE e."invoiceId" IS NOT NULL AND i.id IS NULL AND ${inWs('e."workspaceId"')}`,
    ws,
  )) {
    fail('event subjects exist', `event ${r.id} (${r.type}) of missing invoice ${r.invoiceId}`);
  }
  for (const r of await rows<{ id: string; type: string; workspaceId: string; invoiceWorkspaceId: string }>(
    sql,
    `SELECT e.id, e.type, e."workspaceId", i."workspaceId" AS "invoiceWorkspaceId" FROM "Event" e JOIN "Invoice" i ON i.id = e."invoiceId" WHERE e."workspaceId" <> i."workspaceId" AND ${inWs('e."workspaceId"')}`,
    ws,
  )) {
    fail('event subjects exist', `event ${r.id} (${r.type}) in workspace ${r.workspaceId} for an invoice of ${r.invoiceWorkspaceId}`);
  }

  // ── Deposits and their transaction.received events ──
  for (const r of await rows<{ id: string; deposit: string | null; verification: boolean | null; events: number; ownAccount: number }>(
    sql,
    `WITH received AS (
       SELECT data->'transaction'->>'id' AS id, count(*)::int AS events,
              count(*) FILTER (WHERE "bankAccountIds" = ARRAY[data->'transaction'->'bankAccount'->>'id'])::int AS "ownAccount"
         FROM "Event" WHERE type = 'transaction.received' AND ${inWs()} GROUP BY 1
     )
     SELECT coalesce(t.id, r.id) AS id, t.id AS deposit, t.verification, coalesce(r.events, 0) AS events, coalesce(r."ownAccount", 0) AS "ownAccount"
       FROM (SELECT id, verification, "bankAccountId" FROM "Transaction" WHERE ${inWs()}) t
       FULL JOIN received r ON r.id = t.id
      WHERE t.id IS NULL OR coalesce(r.events, 0) <> (CASE WHEN t.verification THEN 0 ELSE 1 END) OR coalesce(r."ownAccount", 0) <> coalesce(r.events, 0)`,
    ws,
  )) {
    if (r.deposit === null) fail('one transaction.received per deposit', `${r.events} transaction.received events name ${r.id}, which is no deposit`);
    else if (r.ownAccount !== r.events) fail('one transaction.received per deposit', `${r.id}: a transaction.received recorded with other accounts than the deposit's`);
    else fail('one transaction.received per deposit', `${r.verification ? 'verification deposit' : 'deposit'} ${r.id}: ${r.events} transaction.received events`);
  }

  // ── Cash receipts ──
  const receipts = await rows<{
    id: string;
    kind: 'ORIGINAL' | 'CANCELLATION';
    status: string;
    amount: number;
    supplyCost: number;
    tax: number;
    canceledAmount: number;
    remainingAmount: number;
    originalId: string | null;
    ntsResultCode: string | null;
    canceledTotal: number;
    cancellations: number;
    issuedEvents: number;
    failedEvents: number;
    pendingJobs: number;
    originalKind: string | null;
  }>(
    sql,
    `SELECT r.id, r.kind::text AS kind, r.status::text AS status, r.amount, r."supplyCost", r.tax, r."canceledAmount", r."remainingAmount", r."originalId", r."ntsResultCode",
            coalesce((SELECT sum(c.amount) FROM "CashReceipt" c WHERE c."originalId" = r.id AND c.kind = 'CANCELLATION' AND c.status <> 'FAILED'), 0)::int AS "canceledTotal",
            (SELECT count(*) FROM "CashReceipt" c WHERE c."originalId" = r.id)::int AS cancellations,
            (SELECT count(*) FROM "Event" e WHERE e."cashReceiptId" = r.id AND e.type = 'receipt.issued')::int AS "issuedEvents",
            (SELECT count(*) FROM "Event" e WHERE e."cashReceiptId" = r.id AND e.type = 'receipt.failed')::int AS "failedEvents",
            (SELECT count(*) FROM "Job" j WHERE j.status = 'PENDING' AND j.kind IN ('receipt.issue', 'receipt.settle') AND j.payload->>'receiptId' = r.id)::int AS "pendingJobs",
            (SELECT o.kind::text FROM "CashReceipt" o WHERE o.id = r."originalId") AS "originalKind"
       FROM "CashReceipt" r WHERE ${inWs('r."workspaceId"')}`,
    ws,
  );
  for (const r of receipts) {
    if (r.supplyCost + r.tax !== r.amount || r.amount <= 0) fail('receipt amounts', `${r.id}: amount ${r.amount} ≠ supplyCost ${r.supplyCost} + tax ${r.tax}`);
    if (r.kind === 'ORIGINAL') {
      if (r.canceledTotal !== r.canceledAmount) fail('receipt amounts conserved', `${r.id}: canceledAmount ${r.canceledAmount} but its cancellation receipts sum to ${r.canceledTotal}`);
      if (r.canceledAmount < 0 || r.canceledAmount > r.amount) fail('receipt amounts conserved', `${r.id}: canceledAmount ${r.canceledAmount} outside 0..${r.amount}`);
      if (r.remainingAmount !== r.amount - r.canceledAmount) fail('receipt amounts conserved', `${r.id}: remainingAmount ${r.remainingAmount} ≠ ${r.amount} − ${r.canceledAmount}`);
      const fullyCanceled = r.canceledAmount > 0 && r.remainingAmount === 0;
      if (fullyCanceled !== (r.status === 'CANCELED' || r.status === 'REVOKED')) fail('receipt amounts conserved', `${r.id}: ${r.status} with ${r.remainingAmount} of ${r.amount} remaining`);
      if (r.originalId !== null) fail('receipt kinds', `original ${r.id} has originalId ${r.originalId}`);
    } else {
      if (r.originalId === null || r.originalKind !== 'ORIGINAL') fail('receipt kinds', `cancellation ${r.id} of ${r.originalId} (${r.originalKind})`);
      if (r.canceledAmount !== 0 || r.remainingAmount !== r.amount) fail('receipt kinds', `cancellation ${r.id}: canceledAmount ${r.canceledAmount}, remainingAmount ${r.remainingAmount}`);
      if (r.status === 'CANCELED' || r.status === 'REVOKED') fail('receipt kinds', `cancellation ${r.id} is ${r.status}`);
      if (r.cancellations !== 0) fail('receipt kinds', `cancellation ${r.id} has ${r.cancellations} cancellations of its own`);
    }
    // One event per settlement: ISSUED by the tax authority (result 0000) → one receipt.issued; FAILED → one receipt.failed.
    const confirmed = r.ntsResultCode === '0000';
    if (r.issuedEvents !== (confirmed ? 1 : 0)) fail('one event per receipt outcome', `${r.id} (${r.status}, result ${r.ntsResultCode}): ${r.issuedEvents} receipt.issued events`);
    if (r.failedEvents !== (r.status === 'FAILED' ? 1 : 0)) fail('one event per receipt outcome', `${r.id} (${r.status}): ${r.failedEvents} receipt.failed events`);
    if (r.status === 'PENDING' && r.pendingJobs === 0) fail('no stuck receipt', `${r.id} is PENDING with no pending receipt.issue/receipt.settle job`);
    if (r.status !== 'PENDING' && r.status !== 'FAILED' && !confirmed) fail('no stuck receipt', `${r.id} is ${r.status} without a tax-authority confirmation`);
  }

  const out: string[] = [];
  for (const [rule, list] of byRule) {
    for (const d of list.slice(0, perRule)) out.push(`${rule}: ${d}`);
    if (list.length > perRule) out.push(`${rule}: … and ${list.length - perRule} more`);
  }
  return out;
}

/**
 * Opens the database a (stopped) server process used: its DATABASE_URL, or the embedded cluster under its DATA_DIR
 * (started here, so only once the server has exited: one server per cluster).
 */
export async function openServerDatabase(env: { DATA_DIR?: string; DATABASE_URL?: string }): Promise<Database> {
  if (env.DATABASE_URL) return openDatabase({ databaseUrl: env.DATABASE_URL, poolSize: 2 });
  if (!env.DATA_DIR) throw new Error('openServerDatabase: DATA_DIR or DATABASE_URL is required');
  return openDatabase({ embeddedDataDir: env.DATA_DIR, poolSize: 2 });
}

/** checkInvariants on a stopped server's database (see openServerDatabase). */
export async function checkServerInvariants(env: { DATA_DIR?: string; DATABASE_URL?: string }, opts: InvariantOptions = {}): Promise<string[]> {
  const db = await openServerDatabase(env);
  try {
    return await checkInvariants(db.sql, opts);
  } finally {
    await db.close();
  }
}
