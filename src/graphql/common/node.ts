/** The Relay Node interface over the prefixed ids (the id's prefix names its type). */
import { idKindOf, type IdKind } from '../../domain/ids.ts';
import { builder } from '../builder.ts';

/** The GraphQL type of each kind of id that `node(id:)` fetches; the prefixes themselves live in domain/ids.ts. */
export const NODE_TYPES = {
  invoice: 'Invoice',
  transaction: 'Transaction',
  cashReceipt: 'CashReceipt',
  bankAccount: 'BankAccount',
  webhook: 'Webhook',
  webhookDelivery: 'WebhookDelivery',
  apiKey: 'ApiKey',
  oauthApp: 'OAuthApp',
  event: 'Event',
  email: 'EmailMessage',
  account: 'Account',
  workspace: 'Workspace',
} as const satisfies Partial<Record<IdKind, string>>;

export type NodeTypeName = (typeof NODE_TYPES)[keyof typeof NODE_TYPES];

/** The GraphQL type named by the id's prefix, or null for an unknown prefix or a kind that is not a node. */
export function nodeTypeOf(id: string): NodeTypeName | null {
  const kind = idKindOf(id);
  return kind && kind in NODE_TYPES ? NODE_TYPES[kind as keyof typeof NODE_TYPES] : null;
}

export const NodeInterface = builder.interfaceRef<{ id: string }>('Node').implement({
  description: 'An object with a global id: the prefixed id (ivc_, trx_, crt_, ...) that `node(id:)` fetches.',
  resolveType: (value) => nodeTypeOf(value.id),
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Prefixed id, unique across all types.' }),
  }),
});
