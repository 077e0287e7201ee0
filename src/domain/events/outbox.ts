/**
 * The outbox: every state change writes its event row in the same transaction as the change. Delivery (webhooks,
 * subscriptions, e-mail) reads these rows after commit, so nothing is sent for a rolled-back change and nothing is
 * lost if the process dies after the commit.
 */
import { noteEventsWritten, type Tx } from '../deps.ts';
import { newId } from '../ids.ts';

export const EVENT_TYPES = [
  'invoice.created',
  'invoice.paid',
  'invoice.updated',
  'invoice.canceled',
  'invoice.deleted',
  'invoice.unpaid',
  'receipt.issued',
  'receipt.failed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

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
 * Hands out the next per-workspace numbers. Locks the workspace row until commit, so sequence order is commit order
 * within a workspace (a subscriber that re-queries `sinceSequence` never misses a later-committed lower number).
 */
export async function nextWorkspaceNumbers(
  tx: Tx,
  workspaceId: string,
  opts: { invoice: boolean; events: number },
): Promise<{ invoiceNumber: number | null; lastEventSeq: bigint }> {
  const rows = await tx.$queryRawUnsafe<{ invoiceSeq: number; eventSeq: bigint }[]>(
    `UPDATE "Workspace" SET "invoiceSeq" = "invoiceSeq" + $2, "eventSeq" = "eventSeq" + $3
     WHERE id = $1 RETURNING "invoiceSeq", "eventSeq"`,
    workspaceId,
    opts.invoice ? 1 : 0,
    opts.events,
  );
  const row = rows[0];
  if (!row) throw new Error(`workspace ${workspaceId} vanished`);
  return { invoiceNumber: opts.invoice ? Number(row.invoiceSeq) : null, lastEventSeq: BigInt(row.eventSeq) };
}

/** Writes events in the caller's transaction; `lastSeq` is the last of the sequence numbers reserved for them. */
export async function appendEvents(tx: Tx, events: NewEvent[], lastSeq: bigint): Promise<string[]> {
  noteEventsWritten(tx);
  const first = lastSeq - BigInt(events.length) + 1n;
  const ids = events.map(() => newId('event'));
  await tx.event.createMany({
    data: events.map((e, i) => ({
      id: ids[i],
      workspaceId: e.workspaceId,
      sequence: first + BigInt(i),
      type: e.type,
      invoiceId: e.invoiceId ?? null,
      cashReceiptId: e.cashReceiptId ?? null,
      bankAccountIds: [...(e.bankAccountIds ?? [])],
      data: e.data as object,
      createdAt: e.createdAt,
    })),
  });
  return ids;
}

/** Reserves sequence numbers and writes the events: the one call state changes make. */
export async function recordEvents(tx: Tx, workspaceId: string, events: NewEvent[]): Promise<string[]> {
  if (events.length === 0) return [];
  const { lastEventSeq } = await nextWorkspaceNumbers(tx, workspaceId, { invoice: false, events: events.length });
  return appendEvents(tx, events, lastEventSeq);
}
