/** An invoice's history lines (v2 `history`), written in the transaction of the change they record. */
import { asRaw, type Sql } from '../deps.ts';
import { newId } from '../ids.ts';
import { SqlParams } from '../sql.ts';

/** A JSON column value as a statement parameter: SQL NULL for null/undefined (as Prisma stores an omitted Json?). */
export function jsonOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

/**
 * The INSERT of a history line, for a statement of the caller's: `invoiceId` is an SQL expression (a placeholder, or a
 * column of an earlier CTE named in `from`, which then decides whether a line is written at all).
 */
export function historyInsertSql(s: SqlParams, e: { invoiceId: string; type: string; now: Date; actor: unknown; data?: Record<string, unknown>; from?: string }): string {
  return `INSERT INTO "InvoiceHistoryEntry" (id, "invoiceId", type, actor, data, "createdAt")
     SELECT ${s.p(newId('history'))}, ${e.invoiceId}, ${s.p(e.type)}, ${s.p(jsonOrNull(e.actor), '::jsonb')}, ${s.p(jsonOrNull(e.data), '::jsonb')}, ${s.p(e.now.toISOString(), '::timestamptz')}${e.from ? ` FROM ${e.from}` : ''}`;
}

/** Writes a history line for an invoice. */
export async function addHistory(db: Sql, invoiceId: string, type: string, now: Date, actor: unknown, data?: Record<string, unknown>) {
  const s = new SqlParams();
  await asRaw(db)(historyInsertSql(s, { invoiceId: s.p(invoiceId), type, now, actor, data }), s.values);
}
