/** The writer of matched deposits: per workspace one statement at a time, with those that arrive meanwhile batched. */
import { KeyedBatcher } from '../batching.ts';
import type { Deps } from '../deps.ts';
import { storeMatchedDepositsInOneStatement, type MatchedDepositResult, type MatchedDepositWrite } from './matched-deposit-statement.ts';

/** Deposits matched in one statement per workspace at a time, at most this many together. */
const MATCHED_DEPOSITS_PER_STATEMENT = 64;
/** A statement of matched deposits that has not answered by then fails its deposits with 503 (the bank retries). */
const MATCHED_DEPOSITS_TIMEOUT_MS = 30_000;

const matchedDepositBatchers = new WeakMap<Deps, KeyedBatcher<MatchedDepositWrite, MatchedDepositResult>>();

/**
 * The writer of matched deposits, one per app: per workspace, one statement at a time. Each such statement takes the
 * workspace's row lock until it commits (event sequence numbers, src/domain/events/outbox.ts), so deposits of one
 * workspace commit one after another anyway; writing those that arrive meanwhile in the next statement together makes
 * a burst, or the backlog of a database stall, one commit instead of a queue of commits each waiting for the last.
 * Two deposits paying the same invoice never share a statement (PostgreSQL would apply only one of two updates of a
 * row in one statement, without saying which): the second waits for the next one, where it finds the invoice paid.
 */
export function matchedDepositWrites(deps: Deps) {
  let batcher = matchedDepositBatchers.get(deps);
  if (!batcher) {
    batcher = new KeyedBatcher((workspaceId, items) => storeMatchedDeposits(deps, workspaceId, items), {
      max: MATCHED_DEPOSITS_PER_STATEMENT,
      timeoutMs: MATCHED_DEPOSITS_TIMEOUT_MS,
      fits: (batch, item) => batch.every((b) => b.candidate.id !== item.candidate.id),
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
 * Stores matched deposits of one workspace (see storeMatchedDepositsInOneStatement); one result per deposit, in order.
 * Exported for tests.
 */
export async function storeMatchedDeposits(deps: Deps, workspaceId: string, items: MatchedDepositWrite[]): Promise<PromiseSettledResult<MatchedDepositResult>[]> {
  if (items.length > 1) {
    try {
      return (await storeMatchedDepositsInOneStatement(deps, workspaceId, items)).map((value) => ({ status: 'fulfilled', value }));
    } catch (e) {
      const code = (e as { code?: unknown })?.code;
      if (typeof code !== 'string' || !RETRY_ALONE.has(code)) return items.map(() => ({ status: 'rejected', reason: e }));
      deps.log.info({ code, deposits: items.length }, 'a statement of several matched deposits failed; writing each alone');
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
