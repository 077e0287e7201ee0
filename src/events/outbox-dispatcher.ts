/**
 * The outbox dispatcher: after commit, fans committed events out. In one transaction per batch it creates a webhook
 * dispatch for every webhook that receives the event, queues the buyer's paid e-mail where the workspace enabled it,
 * and marks the events dispatched; after that commit it publishes them to live subscribers. Claims use FOR UPDATE
 * SKIP LOCKED, so several instances share the work; an event committed before a crash is dispatched after restart.
 */
import type { Logger } from 'pino';
import type { Event, PrismaClient } from '../generated/prisma/client.ts';
import type { Clock } from '../domain/clock.ts';
import { enqueueEmail, paidEmail } from '../domain/email/email.ts';
import { newId } from '../domain/ids.ts';
import { webhookEventType } from '../domain/webhooks/routing.ts';
import type { BusEvent, EventBus } from './event-bus.ts';
import { WorkerLoop } from './loop.ts';

const BATCH = 200;

export function busEventOf(e: Pick<Event, 'id' | 'workspaceId' | 'sequence' | 'type' | 'invoiceId' | 'cashReceiptId' | 'bankAccountIds' | 'createdAt'>): BusEvent {
  return {
    eventId: e.id,
    workspaceId: e.workspaceId,
    sequence: e.sequence.toString(),
    type: e.type,
    invoiceId: e.invoiceId,
    cashReceiptId: e.cashReceiptId,
    bankAccountIds: e.bankAccountIds,
    createdAt: new Date(e.createdAt).toISOString(),
  };
}

export class OutboxDispatcher {
  readonly loop: WorkerLoop;
  /** Seconds between an event's commit and its dispatch, last observed (metrics). */
  lastLagMs = 0;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly clock: Clock,
    private readonly bus: EventBus,
    private readonly log: Logger,
    private readonly after: { webhooks(): void; jobs(): void },
    pollMs = 500,
  ) {
    this.loop = new WorkerLoop('outbox', async () => (await this.runOnce()) >= BATCH, pollMs, log);
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

  /** Dispatches one batch of committed, undispatched events; returns how many. */
  async runOnce(): Promise<number> {
    const now = this.clock.now();
    const result = await this.prisma.$transaction(async (tx) => {
      const events = await tx.$queryRawUnsafe<Event[]>(
        `SELECT id, "workspaceId", sequence, type, "invoiceId", "cashReceiptId", "bankAccountIds", data, "createdAt"
           FROM "Event" WHERE "dispatchedAt" IS NULL ORDER BY "createdAt", sequence LIMIT ${BATCH} FOR UPDATE SKIP LOCKED`,
      );
      if (events.length === 0) return { events, dispatches: 0, emails: 0 };
      const workspaceIds = [...new Set(events.map((e) => e.workspaceId))];
      const hooks = await tx.webhook.findMany({ where: { workspaceId: { in: workspaceIds }, deletedAt: null, disabledAt: null } });
      const dispatches = [];
      for (const e of events) {
        for (const h of hooks) {
          if (h.workspaceId !== e.workspaceId || h.createdAt > new Date(e.createdAt) || !webhookEventType(h.version, e.type)) continue;
          dispatches.push({ id: newId('dispatch'), webhookId: h.id, eventId: e.id, nextAttemptAt: now, createdAt: now, updatedAt: now });
        }
      }
      if (dispatches.length) await tx.webhookDispatch.createMany({ data: dispatches, skipDuplicates: true });

      let emails = 0;
      const paidByDeposit = events.filter((e) => e.type === 'invoice.paid' && (e.data as { trigger?: string }).trigger === 'DEPOSIT');
      if (paidByDeposit.length) {
        const workspaces = await tx.workspace.findMany({ where: { id: { in: [...new Set(paidByDeposit.map((e) => e.workspaceId))] }, paidEmailEnabled: true } });
        const enabled = new Map(workspaces.map((w) => [w.id, w]));
        for (const e of paidByDeposit) {
          const w = enabled.get(e.workspaceId);
          const inv = (e.data as { invoice?: { customer: { name: string; email: string | null }; amount: number; number: number; paidAt: string } }).invoice;
          if (!w || !inv?.customer.email) continue;
          const content = paidEmail({ workspaceName: w.name, customerName: inv.customer.name, amount: inv.amount, invoiceNumber: inv.number, paidAt: inv.paidAt });
          await enqueueEmail(tx, { ...content, to: inv.customer.email, workspaceId: e.workspaceId, kind: 'invoice_paid', invoiceId: e.invoiceId, now });
          emails++;
        }
      }
      await tx.event.updateMany({ where: { id: { in: events.map((e) => e.id) } }, data: { dispatchedAt: now } });
      return { events, dispatches: dispatches.length, emails };
    });
    for (const e of result.events) this.bus.publish(busEventOf(e));
    if (result.events.length) this.lastLagMs = now.getTime() - new Date(result.events[0].createdAt).getTime();
    if (result.dispatches) this.after.webhooks();
    if (result.emails) this.after.jobs();
    return result.events.length;
  }
}
