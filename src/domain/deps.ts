/** What domain operations need from the outside world, passed in (never imported) so tests can replace it. */
import type { Logger } from 'pino';
import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';
import type { Clock } from './clock.ts';
import type { CashReceiptAgency } from './cash-receipts/agency.ts';

export type Tx = Prisma.TransactionClient;

/** Parameterised SQL (`$1`, `$2`, ...) returning rows: a Prisma transaction's raw query, or the driver's directly. */
export type RawQuery = <T = Record<string, unknown>>(text: string, params: unknown[]) => Promise<T[]>;

/** The raw query of a Prisma transaction. */
export function rawOf(tx: Tx): RawQuery {
  return (text, params) => tx.$queryRawUnsafe(text, ...params);
}

/** The driver-level SQL executor (hot paths that skip Prisma's query pipeline). */
export interface SqlAccess {
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  transaction<T>(fn: (sql: { query<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]> }) => Promise<T>): Promise<T>;
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
  /** How long after a request the agency's tax-authority result is first worth asking for. */
  agencyResultDelayMs: number;
  /** Resolves a host name to its addresses (webhook SSRF checks); injectable for tests. */
  resolveHost(hostname: string): Promise<string[]>;
  /** Called after a transaction that wrote outbox rows has committed (wakes the dispatcher). */
  onEventsCommitted(): void;
  /** Called after a transaction that queued durable jobs has committed (wakes the job runner). */
  onJobsQueued(): void;
  /** Observations for metrics (a deposit's matching outcome). */
  observe?: { matchOutcome(outcome: string): void };
}

const eventsWrittenIn = new WeakSet<object>();
const jobsQueuedIn = new WeakSet<object>();

/** Marks the transaction as having written outbox events (the dispatcher is woken after it commits). */
export function noteEventsWritten(tx: Tx): void {
  eventsWrittenIn.add(tx);
}

/** Marks the transaction as having queued jobs (the job runner is woken after it commits). */
export function noteJobsQueued(tx: Tx): void {
  jobsQueuedIn.add(tx);
}

/**
 * Runs `fn` in one driver-level transaction (no Prisma in between: the hot path of invoice creation); wakes the
 * dispatcher after it commits when `events` says the transaction wrote outbox rows.
 */
export async function inRawTransaction<T>(deps: Deps, fn: (q: RawQuery) => Promise<T>, opts: { events: boolean }): Promise<T> {
  const out = await deps.sql.transaction((sql) => fn((text, params) => sql.query(text, params)));
  if (opts.events) deps.onEventsCommitted();
  return out;
}

/** Runs `fn` in one interactive transaction; after it commits, wakes the workers that have new work. */
export async function inTransaction<T>(deps: Deps, fn: (tx: Tx) => Promise<T>): Promise<T> {
  let handle: Tx | null = null;
  const out = await deps.prisma.$transaction((tx) => {
    handle = tx;
    return fn(tx);
  });
  if (handle && eventsWrittenIn.has(handle)) deps.onEventsCommitted();
  if (handle && jobsQueuedIn.has(handle)) deps.onJobsQueued();
  return out;
}
