/**
 * Syncing connected shops: on a schedule (the shop-sync worker runs `runDueShopSyncs`) and on demand
 * (`syncShopNow`). A sync holds its connection's lease (`syncLeaseUntil`, claimed by a conditional update with SKIP
 * LOCKED), so with several instances each shop is synced by one at a time; a lease left by a crashed process runs out.
 * A failed sync is tried again with backoff (the interval doubled per failure, at most an hour). The worker claims one
 * connection at a time, so a long sync holds no other shop's lease.
 *
 * A simulated shop changes only when told to (simulateShopOrder and cancelSimulatedShopOrder make its sync due at
 * once) and by its own clock (an order auto-canceled at its deadline, after its invoice expired). So a simulated shop
 * with no WAITING order (whose conflicting invoice may be canceled or expire at any time) is synced again only when
 * made due, or after SIMULATED_IDLE_SYNC_MS: sandboxes, however many, do not lengthen real shops' sync cycles.
 */
import type { ShopConnection } from '../../generated/prisma/client.ts';
import type { Principal } from '../auth/principal.ts';
import { assertCanWrite, requirePrincipal } from '../auth/rules.ts';
import type { Deps } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { loadShopConnectionFor, ShopNotConnected } from './connections.ts';
import { ShopApiError } from './shop-port.ts';
import { syncShopOrders, type SyncResult } from './shop-orders.ts';

/** Longer than any sync should take: a sync still running then may be joined by another instance's. */
const SYNC_LEASE_MS = 10 * 60_000;
const MAX_BACKOFF_MS = 3600_000;
/** The scheduled sync of a simulated shop with no WAITING order (see above). */
export const SIMULATED_IDLE_SYNC_MS = 24 * 3600_000;
/** What lastSyncError says of an error that is neither the shop's nor a rule's (the details are in the log only). */
const INTERNAL_SYNC_ERROR = 'The sync stopped on an internal error (logged by the service); it is tried again.';

/**
 * The next due time after a sync: `next`, unless the due time was moved while the sync ran (an order placed in the
 * simulated shop, a completed install: "due now"), which is kept. `claimed` is the due time the sync was claimed with.
 */
const KEEP_NEWER_DUE = (next: string, claimed: string) =>
  `CASE WHEN "nextSyncAt" IS DISTINCT FROM ${claimed}::timestamptz THEN "nextSyncAt" ELSE ${next}::timestamptz END`;

const CLAIMABLE = `state = 'CONNECTED' AND ("syncLeaseUntil" IS NULL OR "syncLeaseUntil" < $1::timestamptz)`;

/** How long until the connection's next scheduled sync after a successful one (SIMULATED_IDLE_SYNC_MS for an idle sandbox). */
async function scheduledIn(deps: Deps, c: ShopConnection): Promise<number> {
  const interval = deps.settings.shopSyncIntervalMs;
  if (c.platform !== 'SIMULATED') return interval;
  const [w] = await deps.sql.query<{ waiting: boolean }>(`SELECT EXISTS (SELECT 1 FROM "ShopOrder" WHERE "connectionId" = $1 AND state = 'WAITING') AS waiting`, [c.id]);
  return w?.waiting ? interval : Math.max(interval, SIMULATED_IDLE_SYNC_MS);
}

/**
 * What lastSyncError says after a successful sync (null: nothing to say): orders an unexpected error stopped, and a
 * status search that failed (the sync is a success: its imports stand, and the open orders are asked about again at
 * later syncs, from the back of the rotation).
 */
function syncNotes(result: SyncResult): string | null {
  const notes = [
    result.failed > 0 ? `${result.failed} order(s) could not be processed because of an internal error (logged by the service); they are tried again at the next sync.` : null,
    result.statusCheckError ? `The shop's order states could not be read (${result.statusCheckError}); the open orders asked about are asked again at later syncs.` : null,
  ].filter((n): n is string => n !== null);
  return notes.length > 0 ? notes.join(' ').slice(0, 1000) : null;
}

async function runClaimed(deps: Deps, c: ShopConnection): Promise<{ result: SyncResult } | { error: unknown }> {
  const interval = deps.settings.shopSyncIntervalMs;
  try {
    const result = await syncShopOrders(deps, c);
    const now = deps.clock.now();
    // More new orders than one sync imports: the next sync is due at once, and lastSyncAt (where the next listing
    // starts, less a day) stays the last complete sync's, so the orders left are listed again.
    const next = result.more ? now : new Date(now.getTime() + (await scheduledIn(deps, c)));
    const problem = syncNotes(result);
    const [after] = await deps.sql.query<{ nextSyncAt: Date | null }>(
      `UPDATE "ShopConnection" SET "lastSyncAt" = CASE WHEN $5::boolean THEN "lastSyncAt" ELSE $2::timestamptz END, "lastSyncError" = $6, "syncFailures" = 0,
              "nextSyncAt" = ${KEEP_NEWER_DUE('$3', '$4')}, "syncLeaseUntil" = NULL, "updatedAt" = $2::timestamptz
        WHERE id = $1 RETURNING "nextSyncAt"`,
      [c.id, now.toISOString(), next.toISOString(), c.nextSyncAt?.toISOString() ?? null, result.more, problem],
    );
    // Made due while this sync ran (an order placed in the simulated shop): the loops that were told found the shop
    // leased and wait for the lease's end; this instance's loop runs it now.
    if (after?.nextSyncAt && new Date(after.nextSyncAt).getTime() <= now.getTime()) deps.onShopSyncDue?.();
    return { result };
  } catch (error) {
    const now = deps.clock.now();
    const failures = c.syncFailures + 1;
    const delay = Math.min(Math.max(interval, 1000) * 2 ** Math.min(failures - 1, 12), MAX_BACKOFF_MS);
    // The shop's error, or a rule's (the receiving accounts gone): for the merchant. Anything else may carry the
    // database's or the code's words: the log has it, lastSyncError says only that it happened.
    const expected = error instanceof ShopApiError || error instanceof ShopNotConnected || error instanceof DomainError;
    const message =
      error instanceof ShopApiError || error instanceof DomainError ? `${error.code}: ${error.message}` : error instanceof ShopNotConnected ? error.message : INTERNAL_SYNC_ERROR;
    await deps.sql.query(
      `UPDATE "ShopConnection" SET "lastSyncError" = $2, "syncFailures" = $3::int, "nextSyncAt" = ${KEEP_NEWER_DUE('$4', '$6')}, "syncLeaseUntil" = NULL, "updatedAt" = $5::timestamptz WHERE id = $1`,
      [c.id, message.slice(0, 1000), failures, new Date(now.getTime() + delay).toISOString(), now.toISOString(), c.nextSyncAt?.toISOString() ?? null],
    );
    if (!expected) deps.log.error({ err: error, shopConnection: c.id }, 'shop sync failed');
    else deps.log.warn({ shopConnection: c.id, error: message }, 'shop sync failed; will retry');
    return { error };
  }
}

/**
 * One run of the shop-sync worker: syncs the due connection it can claim (the longest due first), one at a time, so
 * the lease of a shop not yet reached is not held while another syncs; returns true after a sync (more may be due at
 * once), else ms until the next one is due.
 */
export async function runDueShopSyncs(deps: Deps): Promise<boolean | number> {
  const now = deps.clock.now();
  const [claimed] = await deps.sql.query<ShopConnection>(
    `UPDATE "ShopConnection" SET "syncLeaseUntil" = $2::timestamptz
      WHERE id IN (SELECT id FROM "ShopConnection" WHERE ${CLAIMABLE} AND "nextSyncAt" <= $1::timestamptz ORDER BY "nextSyncAt" LIMIT 1 FOR UPDATE SKIP LOCKED)
      RETURNING *`,
    [now.toISOString(), new Date(now.getTime() + SYNC_LEASE_MS).toISOString()],
  );
  if (claimed) {
    await runClaimed(deps, claimed);
    return true;
  }
  // A connection being synced elsewhere (another instance, or a process that died mid-sync) is due when its lease ends,
  // not at its past due time: else this loop would run again at once, and again, for as long as the lease lasts.
  const [next] = await deps.sql.query<{ at: Date | null }>(
    `SELECT min(GREATEST("nextSyncAt", "syncLeaseUntil")) AS at FROM "ShopConnection" WHERE state = 'CONNECTED' AND "nextSyncAt" IS NOT NULL`,
  );
  if (!next?.at) return deps.settings.shopSyncIntervalMs;
  // Due now and yet not claimed: another instance's claim was in flight (it skipped the row it had locked, and that
  // claim's lease is not visible yet). Look again in a moment, when it is, rather than at once.
  return Math.max(CLAIM_RACE_RETRY_MS, new Date(next.at).getTime() - deps.clock.now().getTime());
}

/** How soon to look again when a due connection was being claimed by another instance at the same moment. */
export const CLAIM_RACE_RETRY_MS = 1000;

/** syncShopOrders (on demand): imports now; CONFLICT while another sync of the shop runs; SHOP_API_FAILED with the shop's error. */
export async function syncShopNow(deps: Deps, principal: Principal | null, id: unknown): Promise<{ connection: ShopConnection; result: SyncResult }> {
  const p = requirePrincipal(principal);
  assertCanWrite(p);
  const connection = await loadShopConnectionFor(deps, p, id);
  if (connection.state !== 'CONNECTED') throw new DomainError('SHOP_NOT_CONNECTED');
  const now = deps.clock.now();
  const [claimed] = await deps.sql.query<ShopConnection>(`UPDATE "ShopConnection" SET "syncLeaseUntil" = $2::timestamptz WHERE id = $3 AND ${CLAIMABLE} RETURNING *`, [
    now.toISOString(),
    new Date(now.getTime() + SYNC_LEASE_MS).toISOString(),
    connection.id,
  ]);
  if (!claimed) throw new DomainError('CONFLICT', { message: 'A sync of this shop is running; try again in a moment.' });
  const outcome = await runClaimed(deps, claimed);
  const after = await deps.prisma.shopConnection.findUniqueOrThrow({ where: { id: connection.id } });
  if ('error' in outcome) {
    const e = outcome.error;
    if (e instanceof ShopNotConnected) throw new DomainError('SHOP_NOT_CONNECTED', { message: e.message });
    if (e instanceof ShopApiError) throw new DomainError('SHOP_API_FAILED', { data: { shop: { code: e.code, message: e.message } } });
    throw e;
  }
  return { connection: after, result: outcome.result };
}
