/**
 * The outbox: every state change writes its event row in the same transaction as the change. Delivery (webhooks,
 * subscriptions, e-mail) reads these rows after commit, so nothing is sent for a rolled-back change and nothing is
 * lost if the process dies after the commit.
 */
import { asRaw, noteEventsWritten, type Sql } from '../deps.ts';
import { newId } from '../ids.ts';
import { SqlParams } from '../sql.ts';
import type { CommittedEvent, EventType } from './event-types.ts';

export { EVENT_TYPES, type CommittedEvent, type EventType } from './event-types.ts';

/** A row as JSON-safe values (Dates as ISO strings), as `to_jsonb` would render it. */
export function jsonRow(row: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) out[k] = v instanceof Date ? v.toISOString() : v;
  return out;
}

export interface NewEvent {
  workspaceId: string;
  type: EventType;
  invoiceId?: string | null;
  cashReceiptId?: string | null;
  /** Receiving accounts of the subject (empty = all), so account-limited subscribers can be filtered. */
  bankAccountIds?: readonly string[];
  data: Record<string, unknown>;
  createdAt: Date;
}

/**
 * The CTEs that write events into a caller's statement: `<name>_seq` reserves the workspace's next sequences (its row
 * locked until commit, so sequence order is commit order) and `<name>` inserts them; `guard` / `guards` (one per
 * event) write only the events whose SQL condition holds, numbered without gaps. `<name>_seq` also returns the
 * workspace's `invoiceSeq` as it is under that lock (a deposit checks that no invoice was created since it read its
 * candidates: intake.ts). Returns the CTE text and event ids.
 */
export function eventInsertCtes(
  s: SqlParams,
  workspaceId: string,
  events: NewEvent[],
  opts: { name: string; guard?: string; guards?: readonly string[] },
): { sql: string; ids: string[] } {
  const ids = events.map(() => newId('event'));
  const rows = events.map((e, i) => ({
    id: ids[i],
    type: e.type,
    invoiceId: e.invoiceId ?? null,
    cashReceiptId: e.cashReceiptId ?? null,
    bankAccountIds: [...(e.bankAccountIds ?? [])],
    data: e.data,
    createdAt: e.createdAt.toISOString(),
  }));
  const ws = s.p(workspaceId);
  const values = s.p(JSON.stringify(rows), '::jsonb');
  const columns = `INSERT INTO "Event" (id, "workspaceId", sequence, type, "invoiceId", "cashReceiptId", "bankAccountIds", data, "createdAt")`;
  const row = (seq: string) =>
    `e.v->>'id', ${ws}, ${seq}, e.v->>'type', e.v->>'invoiceId', e.v->>'cashReceiptId', ARRAY(SELECT jsonb_array_elements_text(e.v->'bankAccountIds')), e.v->'data', (e.v->>'createdAt')::timestamptz`;
  if (opts.guards) {
    if (opts.guards.length !== events.length) throw new Error('eventInsertCtes: one guard per event');
    const kept = `${opts.name}_kept`;
    const sql = `${kept} AS (
       SELECT ord, row_number() OVER (ORDER BY ord) AS rank FROM (VALUES ${opts.guards.map((g, i) => `(${i + 1}, (${g}))`).join(', ')}) g(ord, ok) WHERE ok
     ), ${opts.name}_seq AS (
       UPDATE "Workspace" SET "eventSeq" = "eventSeq" + (SELECT count(*) FROM ${kept}) WHERE id = ${ws} AND EXISTS (SELECT 1 FROM ${kept}) RETURNING "eventSeq", "invoiceSeq"
     ), ${opts.name} AS (
       ${columns}
       SELECT ${row(`seq."eventSeq" - (SELECT count(*) FROM ${kept}) + k.rank`)}
         FROM ${opts.name}_seq seq, jsonb_array_elements(${values}) WITH ORDINALITY AS e(v, ord) JOIN ${kept} k ON k.ord = e.ord
       RETURNING id, sequence
     )`;
    return { sql, ids };
  }
  const n = s.p(events.length, '::int');
  const sql = `${opts.name}_seq AS (
       UPDATE "Workspace" SET "eventSeq" = "eventSeq" + ${n} WHERE id = ${ws}${opts.guard ? ` AND (${opts.guard})` : ''} RETURNING "eventSeq", "invoiceSeq"
     ), ${opts.name} AS (
       ${columns}
       SELECT ${row(`seq."eventSeq" - ${n} + e.ord`)}
         FROM ${opts.name}_seq seq, jsonb_array_elements(${values}) WITH ORDINALITY AS e(v, ord)
       RETURNING id, sequence
     )`;
  return { sql, ids };
}

/** Writes events in the caller's transaction, in one statement (see eventInsertCtes). Returns their ids. */
export async function recordEvents(db: Sql, workspaceId: string, events: NewEvent[]): Promise<string[]> {
  if (events.length === 0) return [];
  const q = asRaw(db);
  noteEventsWritten(q);
  const s = new SqlParams();
  const { sql, ids } = eventInsertCtes(s, workspaceId, events, { name: 'events' });
  const inserted = await q<{ n: number }>(`WITH ${sql} SELECT count(*)::int AS n FROM events`, s.values);
  if (Number(inserted[0]?.n) !== events.length) throw new Error(`workspace ${workspaceId} vanished`);
  return ids;
}
