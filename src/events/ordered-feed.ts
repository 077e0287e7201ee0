/**
 * A subscription's events: every event of one workspace after a given sequence, in sequence order, each once — the
 * stored ones it missed, then the live ones. Why that holds (cursor, gaps, start order): src/events/README.md.
 */
import type { SqlExecutor } from '../db/database.ts';
import { lastEventSequence } from '../domain/events/catch-up.ts';
import type { BusEvent, EventBus } from './event-bus.ts';
import { busEventOf } from './outbox-dispatcher.ts';

/** Page size of the catch-up reads, and how long a gap in the live events may last before it is read. */
export const feedSettings = { pageSize: 500, gapWaitMs: 100 };

export interface FeedSource {
  /** Starts hearing the workspace's live events; resolves once every event published from then on is heard. */
  listen(onEvent: (event: BusEvent) => void): Promise<() => void>;
  /** The workspace's last event sequence (every event up to it is committed). */
  lastSequence(): Promise<bigint>;
  /** Whether the event with this sequence is stored. */
  isStored(sequence: bigint): Promise<boolean>;
  /**
   * Stored events with `after < sequence <= upTo`, oldest first, at most `limit`. It may leave out events the
   * subscriber's filter would drop anyway; fewer than `limit` means there are no more in the range.
   */
  read(after: bigint, upTo: bigint, limit: number): Promise<BusEvent[]>;
}

export interface FeedOptions<T> {
  /** Sequence to start after; null = from now on (live events only). */
  since: bigint | null;
  /** Refuses a catch-up that cannot be done (throws), given the last sequence and whether `since + 1` is stored. */
  check(since: bigint, lastSequence: bigint, nextStored: boolean): void;
  /** What the subscriber gets for an event, or null to leave it out (filters, visibility). */
  map(event: BusEvent): T | null | Promise<T | null>;
  /** The last item of a feed that failed (a database read): the subscriber gets it, then the end. */
  failed(error: unknown): T;
}

/** Opens the feed: listens, checks `since` against the workspace's last sequence (throws if refused). */
export async function openOrderedFeed<T>(source: FeedSource, opts: FeedOptions<T>): Promise<AsyncIterableIterator<T>> {
  const feed = new OrderedFeed<T>(source, opts);
  await feed.start();
  return feed;
}

class OrderedFeed<T> implements AsyncIterableIterator<T> {
  /** Every event up to here was delivered or left out (-1: not started). */
  private cursor = -1n;
  /** Stored events up to here are read from the database (the catch-up, then any gap in the live events). */
  private catchUpTo = -1n;
  /** Live events above the cursor, by sequence. */
  private readonly live = new Map<bigint, BusEvent>();
  /** Mapped items read from the database, to be delivered before anything else. */
  private readonly ready: T[] = [];
  private gap: { cursor: bigint; since: number } | null = null;
  private stopListening: (() => void) | null = null;
  private wake: (() => void) | null = null;
  private done = false;

  constructor(
    private readonly source: FeedSource,
    private readonly opts: FeedOptions<T>,
  ) {}

  async start(): Promise<void> {
    this.stopListening = await this.source.listen((e) => this.hear(e));
    try {
      const last = await this.source.lastSequence();
      const since = this.opts.since;
      if (since !== null) this.opts.check(since, last, since < last ? await this.source.isStored(since + 1n) : true);
      this.cursor = since ?? last;
      this.catchUpTo = last;
      this.dropDelivered();
    } catch (e) {
      this.stop();
      throw e;
    }
  }

  private hear(e: BusEvent): void {
    const seq = BigInt(e.sequence);
    if (seq <= this.cursor || this.done) return;
    this.live.set(seq, e);
    this.wake?.();
  }

  private dropDelivered(): void {
    for (const seq of this.live.keys()) if (seq <= this.cursor) this.live.delete(seq);
  }

  /** Reads one page of stored events in (cursor, upTo] and moves the cursor past what it covered. */
  private async readStored(upTo: bigint): Promise<void> {
    const page = await this.source.read(this.cursor, upTo, feedSettings.pageSize);
    for (const e of page) {
      const item = await this.opts.map(e);
      if (item !== null) this.ready.push(item);
    }
    this.cursor = page.length < feedSettings.pageSize ? upTo : BigInt(page.at(-1)!.sequence);
    this.dropDelivered();
  }

  /** Resolves when a live event arrives, the feed stops, or after `ms`. */
  private waitForLive(ms?: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = ms === undefined ? undefined : setTimeout(() => done(), ms);
      const done = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      this.wake = done;
    });
  }

  async next(): Promise<IteratorResult<T>> {
    try {
      while (!this.done) {
        if (this.ready.length > 0) return { value: this.ready.shift()!, done: false };
        if (this.cursor < this.catchUpTo) {
          await this.readStored(this.catchUpTo);
          continue;
        }
        const following = this.live.get(this.cursor + 1n);
        if (following) {
          this.live.delete(this.cursor + 1n);
          this.cursor += 1n;
          const item = await this.opts.map(following);
          if (item !== null) return { value: item, done: false };
          continue;
        }
        if (this.live.size === 0) {
          await this.waitForLive();
          continue;
        }
        // A gap: later events arrived, the next one did not (yet).
        if (this.gap?.cursor !== this.cursor) this.gap = { cursor: this.cursor, since: Date.now() };
        const left = this.gap.since + feedSettings.gapWaitMs - Date.now();
        if (left > 0) {
          await this.waitForLive(left);
          continue;
        }
        this.catchUpTo = minKey(this.live) - 1n; // read the missing ones (every page of them) from the database
      }
    } catch (e) {
      this.stop();
      return { value: this.opts.failed(e), done: false };
    }
    return { value: undefined, done: true };
  }

  private stop(): void {
    this.done = true;
    this.stopListening?.();
    this.stopListening = null;
    this.live.clear();
    this.ready.length = 0;
    this.wake?.();
  }

  async return(): Promise<IteratorResult<T>> {
    this.stop();
    return { value: undefined, done: true };
  }

  async throw(error: unknown): Promise<IteratorResult<T>> {
    this.stop();
    throw error;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}

function minKey(m: Map<bigint, unknown>): bigint {
  let min: bigint | null = null;
  for (const k of m.keys()) if (min === null || k < min) min = k;
  return min!;
}

/** Which of a workspace's events a subscription wants (the same test for stored and live events). */
export interface EventFilter {
  invoiceId?: string | null;
  types?: readonly string[];
}

export function eventMatches(filter: EventFilter, e: Pick<BusEvent, 'invoiceId' | 'type'>): boolean {
  if (filter.invoiceId && e.invoiceId !== filter.invoiceId) return false;
  return !filter.types || filter.types.includes(e.type);
}

/**
 * The feed's source for one workspace: the event bus, and the "Event" table read in sequence ranges by the unique
 * (workspaceId, sequence) index, each event with its invoice's row as it is now (as the dispatcher publishes it).
 */
export function workspaceEventSource(bus: EventBus, sql: Pick<SqlExecutor, 'query'>, workspaceId: string, filter: EventFilter): FeedSource {
  return {
    listen: (onEvent) => bus.listen(workspaceId, onEvent),
    lastSequence: () => lastEventSequence(sql, workspaceId),
    async isStored(sequence) {
      const rows = await sql.query(`SELECT 1 FROM "Event" WHERE "workspaceId" = $1 AND sequence = $2::bigint`, [workspaceId, sequence.toString()]);
      return rows.length > 0;
    },
    async read(after, upTo, limit) {
      const params: unknown[] = [workspaceId, after.toString(), upTo.toString(), limit];
      let where = '';
      if (filter.invoiceId) where += ` AND e."invoiceId" = $${params.push(filter.invoiceId)}`;
      if (filter.types) where += ` AND e.type = ANY($${params.push([...filter.types])}::text[])`;
      const rows = await sql.query<Parameters<typeof busEventOf>[0] & { invoice: Record<string, unknown> | null }>(
        `SELECT e.id, e."workspaceId", e.sequence, e.type, e."invoiceId", e."cashReceiptId", e."bankAccountIds", e."createdAt",
                (SELECT to_jsonb(i) FROM "Invoice" i WHERE i.id = e."invoiceId") AS invoice
           FROM "Event" e
          WHERE e."workspaceId" = $1 AND e.sequence > $2::bigint AND e.sequence <= $3::bigint${where}
          ORDER BY e.sequence
          LIMIT $4::int`,
        params,
      );
      return rows.map((r) => busEventOf(r, r.invoice));
    },
  };
}
