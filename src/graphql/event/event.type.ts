/**
 * Payment events for live clients: subscriptions `invoicePaid` and `invoiceEvents(invoiceId)` (contract names) over
 * graphql-ws and SSE, and the `events(sinceSequence:)` query a reconnecting client uses to catch up — subscriptions
 * notify, the database is the truth.
 */
import { requirePrincipal } from '../../domain/auth/rules.ts';
import { DomainError } from '../../domain/errors.ts';
import { eventDataVisibleTo, eventVisibleTo } from '../../domain/events/visibility.ts';
import { invoiceFromJson, loadInvoiceFor } from '../../domain/invoices/invoices.ts';
import { subscriptionEventType } from '../../domain/webhooks/routing.ts';
import type { Invoice } from '../../generated/prisma/client.ts';
import type { BusEvent } from '../../events/event-bus.ts';
import { busEventOf } from '../../events/outbox-dispatcher.ts';
import { builder } from '../builder.ts';
import { NodeInterface } from '../common/node.ts';
import type { GraphQLContext } from '../context.ts';
import { InvoiceType } from '../invoice/invoice.type.ts';

interface InvoiceEventShape {
  event: BusEvent;
  invoice: Invoice;
}

const InvoiceEventType = builder.objectRef<InvoiceEventShape>('InvoiceEvent').implement({
  description: 'Something happened to an invoice.',
  fields: (t) => ({
    eventId: t.string({ description: 'evt_ id (the webhook-id of the matching webhook delivery).', resolve: (e) => e.event.eventId }),
    sequence: t.string({ description: 'Per-workspace sequence number (decimal); pass the last one seen as sinceSequence to catch up.', resolve: (e) => e.event.sequence }),
    type: t.string({ description: 'created, paid, updated, canceled, deleted or unpaid.', resolve: (e) => subscriptionEventType(e.event.type) ?? e.event.type }),
    createdAt: t.field({ type: 'DateTime', description: 'When the change was committed.', resolve: (e) => new Date(e.event.createdAt) }),
    invoice: t.field({ type: InvoiceType, description: 'The invoice as it is now.', resolve: (e) => e.invoice }),
  }),
});

const EventRecordType = builder.prismaObject('Event', {
  description: 'A committed event of the workspace (the outbox).',
  interfaces: [NodeInterface],
  fields: (t) => ({
    sequence: t.string({ description: 'Per-workspace sequence number (decimal).', resolve: (e) => e.sequence.toString() }),
    type: t.exposeString('type', { description: 'invoice.created, invoice.paid, invoice.updated, invoice.canceled, invoice.deleted, invoice.unpaid, receipt.issued, receipt.failed.' }),
    invoiceId: t.exposeID('invoiceId', { nullable: true, description: 'The invoice it concerns.' }),
    cashReceiptId: t.exposeID('cashReceiptId', { nullable: true, description: 'The cash receipt it concerns.' }),
    data: t.field({
      type: 'JSON',
      description: 'The payload as recorded at the time (invoice snapshot, trigger, transaction); for a key limited to bank accounts, a deposit to another account is reduced to its id.',
      select: { data: true },
      resolve: (e, _args, ctx) => eventDataVisibleTo(ctx.principal, e.data),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'Commit time.' }),
  }),
});

function parseSequence(v: string | null | undefined): bigint | null {
  if (v === null || v === undefined) return null;
  if (!/^\d{1,19}$/.test(v)) throw new DomainError('VALIDATION_FAILED', { message: 'sinceSequence must be a decimal sequence number.', path: ['sinceSequence'] });
  return BigInt(v);
}

builder.queryField('events', (t) =>
  t.prismaField({
    type: [EventRecordType],
    description: 'Events after `sinceSequence`, oldest first (at most 100): what a reconnecting subscriber missed.',
    args: {
      sinceSequence: t.arg.string({ description: 'Return events with a greater sequence (absent = from the start).' }),
      invoiceId: t.arg.id({ description: 'Only events of this invoice.' }),
      first: t.arg.int({ description: '1-100, default 100.' }),
    },
    resolve: async (query, _root, args, ctx) => {
      const p = requirePrincipal(ctx.principal);
      const since = parseSequence(args.sinceSequence);
      if (args.invoiceId) await loadInvoiceFor(ctx.prisma, p, args.invoiceId);
      const rows = await ctx.prisma.event.findMany({
        ...query,
        where: { workspaceId: p.workspaceId, ...(since !== null ? { sequence: { gt: since } } : {}), ...(args.invoiceId ? { invoiceId: args.invoiceId } : {}) },
        orderBy: { sequence: 'asc' },
        take: Math.min(Math.max(args.first ?? 100, 1), 100) * 2,
      });
      return rows.filter((e) => eventVisibleTo(p, e)).slice(0, Math.min(Math.max(args.first ?? 100, 1), 100));
    },
  }),
);

/** Live events of the principal's workspace, after replaying those after `since` from the database. */
async function* visibleEvents(ctx: GraphQLContext, filter: { invoiceId?: string | null; types?: string[]; since: bigint | null }): AsyncGenerator<InvoiceEventShape> {
  const p = requirePrincipal(ctx.principal);
  const live = ctx.bus.subscribe(p.workspaceId);
  // Live events may arrive out of sequence order (commits overlap, instances publish independently): skip only what
  // the replay already yielded, by event id, never "everything below the last sequence seen".
  const replayed = new Set<string>();
  const accept = async (e: BusEvent): Promise<InvoiceEventShape | null> => {
    if (!e.invoiceId || (filter.invoiceId && e.invoiceId !== filter.invoiceId)) return null;
    if (filter.types && !filter.types.includes(e.type)) return null;
    if (!eventVisibleTo(p, e)) return null;
    // Live events carry the invoice as it was after the commit (put there by the committing process or the
    // dispatcher); replayed ones are read here.
    const invoice = e.invoice ? invoiceFromJson(e.invoice) : await ctx.prisma.invoice.findUnique({ where: { id: e.invoiceId } });
    return invoice ? { event: e, invoice } : null;
  };
  try {
    if (filter.since !== null) {
      const missed = await ctx.prisma.event.findMany({
        where: { workspaceId: p.workspaceId, sequence: { gt: filter.since }, ...(filter.invoiceId ? { invoiceId: filter.invoiceId } : {}) },
        orderBy: { sequence: 'asc' },
        take: 1000,
      });
      for (const row of missed) {
        const shaped = await accept(busEventOf(row));
        replayed.add(row.id);
        if (shaped) yield shaped;
      }
    }
    // A live event can come twice (published at commit, then once more by a dispatcher that did not know): the last
    // few hundred ids are remembered and a repeat is dropped.
    const recent = new Set<string>();
    for await (const e of live) {
      if (replayed.has(e.eventId) || recent.has(e.eventId)) continue;
      recent.add(e.eventId);
      if (recent.size > 512) recent.delete(recent.values().next().value!);
      const shaped = await accept(e);
      if (shaped) yield shaped;
    }
  } finally {
    await live.return?.();
  }
}

builder.subscriptionType({ description: 'Live payment events (graphql-ws on ws://<host>/graphql, or SSE on /graphql).' });

builder.subscriptionField('invoicePaid', (t) =>
  t.field({
    type: InvoiceType,
    description: 'Every invoice paid in the workspace (by deposit or mark-as-paid); an account-limited key sees only invoices within its accounts.',
    args: { sinceSequence: t.arg.string({ description: 'First replay paid events after this sequence from the database.' }) },
    subscribe: (_root, args, ctx) => {
      requirePrincipal(ctx.principal);
      return visibleEvents(ctx, { types: ['invoice.paid'], since: parseSequence(args.sinceSequence) });
    },
    resolve: (e: InvoiceEventShape) => e.invoice,
  }),
);

builder.subscriptionField('invoiceEvents', (t) =>
  t.field({
    type: InvoiceEventType,
    description: 'Every change of the invoices of the workspace, or of one invoice; an account-limited key sees only invoices within its accounts.',
    args: {
      invoiceId: t.arg.id({ description: 'Only this invoice.' }),
      sinceSequence: t.arg.string({ description: 'First replay events after this sequence from the database.' }),
    },
    subscribe: async (_root, args, ctx) => {
      const p = requirePrincipal(ctx.principal);
      if (args.invoiceId) await loadInvoiceFor(ctx.prisma, p, args.invoiceId);
      return visibleEvents(ctx, { invoiceId: args.invoiceId, since: parseSequence(args.sinceSequence) });
    },
    resolve: (e: InvoiceEventShape) => e,
  }),
);
