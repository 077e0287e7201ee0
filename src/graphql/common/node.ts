/** The Relay Node interface over the prefixed ids (the id's prefix names its type). */
import { builder } from '../builder.ts';

export const NODE_TYPES: Record<string, string> = {
  ivc_: 'Invoice',
  trx_: 'Transaction',
  crt_: 'CashReceipt',
  bac_: 'BankAccount',
  whd_: 'Webhook',
  whm_: 'WebhookDelivery',
  apk_: 'ApiKey',
  oap_: 'OAuthApp',
  evt_: 'Event',
  eml_: 'EmailMessage',
  acc_: 'Account',
  wsp_: 'Workspace',
};

export function nodeTypeOf(id: string): string | null {
  return NODE_TYPES[id.slice(0, 4)] ?? null;
}

export const NodeInterface = builder.interfaceRef<{ id: string }>('Node').implement({
  description: 'An object with a global id: the prefixed id (ivc_, trx_, crt_, ...) that `node(id:)` fetches.',
  resolveType: (value) => nodeTypeOf(value.id),
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Prefixed id, unique across all types.' }),
  }),
});
