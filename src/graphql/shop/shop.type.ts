/** Shop integrations (README, Shop integrations): connections, their orders, the install, syncs, and the simulated shop. */
import { completeShopInstall, disconnectShop, listShopConnections, loadShopConnectionFor, startShopInstall } from '../../domain/shops/connections.ts';
import { isShopLinked } from '../../domain/shops/reserved-metadata.ts';
import { loadShopOrderFor, retryShopOrderConfirmation, shopOrderInvoice, type SyncResult } from '../../domain/shops/shop-orders.ts';
import { syncShopNow } from '../../domain/shops/shop-sync.ts';
import { cancelSimulatedShopOrder, listSimulatedShopOrders, simulateShopOrder } from '../../domain/shops/simulated-orders.ts';
import { clampedSize } from '../../domain/paging.ts';
import { requirePrincipal } from '../../domain/auth/rules.ts';
import type { ShopConnection, ShopOrder, SimulatedShopOrder } from '../../generated/prisma/client.ts';
import type { ShopConnectionState, ShopOrderState, ShopPlatform } from '../../generated/prisma/enums.ts';
import { builder } from '../builder.ts';
import { describedEnum } from '../common/enums.ts';
import { domainErrors } from '../common/error-types.ts';
import { InvoiceType } from '../invoice/invoice.type.ts';

const ShopPlatformEnum = describedEnum<ShopPlatform>('ShopPlatform', 'A shop platform whose bank-transfer orders become invoices.', {
  CAFE24: "Cafe24 (its Admin API; offered when the service is configured with a Cafe24 app's credentials). Metadata prefix cafe24_.",
  SIMULATED: 'The simulated shop of the tour and tests: orders placed with simulateShopOrder. Metadata prefix shoplink_.',
});

const ShopConnectionStateEnum = describedEnum<ShopConnectionState>('ShopConnectionState', 'Where a shop connection stands.', {
  INSTALLING: 'Started; waiting for the merchant to approve the install at the platform.',
  CONNECTED: 'Orders are imported and payments confirmed.',
  NEEDS_REAUTHORIZATION: 'The platform refused the refresh token: install again (startShopInstall with the same shop).',
  DISCONNECTED: 'Disconnected by the merchant; tokens erased.',
});

const ShopOrderStateEnum = describedEnum<ShopOrderState>('ShopOrderState', "A shop order's life here (README, Shop integrations).", {
  WAITING: 'Another unpaid invoice has the same depositor name and amount; imported when that one is paid, canceled or expired.',
  REFUSED: 'Its data cannot make an invoice (reason: the error code, or PAY_BY_PASSED).',
  LINKED: 'Its invoice exists and is not paid.',
  CONFIRMING: 'Its invoice was paid; the shop is being told (retried with backoff).',
  CONFIRMED: 'The shop has the order deposit-confirmed.',
  FAILED: 'The shop refused the confirmation, or could not be reached for hours (error says why); retryShopOrderConfirmation tries again.',
  CANCELED_IN_SHOP: 'Canceled (or deleted) in the shop; its unpaid invoice was canceled (reason NOT_FOUND when the shop no longer has it).',
  PAID_IN_SHOP: 'Marked paid in the shop itself (not through this service); its unpaid invoice was canceled, so no later deposit pays it.',
});

const ShopErrorType = builder.objectRef<{ code: string; message: string }>('ShopError').implement({
  description: "The shop platform's error (Cafe24: its error code and message), or ours when it gave none.",
  fields: (t) => ({
    code: t.exposeString('code', { description: 'Error code.' }),
    message: t.exposeString('message', { description: 'What the shop said.' }),
  }),
});

export const ShopOrderType = builder.prismaObject('ShopOrder', {
  description: 'A bank-transfer order of a connected shop (sho_), imported once.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'sho_ id.' }),
    connectionId: t.exposeID('connectionId', { description: 'The shop connection (shc_).' }),
    platform: t.field({ type: ShopPlatformEnum, description: 'The platform.', select: { connection: { select: { platform: true } } }, resolve: (o) => o.connection.platform }),
    orderId: t.exposeString('orderId', { description: "The shop's order id." }),
    state: t.expose('state', { type: ShopOrderStateEnum, description: 'Where it stands.' }),
    invoice: t.prismaField({
      type: InvoiceType,
      nullable: true,
      description: 'The invoice it became (null while WAITING or REFUSED, or when it is outside the credential\'s receiving accounts).',
      select: { invoiceId: true },
      resolve: (query, o, _a, ctx) => shopOrderInvoice(ctx.prisma, ctx.principal, query, o.invoiceId),
    }),
    depositorName: t.exposeString('depositorName', { description: 'The depositor name the order gave (입금자명).' }),
    amount: t.exposeInt('amount', { description: 'Won.' }),
    orderedAt: t.expose('orderedAt', { type: 'DateTime', description: 'When it was ordered.' }),
    payBy: t.expose('payBy', { type: 'DateTime', nullable: true, description: "The shop's auto-cancel deadline (the invoice's expiry), if it has one." }),
    reason: t.exposeString('reason', { nullable: true, description: 'WAITING: the invoice it waits for; REFUSED: why.' }),
    confirmAttempts: t.exposeInt('confirmAttempts', { description: 'Calls made to the shop to confirm it.' }),
    error: t.field({
      type: ShopErrorType,
      nullable: true,
      description: "The shop's last error while confirming (FAILED, or CONFIRMING between retries).",
      select: { confirmErrorCode: true, confirmErrorMessage: true },
      resolve: (o) => (o.confirmErrorCode ? { code: o.confirmErrorCode, message: o.confirmErrorMessage ?? '' } : null),
    }),
    confirmRequestedAt: t.expose('confirmRequestedAt', { type: 'DateTime', nullable: true, description: 'When its invoice was paid (the confirmation queued).' }),
    confirmedAt: t.expose('confirmedAt', { type: 'DateTime', nullable: true, description: 'When the shop confirmed it.' }),
    attention: t.exposeString('attention', {
      nullable: true,
      description:
        "PAYMENT_WITHDRAWN: its invoice was un-matched after the shop was told it was paid (the shop order stays confirmed: look at it in the shop). AMOUNT_MISMATCH: its invoice was paid another amount than the order's, so the shop was not told (FAILED). Cleared when the invoice is paid again.",
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was imported.' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'Last change.' }),
  }),
});

export const ShopConnectionType = builder.prismaObject('ShopConnection', {
  description: 'A shop connected to the workspace (shc_). Its OAuth tokens are sealed at rest and never shown.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'shc_ id.' }),
    platform: t.expose('platform', { type: ShopPlatformEnum, description: 'The platform.' }),
    shopId: t.exposeString('shopId', { description: "The platform's id of the shop (Cafe24: the mall id)." }),
    state: t.expose('state', { type: ShopConnectionStateEnum, description: 'Where it stands.' }),
    bankAccountIds: t.exposeIDList('bankAccountIds', { description: 'Receiving accounts of the invoices its orders become; empty = all.' }),
    connectedAt: t.expose('connectedAt', { type: 'DateTime', nullable: true, description: 'When the install was last approved.' }),
    lastSyncAt: t.expose('lastSyncAt', { type: 'DateTime', nullable: true, description: 'When its orders were last imported successfully.' }),
    lastSyncError: t.exposeString('lastSyncError', { nullable: true, description: 'Why the last sync failed (null after a success).' }),
    nextSyncAt: t.expose('nextSyncAt', { type: 'DateTime', nullable: true, description: 'When the next scheduled sync is due.' }),
    disconnectedAt: t.expose('disconnectedAt', { type: 'DateTime', nullable: true, description: 'When it was disconnected.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was first started.' }),
    orders: t.relation('orders', {
      description: 'Its imported orders, newest first (at most 100).',
      args: {
        states: t.arg({ type: [ShopOrderStateEnum], required: false, description: 'Only these states.' }),
        first: t.arg.int({ description: '1-100, default 50.' }),
      },
      query: (args) => ({ where: args.states?.length ? { state: { in: args.states } } : {}, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: clampedSize(args.first, 50) }),
    }),
  }),
});

builder.prismaObjectField('Invoice', 'shopOrder', (t) =>
  t.prismaField({
    type: ShopOrderType,
    nullable: true,
    description: 'The shop order this invoice was imported from, with its confirmation state (null for an invoice not from a shop).',
    select: { id: true, metadata: true },
    resolve: (query, i, _a, ctx) => (isShopLinked(i.metadata) ? ctx.prisma.shopOrder.findUnique({ ...query, where: { invoiceId: i.id } }) : null),
  }),
);

builder.queryField('shopConnections', (t) =>
  t.prismaField({
    type: [ShopConnectionType],
    description: 'The shops connected to the workspace, newest first.',
    authScopes: { authenticated: true },
    resolve: async (query, _r, _a, ctx) => {
      const rows = await listShopConnections(ctx.deps, ctx.principal);
      return ctx.prisma.shopConnection.findMany({ ...query, where: { id: { in: rows.map((r) => r.id) } }, orderBy: { createdAt: 'desc' } });
    },
  }),
);

builder.queryField('shopConnection', (t) =>
  t.prismaField({
    type: ShopConnectionType,
    description: 'One shop connection.',
    authScopes: { authenticated: true },
    args: { id: t.arg.id({ required: true, description: 'shc_ id.' }) },
    resolve: async (query, _r, { id }, ctx) => {
      const c = await loadShopConnectionFor(ctx.deps, requirePrincipal(ctx.principal), id);
      return ctx.prisma.shopConnection.findUniqueOrThrow({ ...query, where: { id: c.id } });
    },
  }),
);

builder.queryField('shopOrder', (t) =>
  t.prismaField({
    type: ShopOrderType,
    description: 'One imported shop order.',
    authScopes: { authenticated: true },
    args: { id: t.arg.id({ required: true, description: 'sho_ id.' }) },
    resolve: async (query, _r, { id }, ctx) => {
      const o = await loadShopOrderFor(ctx.deps, requirePrincipal(ctx.principal), id);
      return ctx.prisma.shopOrder.findUniqueOrThrow({ ...query, where: { id: o.id } });
    },
  }),
);

const StartShopInstallInput = builder.inputType('StartShopInstallInput', {
  description: 'The shop to connect.',
  fields: (t) => ({
    platform: t.field({ type: ShopPlatformEnum, required: true, description: 'CAFE24 or SIMULATED.' }),
    shopId: t.string({ required: true, description: 'Cafe24: the mall id; SIMULATED: a name of your choice (2-40 of a-z, 0-9, -).' }),
    bankAccountIds: t.idList({ required: false, description: 'Receiving accounts of the invoices its orders become; omitted or empty = all.' }),
  }),
});

const ShopInstallPayload = builder
  .objectRef<{ connection: ShopConnection; authorizeUrl: string; expiresAt: Date }>('ShopInstallPayload')
  .implement({
    description: 'The install started: send the merchant to authorizeUrl to approve it.',
    fields: (t) => ({
      connection: t.field({ type: ShopConnectionType, description: 'The connection (INSTALLING, or still CONNECTED when authorizing again).', resolve: (p) => p.connection }),
      authorizeUrl: t.exposeString('authorizeUrl', {
        description: "The platform's approval page (single-use; the simulated shop's is this service's /shops/simulated/authorize). The platform sends the merchant back to /shops/{platform}/callback, which completes the install.",
      }),
      expiresAt: t.expose('expiresAt', { type: 'DateTime', description: 'The approval must come back before this (30 minutes).' }),
    }),
  });

builder.mutationField('startShopInstall', (t) =>
  t.field({
    errors: domainErrors,
    type: ShopInstallPayload,
    description: 'Starts connecting a shop (dashboard login): returns the URL where the merchant approves the install.',
    authScopes: { dashboard: true },
    args: { input: t.arg({ type: StartShopInstallInput, required: true, description: 'The shop.' }) },
    resolve: async (_r, { input }, ctx) => {
      const started = await startShopInstall(ctx.deps, ctx.principal, input);
      return { connection: started.connection, authorizeUrl: started.authorizeUrl, expiresAt: started.expiresAt };
    },
  }),
);

const ShopConnectionPayload = builder.objectRef<ShopConnection>('ShopConnectionPayload').implement({
  description: 'The shop connection after the change.',
  fields: (t) => ({ connection: t.field({ type: ShopConnectionType, description: 'The connection.', resolve: (c) => c }) }),
});

builder.mutationField('completeShopInstall', (t) =>
  t.field({
    errors: domainErrors,
    type: ShopConnectionPayload,
    description: 'Completes an install with the code and state the platform sent back (for a dashboard that receives the redirect itself).',
    authScopes: { dashboard: true },
    args: {
      state: t.arg.string({ required: true, description: 'The state parameter of the redirect.' }),
      code: t.arg.string({ required: true, description: 'The authorization code of the redirect.' }),
    },
    resolve: (_r, args, ctx) => completeShopInstall(ctx.deps, ctx.principal, args),
  }),
);

builder.mutationField('disconnectShop', (t) =>
  t.field({
    errors: domainErrors,
    type: ShopConnectionPayload,
    description: 'Disconnects a shop (dashboard login): its tokens are erased; invoices and their links stay.',
    authScopes: { dashboard: true },
    args: { id: t.arg.id({ required: true, description: 'shc_ id.' }) },
    resolve: (_r, { id }, ctx) => disconnectShop(ctx.deps, ctx.principal, id),
  }),
);

const ShopSyncPayload = builder.objectRef<{ connection: ShopConnection; result: SyncResult }>('ShopSyncPayload').implement({
  description: 'What one sync did.',
  fields: (t) => ({
    connection: t.field({ type: ShopConnectionType, description: 'The connection after the sync.', resolve: (p) => p.connection }),
    imported: t.int({ description: 'Orders that became invoices.', resolve: (p) => p.result.imported }),
    waiting: t.int({ description: 'Orders left WAITING (another unpaid invoice has their name and amount).', resolve: (p) => p.result.waiting }),
    refused: t.int({ description: 'Orders REFUSED.', resolve: (p) => p.result.refused }),
    canceledInShop: t.int({ description: 'Orders found canceled, or missing twice in a row, in the shop (their unpaid invoices canceled).', resolve: (p) => p.result.canceledInShop }),
    paidInShop: t.int({ description: 'Orders found marked paid in the shop itself (their unpaid invoices canceled, so no later transfer pays them).', resolve: (p) => p.result.paidInShop }),
    paidOnImport: t.int({ description: 'Of imported: invoices paid at once by a deposit that had arrived before the order was imported.', resolve: (p) => p.result.paidOnImport }),
    skipped: t.int({ description: 'Orders left alone: an order id the service cannot store, or an order changed meanwhile.', resolve: (p) => p.result.skipped }),
    failed: t.int({ description: 'Orders an unexpected error stopped (tried again at the next sync).', resolve: (p) => p.result.failed }),
    more: t.boolean({ description: 'More new orders wait than one sync imports (500): the next sync is due at once.', resolve: (p) => p.result.more }),
  }),
});

builder.mutationField('syncShopOrders', (t) =>
  t.field({
    errors: domainErrors,
    type: ShopSyncPayload,
    description: 'Imports the shop\'s new bank-transfer orders now (as the schedule does every SHOP_SYNC_INTERVAL_MS).',
    authScopes: { authenticated: true },
    args: { connectionId: t.arg.id({ required: true, description: 'shc_ id.' }) },
    resolve: (_r, { connectionId }, ctx) => syncShopNow(ctx.deps, ctx.principal, connectionId),
  }),
);

const ShopOrderPayload = builder.objectRef<ShopOrder>('ShopOrderPayload').implement({
  description: 'The shop order after the change.',
  fields: (t) => ({
    shopOrder: t.prismaField({ type: ShopOrderType, description: 'The order.', resolve: (query, o, _a, ctx) => ctx.prisma.shopOrder.findUniqueOrThrow({ ...query, where: { id: o.id } }) }),
  }),
});

builder.mutationField('retryShopOrderConfirmation', (t) =>
  t.field({
    errors: domainErrors,
    type: ShopOrderPayload,
    description: 'Tells the shop again that a FAILED order was paid (its invoice must be paid); an order already CONFIRMING is returned as it is.',
    authScopes: { authenticated: true },
    args: { id: t.arg.id({ required: true, description: 'sho_ id.' }) },
    resolve: (_r, { id }, ctx) => retryShopOrderConfirmation(ctx.deps, ctx.principal, id),
  }),
);

// ───────────────────────────── The simulated shop ─────────────────────────────

const SimulatedShopOrderType = builder.prismaObject('SimulatedShopOrder', {
  description: "An order as the simulated shop keeps it (the shop's side, not ours).",
  fields: (t) => ({
    id: t.exposeID('id', { description: "The shop's order id." }),
    buyerName: t.exposeString('buyerName', { description: 'The depositor name the buyer gave.' }),
    amount: t.exposeInt('amount', { description: 'Won.' }),
    status: t.exposeString('status', { description: 'AWAITING_DEPOSIT, PAID or CANCELED.' }),
    orderedAt: t.expose('orderedAt', { type: 'DateTime', description: 'When it was ordered.' }),
    payBy: t.expose('payBy', { type: 'DateTime', nullable: true, description: 'The shop cancels it unpaid after this.' }),
    paidAt: t.expose('paidAt', { type: 'DateTime', nullable: true, description: 'When the shop marked it paid (deposit-confirmed).' }),
    confirmCalls: t.exposeInt('confirmCalls', { description: 'Deposit confirmations the shop received for it (1 when all went well).' }),
  }),
});

builder.queryField('simulatedShopOrders', (t) =>
  t.prismaField({
    type: [SimulatedShopOrderType],
    description: "The simulated shop's own orders (newest first, at most 100), as its admin would show them.",
    authScopes: { authenticated: true },
    args: { connectionId: t.arg.id({ required: true, description: 'shc_ id of a SIMULATED connection.' }) },
    resolve: async (query, _r, { connectionId }, ctx) => {
      const rows = await listSimulatedShopOrders(ctx.deps, ctx.principal, connectionId);
      return ctx.prisma.simulatedShopOrder.findMany({ ...query, where: { id: { in: rows.map((r) => r.id) } }, orderBy: [{ orderedAt: 'desc' }, { id: 'desc' }] });
    },
  }),
);

const SimulateShopOrderInput = builder.inputType('SimulateShopOrderInput', {
  description: 'A buyer placing a bank-transfer order in a simulated shop.',
  fields: (t) => ({
    connectionId: t.id({ required: true, description: 'shc_ id of a SIMULATED connection.' }),
    buyerName: t.string({ required: true, description: 'The depositor name the buyer gives (1-40 characters; spaces are dropped on import).' }),
    amount: t.int({ required: true, description: 'Won, greater than 0.' }),
    payWithinHours: t.int({ required: false, description: 'Hours until the shop cancels it unpaid (1-8760). Absent: 72 hours; null: never canceled for want of payment (no pay-by deadline; its invoice does not expire).' }),
    buyerEmail: t.string({ required: false, description: "The buyer's e-mail (the invoice's, when valid)." }),
  }),
});

const SimulatedShopOrderPayload = builder.objectRef<SimulatedShopOrder>('SimulatedShopOrderPayload').implement({
  description: "The simulated shop's order.",
  fields: (t) => ({ order: t.field({ type: SimulatedShopOrderType, description: 'The order.', resolve: (o) => o }) }),
});

builder.mutationField('simulateShopOrder', (t) =>
  t.field({
    errors: domainErrors,
    type: SimulatedShopOrderPayload,
    description: 'Places an order in a simulated shop; the next sync (due at once) makes it an invoice.',
    authScopes: { authenticated: true },
    args: { input: t.arg({ type: SimulateShopOrderInput, required: true, description: 'The order.' }) },
    // Absent stays undefined (the default, 72 hours); an explicit null is kept (never auto-canceled).
    resolve: (_r, { input }, ctx) => simulateShopOrder(ctx.deps, ctx.principal, { ...input, payWithinHours: 'payWithinHours' in input ? input.payWithinHours : undefined }),
  }),
);

builder.mutationField('cancelSimulatedShopOrder', (t) =>
  t.field({
    errors: domainErrors,
    type: SimulatedShopOrderPayload,
    description: 'Cancels an order in a simulated shop, as its buyer or admin would; the next sync cancels its unpaid invoice.',
    authScopes: { authenticated: true },
    args: { connectionId: t.arg.id({ required: true, description: 'shc_ id.' }), orderId: t.arg.string({ required: true, description: "The shop's order id." }) },
    resolve: (_r, args, ctx) => cancelSimulatedShopOrder(ctx.deps, ctx.principal, args),
  }),
);
