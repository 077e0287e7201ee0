/** The Invoice type (ivc_) and its history. */
import { depositScopeWhere } from '../../domain/auth/rules.ts';
import { effectiveStatus } from '../../domain/invoices/invoice-state.ts';
import { builder } from '../builder.ts';
import { NodeInterface } from '../common/node.ts';
import { CashReceiptTypeEnum, InvoiceStatusEnum, PaidTriggerEnum } from '../common/enums.ts';

interface CustomerShape {
  name: string;
  email: string | null;
  phoneNumber: string | null;
}

const CustomerType = builder.objectRef<CustomerShape>('Customer').implement({
  description: 'The buyer: depositor name and contact.',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'Depositor name the deposit must carry (1-16 characters, no spaces).' }),
    email: t.exposeString('email', { nullable: true, description: 'Buyer e-mail.' }),
    phoneNumber: t.exposeString('phoneNumber', { nullable: true, description: 'Buyer phone, digits only.' }),
  }),
});

const InvoiceCashReceiptType = builder.objectRef<{ type: 'PERSONAL' | 'CORPORATE'; identifier: string }>('InvoiceCashReceipt').implement({
  description: 'Cash receipt to issue when the invoice is paid.',
  fields: (t) => ({
    type: t.expose('type', { type: CashReceiptTypeEnum, description: 'PERSONAL or CORPORATE.' }),
    identifier: t.exposeString('identifier', { description: 'Phone number (PERSONAL) or business number (CORPORATE).' }),
  }),
});

const ActorType = builder.objectRef<{ type: string; accountId: string | null; apiKeyId: string | null; name: string }>('Actor').implement({
  description: 'Who made a change.',
  fields: (t) => ({
    type: t.exposeString('type', { description: 'SECRET_API_KEY, READ_ONLY_API_KEY, OAUTH_APP, DASHBOARD, or SHOP_INTEGRATION (an order imported or canceled by a connected shop).' }),
    accountId: t.exposeID('accountId', { nullable: true, description: 'Account, for dashboard changes.' }),
    apiKeyId: t.exposeID('apiKeyId', { nullable: true, description: 'API key, for API changes.' }),
    name: t.exposeString('name', { description: 'Name of the key, app or account.' }),
  }),
});

export const InvoiceHistoryEntryType = builder.prismaObject('InvoiceHistoryEntry', {
  description: 'One change in the life of an invoice.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'ivh_ id.' }),
    type: t.exposeString('type', { description: 'created, paid, updated, canceled, deleted, unmatched or guide_email_sent.' }),
    actor: t.field({ type: ActorType, nullable: true, description: 'Who did it; null for the system.', resolve: (h) => (h.actor as never) ?? null }),
    data: t.expose('data', { type: 'JSON', nullable: true, description: 'Details of the change.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it happened.' }),
  }),
});

export const InvoiceType = builder.prismaObject('Invoice', {
  description: 'An invoice (ivc_; the API calls it an order): a depositor name and an amount waiting for a deposit.',
  interfaces: [NodeInterface],
  fields: (t) => ({
    number: t.exposeInt('number', { description: 'Sequence number within the workspace.' }),
    status: t.field({
      type: InvoiceStatusEnum,
      description: 'PENDING, EXPIRED (judged against the clock), PAID or CANCELED.',
      select: { status: true, expiresAt: true },
      resolve: (i, _args, ctx) => effectiveStatus(i, ctx.deps.clock.now()),
    }),
    paid: t.boolean({ description: 'Paid flag (v1).', select: { status: true }, resolve: (i) => i.status === 'PAID' }),
    issuerId: t.exposeID('issuerId', { description: 'Account that created it (the workspace owner for API keys).' }),
    bankAccountIds: t.exposeIDList('bankAccountIds', { description: 'Receiving accounts; empty = all registered accounts.' }),
    customer: t.field({
      type: CustomerType,
      description: 'The buyer.',
      select: { customerName: true, customerEmail: true, customerPhoneNumber: true },
      resolve: (i) => ({ name: i.customerName, email: i.customerEmail, phoneNumber: i.customerPhoneNumber }),
    }),
    cashReceipt: t.field({
      type: InvoiceCashReceiptType,
      nullable: true,
      description: 'Cash receipt to issue on payment, if any.',
      select: { cashReceiptType: true, cashReceiptIdentifier: true },
      resolve: (i) => (i.cashReceiptType && i.cashReceiptIdentifier ? { type: i.cashReceiptType, identifier: i.cashReceiptIdentifier } : null),
    }),
    amount: t.exposeInt('amount', { description: 'Amount in won.' }),
    metadata: t.expose('metadata', { type: 'JSON', nullable: true, description: 'String keys to string values given at creation.' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true, description: 'Expiry; null = never expires.' }),
    paidAt: t.expose('paidAt', { type: 'DateTime', nullable: true, description: 'When it was paid.' }),
    paidTrigger: t.expose('paidTrigger', { type: PaidTriggerEnum, nullable: true, description: 'DEPOSIT or API_CALL.' }),
    canceledAt: t.expose('canceledAt', { type: 'DateTime', nullable: true, description: 'When it was canceled (v2 cancel or v1 delete).' }),
    cancelReason: t.exposeString('cancelReason', { nullable: true, description: 'Reason given at cancel.' }),
    canceledBy: t.field({ type: ActorType, nullable: true, description: 'Who canceled it.', select: { canceledBy: true }, resolve: (i) => (i.canceledBy as never) ?? null }),
    guideEmailSentAt: t.expose('guideEmailSentAt', { type: 'DateTime', nullable: true, description: 'When the payment-guide e-mail was last sent.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'Creation time (v1 issuedAt).' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'Last change.' }),
    transactions: t.relation('transactions', {
      description: 'Deposits matched to it (at most one); for a key limited to bank accounts, only deposits to those accounts.',
      // A deposit matched by hand may sit on an account the invoice does not name (spec: read and list transactions —
      // only deposits to allowed accounts).
      query: (_args, ctx) => ({ where: depositScopeWhere(ctx.principal) }),
    }),
    history: t.relation('history', { description: 'Changes, oldest first.', query: { orderBy: { createdAt: 'asc' } } }),
  }),
});
