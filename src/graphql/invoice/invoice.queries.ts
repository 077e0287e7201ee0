/** Invoice reads: one invoice, an offset page (REST parity) and a Relay connection, with the REST list filters. */
import { getInvoice, listInvoiceIds, type InvoiceListFilter } from '../../domain/invoices/invoices.ts';
import { builder } from '../builder.ts';
import { InvoiceStatusEnum } from '../common/enums.ts';
import { buildConnection, connectionWindow, inIdOrder, selectionAt } from '../common/pagination.ts';
import type { GraphQLContext } from '../context.ts';
import { InvoiceType } from './invoice.type.ts';
import type { GraphQLResolveInfo } from 'graphql';

export const InvoiceFilter = builder.inputType('InvoiceFilter', {
  description: 'The filters of GET /v1/invoices.',
  fields: (t) => ({
    search: t.string({ description: 'Invoice id exactly, or contained in depositor name, e-mail, phone or cash-receipt identifier (case-insensitive, hyphens ignored).' }),
    paid: t.boolean({ description: 'true = paid, false = not paid (pending or expired).' }),
    expired: t.boolean({ description: 'true = past expiresAt; false = no expiry or not yet expired.' }),
    statuses: t.field({ type: [InvoiceStatusEnum], description: 'Only these statuses.' }),
    dateAfter: t.string({ description: 'YYYY-MM-DD (KST), inclusive, by creation date.' }),
    dateBefore: t.string({ description: 'YYYY-MM-DD (KST), inclusive, by creation date.' }),
    includeCanceled: t.boolean({ description: 'Include canceled invoices (default true; v1 passes false).' }),
  }),
});

type FilterArg = { search?: string | null; paid?: boolean | null; expired?: boolean | null; statuses?: InvoiceListFilter['statuses']; dateAfter?: string | null; dateBefore?: string | null; includeCanceled?: boolean | null } | null | undefined;

function toDomainFilter(filter: FilterArg, offset: unknown, limit: unknown): InvoiceListFilter {
  return {
    offset,
    limit,
    search: filter?.search,
    paid: filter?.paid,
    expired: filter?.expired,
    statuses: filter?.statuses,
    dateAfter: filter?.dateAfter,
    dateBefore: filter?.dateBefore,
    hideCanceled: filter?.includeCanceled === false,
  };
}

async function loadInvoices(ctx: GraphQLContext, info: GraphQLResolveInfo, path: string[], ids: string[]) {
  if (ids.length === 0) return [];
  const rows = await ctx.prisma.invoice.findMany({ ...selectionAt(ctx, info, path), where: { id: { in: ids } } });
  return inIdOrder(ids, rows);
}

builder.queryField('invoice', (t) =>
  t.prismaField({
    type: InvoiceType,
    description: 'One invoice. INVOICE_NOT_FOUND when missing or canceled with includeCanceled false; OUT_OF_SCOPE outside a limited key.',
    args: {
      id: t.arg.id({ required: true, description: 'ivc_ id.' }),
      includeCanceled: t.arg.boolean({ description: 'Return canceled invoices (default true).' }),
    },
    resolve: async (query, _root, args, ctx) => {
      const invoice = await getInvoice(ctx.deps, ctx.principal, args.id, { hideCanceled: args.includeCanceled === false });
      return ctx.prisma.invoice.findUniqueOrThrow({ ...query, where: { id: invoice.id } });
    },
  }),
);

const InvoicePage = builder.objectRef<{ totalItems: number; ids: string[] }>('InvoicePage').implement({
  description: 'A page of invoices by offset and limit, newest first.',
  fields: (t) => ({
    totalItems: t.exposeInt('totalItems', { description: 'Number of invoices matching the filter.' }),
    items: t.field({
      type: [InvoiceType],
      description: 'The invoices of this page.',
      resolve: (page, _args, ctx, info) => loadInvoices(ctx, info, [], page.ids),
    }),
  }),
});

builder.queryField('invoicePage', (t) =>
  t.field({
    type: InvoicePage,
    description: 'Invoices by offset/limit (limit 1-100), newest first; same rules as GET /v1/invoices.',
    args: {
      offset: t.arg.int({ required: true, description: '0 or more.' }),
      limit: t.arg.int({ required: true, description: '1-100.' }),
      filter: t.arg({ type: InvoiceFilter, description: 'Filters.' }),
    },
    resolve: async (_root, args, ctx) => {
      const { ids, total } = await listInvoiceIds(ctx.deps, ctx.principal, toDomainFilter(args.filter, args.offset, args.limit));
      return { totalItems: total, ids };
    },
  }),
);

builder.queryField('invoices', (t) =>
  t.connection(
    {
      type: InvoiceType,
      description: 'Invoices as a Relay connection, newest first, with the REST filters.',
      args: { filter: t.arg({ type: InvoiceFilter, description: 'Filters.' }) },
      resolve: async (_root, args, ctx, info) => {
        const { offset, limit } = connectionWindow(args);
        const { ids, total } = await listInvoiceIds(ctx.deps, ctx.principal, toDomainFilter(args.filter, offset, Math.max(limit, 1)));
        const nodes = limit === 0 ? [] : await loadInvoices(ctx, info, ['edges', 'node'], ids);
        return buildConnection(nodes, offset, total);
      },
    },
    {
      description: 'A page of invoices.',
      fields: (c) => ({ totalCount: c.int({ description: 'Invoices matching the filter.', resolve: (conn) => (conn as unknown as { totalCount: number }).totalCount }) }),
    },
  ),
);
