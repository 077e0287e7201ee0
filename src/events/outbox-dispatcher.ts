/**
 * The outbox dispatcher: after commit, fans committed events out. In one statement per batch it takes the events off
 * the outbox queue ("OutboxEntry") and creates a webhook dispatch for every webhook that receives them; after that it
 * publishes them to live subscribers. Claims use FOR UPDATE SKIP LOCKED, so several instances share the work; an
 * event committed before a crash is still queued after restart, and dispatched then.
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
 * One dispatch batch, in one statement (prepared): claims up to BATCH queued events (FOR UPDATE SKIP LOCKED on their
 * "OutboxEntry" rows, so instances share the work) and deletes their queue rows, creates a dispatch for every webhook
 * that receives them, and returns them with each one's invoice row. $1 now, $2/$3 the event types V1/V2 webhooks
 * receive. The event rows themselves are only read: written once, never updated (see "OutboxEntry" in the schema).
 *
 * Each event, and each event's invoice, is read by primary key (a LATERAL subquery kept from being flattened by
 * OFFSET 0, and a correlated subquery). As joins, the statement's generic plan estimated ~170 claimed events and
 * hashed the whole table: a sequential scan per batch that grows with the rows (16 ms at 17,600 invoices, every
 * ~50 ms under load; test/integration/query-plans.test.ts). A queue row whose event is gone (nothing in the service
 * deletes events; deleting a workspace by hand would) is deleted with the rest and returns nothing.
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
   * Events already published to live subscribers by the process that committed them (src/domain: the deposit hot
   * path): the dispatcher does not publish them again (subscribers drop the rare repeat that still happens, e.g. when
   * another instance dispatches them) and runs a little later, so that a burst of them is taken off the queue in one
   * statement.
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
   * Dispatches one batch of committed, queued events in one statement: claims them (FOR UPDATE SKIP LOCKED), takes
   * them off the queue and creates a dispatch for every webhook that receives them; then publishes them to live
   * subscribers, each with its invoice as it is now (read by the same statement, once for every subscriber of every
   * instance). Returns how many.
   */
  async runOnce(): Promise<number> {
    const now = this.clock.now();
    const rows = await this.sql.query<EventColumns & { dispatchCount: string | number | bigint; invoice: Record<string, unknown> | null }>(
      DISPATCH_BATCH_SQL,
      [now.toISOString(), eventTypesFor('V1'), eventTypesFor('V2')],
      { prepare: true },
    );
    if (rows.length === 0) return 0;
    // Published in sequence order within each workspace (subscribers see events in the order they committed where
    // this instance can tell): createdAt, taken when the writing transaction starts, does not follow the sequence
    // (handed out under the workspace row lock, in commit order) when transactions overlap.
    // (The driver returns bigint columns as strings: compare them as numbers.)
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
