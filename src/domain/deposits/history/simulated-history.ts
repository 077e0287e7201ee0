/**
 * The simulated aggregator's side (src/events/aggregators/simulated-aggregator.ts): a merchant (or the tour's CLI)
 * books a deposit in the simulated account history of a feed, as the bank would — for example one whose text the phone
 * never forwarded. Booking it makes the feed's poll due at once, so it is found within a moment.
 *
 * The balance after it is the ledger's last balance plus the amount (the ledger opens at SIMULATED_OPENING_BALANCE),
 * unless given: give the balance a forwarded text showed to book that text's deposit (the poll then finds the deposit
 * the text announced, not a second one).
 */
import { randomBytes } from 'node:crypto';
import type { SimulatedHistoryRow } from '../../../generated/prisma/client.ts';
import type { Principal } from '../../auth/principal.ts';
import { assertCanWrite, requirePrincipal } from '../../auth/rules.ts';
import { assertStorableInstant, parseTimestamp, isTimestampRefusal } from '../../dates.ts';
import { inRawTransaction, type Deps } from '../../deps.ts';
import { DomainError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { MAX_WON } from '../../validation.ts';
import { loadHistoryFeedFor } from './history-polling.ts';

export const SIMULATED_OPENING_BALANCE = 1_000_000;
/** Rows a simulated ledger holds at most (a sandbox, not a store). */
export const SIMULATED_LEDGER_MAX = 10_000;

export interface SimulatedHistoryDepositRequest {
  feedId: unknown;
  depositorName: unknown;
  amount: unknown;
  /** ISO 8601 with a zone; default now. */
  occurredAt?: unknown;
  balanceAfter?: unknown;
}

/** simulateHistoryDeposit: a deposit row booked in a simulated feed's ledger. */
export async function simulateHistoryDeposit(deps: Deps, principal: Principal | null, r: SimulatedHistoryDepositRequest): Promise<SimulatedHistoryRow> {
  const p = requirePrincipal(principal);
  assertCanWrite(p);
  const feed = await loadHistoryFeedFor(deps, p, r.feedId);
  if (feed.aggregator !== 'SIMULATED') throw new DomainError('HISTORY_FEED_NOT_SIMULATED');
  if (typeof r.depositorName !== 'string' || r.depositorName.trim().length === 0 || [...r.depositorName].length > 40) {
    throw new DomainError('VALIDATION_FAILED', { message: 'depositorName must be 1-40 characters.', path: ['depositorName'] });
  }
  if (typeof r.amount !== 'number' || !Number.isInteger(r.amount) || r.amount < 1 || r.amount > MAX_WON) throw new DomainError('INVALID_AMOUNT', { path: ['amount'] });
  const now = deps.clock.now();
  let occurredAt = now;
  if (r.occurredAt != null) {
    const parsed = typeof r.occurredAt === 'string' ? parseTimestamp(r.occurredAt) : null;
    if (!parsed || isTimestampRefusal(parsed)) throw new DomainError('VALIDATION_FAILED', { message: 'occurredAt must be an ISO 8601 time with a zone.', path: ['occurredAt'] });
    assertStorableInstant(parsed, ['occurredAt']);
    if (parsed.getTime() > now.getTime()) throw new DomainError('VALIDATION_FAILED', { message: 'occurredAt cannot be in the future: the bank has not booked it yet.', path: ['occurredAt'] });
    occurredAt = parsed;
  }
  if (r.balanceAfter != null && (typeof r.balanceAfter !== 'number' || !Number.isSafeInteger(r.balanceAfter))) {
    throw new DomainError('VALIDATION_FAILED', { message: 'balanceAfter must be a whole number of won.', path: ['balanceAfter'] });
  }
  const depositorName = r.depositorName.trim();
  const amount = r.amount;
  const row = await inRawTransaction(deps, async (q) => {
    // The ledger's last balance and the insert under the feed's lock: two bookings at once do not share a balance.
    await q(`SELECT pg_advisory_xact_lock(hashtextextended($1, 23))::text`, [`simulated-history\u0001${feed.id}`]);
    const [ledger] = await q<{ rows: number; balance: number | null }>(
      `SELECT count(*)::int AS rows, (SELECT "balanceAfter" FROM "SimulatedHistoryRow" WHERE "feedId" = $1 AND "balanceAfter" IS NOT NULL ORDER BY "createdAt" DESC, id DESC LIMIT 1) AS balance
         FROM "SimulatedHistoryRow" WHERE "feedId" = $1`,
      [feed.id],
    );
    if ((ledger?.rows ?? 0) >= SIMULATED_LEDGER_MAX) {
      throw new DomainError('CONFLICT', { message: `A simulated ledger holds at most ${SIMULATED_LEDGER_MAX} rows: connect the feed again with a new account to start over.` });
    }
    const balanceAfter = typeof r.balanceAfter === 'number' ? r.balanceAfter : Number(ledger?.balance ?? SIMULATED_OPENING_BALANCE) + amount;
    const [inserted] = await q<SimulatedHistoryRow>(
      `INSERT INTO "SimulatedHistoryRow" (id, "feedId", "rowId", "occurredAt", amount, "depositorName", "balanceAfter", "createdAt")
       VALUES ($1, $2, $3, $4::timestamptz, $5::int, $6, $7::float8, $8::timestamptz) RETURNING *`,
      [newId('simulatedHistoryRow'), feed.id, `sim-${randomBytes(8).toString('hex')}`, occurredAt.toISOString(), amount, depositorName, balanceAfter, now.toISOString()],
    );
    if (feed.state === 'ACTIVE') await q(`UPDATE "HistoryFeed" SET "nextPollAt" = $2::timestamptz WHERE id = $1 AND state = 'ACTIVE'`, [feed.id, now.toISOString()]);
    return inserted!;
  });
  deps.onHistoryPollDue?.();
  return row;
}
