/** Invoice reads: one invoice, an offset page (REST parity) and a Relay connection, with the REST list filters. */
import { getInvoice, listInvoiceIds } from '../../domain/invoices/invoices.ts';
import { builder } from '../builder.ts';
import { InvoiceStatusEnum } from '../common/enums.ts';
import { defineIdList } from '../common/pagination.ts';
import { InvoiceType } from './invoice.type.ts';

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

defineIdList({
  item: InvoiceType,
  model: 'Invoice',
  filter: InvoiceFilter,
  // The domain's filter says hideCanceled where GraphQL's says includeCanceled (absent = include).
  listIds: (ctx, filter, offset, limit) => {
    const { includeCanceled, ...rest } = filter ?? {};
    return listInvoiceIds(ctx.deps, ctx.principal, { ...rest, offset, limit, hideCanceled: includeCanceled === false });
  },
  findMany: (ctx, args) => ctx.prisma.invoice.findMany(args),
  page: {
    type: 'InvoicePage',
    typeDescription: 'A page of invoices by offset and limit, newest first.',
    totalItems: 'Number of invoices matching the filter.',
    items: 'The invoices of this page.',
    field: 'invoicePage',
    description: 'Invoices by offset/limit (limit 1-100), newest first; same rules as GET /v1/invoices.',
  },
  connection: {
    field: 'invoices',
    description: 'Invoices as a Relay connection, newest first, with the REST filters.',
    typeDescription: 'A page of invoices.',
    totalCount: 'Invoices matching the filter.',
  },
});
