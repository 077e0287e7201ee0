/**
 * The durable job of shop orders: `shop.confirm` tells the shop that a linked invoice was paid (queued in the
 * payment's transaction, so a crash between the commit and the shop call loses nothing: the job runs after the
 * restart). Retries back off from 5 s to an hour, 16 attempts (≈ 9 hours); then the order is FAILED for the merchant
 * to see and retry (src/domain/shops/shop-orders.ts).
 *
 * A confirmation keeps its job while it runs: its claim is a lease (JobRunner, JOB_LEASE_MS), and its worst case — a
 * wait on another instance's token refresh, then a read, the update and a read again at the shop, each up to
 * CAFE24_TIMEOUT_MS plus the rate limit's waits, once more after a 401 — is longer than the default lease. Rather than
 * cut the work short by a deadline (a shop call cannot be taken back half-way), the lease is renewed while the job
 * runs (withRenewedLease), so no other instance claims the job and calls the shop a second time meanwhile. A process
 * that dies stops renewing, and its lease runs out as before.
 */
import type { Deps } from '../../domain/deps.ts';
import { confirmShopOrder, giveUpShopConfirmation } from '../../domain/shops/shop-orders.ts';
import type { Job } from '../../generated/prisma/client.ts';
import type { JobHandler } from '../job-runner.ts';

/** Renewals stop after this long (every shop call is bounded: a run this long is stuck, and its lease may run out). */
export const MAX_RENEWED_RUN_MS = 10 * 60_000;

/**
 * Runs `fn` while renewing the job's lease: every third of the lease the claim gave it (lockedUntil − now at the start),
 * the lease is pushed to now + that length — only while it is still the one this run holds (a conditional update), so a
 * lease lost anyway (the process stalled past it, another instance claimed the job) is never taken back. Stops when
 * `fn` settles (a renewal under way is waited for, so none lands after the run) or after MAX_RENEWED_RUN_MS.
 */
export async function withRenewedLease<T>(deps: Deps, job: Pick<Job, 'id' | 'lockedUntil'> | undefined, fn: () => Promise<T>): Promise<T> {
  if (!job?.lockedUntil) return fn();
  const started = deps.clock.now().getTime();
  const leaseMs = Math.max(new Date(job.lockedUntil).getTime() - started, 300);
  let held = new Date(job.lockedUntil);
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let renewal: Promise<void> = Promise.resolve();
  const renew = async () => {
    const now = deps.clock.now().getTime();
    if (now - started > MAX_RENEWED_RUN_MS) {
      deps.log.warn({ job: job.id, runningMs: now - started }, 'job still running; its lease is no longer renewed');
      return;
    }
    const next = new Date(now + leaseMs);
    try {
      const [renewed] = await deps.sql.query<{ id: string }>(
        `UPDATE "Job" SET "lockedUntil" = $3::timestamptz WHERE id = $1 AND status = 'PENDING' AND "lockedUntil" = $2::timestamptz RETURNING id`,
        [job.id, held.toISOString(), next.toISOString()],
      );
      if (!renewed) {
        deps.log.warn({ job: job.id }, 'job lease lost while running; not renewed');
        return;
      }
      held = next;
    } catch (err) {
      deps.log.warn({ err, job: job.id }, 'job lease renewal failed; tried again');
    }
    schedule();
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      if (!stopped) renewal = renew();
    }, Math.max(100, Math.floor(leaseMs / 3)));
    timer.unref?.();
  };
  schedule();
  try {
    return await fn();
  } finally {
    stopped = true;
    clearTimeout(timer);
    await renewal;
  }
}

export function shopJobs(deps: Deps): Record<string, JobHandler> {
  return {
    'shop.confirm': {
      maxAttempts: 16,
      backoffMs: (n) => Math.min(5000 * 2 ** (n - 1), 3_600_000),
      async run(payload: { shopOrderId: string }, job?: Job) {
        await withRenewedLease(deps, job, () => confirmShopOrder(deps, payload.shopOrderId));
      },
      async onGiveUp(payload: { shopOrderId: string }, error) {
        await giveUpShopConfirmation(deps, payload.shopOrderId, error);
      },
    },
  };
}
