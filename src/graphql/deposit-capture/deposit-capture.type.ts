/**
 * How deposits are captured beyond the bank notification feed (README, "Account history" and "Reconciliation"): the
 * account-history feeds, the simulated aggregator's ledger, where each deposit came from, and the reconciliation per
 * day and account.
 */
import type { AggregatorName } from '../../domain/deposits/history/aggregator-port.ts';
import {
  connectHistoryFeed,
  disconnectHistoryFeed,
  listHistoryFeeds,
  offeredAggregators,
  pollHistoryNow,
  setHistoryFeedActive,
  type PollResult,
} from '../../domain/deposits/history/history-polling.ts';
import { simulateHistoryDeposit } from '../../domain/deposits/history/simulated-history.ts';
import { depositReconciliation, type ReconciliationDay, type Tally } from '../../domain/deposits/reconciliation.ts';
import type { HistoryFeed, SimulatedHistoryRow } from '../../generated/prisma/client.ts';
import type { DepositSource, HistoryFeedState } from '../../generated/prisma/enums.ts';
import { builder } from '../builder.ts';
import { describedEnum } from '../common/enums.ts';
import { domainErrors } from '../common/error-types.ts';

const AggregatorEnum = describedEnum<AggregatorName>('Aggregator', 'An aggregator that reads a bank account\'s history.', {
  POPBILL: "Popbill's EasyFinBank (offered when the service is configured with Popbill's LinkID and SecretKey; the account must be registered at Popbill under corpNum).",
  SIMULATED: 'The simulated aggregator of the tour and tests: its history holds the rows booked with simulateHistoryDeposit.',
});

const HistoryFeedStateEnum = describedEnum<HistoryFeedState>('HistoryFeedState', 'Where an account-history feed stands.', {
  ACTIVE: 'Polled every intervalMs (retried with backoff after a failure).',
  NEEDS_ATTENTION: 'The aggregator refused for good (lastError says why: the account not registered there, expired bank credentials): fix it, then resumeHistoryFeed.',
  PAUSED: 'Paused by the merchant.',
});

export const DepositSourceEnum = describedEnum<DepositSource>('DepositSource', 'How a deposit first reached the service.', {
  NOTIFICATION: 'The bank notification feed (POST /bank-notifications).',
  TEXT: "A forwarded bank text (POST /bank-texts), or a deposit entered by hand from one.",
  HISTORY: "The account's history, polled through an aggregator: no text announced it first.",
});

builder.prismaObjectFields('Transaction', (t) => ({
  source: t.expose('source', { type: DepositSourceEnum, description: 'How it first reached the service.' }),
  balanceAfter: t.exposeFloat('balanceAfter', { nullable: true, description: "The account's balance after it in won, when a text or the history said." }),
  textAnnouncedAt: t.expose('textAnnouncedAt', { type: 'DateTime', nullable: true, description: 'When a forwarded text first announced it.' }),
  historySeenAt: t.expose('historySeenAt', { type: 'DateTime', nullable: true, description: "When polling found it in the account's history." }),
}));

export const HistoryFeedType = builder.prismaObject('HistoryFeed', {
  description: "An account's history, polled through an aggregator (hfd_): each deposit row becomes a deposit once.",
  fields: (t) => ({
    id: t.exposeID('id', { description: 'hfd_ id.' }),
    bankAccountId: t.exposeID('bankAccountId', { description: 'The account polled.' }),
    aggregator: t.field({ type: AggregatorEnum, description: 'The aggregator.', resolve: (f) => f.aggregator as AggregatorName }),
    corpNum: t.exposeString('corpNum', { nullable: true, description: 'The business registration number the account is registered under at the aggregator.' }),
    state: t.expose('state', { type: HistoryFeedStateEnum, description: 'Where it stands.' }),
    intervalMs: t.exposeInt('intervalMs', { description: 'How often it is polled.' }),
    lastPolledAt: t.expose('lastPolledAt', { type: 'DateTime', nullable: true, description: 'The last complete poll.' }),
    lastRows: t.exposeInt('lastRows', { description: 'Deposit rows the last poll read.' }),
    lastNew: t.exposeInt('lastNew', { description: 'Deposits the last poll found that no text had announced.' }),
    lastError: t.exposeString('lastError', { nullable: true, description: 'Why the last poll failed (null after a success).' }),
    nextPollAt: t.expose('nextPollAt', { type: 'DateTime', nullable: true, description: 'When the next poll is due (null unless ACTIVE).' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was connected: rows booked before are not taken.' }),
  }),
});

builder.queryField('historyFeeds', (t) =>
  t.prismaField({
    type: [HistoryFeedType],
    description: "The workspace's account-history feeds, newest first (a key limited to some accounts: those accounts' feeds).",
    authScopes: { authenticated: true },
    resolve: async (query, _r, _a, ctx) => {
      const rows = await listHistoryFeeds(ctx.deps, ctx.principal);
      return ctx.prisma.historyFeed.findMany({ ...query, where: { id: { in: rows.map((r) => r.id) } }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
    },
  }),
);

builder.queryField('historyAggregators', (t) =>
  t.field({
    type: [AggregatorEnum],
    description: 'The aggregators connectHistoryFeed takes on this service: SIMULATED always, POPBILL when configured.',
    authScopes: { authenticated: true },
    resolve: (_r, _a, ctx) => offeredAggregators(ctx.deps),
  }),
);

const HistoryFeedPayload = builder.objectRef<HistoryFeed>('HistoryFeedPayload').implement({
  description: 'The feed after the change.',
  fields: (t) => ({
    feed: t.prismaField({ type: HistoryFeedType, description: 'The feed.', resolve: (query, f, _a, ctx) => ctx.prisma.historyFeed.findUnique({ ...query, where: { id: f.id } }).then((r) => r ?? f) }),
  }),
});

const ConnectHistoryFeedInput = builder.inputType('ConnectHistoryFeedInput', {
  description: "The account whose history to poll, and through which aggregator.",
  fields: (t) => ({
    bankAccountId: t.id({ required: true, description: 'bac_ id.' }),
    aggregator: t.field({ type: AggregatorEnum, required: true, description: 'POPBILL or SIMULATED.' }),
    corpNum: t.string({ required: false, description: 'The business registration number the account is registered under at the aggregator (10 digits; Popbill needs it).' }),
  }),
});

builder.mutationField('connectHistoryFeed', (t) =>
  t.field({
    errors: domainErrors,
    type: HistoryFeedPayload,
    description: "Dashboard: polls an account's history through an aggregator, the first poll at once (connecting again changes the aggregator and resumes it).",
    authScopes: { dashboard: true },
    args: { input: t.arg({ type: ConnectHistoryFeedInput, required: true, description: 'The account and aggregator.' }) },
    resolve: (_r, { input }, ctx) => connectHistoryFeed(ctx.deps, ctx.principal, input),
  }),
);

builder.mutationField('pauseHistoryFeed', (t) =>
  t.field({
    errors: domainErrors,
    type: HistoryFeedPayload,
    description: 'Dashboard: stops polling the account (PAUSED).',
    authScopes: { dashboard: true },
    args: { id: t.arg.id({ required: true, description: 'hfd_ id.' }) },
    resolve: (_r, { id }, ctx) => setHistoryFeedActive(ctx.deps, ctx.principal, id, false),
  }),
);

builder.mutationField('resumeHistoryFeed', (t) =>
  t.field({
    errors: domainErrors,
    type: HistoryFeedPayload,
    description: 'Dashboard: polls the account again (ACTIVE), the next poll at once: after a pause, or once what made it NEEDS_ATTENTION is fixed.',
    authScopes: { dashboard: true },
    args: { id: t.arg.id({ required: true, description: 'hfd_ id.' }) },
    resolve: (_r, { id }, ctx) => setHistoryFeedActive(ctx.deps, ctx.principal, id, true),
  }),
);

builder.mutationField('disconnectHistoryFeed', (t) =>
  t.field({
    errors: domainErrors,
    type: HistoryFeedPayload,
    description: 'Dashboard: removes the feed; the deposits it found stay.',
    authScopes: { dashboard: true },
    args: { id: t.arg.id({ required: true, description: 'hfd_ id.' }) },
    resolve: (_r, { id }, ctx) => disconnectHistoryFeed(ctx.deps, ctx.principal, id),
  }),
);

const HistoryPollPayload = builder.objectRef<{ feed: HistoryFeed; result: PollResult }>('HistoryPollPayload').implement({
  description: 'What one poll did.',
  fields: (t) => ({
    feed: t.field({ type: HistoryFeedType, description: 'The feed after the poll.', resolve: (p) => p.feed }),
    rows: t.int({ description: 'Deposit rows the aggregator listed.', resolve: (p) => p.result.rows }),
    created: t.int({ description: 'Deposits new to the service (no text or earlier poll had announced them).', resolve: (p) => p.result.created }),
    skipped: t.int({ description: 'Rows booked before the feed was connected, left alone.', resolve: (p) => p.result.skipped }),
  }),
});

builder.mutationField('pollHistoryNow', (t) =>
  t.field({
    errors: domainErrors,
    type: HistoryPollPayload,
    description: "Polls the account's history now (as the schedule does every HISTORY_POLL_INTERVAL_MS). AGGREGATOR_API_FAILED (data.aggregator: its code and message) when the aggregator failed.",
    authScopes: { authenticated: true },
    args: { feedId: t.arg.id({ required: true, description: 'hfd_ id.' }) },
    resolve: (_r, { feedId }, ctx) => pollHistoryNow(ctx.deps, ctx.principal, feedId),
  }),
);

const SimulatedHistoryRowType = builder.prismaObject('SimulatedHistoryRow', {
  description: "A row booked in a simulated aggregator's history.",
  fields: (t) => ({
    id: t.exposeID('id', { description: 'hsr_ id.' }),
    feedId: t.exposeID('feedId', { description: 'The feed (hfd_).' }),
    rowId: t.exposeString('rowId', { description: "The aggregator's id of the row." }),
    occurredAt: t.expose('occurredAt', { type: 'DateTime', description: 'When the bank booked it.' }),
    amount: t.exposeInt('amount', { description: 'Won.' }),
    depositorName: t.exposeString('depositorName', { description: 'The depositor.' }),
    balanceAfter: t.exposeFloat('balanceAfter', { nullable: true, description: 'The balance after it.' }),
  }),
});

const SimulateHistoryDepositInput = builder.inputType('SimulateHistoryDepositInput', {
  description: "A deposit booked in a simulated feed's history, as the bank would book it.",
  fields: (t) => ({
    feedId: t.id({ required: true, description: 'hfd_ id of a SIMULATED feed.' }),
    depositorName: t.string({ required: true, description: 'The depositor (1-40 characters).' }),
    amount: t.int({ required: true, description: 'Won, greater than 0.' }),
    occurredAt: t.field({ type: 'DateTime', required: false, description: 'When the bank booked it (not in the future); default now.' }),
    balanceAfter: t.float({ required: false, description: "The balance after it; default the ledger's last balance plus the amount. Give a forwarded text's balance to book that text's deposit." }),
  }),
});

const SimulatedHistoryRowPayload = builder.objectRef<SimulatedHistoryRow>('SimulatedHistoryRowPayload').implement({
  description: 'The row booked.',
  fields: (t) => ({ row: t.field({ type: SimulatedHistoryRowType, description: 'The row.', resolve: (r) => r }) }),
});

builder.mutationField('simulateHistoryDeposit', (t) =>
  t.field({
    errors: domainErrors,
    type: SimulatedHistoryRowPayload,
    description: "Books a deposit in a simulated feed's history (the tour: a deposit whose text the phone never forwarded); the feed's poll is due at once.",
    authScopes: { authenticated: true },
    args: { input: t.arg({ type: SimulateHistoryDepositInput, required: true, description: 'The row.' }) },
    resolve: (_r, { input }, ctx) => simulateHistoryDeposit(ctx.deps, ctx.principal, { ...input, occurredAt: input.occurredAt?.toISOString() ?? undefined }),
  }),
);

const TallyType = builder.objectRef<Tally>('ReconciliationTally').implement({
  description: 'A number of deposits and their sum.',
  fields: (t) => ({
    count: t.exposeInt('count', { description: 'Deposits.' }),
    amount: t.exposeFloat('amount', { description: 'Their sum in won.' }),
  }),
});

const ReconciliationDayType = builder.objectRef<ReconciliationDay>('ReconciliationDay').implement({
  description: "One Korean day of one receiving account's deposits (README, Reconciliation).",
  fields: (t) => ({
    date: t.exposeString('date', { description: 'The Korean calendar day (YYYY-MM-DD) of the deposits\' bank time.' }),
    bankAccountId: t.exposeID('bankAccountId', { description: 'The receiving account.' }),
    deposits: t.field({ type: TallyType, description: 'All deposits (1-won verifications left out).', resolve: (d) => d.deposits }),
    notified: t.field({ type: TallyType, description: 'Arrived by the bank notification feed.', resolve: (d) => d.notified }),
    announcedByText: t.field({ type: TallyType, description: 'Announced by a forwarded text.', resolve: (d) => d.announcedByText }),
    foundByPolling: t.field({ type: TallyType, description: "Listed by the account's polled history.", resolve: (d) => d.foundByPolling }),
    polledOnly: t.field({ type: TallyType, description: 'Found by polling and announced by no text (texts the phone lost).', resolve: (d) => d.polledOnly }),
    matchedAutomatically: t.field({ type: TallyType, description: 'Matched to an invoice as they arrived (EXACT, BRACKET_REMOVAL, NAME_PREFIX).', resolve: (d) => d.matchedAutomatically }),
    matchedByHand: t.field({ type: TallyType, description: 'Matched by hand (MANUAL: the dashboard or the API).', resolve: (d) => d.matchedByHand }),
    unmatched: t.field({ type: TallyType, description: 'Not matched to any invoice.', resolve: (d) => d.unmatched }),
  }),
});

builder.queryField('depositReconciliation', (t) =>
  t.field({
    type: [ReconciliationDayType],
    description: `Deposits per Korean day and receiving account, newest day first: how they arrived (notification, text, polling) and what became of them (matched automatically, by hand, unmatched), counts and sums. At most 92 days; days without deposits are left out; a key limited to some accounts sees those.`,
    authScopes: { authenticated: true },
    args: {
      dateAfter: t.arg.string({ required: true, description: 'First day, YYYY-MM-DD (KST).' }),
      dateBefore: t.arg.string({ required: true, description: 'Last day, YYYY-MM-DD (KST), inclusive.' }),
      bankAccountId: t.arg.id({ required: false, description: 'Only this account.' }),
    },
    resolve: (_r, args, ctx) => depositReconciliation(ctx.deps, ctx.principal, args),
  }),
);
