/**
 * The account-history port: what the domain needs of an aggregator that reads a bank account's transaction history
 * (Popbill's EasyFinBank, CODEF, Bankda). One adapter per aggregator (src/events/aggregators/): Popbill's job API, and
 * the simulated aggregator of the tour and tests.
 *
 * An adapter is stateless: the domain keeps the feed (which account, the merchant's business number at the aggregator,
 * where the last poll ended) and hands the adapter what a call needs. Credentials of the service's own aggregator
 * contract (Popbill: LinkID and SecretKey) are the adapter's configuration, never the domain's.
 */
import type { BankProviderId } from '../../bank-accounts/bank-providers.ts';

export const AGGREGATORS = ['POPBILL', 'SIMULATED'] as const;
export type AggregatorName = (typeof AGGREGATORS)[number];

/** Which account's history to read. */
export interface HistoryAccount {
  /** Our feed's id (the simulated aggregator keeps one ledger per feed). */
  feedId: string;
  /** Our bank provider id; the adapter maps it to the aggregator's bank code (or refuses a bank the aggregator does not serve). */
  provider: BankProviderId;
  /** The account number, digits only. */
  accountNumber: string;
  /** The merchant's business registration number at the aggregator (10 digits), when the aggregator needs one (Popbill: CorpNum). */
  corpNum: string | null;
}

/** One deposit row of the history, as the aggregator lists it. */
export interface HistoryRow {
  /** The aggregator's id of the row, stable across polls (Popbill: tid). */
  rowId: string;
  /** When the bank booked it (Popbill: trdt, Korean time, to the second). */
  occurredAt: Date;
  /** Whole won, > 0. */
  amount: number;
  /** The depositor as the bank shows it (Popbill: remark1, the 적요). */
  depositorName: string;
  /** The balance after it, when the bank gives one. */
  balanceAfter: number | null;
}

/** A window of the history: whole Korean days, from and to inclusive (YYYY-MM-DD, Asia/Seoul). */
export interface HistoryWindow {
  from: string;
  to: string;
}

/**
 * An aggregator call failed. `retryable`: a later attempt may succeed (timeout, connection error, rate limit, 5xx, a
 * job the aggregator failed to finish); otherwise the aggregator refused for good until the merchant acts (the account
 * is not registered with it, its bank credentials expired, our contract's credentials are wrong). `code`/`message`:
 * the aggregator's own (Popbill: `{code: -99999999, message}`), or ours ("TIMEOUT", "NETWORK", "HTTP_503",
 * "BAD_RESPONSE", "JOB_TIMEOUT", "ABORTED"), or a request refused before any call (e.g. "NO_CORP_NUM", "UNSUPPORTED_BANK").
 * A refusal that is not retryable stops the feed until the merchant (or, for our own credentials, the operator) acts.
 */
export class AggregatorError extends Error {
  readonly code: string;
  readonly retryable: boolean;
  readonly retryAfterMs: number | null;
  constructor(code: string, message: string, opts: { retryable: boolean; retryAfterMs?: number | null }) {
    super(message);
    this.name = 'AggregatorError';
    this.code = code;
    this.retryable = opts.retryable;
    this.retryAfterMs = opts.retryAfterMs ?? null;
  }
}

export interface AggregatorAdapter {
  readonly name: AggregatorName;
  /**
   * Every deposit (incoming) row of the account in the window, oldest first, all pages read. Withdrawals are left out.
   * Throws AggregatorError. `signal` aborts a poll in progress (the service is stopping).
   */
  listDeposits(account: HistoryAccount, window: HistoryWindow, signal?: AbortSignal): Promise<HistoryRow[]>;
}

/** The aggregators offered by this service: the simulated one always, Popbill when configured. */
export interface AggregatorAdapters {
  get(name: AggregatorName): AggregatorAdapter | null;
}
