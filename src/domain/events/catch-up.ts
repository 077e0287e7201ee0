/**
 * What a reconnecting subscriber may catch up on. A subscription with `sinceSequence` delivers every event of the
 * workspace committed after that sequence before going live, never a silent gap: what it cannot deliver, it refuses
 * at the start with an error that says what to do instead.
 */
import type { SqlExecutor } from '../../db/database.ts';
import { DomainError } from '../errors.ts';

/** The largest event sequence there can be (the column is a PostgreSQL bigint). */
export const MAX_EVENT_SEQUENCE = 2n ** 63n - 1n;

/**
 * An event sequence a client gives (`events`, `invoiceEvents` and `invoicePaid` take `sinceSequence`): absent, or a
 * decimal number from 0 to MAX_EVENT_SEQUENCE; anything else is VALIDATION_FAILED naming the field (never a bigint
 * overflow in the database).
 */
export function parseEventSequence(value: string | null | undefined, field: string): bigint | null {
  if (value === null || value === undefined) return null;
  if (!/^\d{1,19}$/.test(value) || BigInt(value) > MAX_EVENT_SEQUENCE) {
    throw new DomainError('VALIDATION_FAILED', { message: `${field} must be a decimal event sequence number from 0 to ${MAX_EVENT_SEQUENCE}.`, path: [field] });
  }
  return BigInt(value);
}

/** The most events one subscription replays before going live (the rest: the `events` query, 100 a page). */
export const catchUpLimits = { maxEvents: 100_000 };

/**
 * Whether a subscription can catch up from `since`, given the workspace's last sequence (`head`) and whether the next
 * event is still stored: beyond `head` is VALIDATION_FAILED, a pruned one EVENTS_NOT_RETAINED, more than
 * `catchUpLimits.maxEvents` CATCH_UP_TOO_LARGE (page with the events query instead).
 */
export function assertCatchUpPossible(since: bigint, head: bigint, nextStored: boolean): void {
  if (since > head) {
    throw new DomainError('VALIDATION_FAILED', { message: `sinceSequence ${since} is after the workspace's last event (${head}).`, path: ['sinceSequence'] });
  }
  if (since < head && !nextStored) {
    throw new DomainError('EVENTS_NOT_RETAINED', { data: { sinceSequence: String(since), lastSequence: String(head) } });
  }
  const missed = head - since;
  if (missed > BigInt(catchUpLimits.maxEvents)) {
    throw new DomainError('CATCH_UP_TOO_LARGE', {
      message: `${missed} events were committed after sequence ${since}, more than a subscription catches up on (${catchUpLimits.maxEvents}): page through them with the events query, then subscribe with the last sequence it returned.`,
      data: { sinceSequence: String(since), lastSequence: String(head), maxEvents: catchUpLimits.maxEvents },
    });
  }
}

/**
 * The workspace's last event sequence (0 before its first event). Every event up to it is committed: sequences are
 * taken under the workspace row's lock, in the transaction that stores the event. A client that reads this before
 * reading what it shows, then subscribes with it as `sinceSequence`, misses nothing committed after its read.
 */
export async function lastEventSequence(sql: Pick<SqlExecutor, 'query'>, workspaceId: string): Promise<bigint> {
  const [row] = await sql.query<{ eventSeq: string | number | bigint }>(`SELECT "eventSeq" FROM "Workspace" WHERE id = $1`, [workspaceId]);
  return row ? BigInt(row.eventSeq) : 0n;
}
