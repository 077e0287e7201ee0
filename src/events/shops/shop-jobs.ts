/**
 * The durable job of shop orders: `shop.confirm` tells the shop that a linked invoice was paid (queued in the
 * payment's transaction, so a crash between the commit and the shop call loses nothing: the job runs after the
 * restart). Retries back off from 5 s to an hour, 16 attempts (≈ 9 hours); then the order is FAILED for the merchant
 * to see and retry (src/domain/shops/shop-orders.ts).
 *
 * A confirmation's worst case — a wait on another instance's token refresh, then a read, the update and a read again at
 * the shop, each up to CAFE24_TIMEOUT_MS, once more after a 401 — is longer than a job lease: the job runner renews
 * the lease while a job runs, so no other instance claims it and calls the shop a second time meanwhile.
 */
import type { Deps } from '../../domain/deps.ts';
import { confirmShopOrder, giveUpShopConfirmation } from '../../domain/shops/shop-orders.ts';
import type { JobHandler } from '../job-runner.ts';

export function shopJobs(deps: Deps): Record<string, JobHandler> {
  return {
    'shop.confirm': {
      maxAttempts: 16,
      backoffMs: (n) => Math.min(5000 * 2 ** (n - 1), 3_600_000),
      async run(payload: { shopOrderId: string }) {
        await confirmShopOrder(deps, payload.shopOrderId);
      },
      async onGiveUp(payload: { shopOrderId: string }, error) {
        await giveUpShopConfirmation(deps, payload.shopOrderId, error);
      },
    },
  };
}
