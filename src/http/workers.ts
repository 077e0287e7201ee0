/** The background workers (outbox dispatcher, webhook deliveries, jobs, the list counters' fold, shop syncs, history polls), the event bus and the e-mail adapter: built, started, stopped. */
import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import type { Database } from '../db/database.ts';
import type { Deps } from '../domain/deps.ts';
import type { EmailPort } from '../domain/email/email.ts';
import { DEFAULT_RETRY_DELAYS_MS } from '../domain/webhooks/routing.ts';
import { foldPastExpiryDays } from '../domain/list-counts.ts';
import { receiptJobs } from '../events/agency/receipt-jobs.ts';
import { shopJobs } from '../events/shops/shop-jobs.ts';
import { runDueShopSyncs } from '../domain/shops/shop-sync.ts';
import { runDueHistoryPolls } from '../domain/deposits/history/history-polling.ts';
import { clearExpiredApprovals } from '../domain/shops/connections.ts';
import { outboxEmail, smtpEmail } from '../events/email/adapters.ts';
import { emailJob } from '../events/email/email-job.ts';
import { createEventBus, type EventBus } from '../events/event-bus.ts';
import { WebhookHttpClient } from '../events/http-post.ts';
import { JobRunner } from '../events/job-runner.ts';
import { WorkerLoop } from '../events/loop.ts';
import { OutboxDispatcher } from '../events/outbox-dispatcher.ts';
import { WebhookWorker } from '../events/webhook-worker.ts';
import { webhookPayload } from '../../rest-compat/shared/webhook-payloads.ts';
import type { Metrics } from './metrics.ts';

export interface Workers {
  bus: EventBus;
  dispatcher: OutboxDispatcher;
  webhooks: WebhookWorker;
  jobs: JobRunner;
  shopSync: WorkerLoop;
  historyPolls: WorkerLoop;
  email: EmailPort;
}

/** The workers with their lifecycle: `start` runs the loops, `stop` lets each finish its step, `close` lets go of connections. */
export interface RunningWorkers extends Workers {
  start(): void;
  stop(): Promise<void>;
  close(): Promise<void>;
}

/** Builds the workers on `deps` (webhook payloads in the REST faces' wire format); `email` replaces the adapter (tests). */
export function buildWorkers(config: Config, db: Database, deps: Deps, metrics: Metrics, log: Logger, email?: EmailPort): RunningWorkers {
  const { clock, encryptionKey } = deps;
  const bus = createEventBus(config.REDIS_URL);
  const mail = email ?? (config.SMTP_URL ? smtpEmail(config.SMTP_URL, config.MAIL_FROM) : outboxEmail(log));
  const webhookHttp = new WebhookHttpClient({ allowPrivate: config.WEBHOOK_ALLOW_PRIVATE, timeoutMs: config.WEBHOOK_TIMEOUT_MS });
  const jobs = new JobRunner(
    db.prisma,
    clock,
    log,
    { 'email.send': emailJob(db.prisma, clock, mail), ...receiptJobs(deps), ...shopJobs(deps) },
    { pollMs: 1000, leaseMs: config.JOB_LEASE_MS, batch: 20 },
  );
  const webhooks = new WebhookWorker(db.prisma, clock, webhookHttp, encryptionKey, log, {
    payload: webhookPayload,
    retryDelaysMs: config.WEBHOOK_RETRY_DELAYS_MS ?? DEFAULT_RETRY_DELAYS_MS,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    batch: 100,
    concurrency: 32,
    pollMs: 1000,
    onAttempt: (ok) => metrics.webhookAttempts.inc({ result: ok ? 'success' : 'failure' }),
  });
  const dispatcher = new OutboxDispatcher(db.sql, clock, bus, log, { webhooks: () => webhooks.wake(), jobs: () => jobs.wake() });
  // The invoice counters of expiry days long past, folded at start and then hourly (list-counts.ts).
  const counterFold = new WorkerLoop('list-count-fold', async () => (await foldPastExpiryDays(deps.sql, clock.now()), false), 3_600_000, log);
  // Connected shops' orders imported on schedule, each shop leased to one instance per sync (src/domain/shops/shop-sync.ts).
  const shopSync = new WorkerLoop('shop-sync', () => runDueShopSyncs(deps), config.SHOP_SYNC_INTERVAL_MS, log);
  // Approvals of shop installs left unconfirmed: their pending tokens erased once they expire (connections.ts).
  const approvalSweep = new WorkerLoop('shop-approval-sweep', async () => (await clearExpiredApprovals(deps), false), 60_000, log);
  // Connected accounts' histories polled on schedule, each feed leased to one instance per poll (history-polling.ts).
  const historyPolls = new WorkerLoop('history-polls', () => runDueHistoryPolls(deps, config.HISTORY_POLL_INTERVAL_MS), config.HISTORY_POLL_INTERVAL_MS, log);
  const loops = [dispatcher, webhooks, jobs, counterFold, shopSync, approvalSweep, historyPolls];
  return {
    bus,
    dispatcher,
    webhooks,
    jobs,
    shopSync,
    historyPolls,
    email: mail,
    start: () => loops.forEach((w) => w.start()),
    stop: async () => void (await Promise.all(loops.map((w) => w.stop()))),
    async close() {
      webhookHttp.close();
      (mail as { close?: () => void }).close?.();
      await bus.close();
    },
  };
}
