/**
 * Durable background jobs (the Job table): claimed with FOR UPDATE SKIP LOCKED (safe with several instances), run,
 * retried with backoff when a handler throws, given up after `maxAttempts`. A job survives a restart: a claim is a
 * lease (`lockedUntil`), so a job whose process died is picked up again when the lease runs out. A job renews its lease
 * while it runs (a shop confirmation's worst case — a token refresh waited for, then several shop calls, each up to its
 * time limit — is longer than a lease): no other instance claims a job that is still running, and a process that dies
 * stops renewing.
 */
import type { Logger } from 'pino';
import type { Job, PrismaClient } from '../generated/prisma/client.ts';
import type { Clock } from '../domain/clock.ts';
import { LoopWorker } from './loop.ts';

/** Lease renewals of one run stop after this long. */
export const MAX_RENEWED_RUN_MS = 10 * 60_000;

export interface JobHandler {
  run(payload: any, job: Job): Promise<void>;
  /** Called when the last attempt failed, before the job is marked FAILED (so it must be idempotent: see runJob). */
  onGiveUp?(payload: any, error: unknown): Promise<void>;
  maxAttempts?: number;
  /** Delay before attempt n+1 (n ≥ 1). */
  backoffMs?(attempt: number): number;
}

export class JobRunner extends LoopWorker {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly handlers: Record<string, JobHandler>,
    private readonly opts: { pollMs: number; leaseMs: number; batch: number } = { pollMs: 1000, leaseMs: 60_000, batch: 20 },
  ) {
    super('jobs', async () => ((await this.runOnce()) >= this.opts.batch ? true : this.msUntilNextDue()), opts.pollMs, log);
  }

  private async msUntilNextDue(): Promise<number> {
    // A job leased by another instance (or by a process that died) is due when its lease ends, not at its runAt: else
    // the loop would re-run at once, over and over, for the whole lease.
    const rows = await this.prisma.$queryRawUnsafe<{ at: Date | null }[]>(`SELECT min(GREATEST("runAt", "lockedUntil")) AS at FROM "Job" WHERE status = 'PENDING'`);
    const at = rows[0]?.at;
    return at ? new Date(at).getTime() - this.clock.now().getTime() : this.opts.pollMs;
  }

  /** Claims and runs the due jobs once; returns how many were claimed. */
  async runOnce(): Promise<number> {
    const now = this.clock.now();
    const jobs = await this.prisma.$transaction(async (tx) => {
      const rows = await tx.$queryRawUnsafe<{ id: string }[]>(
        `SELECT id FROM "Job" WHERE status = 'PENDING' AND "runAt" <= $1::timestamptz AND ("lockedUntil" IS NULL OR "lockedUntil" < $1::timestamptz)
         ORDER BY "runAt" LIMIT ${this.opts.batch} FOR UPDATE SKIP LOCKED`,
        now.toISOString(),
      );
      if (rows.length === 0) return [];
      const ids = rows.map((r) => r.id);
      await tx.job.updateMany({ where: { id: { in: ids } }, data: { lockedUntil: new Date(now.getTime() + this.opts.leaseMs), attempts: { increment: 1 } } });
      return tx.job.findMany({ where: { id: { in: ids } } });
    });
    await Promise.all(jobs.map((job) => this.runJob(job)));
    return jobs.length;
  }

  /** Runs one claimed job (its lease renewed while it runs) and records the outcome. */
  async runJob(job: Job): Promise<void> {
    const handler = this.handlers[job.kind];
    const now = () => this.clock.now();
    if (!handler) {
      await this.prisma.job.update({ where: { id: job.id }, data: { status: 'FAILED', lastError: `no handler for ${job.kind}`, lockedUntil: null } });
      return;
    }
    try {
      await this.withRenewedLease(job, () => handler.run(job.payload, job));
      await this.prisma.job.update({ where: { id: job.id }, data: { status: 'DONE', lockedUntil: null, lastError: null, updatedAt: now() } });
    } catch (e) {
      const max = handler.maxAttempts ?? 8;
      const message = (e as Error)?.message?.slice(0, 1000) ?? String(e);
      if (job.attempts >= max) {
        // The give-up first: a crash between the two leaves the job PENDING, to be tried once more and given up again
        // (give-up handlers are idempotent), never FAILED without its give-up having run.
        await handler.onGiveUp?.(job.payload, e).catch((err) => this.log.error({ err, job: job.id }, 'job give-up handler failed'));
        await this.prisma.job.update({ where: { id: job.id }, data: { status: 'FAILED', lockedUntil: null, lastError: message, updatedAt: now() } });
        this.log.warn({ job: job.id, kind: job.kind, attempts: job.attempts, error: message }, 'job failed for good');
      } else {
        const delay = handler.backoffMs?.(job.attempts) ?? Math.min(2 ** job.attempts * 1000, 3_600_000);
        await this.prisma.job.update({
          where: { id: job.id },
          data: { lockedUntil: null, lastError: message, runAt: new Date(now().getTime() + delay), updatedAt: now() },
        });
      }
    }
  }

  /**
   * Runs `fn` while renewing the job's lease: every third of a lease, the lease is pushed to now + a lease — only while
   * it is still the one this run holds (a conditional update), so a lease lost anyway (the process stalled past it,
   * another instance claimed the job) is never taken back. Stops when `fn` settles (a renewal under way is waited for,
   * so none lands after the run) or after MAX_RENEWED_RUN_MS (every job's calls are bounded: a run this long is stuck).
   */
  private async withRenewedLease<T>(job: Job, fn: () => Promise<T>): Promise<T> {
    if (!job.lockedUntil) return fn();
    const started = this.clock.now().getTime();
    let held = new Date(job.lockedUntil);
    let stopped = false;
    let timer: NodeJS.Timeout | undefined;
    let renewal: Promise<void> = Promise.resolve();
    const renew = async () => {
      const now = this.clock.now().getTime();
      if (now - started > MAX_RENEWED_RUN_MS) {
        this.log.warn({ job: job.id, runningMs: now - started }, 'job still running; its lease is no longer renewed');
        return;
      }
      const next = new Date(now + this.opts.leaseMs);
      try {
        const renewed = await this.prisma.job.updateMany({ where: { id: job.id, status: 'PENDING', lockedUntil: held }, data: { lockedUntil: next } });
        if (renewed.count === 0) {
          this.log.warn({ job: job.id }, 'job lease lost while running; not renewed');
          return;
        }
        held = next;
      } catch (err) {
        this.log.warn({ err, job: job.id }, 'job lease renewal failed; tried again');
      }
      schedule();
    };
    const schedule = () => {
      if (stopped) return;
      timer = setTimeout(() => {
        if (!stopped) renewal = renew();
      }, Math.max(100, Math.floor(this.opts.leaseMs / 3)));
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
}

