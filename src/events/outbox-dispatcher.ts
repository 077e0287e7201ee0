/**
 * The outbox dispatcher: after commit, one statement per batch takes events off the outbox queue and creates their
 * webhook dispatches (FOR UPDATE SKIP LOCKED: instances share the work); then it publishes them to live subscribers.
 */
import type { Logger } from 'pino';
import type { Event } from '../generated/prisma/client.ts';
import type { SqlExecutor } from '../db/database.ts';
import type { Clock } from '../domain/clock.ts';
import type { CommittedEvent } from '../domain/events/outbox.ts';
import { eventTypesFor } from '../domain/webhooks/routing.ts';
import type { BusEvent, EventBus } from './event-bus.ts';
import { LoopWorker } from './loop.ts';

const BATCH = 200;
/** How long the dispatcher may wait for events whose live subscribers were already told (they batch meanwhile). */
const DISPATCH_DELAY_AFTER_PUBLISH_MS = 50;

/**
 * One dispatch batch in one prepared statement: claims and dequeues up to BATCH events, creates their webhooks'
 * dispatches and returns them with their invoice rows ($1 now, $2/$3 the V1/V2 event types). Plan: src/events/README.md.
 */
export const DISPATCH_BATCH_SQL = `WITH queued AS (
         DELETE FROM "OutboxEntry"
          WHERE "eventId" IN (SELECT "eventId" FROM "OutboxEntry" ORDER BY "createdAt", sequence LIMIT ${BATCH} FOR UPDATE SKIP LOCKED)
         RETURNING "eventId"
       ), claimed AS (
         SELECT e.* FROM queued q
          CROSS JOIN LATERAL (
            SELECT id, "workspaceId", sequence, type, "invoiceId", "cashReceiptId", "bankAccountIds", "createdAt" FROM "Event" WHERE id = q."eventId" OFFSET 0
          ) e
       ), dispatched AS (
         INSERT INTO "WebhookDispatch" (id, "webhookId", "eventId", status, attempts, "nextAttemptAt", "createdAt", "updatedAt")
         SELECT 'whp_' || substr(replace(gen_random_uuid()::text, '-', ''), 1, 24), h.id, c.id, 'PENDING', 0, $1::timestamptz, $1::timestamptz, $1::timestamptz
           FROM claimed c
           JOIN "Webhook" h ON h."workspaceId" = c."workspaceId" AND h."deletedAt" IS NULL AND h."disabledAt" IS NULL AND h."createdAt" <= c."createdAt"
          WHERE (h.version = 'V1' AND c.type = ANY($2::text[])) OR (h.version = 'V2' AND c.type = ANY($3::text[]))
         ON CONFLICT ("webhookId", "eventId") DO NOTHING
         RETURNING 1
       )
       SELECT c.*, (SELECT count(*) FROM dispatched) AS "dispatchCount",
              (SELECT to_jsonb(i) FROM "Invoice" i WHERE i.id = c."invoiceId") AS invoice
         FROM claimed c`;

type EventColumns = Pick<Event, 'id' | 'workspaceId' | 'type' | 'invoiceId' | 'cashReceiptId' | 'bankAccountIds' | 'createdAt'> & { sequence: bigint | string | number };

/** The bus message of a stored event; `invoice`: the invoice's row as the dispatcher read it (JSON), when it has one. */
export function busEventOf(e: EventColumns, invoice?: Record<string, unknown> | null): BusEvent {
  return {
    eventId: e.id,
    workspaceId: e.workspaceId,
    sequence: e.sequence.toString(),
    type: e.type,
    invoiceId: e.invoiceId,
    cashReceiptId: e.cashReceiptId,
    bankAccountIds: e.bankAccountIds,
    createdAt: new Date(e.createdAt).toISOString(),
    ...(invoice ? { invoice } : {}),
  };
}

/** The bus message of an event its committing process hands over (see OutboxDispatcher.publishedAtCommit). */
export function busEventOfCommitted(e: CommittedEvent): BusEvent {
  return busEventOf(e, e.invoice);
}

export class OutboxDispatcher extends LoopWorker {
  /** Seconds between an event's commit and its dispatch, last observed (metrics). */
  lastLagMs = 0;
  /** Ids of events this process published at commit and the dispatcher has not claimed yet. */
  private readonly published = new Set<string>();

  constructor(
    /** The driver (one statement per batch; no ORM on this path). */
    private readonly sql: Pick<SqlExecutor, 'query'>,
    private readonly clock: Clock,
    private readonly bus: EventBus,
    log: Logger,
    private readonly after: { webhooks(): void; jobs(): void },
    pollMs = 500,
  ) {
    super('outbox', async () => (await this.runOnce()) >= BATCH, pollMs, log);
  }

  /**
   * Events the committing process already published live (the deposit hot path): not published again, and the
   * dispatcher runs a little later so that a burst of them leaves the queue in one statement.
   */
  publishedAtCommit(events: BusEvent[]): void {
    if (this.published.size > 10_000) this.published.clear(); // ids another instance dispatched would stay forever
    for (const e of events) {
      this.bus.publish(e);
      this.published.add(e.eventId);
    }
    this.loop.wakeWithin(DISPATCH_DELAY_AFTER_PUBLISH_MS);
  }

  /**
   * Dispatches one batch (DISPATCH_BATCH_SQL), then publishes its events to live subscribers with their invoices as
   * they are now. Returns how many.
   */
  async runOnce(): Promise<number> {
    const now = this.clock.now();
    const rows = await this.sql.query<EventColumns & { dispatchCount: string | number | bigint; invoice: Record<string, unknown> | null }>(
      DISPATCH_BATCH_SQL,
      [now.toISOString(), eventTypesFor('V1'), eventTypesFor('V2')],
      { prepare: true },
    );
    if (rows.length === 0) return 0;
    // In sequence order within each workspace (createdAt does not follow it when transactions overlap); the driver
    // returns bigint columns as strings, so they are compared as numbers.
    const seq = (e: EventColumns) => BigInt(e.sequence);
    const events = rows.sort((a, b) => (a.workspaceId < b.workspaceId ? -1 : a.workspaceId > b.workspaceId ? 1 : seq(a) < seq(b) ? -1 : seq(a) > seq(b) ? 1 : 0));
    for (const e of events) {
      if (this.published.delete(e.id)) continue;
      this.bus.publish(busEventOf(e, e.invoice));
    }
    this.lastLagMs = now.getTime() - Math.min(...events.map((e) => new Date(e.createdAt).getTime()));
    if (Number(rows[0].dispatchCount) > 0) this.after.webhooks();
    return events.length;
  }
}
