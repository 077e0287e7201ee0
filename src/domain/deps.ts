/** What domain operations need from the outside world, passed in (never imported) so tests can replace it. */
import type { ShopAdapters } from './shops/shop-port.ts';
import type { AggregatorAdapters } from './deposits/history/aggregator-port.ts';
import type { Logger } from 'pino';
import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';
import type { Clock } from './clock.ts';
import type { CashReceiptAgency } from './cash-receipts/agency.ts';
import type { CommittedEvent } from './events/event-types.ts';

export type Tx = Prisma.TransactionClient;

/** Parameterised SQL (`$1`, `$2`, ...) returning rows: a Prisma transaction's raw query, or the driver's directly. */
/** `prepare`: keep the statement prepared per connection (driver-level PostgreSQL only; fixed hot-path texts only). */
export type RawQuery = <T = Record<string, unknown>>(text: string, params: unknown[], opts?: { prepare?: boolean }) => Promise<T[]>;

const rawOfTx = new WeakMap<object, RawQuery>();

/** The raw query of a Prisma transaction (one function per transaction, so marks made through it are the transaction's). */
export function rawOf(tx: Tx): RawQuery {
  let q = rawOfTx.get(tx);
  if (!q) {
    q = (text, params) => tx.$queryRawUnsafe(text, ...params);
    rawOfTx.set(tx, q);
  }
  return q;
}

/** Where a write runs: a Prisma transaction or a driver-level one. Writes shared by both kinds take this. */
export type Sql = Tx | RawQuery;

/** Raw queries on the pool, outside any transaction (each statement its own). */
export function poolQuery(deps: Pick<Deps, 'sql'>): RawQuery {
  return (text, params, opts) => deps.sql.query(text, params, opts);
}

/** The raw query of either kind of transaction. */
export function asRaw(db: Sql): RawQuery {
  return typeof db === 'function' ? db : rawOf(db);
}

/** The driver-level SQL executor (hot paths that skip Prisma's query pipeline). */
export interface SqlAccess {
  /** `prepare`: see QueryOptions in src/db/database.ts (fixed hot-path statements only). */
  query<T = Record<string, unknown>>(text: string, params?: unknown[], opts?: { prepare?: boolean }): Promise<T[]>;
  transaction<T>(fn: (sql: { query<R = Record<string, unknown>>(text: string, params?: unknown[], opts?: { prepare?: boolean }): Promise<R[]> }) => Promise<T>): Promise<T>;
}
export type Db = PrismaClient;

export interface DomainSettings {
  sessionTtlHours: number;
  /** The cash-receipt agency new business-info links are made with. */
  agencyName: string;
  /** Allow webhook URLs that resolve to loopback/private addresses (WEBHOOK_ALLOW_PRIVATE). */
  webhookAllowPrivate: boolean;
  /** Log-in attempts allowed per e-mail in `loginWindowMinutes` before refusing. */
  maxLoginFailures: number;
  loginWindowMinutes: number;
  /**
   * Batches of matched deposits of up to this many run as prepared statements (matched-deposit-statement.ts): planned
   * once per connection, each text's plan kept by every connection. Unset: 1 (one deposit alone).
   */
  preparedDepositBatchMax?: number;
  /** How often a connected shop's orders are imported (SHOP_SYNC_INTERVAL_MS). */
  shopSyncIntervalMs: number;
  /** How often an account's history is polled (HISTORY_POLL_INTERVAL_MS). */
  historyPollIntervalMs: number;
}

export interface Deps {
  prisma: PrismaClient;
  /** The same database through its driver, for hot paths. */
  sql: SqlAccess;
  clock: Clock;
  settings: DomainSettings;
  /** Key that seals webhook signing secrets. */
  encryptionKey: Buffer;
  log: Logger;
  /** The cash-receipt issuing agency. */
  agency: CashReceiptAgency;
  /** The shop platforms' adapters (src/events/shops/). */
  shops: ShopAdapters;
  /** The account-history aggregators' adapters (src/events/aggregators/). */
  aggregators: AggregatorAdapters;
  /** How long after a request the agency's tax-authority result is first worth asking for. */
  agencyResultDelayMs: number;
  /** Resolves a host name to its addresses (webhook SSRF checks); injectable for tests. */
  resolveHost(hostname: string): Promise<string[]>;
  /**
   * Called after a transaction that wrote outbox rows has committed (wakes the dispatcher). With `committed`, the
   * caller hands over the events it wrote, complete: live subscribers get them at once, and the dispatcher (which still
   * takes them off the outbox queue and starts their webhook deliveries) may take its time and batch.
   */
  onEventsCommitted(committed?: CommittedEvent[]): void;
  /** Called after a transaction that queued durable jobs has committed (wakes the job runner). */
  onJobsQueued(): void;
  /** Called when a shop connection's sync became due now (wakes the shop-sync worker). */
  onShopSyncDue?(): void;
  /** Called when an account-history feed's poll became due now (wakes the history worker). */
  onHistoryPollDue?(): void;
  /** Observations for metrics (a deposit's matching outcome; how many matched deposits one statement wrote). */
  observe?: { matchOutcome(outcome: string): void; matchedDepositBatch?(deposits: number): void };
}

const eventsWrittenIn = new WeakSet<RawQuery>();
const jobsQueuedIn = new WeakSet<RawQuery>();
const shopSyncDueIn = new WeakSet<RawQuery>();

/** Marks the transaction as having written outbox events (the dispatcher is woken after it commits). */
export function noteEventsWritten(db: Sql): void {
  eventsWrittenIn.add(asRaw(db));
}

/** Marks the transaction as having queued jobs (the job runner is woken after it commits). */
export function noteJobsQueued(db: Sql): void {
  jobsQueuedIn.add(asRaw(db));
}

/** Marks the transaction as having made a shop connection's sync due now (the shop-sync worker is woken after it commits). */
export function noteShopSyncDue(db: Sql): void {
  shopSyncDueIn.add(asRaw(db));
}

function wakeWorkersAfterCommit(deps: Deps, q: RawQuery): void {
  if (eventsWrittenIn.has(q)) deps.onEventsCommitted();
  if (jobsQueuedIn.has(q)) deps.onJobsQueued();
  if (shopSyncDueIn.has(q)) deps.onShopSyncDue?.();
}

/**
 * Runs `fn` in one driver-level transaction (no Prisma in between: the hot paths of invoice creation and deposit
 * intake); after it commits, wakes the workers that have new work (events or jobs noted through `q`).
 */
export async function inRawTransaction<T>(deps: Deps, fn: (q: RawQuery) => Promise<T>): Promise<T> {
  let handle: RawQuery | null = null;
  const out = await deps.sql.transaction((sql) => {
    const q: RawQuery = (text, params, opts) => sql.query(text, params, opts);
    handle = q;
    return fn(q);
  });
  if (handle) wakeWorkersAfterCommit(deps, handle);
  return out;
}

/** Runs `fn` in one interactive transaction; after it commits, wakes the workers that have new work. */
export async function inTransaction<T>(deps: Deps, fn: (tx: Tx) => Promise<T>): Promise<T> {
  let handle: Tx | null = null;
  const out = await deps.prisma.$transaction((tx) => {
    handle = tx;
    return fn(tx);
  });
  if (handle) wakeWorkersAfterCommit(deps, rawOf(handle));
  return out;
}
