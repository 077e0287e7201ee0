/**
 * Delivers webhooks: claims due dispatches (FOR UPDATE SKIP LOCKED, a lease in `lockedUntil` — safe with several
 * instances), POSTs the signed payload, records each attempt as a `whm_` delivery, and schedules the next attempt:
 * 7 attempts in all on the retry schedule; any 2xx is success; 410 Gone stops retrying and disables the webhook.
 */
import type { Logger } from 'pino';
import type { Event, PrismaClient, Webhook, WebhookDispatch } from '../generated/prisma/client.ts';
import type { Clock } from '../domain/clock.ts';
import { newId } from '../domain/ids.ts';
import { MAX_ATTEMPTS } from '../domain/webhooks/routing.ts';
import { signatureHeaders } from '../domain/webhooks/signing.ts';
import { activeSigningSecrets } from '../domain/webhooks/webhooks.ts';
import type { WebhookHttpClient } from './http-post.ts';
import { WorkerLoop } from './loop.ts';
import { webhookPayload } from './webhook-payloads.ts';

export interface WebhookWorkerOptions {
  retryDelaysMs: number[];
  timeoutMs: number;
  batch: number;
  concurrency: number;
  pollMs: number;
  /** Called for every attempt (metrics). */
  onAttempt?: (ok: boolean) => void;
}

export interface WebhookMetrics {
  attempts: number;
  failures: number;
}

export class WebhookWorker {
  readonly loop: WorkerLoop;
  readonly metrics: WebhookMetrics = { attempts: 0, failures: 0 };

  constructor(
    private readonly prisma: PrismaClient,
    private readonly clock: Clock,
    private readonly http: WebhookHttpClient,
    private readonly encryptionKey: Buffer,
    private readonly log: Logger,
    private readonly opts: WebhookWorkerOptions,
  ) {
    this.loop = new WorkerLoop('webhooks', () => this.step(), opts.pollMs, log);
  }

  start() {
    this.loop.start();
  }
  stop() {
    return this.loop.stop();
  }
  wake() {
    this.loop.wake();
  }

  private async step(): Promise<boolean | number> {
    const n = await this.runOnce();
    if (n >= this.opts.batch) return true;
    const rows = await this.prisma.$queryRawUnsafe<{ at: Date | null }[]>(`SELECT min("nextAttemptAt") AS at FROM "WebhookDispatch" WHERE status = 'PENDING'`);
    const at = rows[0]?.at;
    return at ? new Date(at).getTime() - this.clock.now().getTime() : this.opts.pollMs;
  }

  /** Claims and delivers the due dispatches once; returns how many were claimed. */
  async runOnce(): Promise<number> {
    const now = this.clock.now();
    // The lease outlives one delivery attempt (timeout + margin); after a crash the dispatch is retried when it ends.
    const lease = new Date(now.getTime() + this.opts.timeoutMs + 5_000);
    const claimed = await this.prisma.$transaction(async (tx) => {
      const rows = await tx.$queryRawUnsafe<{ id: string }[]>(
        `SELECT id FROM "WebhookDispatch"
          WHERE status = 'PENDING' AND "nextAttemptAt" <= $1::timestamptz AND ("lockedUntil" IS NULL OR "lockedUntil" < $1::timestamptz)
          ORDER BY "nextAttemptAt" LIMIT ${this.opts.batch} FOR UPDATE SKIP LOCKED`,
        now.toISOString(),
      );
      if (rows.length === 0) return [];
      const ids = rows.map((r) => r.id);
      await tx.webhookDispatch.updateMany({ where: { id: { in: ids } }, data: { lockedUntil: lease } });
      return tx.webhookDispatch.findMany({ where: { id: { in: ids } }, include: { webhook: { include: { workspace: { select: { ownerId: true } } } } } });
    });
    if (claimed.length === 0) return 0;
    const events = await this.prisma.event.findMany({ where: { id: { in: [...new Set(claimed.map((d) => d.eventId))] } } });
    const byId = new Map(events.map((e) => [e.id, e]));
    let next = 0;
    const workers = Array.from({ length: Math.min(this.opts.concurrency, claimed.length) }, async () => {
      while (next < claimed.length) {
        const d = claimed[next++];
        await this.deliver(d, d.webhook, d.webhook.workspace.ownerId, byId.get(d.eventId)).catch((e) => this.log.error({ err: e, dispatch: d.id }, 'delivery bookkeeping failed'));
      }
    });
    await Promise.all(workers);
    return claimed.length;
  }

  private async deliver(d: WebhookDispatch, hook: Webhook, ownerId: string, event: Event | undefined): Promise<void> {
    const now = this.clock.now();
    if (!event || hook.deletedAt || hook.disabledAt) {
      await this.prisma.webhookDispatch.update({ where: { id: d.id }, data: { status: 'FAILED', lockedUntil: null, updatedAt: now } });
      return;
    }
    const payload = webhookPayload(event, hook.version, ownerId);
    if (!payload) {
      await this.prisma.webhookDispatch.update({ where: { id: d.id }, data: { status: 'FAILED', lockedUntil: null, updatedAt: now } });
      return;
    }
    const body = JSON.stringify(payload);
    const timestamp = Math.floor(now.getTime() / 1000);
    const headers = signatureHeaders(activeSigningSecrets(hook, this.encryptionKey, now), event.id, timestamp, body);
    const result = await this.http.post(hook.url, body, headers);
    const attempt = d.attempts + 1;
    const ok = result.status !== null && result.status >= 200 && result.status < 300;
    const gone = result.status === 410;
    const finished = ok || gone || attempt >= MAX_ATTEMPTS;
    const after = this.clock.now();
    const delay = this.opts.retryDelaysMs[Math.min(attempt - 1, this.opts.retryDelaysMs.length - 1)];
    const nextAttemptAt = finished ? null : new Date(after.getTime() + delay);
    this.metrics.attempts++;
    if (!ok) this.metrics.failures++;
    this.opts.onAttempt?.(ok);
    await this.prisma.$transaction(async (tx) => {
      await tx.webhookDelivery.create({
        data: {
          id: newId('webhookDelivery'),
          webhookId: hook.id,
          dispatchId: d.id,
          eventId: event.id,
          attempt,
          status: ok ? 'SUCCEEDED' : 'FAILED',
          responseStatus: result.status,
          durationMs: result.durationMs,
          error: ok ? null : (result.error ?? `HTTP ${result.status}`),
          nextAttemptAt,
          createdAt: after,
        },
      });
      await tx.webhookDispatch.update({
        where: { id: d.id },
        data: { attempts: attempt, status: ok ? 'SUCCEEDED' : finished ? 'FAILED' : 'PENDING', nextAttemptAt: nextAttemptAt ?? after, lockedUntil: null, updatedAt: after },
      });
      if (gone) await tx.webhook.update({ where: { id: hook.id }, data: { disabledAt: after, updatedAt: after } });
    });
    if (!ok) this.log.info({ webhook: hook.id, event: event.id, attempt, status: result.status, error: result.error }, 'webhook delivery failed');
  }
}
