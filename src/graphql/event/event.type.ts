/**
 * Payment events for live clients: subscriptions `invoicePaid` and `invoiceEvents(invoiceId)` (contract names) and
 * `transactionReceived` (every stored deposit) over graphql-ws and SSE, and the `events(sinceSequence:)` query a
 * reconnecting client uses to catch up — subscriptions notify, the database is the truth.
 */
import { bankAccountInScope, requirePrincipal } from '../../domain/auth/rules.ts';
import { DEPOSIT_UNMATCHED_REASONS, type DepositMatchOutcome, type DepositUnmatchedReason } from '../../domain/deposits/deposit-row.ts';
import { matchNoteVisibleTo } from '../../domain/deposits/transaction-reads.ts';
import { DomainError } from '../../domain/errors.ts';
import { assertCatchUpPossible, catchUpLimits, lastEventSequence, parseEventSequence } from '../../domain/events/catch-up.ts';
import { DEPOSIT_EVENT_TYPES } from '../../domain/events/event-types.ts';
import { eventDataVisibleNow, eventsVisibleNow, eventVisibleTo, invoiceRowVisibleTo } from '../../domain/events/visibility.ts';
import { invoiceFromJson, loadInvoiceFor } from '../../domain/invoices/invoices.ts';
import { clampedSize } from '../../domain/paging.ts';
import { subscriptionEventType } from '../../domain/webhooks/routing.ts';
import type { Invoice, Transaction } from '../../generated/prisma/client.ts';
import type { BusEvent } from '../../events/event-bus.ts';
import { eventMatches, openOrderedFeed, workspaceEventSource, type EventFilter } from '../../events/ordered-feed.ts';
import { builder } from '../builder.ts';
import { NodeInterface } from '../common/node.ts';
import { describedEnum, MatchMethodEnum } from '../common/enums.ts';
import { selectsRelations } from '../common/pagination.ts';
import type { GraphQLContext } from '../context.ts';
import { InvoiceType } from '../invoice/invoice.type.ts';
import { TransactionType } from '../transaction/transaction.type.ts';

interface InvoiceEventShape {
  event: BusEvent;
  invoice: Invoice;
}

/** What a subscription yields: an event, or the error that ends it (a failed database read mid-stream). */
type Delivery = InvoiceEventShape | { error: unknown };

function delivered(d: Delivery): InvoiceEventShape {
  if ('error' in d) throw d.error;
  return d;
}

/**
 * The delivered invoice read again with the relations the subscriber selected, judged again on the row read (it may
 * have moved to another account since its event was read): out of the principal's accounts now, the delivery is
 * refused as `invoice(id:)` would refuse it (OUT_OF_SCOPE), and nothing of the row is shown.
 */
async function invoiceWithRelations(ctx: GraphQLContext, query: { include?: object; select?: object }, id: string): Promise<Invoice> {
  const p = requirePrincipal(ctx.principal);
  const read = query.select ? { select: { ...query.select, workspaceId: true, bankAccountIds: true } } : query;
  const row = (await ctx.prisma.invoice.findUnique({ ...(read as object), where: { id } })) as Invoice | null;
  if (!row) throw new DomainError('INVOICE_NOT_FOUND');
  if (!invoiceRowVisibleTo(p, row)) throw new DomainError('OUT_OF_SCOPE');
  return row;
}

const InvoiceEventType = builder.objectRef<InvoiceEventShape>('InvoiceEvent').implement({
  description: 'Something happened to an invoice.',
  fields: (t) => ({
    eventId: t.string({ description: 'evt_ id (the webhook-id of the matching webhook delivery).', resolve: (e) => e.event.eventId }),
    sequence: t.string({ description: 'Per-workspace sequence number (decimal); pass the last one seen as sinceSequence to catch up.', resolve: (e) => e.event.sequence }),
    type: t.string({ description: 'created, paid, updated, canceled, deleted or unpaid.', resolve: (e) => subscriptionEventType(e.event.type) ?? e.event.type }),
    createdAt: t.field({ type: 'DateTime', description: 'When the change was committed.', resolve: (e) => new Date(e.event.createdAt) }),
    invoice: t.prismaField({
      type: InvoiceType,
      description: 'The invoice: as the change left it when the event comes live, as it is now when the event was read from the database (a catch-up).',
      // The event carries the whole row: read again only for relations (each event is a query of its own otherwise).
      resolve: (query, e, _args, ctx) => (selectsRelations(query) ? invoiceWithRelations(ctx, query, e.invoice.id) : e.invoice),
    }),
  }),
});

const EventRecordType = builder.prismaObject('Event', {
  description: 'A committed event of the workspace (the outbox).',
  interfaces: [NodeInterface],
  fields: (t) => ({
    sequence: t.string({ description: 'Per-workspace sequence number (decimal).', resolve: (e) => e.sequence.toString() }),
    type: t.exposeString('type', {
      description:
        'invoice.created, invoice.paid, invoice.updated, invoice.canceled, invoice.deleted, invoice.unpaid, receipt.issued, receipt.failed, shop_order.confirmed, shop_order.confirmation_failed, shop_order.attention_needed, transaction.received (a deposit stored; for a key limited to bank accounts, only deposits to its accounts).',
    }),
    invoiceId: t.exposeID('invoiceId', { nullable: true, description: 'The invoice it concerns (for transaction.received: the invoice the deposit paid, or null).' }),
    cashReceiptId: t.exposeID('cashReceiptId', { nullable: true, description: 'The cash receipt it concerns.' }),
    data: t.field({
      type: 'JSON',
      description:
        'The payload as recorded at the time (invoice snapshot, trigger, transaction; for transaction.received the deposit and its match outcome); for a key limited to bank accounts, a deposit to another account is reduced to its id, and a match outcome lists only the candidate invoices within its accounts.',
      select: { data: true },
      resolve: (e, _args, ctx) => eventDataVisibleNow(ctx.deps, ctx.principal, e.data),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'Commit time.' }),
  }),
});

/** Rows the events query reads at a time while it fills a page with the events the principal may see. */
const EVENTS_READ_PAGE = 200;

builder.queryField('events', (t) =>
  t.prismaField({
    type: [EventRecordType],
    description:
      'Events after `sinceSequence`, oldest first (at most `first`): what a reconnecting subscriber missed. Page on with the last sequence returned; a page shorter than `first` means there are no more.',
    args: {
      sinceSequence: t.arg.string({ description: 'Return events with a greater sequence (absent = from the start).' }),
      invoiceId: t.arg.id({ description: 'Only events of this invoice.' }),
      first: t.arg.int({ description: '1-100, default 100.' }),
    },
    resolve: async (query, _root, args, ctx) => {
      const p = requirePrincipal(ctx.principal);
      let since = parseEventSequence(args.sinceSequence, 'sinceSequence');
      if (args.invoiceId) await loadInvoiceFor(ctx.prisma, p, args.invoiceId);
      const first = clampedSize(args.first, 100);
      // An account-limited key does not see every event (nor those of invoices moved out of its accounts since: judged
      // on each invoice as it is now): read on past those until the page is full or there are no more, so that a short
      // page always means "caught up" (a client pages by the last sequence returned).
      const visible: Awaited<ReturnType<typeof ctx.prisma.event.findMany>> = [];
      for (;;) {
        const rows = await ctx.prisma.event.findMany({
          ...query,
          where: { workspaceId: p.workspaceId, ...(since !== null ? { sequence: { gt: since } } : {}), ...(args.invoiceId ? { invoiceId: args.invoiceId } : {}) },
          orderBy: { sequence: 'asc' },
          take: EVENTS_READ_PAGE,
        });
        for (const e of await eventsVisibleNow(ctx.prisma, p, rows)) if (visible.push(e) === first) return visible;
        if (rows.length < EVENTS_READ_PAGE) return visible;
        since = rows.at(-1)!.sequence;
      }
    },
  }),
);

builder.queryField('lastEventSequence', (t) =>
  t.string({
    description:
      'The sequence of the workspace\'s last event ("0" before the first). Read it before reading what you show, then subscribe with it as sinceSequence: every event committed after your read is delivered, none is lost between the read and the subscription.',
    resolve: async (_root, _args, ctx) => String(await lastEventSequence(ctx.deps.sql, requirePrincipal(ctx.principal).workspaceId)),
  }),
);

/**
 * The subscription's events after `since`, stored then live, in order and once each (src/events/ordered-feed.ts), as
 * far as the filter asks and the principal may see. An impossible catch-up is refused before the first event.
 */
async function visibleEvents(ctx: GraphQLContext, filter: EventFilter & { since: bigint | null }): Promise<AsyncIterableIterator<Delivery>> {
  const p = requirePrincipal(ctx.principal);
  return openOrderedFeed<Delivery>(workspaceEventSource(ctx.bus, ctx.deps.sql, p.workspaceId, filter), {
    since: filter.since,
    check: assertCatchUpPossible,
    async map(e) {
      // A deposit's event names the invoice it paid, but it is not a change of that invoice (invoice.paid is).
      if (!e.invoiceId || !eventMatches(filter, e) || DEPOSIT_EVENT_TYPES.includes(e.type as never)) return null;
      // Events carry the invoice's row (live: as committed; stored: as now); only one published without it is looked up.
      // Judged on that row too: an invoice moved out of the key's accounts since is skipped for this subscriber.
      const invoice = e.invoice ? invoiceFromJson(e.invoice) : await ctx.prisma.invoice.findUnique({ where: { id: e.invoiceId } });
      return invoice && eventVisibleTo(p, e, invoice) ? { event: e, invoice } : null;
    },
    failed: (error) => ({ error }),
  });
}

/** The invoice.paid event each invoicePaid delivery reports, by the invoice object delivered (see eventSequence). */
const paidEventOf = new WeakMap<Invoice, BusEvent>();

builder.objectField(InvoiceType, 'eventSequence', (t) =>
  t.string({
    nullable: true,
    description:
      'In an invoicePaid delivery: the sequence of the invoice.paid event it reports. Deliveries come in sequence order, so a client that reconnects passes the last one it received as sinceSequence and misses nothing. Null elsewhere.',
    resolve: (invoice) => paidEventOf.get(invoice)?.sequence ?? null,
  }),
);

/** The catch-up limit as the descriptions state it. */
const CATCH_UP_MAX = catchUpLimits.maxEvents.toLocaleString('en-US');

builder.subscriptionType({ description: 'Live payment events (graphql-ws on ws://<host>/graphql, or SSE on /graphql).' });

builder.subscriptionField('invoicePaid', (t) =>
  t.prismaField({
    type: InvoiceType,
    description: 'Every invoice paid in the workspace (by deposit or mark-as-paid); an account-limited key sees only invoices within its accounts.',
    args: {
      sinceSequence: t.arg.string({
        description:
          `First deliver every invoice paid after this event sequence (the last eventSequence received), from the database, then the live ones, without a gap. More than ${CATCH_UP_MAX} events to catch up on: CATCH_UP_TOO_LARGE (page with the events query).`,
      }),
    },
    subscribe: (_root, args, ctx) => {
      requirePrincipal(ctx.principal);
      return visibleEvents(ctx, { types: ['invoice.paid'], since: parseEventSequence(args.sinceSequence, 'sinceSequence') });
    },
    resolve: async (query, d: Delivery, _args, ctx) => {
      const { event, invoice } = delivered(d);
      const row = selectsRelations(query) ? await invoiceWithRelations(ctx, query, invoice.id) : invoice;
      paidEventOf.set(row, event);
      return row;
    },
  }),
);

builder.subscriptionField('invoiceEvents', (t) =>
  t.field({
    type: InvoiceEventType,
    description: 'Every change of the invoices of the workspace, or of one invoice; an account-limited key sees only invoices within its accounts.',
    args: {
      invoiceId: t.arg.id({ description: 'Only this invoice.' }),
      sinceSequence: t.arg.string({
        description:
          `First deliver every event after this sequence (the last one received), from the database, then the live ones, without a gap. More than ${CATCH_UP_MAX} events to catch up on: CATCH_UP_TOO_LARGE (page with the events query).`,
      }),
    },
    subscribe: async (_root, args, ctx) => {
      const p = requirePrincipal(ctx.principal);
      if (args.invoiceId) await loadInvoiceFor(ctx.prisma, p, args.invoiceId);
      return visibleEvents(ctx, { invoiceId: args.invoiceId, since: parseEventSequence(args.sinceSequence, 'sinceSequence') });
    },
    resolve: (d: Delivery) => delivered(d),
  }),
);

// ───────────────────────────── transactionReceived: every stored deposit ─────────────────────────────

/**
 * The recorded payload of a transaction.received event (src/domain/deposits/deposit-row.ts, transactionReceivedEvent):
 * what the delivery reads of it. How the deposit arrived is the deposit's own `source`.
 */
interface ReceivedData {
  transaction: { id: string };
  match: DepositMatchOutcome;
}

interface TransactionReceivedShape {
  event: BusEvent;
  data: ReceivedData;
}

type ReceivedDelivery = TransactionReceivedShape | { error: unknown };

const DepositMatchStatusEnum = describedEnum<DepositMatchOutcome['status']>('DepositMatchStatus', 'Whether a deposit paid an invoice when it was stored.', {
  MATCHED: 'It paid an invoice (invoiceId, method).',
  UNMATCHED: 'It paid none (reason, candidateInvoiceIds): it waits for a match by hand.',
});

const DepositUnmatchedReasonEnum = describedEnum<DepositUnmatchedReason>('DepositUnmatchedReason', 'Why a deposit paid no invoice when it was stored.', DEPOSIT_UNMATCHED_REASONS);

const DepositMatchType = builder.objectRef<DepositMatchOutcome>('DepositMatch').implement({
  description: 'What became of a deposit as it was stored: the invoice it paid, or why it paid none and which invoices it could have paid.',
  fields: (t) => ({
    status: t.field({ type: DepositMatchStatusEnum, description: 'MATCHED or UNMATCHED.', resolve: (m) => m.status }),
    invoiceId: t.id({ nullable: true, description: 'MATCHED: the invoice it paid; null otherwise.', resolve: (m) => (m.status === 'MATCHED' ? m.invoiceId : null) }),
    method: t.field({ type: MatchMethodEnum, nullable: true, description: 'MATCHED: how it was matched; null otherwise.', resolve: (m) => (m.status === 'MATCHED' ? m.method : null) }),
    reason: t.field({ type: DepositUnmatchedReasonEnum, nullable: true, description: 'UNMATCHED: why; null otherwise.', resolve: (m) => (m.status === 'UNMATCHED' ? m.reason : null) }),
    candidateInvoiceIds: t.idList({
      description: 'UNMATCHED: the invoices it could pay (AMBIGUOUS, TOO_MANY_CANDIDATES, ALREADY_PAID), for a match by hand; a key limited to bank accounts sees only those within them. Empty otherwise.',
      resolve: (m) => (m.status === 'UNMATCHED' ? m.candidateInvoiceIds : []),
    }),
  }),
});

/**
 * The delivered deposit read with the fields and relations the subscriber selected, judged on the row read: another
 * workspace's or, for an account-limited key, another account's is refused as `transaction(id:)` refuses it.
 */
async function transactionFor(ctx: GraphQLContext, query: { include?: object; select?: object }, id: string): Promise<Transaction> {
  const p = requirePrincipal(ctx.principal);
  const read = query.select ? { select: { ...query.select, workspaceId: true, bankAccountId: true, deletedAt: true } } : query;
  const row = (await ctx.prisma.transaction.findUnique({ ...(read as object), where: { id } })) as Transaction | null;
  if (!row || row.deletedAt || row.workspaceId !== p.workspaceId) throw new DomainError('TRANSACTION_NOT_FOUND');
  if (!bankAccountInScope(p, row.bankAccountId)) throw new DomainError('OUT_OF_SCOPE');
  return row;
}

const TransactionReceivedEventType = builder.objectRef<TransactionReceivedShape>('TransactionReceivedEvent').implement({
  description: 'A deposit was stored (transaction.received): the deposit, how it arrived, and what became of it.',
  fields: (t) => ({
    eventId: t.string({ description: 'evt_ id (the webhook-id of the V2 webhook delivery of the same event).', resolve: (e) => e.event.eventId }),
    sequence: t.string({ description: 'Per-workspace sequence number (decimal); pass the last one seen as sinceSequence to catch up.', resolve: (e) => e.event.sequence }),
    createdAt: t.field({ type: 'DateTime', description: 'When the deposit was stored (the event committed with it).', resolve: (e) => new Date(e.event.createdAt) }),
    match: t.field({
      type: DepositMatchType,
      description: 'The match outcome when the deposit was stored (a later match or un-match by hand shows in `transaction`, not here).',
      resolve: async (e, _args, ctx) => (await matchNoteVisibleTo(ctx.deps, ctx.principal, e.data.match)) as DepositMatchOutcome,
    }),
    transaction: t.prismaField({
      type: TransactionType,
      description: 'The deposit as it is now, read at delivery with the fields selected.',
      resolve: (query, e, _args, ctx) => transactionFor(ctx, query, e.data.transaction.id),
    }),
  }),
});

/**
 * The workspace's transaction.received events after `since`, stored then live, in order and once each, as far as the
 * principal may see them (eventVisibleTo: a deposit to one of a limited key's accounts, and the invoice it paid within
 * them); each with its recorded payload, read by event id.
 */
async function receivedDeposits(ctx: GraphQLContext, since: bigint | null): Promise<AsyncIterableIterator<ReceivedDelivery>> {
  const p = requirePrincipal(ctx.principal);
  const filter: EventFilter = { types: DEPOSIT_EVENT_TYPES };
  return openOrderedFeed<ReceivedDelivery>(workspaceEventSource(ctx.bus, ctx.deps.sql, p.workspaceId, filter), {
    since,
    check: assertCatchUpPossible,
    async map(e) {
      if (!eventMatches(filter, e)) return null;
      // A limited key judges the paid invoice too: on the row the event carries, else as it is now.
      const invoice = e.invoiceId && p.bankAccountIds !== null ? (e.invoice ? invoiceFromJson(e.invoice) : await ctx.prisma.invoice.findUnique({ where: { id: e.invoiceId } })) : null;
      if (!eventVisibleTo(p, e, invoice)) return null;
      const row = await ctx.prisma.event.findUnique({ where: { id: e.eventId }, select: { data: true } });
      return row ? { event: e, data: row.data as unknown as ReceivedData } : null;
    },
    failed: (error) => ({ error }),
  });
}

builder.subscriptionField('transactionReceived', (t) =>
  t.field({
    type: TransactionReceivedEventType,
    description:
      'Every deposit stored in the workspace (bank notification, forwarded text or account history; not 1-won verification deposits), with its match outcome: the transaction.received event. A key limited to bank accounts sees only deposits to its accounts (and a matched one only if the invoice it paid is within them too).',
    args: {
      sinceSequence: t.arg.string({
        description: `First deliver every deposit received after this event sequence (the last sequence received), from the database, then the live ones, without a gap. More than ${CATCH_UP_MAX} events to catch up on: CATCH_UP_TOO_LARGE (page with the events query).`,
      }),
    },
    subscribe: (_root, args, ctx) => {
      requirePrincipal(ctx.principal);
      return receivedDeposits(ctx, parseEventSequence(args.sinceSequence, 'sinceSequence'));
    },
    resolve: (d: ReceivedDelivery) => {
      if ('error' in d) throw d.error;
      return d;
    },
  }),
);
