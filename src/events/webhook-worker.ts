/**
 * Delivers webhooks: claims due dispatches under a lease (FOR UPDATE SKIP LOCKED), POSTs the signed payload (a
 * WebhookPayloadRenderer: the faces' wire format), records each attempt and schedules the next (7 in all; 410 disables).
 */
import type { Logger } from 'pino';
import type { Event, PrismaClient, Webhook, WebhookDispatch } from '../generated/prisma/client.ts';
import type { Clock } from '../domain/clock.ts';
import { newId } from '../domain/ids.ts';
import { MAX_ATTEMPTS, type WebhookVersionName } from '../domain/webhooks/routing.ts';
import { signatureHeaders } from '../domain/webhooks/signing.ts';
import { activeSigningSecrets } from '../domain/webhooks/webhooks.ts';
import type { WebhookHttpClient } from './http-post.ts';
import { LoopWorker } from './loop.ts';

/** Batches one runOnce() claims at most before it returns to the loop (which runs it again at once if more are due). */
const MAX_CLAIMS_PER_RUN = 20;

/** The JSON body a webhook of `version` gets for `event` (null: that version does not receive it): the faces' wire format. */
export type WebhookPayloadRenderer = (event: Event, version: WebhookVersionName, ownerId: string) => Record<string, unknown> | null;

export interface WebhookWorkerOptions {
  payload: WebhookPayloadRenderer;
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

export class WebhookWorker extends LoopWorker {
  readonly metrics: WebhookMetrics = { attempts: 0, failures: 0 };

  constructor(
    private readonly prisma: PrismaClient,
    private readonly clock: Clock,
    private readonly http: WebhookHttpClient,
    private readonly encryptionKey: Buffer,
    private readonly log: Logger,
    private readonly opts: WebhookWorkerOptions,
  ) {
    super('webhooks', () => this.step(), opts.pollMs, log);
  }

  private async step(): Promise<boolean | number> {
    await this.runOnce();
    if (this.lastClaimFull) return true;
    const rows = await this.prisma.$queryRawUnsafe<{ at: Date | null }[]>(`SELECT min("nextAttemptAt") AS at FROM "WebhookDispatch" WHERE status = 'PENDING'`);
    const at = rows[0]?.at;
    return at ? new Date(at).getTime() - this.clock.now().getTime() : this.opts.pollMs;
  }

  /** Whether the last claim of the last runOnce() took a full batch (so more may be due at once). */
  private lastClaimFull = false;

  /**
   * Claims and delivers due dispatches, `concurrency` at a time, claiming the next batch before the queue runs dry;
   * returns how many it claimed. How it claims and skips what might outlive its lease: src/events/README.md.
   */
  async runOnce(): Promise<number> {
    const recorder = new Recorder(this.prisma, this.log);
    const secrets = new Map<string, string[]>();
    const queue: Claimed[] = [];
    let total = 0;
    let claims = 0;
    let more = true;
    let claiming: Promise<void> | null = null;
    const took = (got: Claimed[]) => {
      total += got.length;
      claims++;
      queue.push(...got);
      this.lastClaimFull = got.length >= this.opts.batch;
      if (!this.lastClaimFull || claims >= MAX_CLAIMS_PER_RUN || this.loop.stopping) more = false;
    };
    // The first claim's failure is the step's (the loop logs it and retries); a later one ends this run's claiming.
    took(await this.claim());
    const claimNext = () => {
      claiming ??= this.claim()
        .then(took, (e) => {
          more = false;
          this.lastClaimFull = false;
          this.log.error({ err: e }, 'claiming webhook dispatches failed; will retry');
        })
        .finally(() => (claiming = null));
    };
    let expired = 0;
    const worker = async () => {
      for (;;) {
        if (more && queue.length < this.opts.batch) claimNext();
        const c = queue.shift();
        if (c && this.clock.now().getTime() + this.opts.timeoutMs > c.leaseUntil) {
          // Waited so long (slow endpoints ahead of it) that an attempt could outlast the lease, when another
          // instance may claim it too: left alone, it is claimed again once the lease ends.
          expired++;
        } else if (c) {
          await this.deliver(c, secrets, recorder).catch((e) => this.log.error({ err: e, dispatch: c.dispatch.id }, 'delivery failed'));
        } else if (claiming) {
          await claiming;
        } else {
          return;
        }
      }
    };
    if (total > 0) await Promise.all(Array.from({ length: this.opts.concurrency }, worker));
    await recorder.drain();
    if (expired > 0) this.log.warn({ dispatches: expired }, 'webhook dispatches not attempted before their lease ran short; they are retried when it ends');
    return total;
  }

  /** One claim: due dispatches leased in one statement (FOR UPDATE SKIP LOCKED), with their webhooks and events. */
  private async claim(): Promise<Claimed[]> {
    const now = this.clock.now();
    // The lease outlives one delivery attempt (timeout + margin); after a crash the dispatch is retried when it ends.
    const lease = new Date(now.getTime() + this.opts.timeoutMs + 5_000);
    const dispatches = await this.prisma.$queryRawUnsafe<Pick<WebhookDispatch, 'id' | 'webhookId' | 'eventId' | 'attempts'>[]>(
      `UPDATE "WebhookDispatch" SET "lockedUntil" = $2::timestamptz
        WHERE id IN (SELECT id FROM "WebhookDispatch"
                      WHERE status = 'PENDING' AND "nextAttemptAt" <= $1::timestamptz AND ("lockedUntil" IS NULL OR "lockedUntil" < $1::timestamptz)
                      ORDER BY "nextAttemptAt" LIMIT ${this.opts.batch} FOR UPDATE SKIP LOCKED)
        RETURNING id, "webhookId", "eventId", attempts`,
      now.toISOString(),
      lease.toISOString(),
    );
    if (dispatches.length === 0) return [];
    const [hooks, events] = await Promise.all([
      this.prisma.webhook.findMany({ where: { id: { in: [...new Set(dispatches.map((d) => d.webhookId))] } }, include: { workspace: { select: { ownerId: true } } } }),
      this.prisma.event.findMany({ where: { id: { in: [...new Set(dispatches.map((d) => d.eventId))] } } }),
    ]);
    const hookById = new Map(hooks.map((h) => [h.id, h]));
    const eventById = new Map(events.map((e) => [e.id, e]));
    return dispatches.map((d) => ({ dispatch: d, hook: hookById.get(d.webhookId), event: eventById.get(d.eventId), leaseUntil: lease.getTime() }));
  }

  /** The webhook's signing secrets now, decrypted once per run for each (sealed secrets, previous one active) state. */
  private secretsOf(cache: Map<string, string[]>, hook: Webhook, now: Date): string[] {
    const previousActive = !!(hook.previousSecretEncrypted && hook.previousSecretExpiresAt && hook.previousSecretExpiresAt > now);
    const key = `${hook.secretEncrypted} ${previousActive ? hook.previousSecretEncrypted : ''}`;
    let s = cache.get(key);
    if (!s) cache.set(key, (s = activeSigningSecrets(hook, this.encryptionKey, now)));
    return s;
  }

  private async deliver({ dispatch: d, hook, event }: Claimed, secrets: Map<string, string[]>, recorder: Recorder): Promise<void> {
    const now = this.clock.now();
    const payload = event && hook && !hook.deletedAt && !hook.disabledAt ? this.opts.payload(event, hook.version, hook.workspace.ownerId) : null;
    if (!event || !hook || !payload) {
      // Nothing to send (the event or webhook is gone, or the version does not receive it): the dispatch is closed.
      recorder.add({ dispatchId: d.id, dispatchStatus: 'FAILED', attempts: d.attempts, nextAttemptAt: null, at: now, delivery: null, disableWebhook: false });
      return;
    }
    const body = JSON.stringify(payload);
    const timestamp = Math.floor(now.getTime() / 1000);
    const headers = signatureHeaders(this.secretsOf(secrets, hook, now), event.id, timestamp, body);
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
    recorder.add({
      dispatchId: d.id,
      dispatchStatus: ok ? 'SUCCEEDED' : finished ? 'FAILED' : 'PENDING',
      attempts: attempt,
      nextAttemptAt,
      at: after,
      disableWebhook: gone,
      delivery: {
        id: newId('webhookDelivery'),
        webhookId: hook.id,
        eventId: event.id,
        status: ok ? 'SUCCEEDED' : 'FAILED',
        responseStatus: result.status,
        durationMs: result.durationMs,
        error: ok ? null : (result.error ?? `HTTP ${result.status}`),
      },
    });
    if (!ok) this.log.info({ webhook: hook.id, event: event.id, attempt, status: result.status, error: result.error }, 'webhook delivery failed');
  }
}

/** A claimed dispatch with what delivering it needs (the webhook or event is missing when it was deleted). */
interface Claimed {
  dispatch: Pick<WebhookDispatch, 'id' | 'webhookId' | 'eventId' | 'attempts'>;
  hook: (Webhook & { workspace: { ownerId: string } }) | undefined;
  event: Event | undefined;
  /** When the claim's lease ends (epoch ms). */
  leaseUntil: number;
}

/** The outcome of one attempt (or of a dispatch closed without one), as the Recorder writes it. */
interface Outcome {
  dispatchId: string;
  dispatchStatus: 'PENDING' | 'SUCCEEDED' | 'FAILED';
  /** The dispatch's attempt count after this outcome. */
  attempts: number;
  nextAttemptAt: Date | null;
  at: Date;
  /** 410 Gone: the webhook is disabled. */
  disableWebhook: boolean;
  /** The `whm_` record of the attempt (null when nothing was sent). */
  delivery: {
    id: string;
    webhookId: string;
    eventId: string;
    status: 'SUCCEEDED' | 'FAILED';
    responseStatus: number | null;
    durationMs: number;
    error: string | null;
  } | null;
}

/**
 * Writes attempt outcomes in bulk, group-commit style, each write one statement (deliveries, dispatches, disabled
 * webhooks). A failed write leaves the lease: attempted again, at-least-once (src/events/README.md).
 */
class Recorder {
  private buffer: Outcome[] = [];
  private writing: Promise<void> | null = null;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly log: Logger,
  ) {}

  add(o: Outcome): void {
    this.buffer.push(o);
    if (!this.writing) this.writing = this.loop();
  }

  /** Resolves once everything added so far is written (or its write failed and was logged). */
  async drain(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private async loop(): Promise<void> {
    try {
      while (this.buffer.length > 0) {
        const batch = this.buffer;
        this.buffer = [];
        await this.write(batch).catch((e) => this.log.error({ err: e, dispatches: batch.map((o) => o.dispatchId) }, 'delivery bookkeeping failed'));
      }
    } finally {
      this.writing = null;
    }
  }

  private async write(batch: Outcome[]): Promise<void> {
    const iso = (d: Date | null) => (d ? d.toISOString() : null);
    const withDelivery = batch.filter((o) => o.delivery);
    await this.prisma.$executeRawUnsafe(
      `WITH d AS (
         SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::timestamptz[], $5::timestamptz[], $6::text[])
           AS t(id, status, attempts, "nextAttemptAt", at, "disableWebhook")
       ), deliveries AS (
         INSERT INTO "WebhookDelivery" (id, "webhookId", "dispatchId", "eventId", attempt, status, "responseStatus", "durationMs", error, "nextAttemptAt", "createdAt")
         SELECT * FROM unnest($7::text[], $8::text[], $9::text[], $10::text[], $11::int[], $12::"DeliveryStatus"[], $13::int[], $14::int[], $15::text[], $16::timestamptz[], $17::timestamptz[])
       ), gone AS (
         UPDATE "Webhook" h SET "disabledAt" = g.at, "updatedAt" = g.at
           FROM (SELECT "disableWebhook" AS id, max(at) AS at FROM d WHERE "disableWebhook" IS NOT NULL GROUP BY 1) g
          WHERE h.id = g.id
       )
       -- A dispatch closed without an attempt (attempts unchanged) keeps its nextAttemptAt.
       UPDATE "WebhookDispatch" w SET status = d.status::"DispatchStatus", attempts = d.attempts,
              "nextAttemptAt" = CASE WHEN d.attempts = w.attempts THEN w."nextAttemptAt" ELSE COALESCE(d."nextAttemptAt", d.at) END,
              "lockedUntil" = NULL, "updatedAt" = d.at
         FROM d WHERE w.id = d.id`,
      batch.map((o) => o.dispatchId),
      batch.map((o) => o.dispatchStatus),
      batch.map((o) => o.attempts),
      batch.map((o) => iso(o.nextAttemptAt)),
      batch.map((o) => iso(o.at)),
      batch.map((o) => (o.disableWebhook ? o.delivery!.webhookId : null)),
      withDelivery.map((o) => o.delivery!.id),
      withDelivery.map((o) => o.delivery!.webhookId),
      withDelivery.map((o) => o.dispatchId),
      withDelivery.map((o) => o.delivery!.eventId),
      withDelivery.map((o) => o.attempts),
      withDelivery.map((o) => o.delivery!.status),
      withDelivery.map((o) => o.delivery!.responseStatus),
      withDelivery.map((o) => o.delivery!.durationMs),
      withDelivery.map((o) => o.delivery!.error),
      withDelivery.map((o) => iso(o.nextAttemptAt)),
      withDelivery.map((o) => iso(o.at)),
    );
  }
}
