/**
 * The durable jobs of cash receipts: `receipt.issue` registers a PENDING receipt with the agency (after the commit that
 * created it, or inline for API calls, with the job as the fallback after a crash); `receipt.settle` asks for the tax
 * authority's result until it is known (≈ 2 days of backoff), so no receipt stays PENDING because a process died.
 */
import type { Deps } from '../../domain/deps.ts';
import { registerWithAgency, settleReceipt } from '../../domain/cash-receipts/registration.ts';
import type { JobHandler } from '../job-runner.ts';

export class ResultNotReady extends Error {
  constructor() {
    super('The tax authority result is not known yet.');
  }
}

export function receiptJobs(deps: Deps): Record<string, JobHandler> {
  return {
    'receipt.issue': {
      maxAttempts: 20,
      backoffMs: (n) => Math.min(1000 * 2 ** n, 600_000),
      async run(payload: { receiptId: string }) {
        await registerWithAgency(deps, payload.receiptId);
      },
    },
    'receipt.settle': {
      maxAttempts: 60,
      backoffMs: (n) => Math.min(Math.max(deps.agencyResultDelayMs, 500) * 2 ** Math.min(n - 1, 10), 3_600_000),
      async run(payload: { receiptId: string }) {
        if (!(await settleReceipt(deps, payload.receiptId))) throw new ResultNotReady();
      },
    },
  };
}
