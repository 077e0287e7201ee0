/**
 * Account history, polled through an aggregator (README, "Account history"): a feed per bank account reads the
 * account's deposits every `intervalMs`, and each row becomes a deposit once — the deposit its forwarded text already
 * announced when there was one (announced-deposits.ts), a new deposit, matched like any other, when the text was lost.
 *
 * A poll holds its feed's lease (`pollLeaseUntil`, claimed by a conditional update with SKIP LOCKED), so with several
 * instances each account is polled by one at a time, and a lease left by a crashed process runs out. A poll that fails
 * is tried again with backoff (the interval doubled per failure, at most an hour, or later when the aggregator said
 * when); a refusal that only the merchant can fix (the account not registered at the aggregator, expired bank
 * credentials) stops the feed (NEEDS_ATTENTION, with the reason) until it is resumed.
 *
 * The rows read: from the day (Asia/Seoul) before the last complete poll, at most MAX_LOOKBACK_DAYS back, to today.
 * Rows booked before the feed was connected are not taken: such a deposit may well have paid for something else, and
 * matching it now to a pending invoice of the same name and amount would mark that invoice paid wrongly.
 */
import type { BankAccount, HistoryFeed } from '../../../generated/prisma/client.ts';
import type { BankProviderId } from '../../bank-accounts/bank-providers.ts';
import type { Principal } from '../../auth/principal.ts';
import { assertCanWrite, bankAccountInScope, requirePrincipal, requireSession } from '../../auth/rules.ts';
import { kstDate } from '../../dates.ts';
import { inRawTransaction, type Deps } from '../../deps.ts';
import { DomainError } from '../../errors.ts';
import { isDatabaseUnavailable } from '../../prisma-errors.ts';
import { newId } from '../../ids.ts';
import { storableText } from '../../validation.ts';
import { storeAnnouncedDeposit } from '../announced-deposits.ts';
import { AGGREGATORS, AggregatorError, type AggregatorName, type HistoryRow, type HistoryWindow } from './aggregator-port.ts';

/** Longer than any poll should take: a poll still running then may be joined by another instance's. */
const POLL_LEASE_MS = 10 * 60_000;
const MAX_BACKOFF_MS = 3600_000;
/** A history row's depositor name is stored with at most this many characters, as a bank notification's is. */
const HISTORY_NAME_MAX = 100;
/** How far back a poll reads at most, however long the feed was stopped. */
export const MAX_LOOKBACK_DAYS = 31;
/** What lastError says of an error that is neither the aggregator's nor a rule's (the details are in the log only). */
const INTERNAL_POLL_ERROR = 'The poll stopped on an internal error (logged by the service); it is tried again.';
/** On-demand polls of a real aggregator's feed: at most one per this long. */
export const MIN_ON_DEMAND_POLL_MS = 60_000;
/** How soon to look again when a due feed was being claimed by another instance at the same moment. */
const CLAIM_RACE_RETRY_MS = 1000;

const DAY_MS = 86_400_000;

/** The window a poll at `now` reads (see the header). */
export function pollWindow(feed: Pick<HistoryFeed, 'lastPolledAt' | 'createdAt'>, now: Date): HistoryWindow {
  const from = new Date(Math.max((feed.lastPolledAt ?? feed.createdAt).getTime() - DAY_MS, now.getTime() - MAX_LOOKBACK_DAYS * DAY_MS));
  return { from: kstDate(from), to: kstDate(now) };
}

export interface PollResult {
  /** Deposit rows the aggregator listed in the window. */
  rows: number;
  /** Deposits new to the service (no text, no earlier poll announced them). */
  created: number;
  /** Rows booked before the feed was connected, left alone. */
  skipped: number;
  /** Rows the service could not store (logged; tried again at the next poll). */
  failed: number;
}

/** Reads the feed's window and stores every row not yet seen. */
async function pollFeed(deps: Deps, feed: HistoryFeed): Promise<PollResult> {
  const adapter = deps.aggregators.get(feed.aggregator as AggregatorName);
  if (!adapter) throw new DomainError('AGGREGATOR_NOT_CONFIGURED');
  const account = await deps.prisma.bankAccount.findUnique({ where: { id: feed.bankAccountId } });
  if (!account || account.deletedAt) throw new DomainError('BANK_ACCOUNT_NOT_FOUND', { message: 'The feed\'s bank account was deleted.' });
  const now = deps.clock.now();
  const window = pollWindow(feed, now);
  const rows = await adapter.listDeposits({ feedId: feed.id, provider: account.provider as BankProviderId, accountNumber: account.number, corpNum: feed.corpNum }, window);
  return storeRows(deps, account, feed, rows);
}

/** Stores the rows not seen before, oldest first (one look-up for the rows a poll already stored). */
async function storeRows(deps: Deps, account: BankAccount, feed: HistoryFeed, rows: readonly HistoryRow[]): Promise<PollResult> {
  const ids = rows.map((r) => r.rowId);
  const seen = new Set(
    ids.length === 0
      ? []
      : (
          await deps.sql.query<{ historyRowId: string }>(`SELECT "historyRowId" FROM "Transaction" WHERE "bankAccountId" = $1 AND "historyRowId" = ANY($2::text[])`, [
            account.id,
            ids,
          ])
        ).map((r) => r.historyRowId),
  );
  let created = 0;
  let skipped = 0;
  let failed = 0;
  const ordered = [...rows].sort((a, b) => a.occurredAt.getTime() - b.occurredAt.getTime());
  for (const row of ordered) {
    if (seen.has(row.rowId)) continue;
    if (row.occurredAt.getTime() < feed.createdAt.getTime()) {
      skipped++;
      continue;
    }
    // Each row on its own: one the service cannot store (logged) holds none of the others back.
    try {
      const stored = await storeAnnouncedDeposit(
        deps,
        account,
        { amount: row.amount, depositorName: storableText(row.depositorName, HISTORY_NAME_MAX), occurredAt: row.occurredAt, balanceAfter: row.balanceAfter },
        { source: 'HISTORY', historyRowId: row.rowId, balanceAfter: row.balanceAfter },
      );
      if (stored.created) created++;
      seen.add(row.rowId);
    } catch (e) {
      if (isDatabaseUnavailable(e)) throw e;
      failed++;
      deps.log.error({ err: e, historyFeed: feed.id, historyRowId: row.rowId }, 'account-history row could not be stored');
    }
  }
  return { rows: rows.length, created, skipped, failed };
}


/** Whether a failure stops the feed until the merchant acts (see the header). */
function needsAttention(e: unknown): boolean {
  return (e instanceof AggregatorError && !e.retryable) || (e instanceof DomainError && (e.code === 'AGGREGATOR_NOT_CONFIGURED' || e.code === 'BANK_ACCOUNT_NOT_FOUND'));
}

async function runClaimed(deps: Deps, feed: HistoryFeed): Promise<{ result: PollResult } | { error: unknown }> {
  try {
    const result = await pollFeed(deps, feed);
    const now = deps.clock.now();
    await deps.sql.query(
      `UPDATE "HistoryFeed" SET "lastPolledAt" = $2::timestamptz, "lastError" = $7, failures = 0, "lastRows" = $4::int, "lastNew" = $5::int,
              "nextPollAt" = CASE WHEN "nextPollAt" IS DISTINCT FROM $6::timestamptz THEN "nextPollAt" ELSE $3::timestamptz END,
              "pollLeaseUntil" = NULL, "updatedAt" = $2::timestamptz
        WHERE id = $1`,
      [
        feed.id, now.toISOString(), new Date(now.getTime() + feed.intervalMs).toISOString(), result.rows, result.created, feed.nextPollAt?.toISOString() ?? null,
        result.failed > 0 ? `${result.failed} row(s) could not be stored because of an internal error (logged by the service); they are tried again at the next poll.` : null,
      ],
    );
    if (result.created > 0) deps.log.info({ historyFeed: feed.id, rows: result.rows, created: result.created }, 'account history: deposits the texts had not announced');
    return { result };
  } catch (error) {
    const now = deps.clock.now();
    const failures = feed.failures + 1;
    const backoff = Math.min(Math.max(feed.intervalMs, 1000) * 2 ** Math.min(failures - 1, 12), MAX_BACKOFF_MS);
    // The aggregator's own wait, when it asks for longer, up to the longest backoff.
    const delay = error instanceof AggregatorError && error.retryAfterMs ? Math.min(Math.max(backoff, error.retryAfterMs), MAX_BACKOFF_MS) : backoff;
    const expected = error instanceof AggregatorError || error instanceof DomainError;
    const message = expected ? `${(error as AggregatorError | DomainError).code}: ${(error as Error).message}` : INTERNAL_POLL_ERROR;
    const stop = needsAttention(error);
    await deps.sql.query(
      `UPDATE "HistoryFeed" SET "lastError" = $2, failures = $3::int, state = CASE WHEN $6::boolean THEN 'NEEDS_ATTENTION'::"HistoryFeedState" ELSE state END,
              "nextPollAt" = CASE WHEN $6::boolean THEN NULL ELSE $4::timestamptz END, "pollLeaseUntil" = NULL, "updatedAt" = $5::timestamptz
        WHERE id = $1`,
      [feed.id, message.slice(0, 1000), failures, new Date(now.getTime() + delay).toISOString(), now.toISOString(), stop],
    );
    if (!expected) deps.log.error({ err: error, historyFeed: feed.id }, 'account-history poll failed');
    else deps.log.warn({ historyFeed: feed.id, error: message, stopped: stop }, 'account-history poll failed; will retry unless stopped');
    return { error };
  }
}

const CLAIMABLE = `state = 'ACTIVE' AND ("pollLeaseUntil" IS NULL OR "pollLeaseUntil" < $1::timestamptz)`;

/**
 * One run of the history worker: polls the due feed it can claim (the longest due first), one at a time; returns true
 * after a poll (more may be due at once), else ms until the next one is due.
 */
export async function runDueHistoryPolls(deps: Deps, idleMs: number): Promise<boolean | number> {
  const now = deps.clock.now();
  const [claimed] = await deps.sql.query<HistoryFeed>(
    `UPDATE "HistoryFeed" SET "pollLeaseUntil" = $2::timestamptz
      WHERE id IN (SELECT id FROM "HistoryFeed" WHERE ${CLAIMABLE} AND "nextPollAt" <= $1::timestamptz ORDER BY "nextPollAt" LIMIT 1 FOR UPDATE SKIP LOCKED)
      RETURNING *`,
    [now.toISOString(), new Date(now.getTime() + POLL_LEASE_MS).toISOString()],
  );
  if (claimed) {
    await runClaimed(deps, claimed);
    return true;
  }
  // A feed being polled elsewhere is due when its lease ends, not at its past due time (else this loop spins).
  const [next] = await deps.sql.query<{ at: Date | null }>(
    `SELECT min(GREATEST("nextPollAt", "pollLeaseUntil")) AS at FROM "HistoryFeed" WHERE state = 'ACTIVE' AND "nextPollAt" IS NOT NULL`,
  );
  if (!next?.at) return idleMs;
  return Math.max(CLAIM_RACE_RETRY_MS, new Date(next.at).getTime() - deps.clock.now().getTime());
}

/** A feed of the principal's workspace (else HISTORY_FEED_NOT_FOUND), of an account within its scope (else OUT_OF_SCOPE). */
export async function loadHistoryFeedFor(deps: Deps, p: Principal, id: unknown): Promise<HistoryFeed> {
  const feed = typeof id === 'string' ? await deps.prisma.historyFeed.findUnique({ where: { id } }) : null;
  if (!feed || feed.workspaceId !== p.workspaceId) throw new DomainError('HISTORY_FEED_NOT_FOUND');
  if (!bankAccountInScope(p, feed.bankAccountId)) throw new DomainError('OUT_OF_SCOPE');
  return feed;
}

/** historyFeeds: the workspace's feeds (a key limited to some accounts sees theirs), newest first. */
export async function listHistoryFeeds(deps: Deps, principal: Principal | null): Promise<HistoryFeed[]> {
  const p = requirePrincipal(principal);
  return deps.prisma.historyFeed.findMany({
    where: { workspaceId: p.workspaceId, ...(p.bankAccountIds !== null ? { bankAccountId: { in: [...p.bankAccountIds] } } : {}) },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
  });
}

/** historyAggregators: the aggregators connectHistoryFeed takes here (the simulated one always, Popbill when configured). */
export function offeredAggregators(deps: Pick<Deps, 'aggregators'>): AggregatorName[] {
  return AGGREGATORS.filter((name) => deps.aggregators.get(name) !== null);
}

export interface ConnectHistoryFeedRequest {
  bankAccountId: unknown;
  aggregator: unknown;
  corpNum?: unknown;
}

/**
 * connectHistoryFeed (dashboard): starts polling an account's history through an aggregator, the first poll at once;
 * connecting an account that has a feed changes its aggregator and resumes it.
 *
 * A real aggregator reads real money: the account must be verified, the business number is the workspace's own
 * (its registered business info: Popbill answers for the member registered under that number), and one account of one
 * business is polled for one workspace only (HISTORY_FEED_CONNECTED_ELSEWHERE): another workspace cannot read a
 * merchant's history by registering the merchant's (public) account and business numbers as its own.
 */
export async function connectHistoryFeed(deps: Deps, principal: Principal | null, r: ConnectHistoryFeedRequest): Promise<HistoryFeed> {
  const p = requireSession(principal);
  assertCanWrite(p);
  if (typeof r.aggregator !== 'string' || !(AGGREGATORS as readonly string[]).includes(r.aggregator)) {
    throw new DomainError('VALIDATION_FAILED', { message: `aggregator must be one of ${AGGREGATORS.join(', ')}.`, path: ['aggregator'] });
  }
  const aggregator = r.aggregator as AggregatorName;
  if (!offeredAggregators(deps).includes(aggregator)) throw new DomainError('AGGREGATOR_NOT_CONFIGURED');
  const given = r.corpNum == null ? null : typeof r.corpNum === 'string' ? r.corpNum.replace(/-/g, '') : '';
  if (given !== null && !/^\d{10}$/.test(given)) throw new DomainError('VALIDATION_FAILED', { message: 'corpNum must be a 10-digit business registration number.', path: ['corpNum'] });
  const account = typeof r.bankAccountId === 'string' ? await deps.prisma.bankAccount.findUnique({ where: { id: r.bankAccountId } }) : null;
  if (!account || account.deletedAt || account.workspaceId !== p.workspaceId) throw new DomainError('BANK_ACCOUNT_NOT_FOUND', { path: ['bankAccountId'] });
  let corpNum = given;
  if (aggregator !== 'SIMULATED') {
    if (!account.verifiedAt) throw new DomainError('BANK_ACCOUNT_NOT_VERIFIED', { path: ['bankAccountId'] });
    const business = await deps.prisma.businessInfo.findUnique({ where: { workspaceId: p.workspaceId } });
    if (!business) throw new DomainError('BUSINESS_INFO_NOT_REGISTERED', { message: "Register the workspace's business info first: the aggregator reads the accounts registered under its business number." });
    if (given !== null && given !== business.corpNum) {
      throw new DomainError('VALIDATION_FAILED', { message: "corpNum must be the workspace's registered business number (or be left out).", path: ['corpNum'] });
    }
    corpNum = business.corpNum;
  }
  const now = deps.clock.now();
  const feed = await inRawTransaction(deps, async (q) => {
    // One account of one business, polled for one workspace: checked and written under the pair's lock.
    await q(`SELECT pg_advisory_xact_lock(hashtextextended($1, 29))::text`, [`history-feed\u0001${aggregator}\u0001${corpNum ?? ''}\u0001${account.provider}\u0001${account.number}`]);
    if (aggregator !== 'SIMULATED') {
      const [elsewhere] = await q<{ id: string }>(
        `SELECT f.id FROM "HistoryFeed" f JOIN "BankAccount" a ON a.id = f."bankAccountId"
          WHERE f.aggregator = $1 AND f."corpNum" = $2 AND a.provider = $3 AND a.number = $4 AND f."workspaceId" <> $5 AND a."deletedAt" IS NULL LIMIT 1`,
        [aggregator, corpNum, account.provider, account.number, p.workspaceId],
      );
      if (elsewhere) throw new DomainError('HISTORY_FEED_CONNECTED_ELSEWHERE');
    }
    const [row] = await q<HistoryFeed>(
      `INSERT INTO "HistoryFeed" (id, "workspaceId", "bankAccountId", aggregator, "corpNum", state, "intervalMs", "nextPollAt", "createdAt", "updatedAt")
       VALUES ($1, $2, $3, $4, $5, 'ACTIVE', $6::int, $7::timestamptz, $7::timestamptz, $7::timestamptz)
       ON CONFLICT ("bankAccountId") DO UPDATE SET aggregator = EXCLUDED.aggregator, "corpNum" = EXCLUDED."corpNum", state = 'ACTIVE', "intervalMs" = EXCLUDED."intervalMs",
              "nextPollAt" = EXCLUDED."nextPollAt", "lastError" = NULL, failures = 0, "updatedAt" = EXCLUDED."updatedAt"
       RETURNING *`,
      [newId('historyFeed'), p.workspaceId, account.id, aggregator, corpNum, deps.settings.historyPollIntervalMs, now.toISOString()],
    );
    return row!;
  });
  deps.onHistoryPollDue?.();
  return feed;
}

/** pauseHistoryFeed / resumeHistoryFeed (dashboard): stop polling, or start again (the next poll at once). */
export async function setHistoryFeedActive(deps: Deps, principal: Principal | null, id: unknown, active: boolean): Promise<HistoryFeed> {
  const p = requireSession(principal);
  assertCanWrite(p);
  const feed = await loadHistoryFeedFor(deps, p, id);
  const now = deps.clock.now();
  const updated = await deps.prisma.historyFeed.update({
    where: { id: feed.id },
    data: active ? { state: 'ACTIVE', nextPollAt: now, failures: 0, lastError: null, updatedAt: now } : { state: 'PAUSED', nextPollAt: null, updatedAt: now },
  });
  if (active) deps.onHistoryPollDue?.();
  return updated;
}

/** disconnectHistoryFeed (dashboard): the feed is removed; the deposits it found stay. */
export async function disconnectHistoryFeed(deps: Deps, principal: Principal | null, id: unknown): Promise<HistoryFeed> {
  const p = requireSession(principal);
  assertCanWrite(p);
  const feed = await loadHistoryFeedFor(deps, p, id);
  await deps.prisma.historyFeed.deleteMany({ where: { id: feed.id } });
  return feed;
}

/** pollHistoryNow: polls now; CONFLICT while another poll of the feed runs; AGGREGATOR_API_FAILED with the aggregator's error. */
export async function pollHistoryNow(deps: Deps, principal: Principal | null, id: unknown): Promise<{ feed: HistoryFeed; result: PollResult }> {
  const p = requirePrincipal(principal);
  assertCanWrite(p);
  const feed = await loadHistoryFeedFor(deps, p, id);
  if (feed.state !== 'ACTIVE') throw new DomainError('HISTORY_FEED_NOT_ACTIVE');
  const now = deps.clock.now();
  // Each poll of a real aggregator is a job there, paid for and rate-limited across all its merchants: on demand, at
  // most one a minute per account.
  if (feed.aggregator !== 'SIMULATED' && feed.lastPolledAt && now.getTime() - feed.lastPolledAt.getTime() < MIN_ON_DEMAND_POLL_MS) {
    throw new DomainError('RATE_LIMITED', { message: `This account's history was polled less than ${MIN_ON_DEMAND_POLL_MS / 1000} s ago; try again in a moment.` });
  }
  const [claimed] = await deps.sql.query<HistoryFeed>(`UPDATE "HistoryFeed" SET "pollLeaseUntil" = $2::timestamptz WHERE id = $3 AND ${CLAIMABLE} RETURNING *`, [
    now.toISOString(),
    new Date(now.getTime() + POLL_LEASE_MS).toISOString(),
    feed.id,
  ]);
  if (!claimed) throw new DomainError('CONFLICT', { message: 'A poll of this account\'s history is running; try again in a moment.' });
  const outcome = await runClaimed(deps, claimed);
  const after = await deps.prisma.historyFeed.findUniqueOrThrow({ where: { id: feed.id } });
  if ('error' in outcome) {
    const e = outcome.error;
    if (e instanceof AggregatorError) throw new DomainError('AGGREGATOR_API_FAILED', { data: { aggregator: { code: e.code, message: e.message } } });
    throw e;
  }
  return { feed: after, result: outcome.result };
}
