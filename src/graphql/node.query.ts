/** `node(id:)` and `nodes(ids:)`: any object by its prefixed id, with the same visibility rules as its own query. */
import type { Principal } from '../domain/auth/principal.ts';
import { bankAccountInScope, requirePrincipal } from '../domain/auth/rules.ts';
import { loadReceiptFor } from '../domain/cash-receipts/reads.ts';
import { loadTransactionFor } from '../domain/deposits/transaction-reads.ts';
import { DomainError } from '../domain/errors.ts';
import { eventsVisibleNow } from '../domain/events/visibility.ts';
import { loadInvoiceFor } from '../domain/invoices/invoices.ts';
import { builder } from './builder.ts';
import { NodeInterface, nodeTypeOf } from './common/node.ts';
import type { GraphQLContext } from './context.ts';

const notFound = () => new DomainError('NOT_FOUND');

/** Loads what the principal may see under this id; NOT_FOUND (or the type's own refusal) otherwise. */
async function loadNode(ctx: GraphQLContext, id: string): Promise<{ id: string }> {
  const p: Principal = requirePrincipal(ctx.principal);
  const db = ctx.prisma;
  const dashboard = p.kind === 'SESSION';
  switch (nodeTypeOf(id)) {
    case 'Invoice':
      return loadInvoiceFor(db, p, id);
    case 'Transaction':
      return loadTransactionFor(db, p, id);
    case 'CashReceipt':
      return loadReceiptFor(db, p, id);
    case 'BankAccount': {
      const a = await db.bankAccount.findUnique({ where: { id } });
      if (!a || a.workspaceId !== p.workspaceId || a.deletedAt || !bankAccountInScope(p, a.id)) throw notFound();
      return a;
    }
    case 'Event': {
      const e = await db.event.findUnique({ where: { id } });
      if (!e || (await eventsVisibleNow(db, p, [e])).length === 0) throw notFound();
      return e;
    }
    case 'Workspace': {
      if (id !== p.workspaceId) throw notFound();
      return db.workspace.findUniqueOrThrow({ where: { id } });
    }
    case 'Account': {
      if (!dashboard || id !== p.accountId) throw notFound();
      return db.account.findUniqueOrThrow({ where: { id } });
    }
    case 'Webhook':
    case 'WebhookDelivery':
    case 'ApiKey':
    case 'OAuthApp':
    case 'EmailMessage': {
      if (!dashboard) throw new DomainError('DASHBOARD_ONLY');
      const row = await findDashboardRow(ctx, id);
      if (!row) throw notFound();
      return row;
    }
    default:
      throw notFound();
  }
}

async function findDashboardRow(ctx: GraphQLContext, id: string): Promise<{ id: string } | null> {
  const ws = ctx.principal!.workspaceId;
  const db = ctx.prisma;
  switch (nodeTypeOf(id)) {
    case 'Webhook':
      return db.webhook.findFirst({ where: { id, workspaceId: ws, deletedAt: null } });
    case 'WebhookDelivery':
      return db.webhookDelivery.findFirst({ where: { id, webhook: { workspaceId: ws } } });
    case 'ApiKey':
      return db.apiKey.findFirst({ where: { id, workspaceId: ws, deletedAt: null } });
    case 'OAuthApp':
      return db.oAuthApp.findFirst({ where: { id, workspaceId: ws, deletedAt: null } });
    case 'EmailMessage':
      return db.emailMessage.findFirst({ where: { id, workspaceId: ws } });
    default:
      return null;
  }
}

builder.queryField('node', (t) =>
  t.field({
    type: NodeInterface,
    nullable: true,
    description: 'Any object by its prefixed id (null when it does not exist or is not visible to the caller).',
    args: { id: t.arg.id({ required: true, description: 'A prefixed id such as ivc_..., trx_..., crt_....' }) },
    resolve: async (_r, { id }, ctx) => {
      try {
        return await loadNode(ctx, String(id));
      } catch (e) {
        if (e instanceof DomainError && e.code !== 'UNAUTHENTICATED') return null;
        throw e;
      }
    },
  }),
);

builder.queryField('nodes', (t) =>
  t.field({
    type: [NodeInterface],
    nullable: { list: false, items: true },
    description: 'Several objects by prefixed id, in the order asked (null for each that is missing or not visible).',
    args: { ids: t.arg.idList({ required: true, description: 'At most 100 prefixed ids.' }) },
    resolve: async (_r, { ids }, ctx) => {
      requirePrincipal(ctx.principal);
      if (ids.length > 100) throw new DomainError('LIMIT_EXCEEDS_MAXIMUM');
      return Promise.all(
        ids.map((id) =>
          loadNode(ctx, String(id)).catch((e) => {
            if (e instanceof DomainError) return null;
            throw e;
          }),
        ),
      );
    },
  }),
);
