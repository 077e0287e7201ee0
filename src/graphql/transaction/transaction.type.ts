/** The Transaction (deposit, trx_) type, its reads, the match by hand (dashboard or API) and the dashboard operations on it. */
import { invoiceInScope } from '../../domain/auth/rules.ts';
import type { bankAccountSnapshot } from '../../domain/bank-accounts/bank-accounts.ts';
import { matchTransactionManually, setTransactionHidden, unmatchTransaction } from '../../domain/deposits/dashboard-operations.ts';
import { getTransaction, listTransactionIds, matchCandidateIdsVisibleTo, matchNoteVisibleTo } from '../../domain/deposits/transaction-reads.ts';
import type { Transaction } from '../../generated/prisma/client.ts';
import type { BankAccountType } from '../../generated/prisma/enums.ts';
import { builder } from '../builder.ts';
import { NodeInterface } from '../common/node.ts';
import { BankAccountTypeEnum, MatchMethodEnum } from '../common/enums.ts';
import { defineIdList, selectsRelations } from '../common/pagination.ts';
import { InvoiceType } from '../invoice/invoice.type.ts';
import { DepositSourceEnum } from '../deposit-capture/deposit-capture.type.ts';

/** The snapshot the domain stores on each deposit; its times are ISO strings, which the DateTime scalar takes as they are. */
type Snapshot = ReturnType<typeof bankAccountSnapshot> & { type: BankAccountType };

const BankAccountSnapshotType = builder.objectRef<Snapshot>('BankAccountSnapshot').implement({
  description: 'The receiving account as it was when the deposit arrived; later changes do not alter it.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'bac_ id.' }),
    active: t.exposeBoolean('active', { description: 'In use at the time.' }),
    ownerId: t.exposeID('ownerId', { description: 'Account that registered it.' }),
    alias: t.exposeString('alias', { description: 'Alias at the time.' }),
    provider: t.exposeString('provider', { description: 'Bank identifier.' }),
    type: t.expose('type', { type: BankAccountTypeEnum, description: 'PERSONAL or CORPORATE.' }),
    number: t.exposeString('number', { description: 'Account number without hyphens.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'Registration time.' }),
    verifiedAt: t.expose('verifiedAt', { type: 'DateTime', nullable: true, description: '1-won verification time.' }),
    deletedAt: t.expose('deletedAt', { type: 'DateTime', nullable: true, description: 'Null for a non-deleted account.' }),
  }),
});

export const TransactionType = builder.prismaObject('Transaction', {
  description: 'A deposit (trx_) notified by the bank.',
  interfaces: [NodeInterface],
  fields: (t) => ({
    bankAccount: t.field({ type: BankAccountSnapshotType, description: 'Snapshot of the receiving account.', select: { bankAccountSnapshot: true }, resolve: (x) => x.bankAccountSnapshot as unknown as Snapshot }),
    bankAccountId: t.exposeID('bankAccountId', { description: 'Receiving account id.' }),
    matchedInvoiceId: t.exposeID('matchedInvoiceId', { nullable: true, description: 'Invoice it paid; null when unmatched.' }),
    matchedInvoice: t.field({
      type: InvoiceType,
      nullable: true,
      description: 'Invoice it paid; null for a key limited to bank accounts when the invoice is outside them (an all-accounts invoice, or one also on another account).',
      // Loaded with the deposit (one statement for a whole list); an account-limited key reads the deposits to its
      // accounts, not the invoices it may not handle (spec: account-limited keys).
      select: { matchedInvoice: true },
      resolve: (trx, _args, ctx) => (trx.matchedInvoice && ctx.principal && invoiceInScope(ctx.principal, trx.matchedInvoice.bankAccountIds) ? trx.matchedInvoice : null),
    }),
    matchMethod: t.expose('matchMethod', { type: MatchMethodEnum, nullable: true, description: 'How it was matched.' }),
    matchNote: t.field({
      type: 'JSON',
      nullable: true,
      description: 'Why it stayed unmatched, e.g. {reason: "AMBIGUOUS", candidateInvoiceIds: [...]} (also ALREADY_PAID, TOO_MANY_CANDIDATES); a key limited to bank accounts sees only the candidates within them.',
      select: { matchNote: true },
      resolve: (trx, _args, ctx) => matchNoteVisibleTo(ctx.deps, ctx.principal, trx.matchNote),
    }),
    matchCandidates: t.prismaField({
      type: [InvoiceType],
      description:
        "The invoices its match note names as candidates (AMBIGUOUS, TOO_MANY_CANDIDATES, ALREADY_PAID), in the note's order: what a merchant matches it to by hand. Empty when it names none; a key limited to bank accounts sees only those within them.",
      select: { matchNote: true },
      resolve: async (query, trx, _args, ctx) => {
        const ids = await matchCandidateIdsVisibleTo(ctx.deps, ctx.principal, trx.matchNote);
        if (ids.length === 0) return [];
        const rows = await ctx.prisma.invoice.findMany({ ...query, where: { id: { in: ids } } });
        return ids.map((id) => rows.find((r) => r.id === id)).filter((r): r is (typeof rows)[number] => r !== undefined);
      },
    }),
    amount: t.exposeInt('amount', { description: 'Won.' }),
    description: t.exposeString('description', { description: 'Depositor name from the bank notification.' }),
    hidden: t.exposeBoolean('hidden', { description: 'Hidden in the dashboard (1-won verification deposits are hidden).' }),
    verification: t.exposeBoolean('verification', { description: 'A 1-won verification deposit (never matched).' }),
    receivedAt: t.expose('receivedAt', { type: 'DateTime', description: 'Deposit time per the bank notification.' }),
    matchedAt: t.expose('matchedAt', { type: 'DateTime', nullable: true, description: 'When it was matched.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the service received the notification.' }),
  }),
});

export const TransactionFilter = builder.inputType('TransactionFilter', {
  description: 'The filters of GET /v1/transactions, and how a deposit arrived and its amount.',
  fields: (t) => ({
    search: t.string({ description: 'Transaction, bank account or matched invoice id exactly, or contained in account number or depositor name.' }),
    bankAccountId: t.id({ description: 'Only deposits to this account (OUT_OF_SCOPE outside a limited key).' }),
    matched: t.boolean({ description: 'true = matched, false = unmatched.' }),
    hidden: t.boolean({ description: 'true = hidden, false = not hidden.' }),
    dateAfter: t.string({ description: 'YYYY-MM-DD (KST), inclusive, by createdAt.' }),
    dateBefore: t.string({ description: 'YYYY-MM-DD (KST), inclusive, by createdAt.' }),
    source: t.field({ type: DepositSourceEnum, description: 'Only deposits that first reached the service this way.' }),
    amount: t.int({ description: 'Only deposits of exactly this many won (greater than 0).' }),
  }),
});

builder.queryField('transaction', (t) =>
  t.prismaField({
    type: TransactionType,
    description: 'One deposit. TRANSACTION_NOT_FOUND when missing; OUT_OF_SCOPE outside a limited key.',
    args: { id: t.arg.id({ required: true, description: 'trx_ id.' }) },
    resolve: async (query, _root, { id }, ctx) => {
      const trx = await getTransaction(ctx.deps, ctx.principal, id);
      return ctx.prisma.transaction.findUniqueOrThrow({ ...query, where: { id: trx.id } });
    },
  }),
);

defineIdList({
  item: TransactionType,
  model: 'Transaction',
  filter: TransactionFilter,
  listIds: (ctx, filter, offset, limit) => listTransactionIds(ctx.deps, ctx.principal, { ...filter, offset, limit }),
  findMany: (ctx, args) => ctx.prisma.transaction.findMany(args),
  page: {
    type: 'TransactionPage',
    typeDescription: 'A page of deposits by offset and limit, newest first.',
    totalItems: 'Deposits matching the filter.',
    items: 'The deposits of this page.',
    field: 'transactionPage',
    description: 'Deposits by offset/limit (limit 1-100), newest first; same rules as GET /v1/transactions.',
  },
  connection: {
    field: 'transactions',
    description: 'Deposits as a Relay connection, newest first, with the REST filters.',
    typeDescription: 'A page of deposits.',
    totalCount: 'Deposits matching the filter.',
  },
});

const TransactionPayload = builder.objectRef<Transaction>('TransactionPayload').implement({
  description: 'The deposit after the change.',
  fields: (t) => ({
    transaction: t.prismaField({
      type: TransactionType,
      description: 'The deposit.',
      resolve: (query, trx, _a, ctx) => (selectsRelations(query) ? ctx.prisma.transaction.findUniqueOrThrow({ ...query, where: { id: trx.id } }) : trx),
    }),
  }),
});

const MatchTransactionInput = builder.inputType('MatchTransactionInput', {
  description: 'A deposit and the invoice it pays.',
  fields: (t) => ({
    transactionId: t.id({ required: true, description: 'trx_ id of an unmatched deposit.' }),
    invoiceId: t.id({ required: true, description: 'ivc_ id of a pending or expired invoice.' }),
  }),
});

builder.mutationField('matchTransaction', (t) =>
  t.field({
    type: TransactionPayload,
    description:
      'Matches a deposit to an invoice by hand (matchMethod MANUAL): the invoice, pending or expired, becomes paid (trigger DEPOSIT) and invoice.paid is emitted. A dashboard session, an API key or an OAuth token (also POST /v2/transactions/{id}/match); a read-only key is refused (READ_ONLY_KEY), and a key limited to bank accounts needs a deposit to one of them and an invoice whose receiving accounts are all of them (OUT_OF_SCOPE; never an all-accounts invoice). Refusals are GraphQL errors: TRANSACTION_NOT_FOUND, INVOICE_NOT_FOUND, TRANSACTION_ALREADY_MATCHED, TRANSACTION_NOT_MATCHABLE (a 1-won verification deposit), INVOICE_ALREADY_PAID, INVOICE_CANCELED.',
    authScopes: { authenticated: true },
    args: { input: t.arg({ type: MatchTransactionInput, required: true, description: 'Deposit and invoice.' }) },
    resolve: (_root, { input }, ctx) => matchTransactionManually(ctx.deps, ctx.principal, input.transactionId, input.invoiceId),
  }),
);

builder.mutationField('unmatchTransaction', (t) =>
  t.field({
    type: TransactionPayload,
    description: 'Dashboard: un-matches a deposit; its invoice returns to pending. INVOICE_ALREADY_EXISTS (data: invoiceId, number) when another pending invoice with the same name and amount overlaps its accounts.',
    authScopes: { dashboard: true },
    args: { id: t.arg.id({ required: true, description: 'trx_ id.' }) },
    resolve: (_root, { id }, ctx) => unmatchTransaction(ctx.deps, ctx.principal, id),
  }),
);

builder.mutationField('setTransactionHidden', (t) =>
  t.field({
    type: TransactionPayload,
    description: 'Dashboard: hides or shows a deposit.',
    authScopes: { dashboard: true },
    args: {
      id: t.arg.id({ required: true, description: 'trx_ id.' }),
      hidden: t.arg.boolean({ required: true, description: 'Hide (true) or show (false).' }),
    },
    resolve: (_root, { id, hidden }, ctx) => setTransactionHidden(ctx.deps, ctx.principal, id, hidden),
  }),
);


