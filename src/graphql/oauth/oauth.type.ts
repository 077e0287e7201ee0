/** OAuth apps (contract: createOAuthApp, authorizeOAuthApp) and the workspace's authorizations. */
import { requireSession } from '../../domain/auth/rules.ts';
import { authorizeOAuthApp, createOAuthApp } from '../../domain/oauth/oauth.ts';
import type { OAuthApp } from '../../generated/prisma/client.ts';
import { builder } from '../builder.ts';
import { liveRowsOfWorkspace } from '../common/dashboard-lists.ts';
import { NodeInterface } from '../common/node.ts';

export const OAuthAppType = builder.prismaObject('OAuthApp', {
  description: 'An OAuth app (oap_ id = client_id).',
  interfaces: [NodeInterface],
  fields: (t) => ({
    name: t.exposeString('name', { description: 'Shown on the consent screen.' }),
    redirectUris: t.exposeStringList('redirectUris', { description: 'Registered redirect URIs.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'Creation time.' }),
  }),
});

builder.prismaObject('OAuthGrant', {
  description: 'A workspace’s consent to an OAuth app (the link its tokens act through).',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'oag_ id.' }),
    app: t.relation('app', { description: 'The app.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the workspace authorized it.' }),
    revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true, description: 'When the link was cut.' }),
  }),
});

builder.queryField('oauthApps', (t) =>
  t.prismaField({
    type: ['OAuthApp'],
    description: 'OAuth apps created by the workspace (dashboard).',
    authScopes: { dashboard: true },
    resolve: (query, _r, _a, ctx) => ctx.prisma.oAuthApp.findMany({ ...query, ...liveRowsOfWorkspace(ctx) }),
  }),
);

builder.queryField('oauthAuthorizations', (t) =>
  t.prismaField({
    type: ['OAuthGrant'],
    description: 'Apps the workspace has authorized (dashboard).',
    authScopes: { dashboard: true },
    resolve: (query, _r, _a, ctx) => {
      const p = requireSession(ctx.principal);
      return ctx.prisma.oAuthGrant.findMany({ ...query, where: { workspaceId: p.workspaceId }, orderBy: { createdAt: 'desc' } });
    },
  }),
);

const CreateOAuthAppInput = builder.inputType('CreateOAuthAppInput', {
  description: 'A new OAuth app.',
  fields: (t) => ({
    name: t.string({ required: true, description: '1-100 characters.' }),
    redirectUris: t.stringList({ required: true, description: '1-10 absolute https URIs (http allowed on localhost).' }),
  }),
});

const CreateOAuthAppPayload = builder.objectRef<{ app: OAuthApp; clientSecret: string }>('CreateOAuthAppPayload').implement({
  description: 'The app and its client secret, shown this once.',
  fields: (t) => ({
    app: t.field({ type: OAuthAppType, description: 'The app.', resolve: (p) => p.app }),
    clientSecret: t.exposeString('clientSecret', { description: 'oas_... secret. Store it now: it is never shown again.' }),
  }),
});

builder.mutationField('createOAuthApp', (t) =>
  t.field({
    type: CreateOAuthAppPayload,
    description: 'Creates an OAuth app (dashboard); returns its client secret once.',
    authScopes: { dashboard: true },
    args: { input: t.arg({ type: CreateOAuthAppInput, required: true, description: 'Name and redirect URIs.' }) },
    resolve: (_r, { input }, ctx) => createOAuthApp(ctx.deps, ctx.principal, input),
  }),
);

const AuthorizeInput = builder.inputType('AuthorizeOAuthAppInput', {
  description: 'Consent to an app for the session’s workspace.',
  fields: (t) => ({
    clientId: t.string({ required: true, description: 'The app’s oap_ id.' }),
    redirectUri: t.string({ required: true, description: 'One of the app’s registered redirect URIs.' }),
  }),
});

const AuthorizePayload = builder.objectRef<{ code: string; expiresAt: Date }>('AuthorizeOAuthAppPayload').implement({
  description: 'A single-use authorization code for POST /v2/oauth-apps/token.',
  fields: (t) => ({
    code: t.exposeString('code', { description: 'Valid once, for 10 minutes, with the same redirect_uri.' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', description: 'When the code stops working.' }),
  }),
});

builder.mutationField('authorizeOAuthApp', (t) =>
  t.field({
    type: AuthorizePayload,
    description: 'Dashboard consent: links the app to the workspace and returns an authorization code.',
    authScopes: { dashboard: true },
    args: { input: t.arg({ type: AuthorizeInput, required: true, description: 'App and redirect URI.' }) },
    resolve: (_r, { input }, ctx) => authorizeOAuthApp(ctx.deps, ctx.principal, input),
  }),
);
