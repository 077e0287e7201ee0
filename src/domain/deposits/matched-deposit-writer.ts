/**
 * The writer of the bank notifications' deposits — matched ones, and unmatched ones on accounts that receive: per
 * workspace one statement at a time, with those that arrive meanwhile batched.
 */
import { KeyedBatcher } from '../batching.ts';
import type { Deps } from '../deps.ts';
import { storeMatchedDepositsInOneStatement, type DepositWrite, type MatchedDepositResult } from './matched-deposit-statement.ts';

/** Deposits stored in one statement per workspace at a time, at most this many together. */
const MATCHED_DEPOSITS_PER_STATEMENT = 64;
/** A statement of deposits that has not answered by then fails its deposits with 503 (the bank retries). */
const MATCHED_DEPOSITS_TIMEOUT_MS = 30_000;

const matchedDepositBatchers = new WeakMap<Deps, KeyedBatcher<DepositWrite, MatchedDepositResult>>();

/**
 * The writer of deposits, one per app. Every deposit writes its event (transaction.received), so a workspace's
 * deposits commit one after another anyway (its row lock, outbox.ts): those arriving meanwhile go into the next
 * statement together, one commit for a burst.
 */
export function matchedDepositWrites(deps: Deps) {
  let batcher = matchedDepositBatchers.get(deps);
  if (!batcher) {
    batcher = new KeyedBatcher((workspaceId, items) => storeMatchedDeposits(deps, workspaceId, items), {
      max: MATCHED_DEPOSITS_PER_STATEMENT,
      timeoutMs: MATCHED_DEPOSITS_TIMEOUT_MS,
      // Two payments of one invoice never share a statement (PostgreSQL would apply one of them, without saying which).
      fits: (batch, item) => item.candidate === undefined || batch.every((b) => b.candidate?.id !== item.candidate.id),
    });
    matchedDepositBatchers.set(deps, batcher);
  }
  return batcher;
}

/**
 * Errors of a statement of several deposits that one of them may have caused alone (the same notification twice,
 * lock order with another writer): each is then written alone, so that the error is only its own. Any other error
 * (the database unreachable, ...) is every deposit's, at once.
 */
const RETRY_ALONE = new Set(['23505', '40P01', '40001']);

/**
 * Stores deposits of one workspace (see storeMatchedDepositsInOneStatement); one result per deposit, in order.
 * Exported for tests.
 */
export async function storeMatchedDeposits(deps: Deps, workspaceId: string, items: DepositWrite[]): Promise<PromiseSettledResult<MatchedDepositResult>[]> {
  if (items.length > 1) {
    try {
      return (await storeMatchedDepositsInOneStatement(deps, workspaceId, items)).map((value) => ({ status: 'fulfilled', value }));
    } catch (e) {
      const code = (e as { code?: unknown })?.code;
      if (typeof code !== 'string' || !RETRY_ALONE.has(code)) return items.map(() => ({ status: 'rejected', reason: e }));
      deps.log.info({ code, deposits: items.length }, 'a statement of several deposits failed; writing each alone');
    }
  }
  const out: PromiseSettledResult<MatchedDepositResult>[] = [];
  for (const item of items) {
    try {
      const [value] = await storeMatchedDepositsInOneStatement(deps, workspaceId, [item]);
      out.push({ status: 'fulfilled', value: value! });
    } catch (reason) {
      out.push({ status: 'rejected', reason });
    }
  }
  return out;
}
