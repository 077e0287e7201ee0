/** API keys (contract: createApiKey, disableApiKey, deleteApiKey). */
import { createApiKey, deleteApiKey, disableApiKey } from '../../domain/api-keys/api-keys.ts';
import type { ApiKey } from '../../generated/prisma/client.ts';
import { builder } from '../builder.ts';
import { liveRowsOfWorkspace } from '../common/dashboard-lists.ts';
import { NodeInterface } from '../common/node.ts';

export const ApiKeyType = builder.prismaObject('ApiKey', {
  description: 'A secret API key (apk_). The secret itself is shown only once, at creation.',
  interfaces: [NodeInterface],
  fields: (t) => ({
    name: t.exposeString('name', { description: 'Name given at creation.' }),
    secretHint: t.exposeString('secretHint', { description: 'Last 4 characters of the secret, to recognise it.' }),
    readOnly: t.exposeBoolean('readOnly', { description: 'Whether writes are refused.' }),
    bankAccountIds: t.stringList({
      nullable: true,
      description: 'Bank accounts the key is limited to; null = all accounts.',
      resolve: (k) => (k.allBankAccounts ? null : k.bankAccountIds),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'Creation time.' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true, description: 'Expiry; null = never.' }),
    disabledAt: t.expose('disabledAt', { type: 'DateTime', nullable: true, description: 'When disabled in the dashboard.' }),
    deletedAt: t.expose('deletedAt', { type: 'DateTime', nullable: true, description: 'When deleted.' }),
    lastUsedAt: t.expose('lastUsedAt', { type: 'DateTime', nullable: true, description: 'When a call last authenticated with it, to the minute (written at most once a minute); null = never used.' }),
  }),
});

builder.queryField('apiKeys', (t) =>
  t.prismaField({
    type: [ApiKeyType],
    description: 'API keys of the workspace, newest first (dashboard).',
    authScopes: { dashboard: true },
    resolve: (query, _root, _args, ctx) => ctx.prisma.apiKey.findMany({ ...query, ...liveRowsOfWorkspace(ctx) }),
  }),
);

const CreateApiKeyInput = builder.inputType('CreateApiKeyInput', {
  description: 'A new API key.',
  fields: (t) => ({
    name: t.string({ required: true, description: 'Name, 1-100 characters.' }),
    readOnly: t.boolean({ description: 'Refuse writes (default false).' }),
    bankAccountIds: t.idList({ description: 'Limit the key to these bank accounts; null/absent = all accounts.' }),
    expiresAt: t.field({ type: 'DateTime', description: 'Expiry; absent = never.' }),
  }),
});

const CreateApiKeyPayload = builder.objectRef<{ apiKey: ApiKey; secret: string }>('CreateApiKeyPayload').implement({
  description: 'The new key and its secret, shown this once.',
  fields: (t) => ({
    apiKey: t.field({ type: ApiKeyType, description: 'The key.', resolve: (p) => p.apiKey }),
    secret: t.exposeString('secret', { description: 'The secret (sk_live_...). Store it now: it is never shown again.' }),
  }),
});

const ApiKeyPayload = builder.objectRef<ApiKey>('ApiKeyPayload').implement({
  description: 'The key after the change.',
  fields: (t) => ({ apiKey: t.field({ type: ApiKeyType, description: 'The key.', resolve: (k) => k }) }),
});

builder.mutationField('createApiKey', (t) =>
  t.field({
    type: CreateApiKeyPayload,
    description: 'Creates an API key (dashboard). The secret is returned once.',
    authScopes: { dashboard: true },
    args: { input: t.arg({ type: CreateApiKeyInput, required: true, description: 'Key settings.' }) },
    resolve: (_root, { input }, ctx) => createApiKey(ctx.deps, ctx.principal, input),
  }),
);

builder.mutationField('disableApiKey', (t) =>
  t.field({
    type: ApiKeyPayload,
    description: 'Disables a key at once (calls with it get 401 NOT_AUTHORIZED / 290006).',
    authScopes: { dashboard: true },
    args: { id: t.arg.id({ required: true, description: 'apk_ id.' }) },
    resolve: (_root, { id }, ctx) => disableApiKey(ctx.deps, ctx.principal, id),
  }),
);

builder.mutationField('deleteApiKey', (t) =>
  t.field({
    type: ApiKeyPayload,
    description: 'Deletes a key at once (calls with it get 401 NOT_AUTHORIZED / 290006).',
    authScopes: { dashboard: true },
    args: { id: t.arg.id({ required: true, description: 'apk_ id.' }) },
    resolve: (_root, { id }, ctx) => deleteApiKey(ctx.deps, ctx.principal, id),
  }),
);
