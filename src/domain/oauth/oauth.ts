/**
 * OAuth apps: a workspace authorizing an app (`oap_` client id, `oas_` secret stored hashed) gets a grant and a
 * single-use code for a redirect URI, exchanged for an `oat_` token usable wherever an API key is. Revoking the grant
 * stops every token of it at once (tokens are looked up on every request).
 */
import type { OAuthApp } from '../../generated/prisma/client.ts';
import type { Principal } from '../auth/principal.ts';
import { requireSession } from '../auth/rules.ts';
import type { Deps } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { isId, newId } from '../ids.ts';
import { newSecret, safeEqual, sha256Hex } from '../secrets.ts';
import { check } from '../validation.ts';

export const AUTHORIZATION_CODE_TTL_MS = 10 * 60_000;
export const MAX_REDIRECT_URIS = 10;

/** A redirect URI: absolute https (http only for localhost), no fragment, at most 2048 characters. */
export function isValidRedirectUri(uri: unknown): uri is string {
  if (typeof uri !== 'string' || uri.length > 2048) return false;
  try {
    const u = new URL(uri);
    if (u.hash) return false;
    if (u.protocol === 'https:') return true;
    return u.protocol === 'http:' && (u.hostname === 'localhost' || u.hostname === '127.0.0.1' || u.hostname === '[::1]');
  } catch {
    return false;
  }
}

/** createOAuthApp: a new app of the session's workspace; its client secret is returned once. */
export async function createOAuthApp(deps: Deps, principal: Principal | null, input: { name: string; redirectUris: string[] }) {
  const p = requireSession(principal);
  const name = input.name.trim();
  check(name.length >= 1 && name.length <= 100, ['name'], 'name must be 1-100 characters.');
  check(input.redirectUris.length >= 1 && input.redirectUris.length <= MAX_REDIRECT_URIS, ['redirectUris'], `redirectUris must hold 1-${MAX_REDIRECT_URIS} URIs.`);
  for (const uri of input.redirectUris) check(isValidRedirectUri(uri), ['redirectUris'], `${uri} is not a valid redirect URI (absolute https, or http on localhost, without a fragment).`);
  const clientSecret = newSecret('oauthClientSecret');
  const app = await deps.prisma.oAuthApp.create({
    data: { id: newId('oauthApp'), workspaceId: p.workspaceId, name, clientSecretHash: sha256Hex(clientSecret), redirectUris: [...new Set(input.redirectUris)], createdAt: deps.clock.now() },
  });
  return { app, clientSecret };
}

/** authorizeOAuthApp: the session's workspace consents to the app; returns a single-use code for the redirect URI. */
export async function authorizeOAuthApp(deps: Deps, principal: Principal | null, input: { clientId: string; redirectUri: string }) {
  const p = requireSession(principal);
  const app = isId('oauthApp', input.clientId) ? await deps.prisma.oAuthApp.findUnique({ where: { id: input.clientId } }) : null;
  if (!app || app.deletedAt) throw new DomainError('NOT_FOUND', { message: 'OAuth app not found.', path: ['clientId'] });
  check(app.redirectUris.includes(input.redirectUri), ['redirectUri'], 'redirectUri is not one of the app’s registered redirect URIs.');
  const now = deps.clock.now();
  const code = newSecret('oauthCode');
  await deps.prisma.$transaction(async (tx) => {
    let grant = await tx.oAuthGrant.findFirst({ where: { appId: app.id, workspaceId: p.workspaceId, revokedAt: null } });
    grant ??= await tx.oAuthGrant.create({ data: { id: newId('grant'), appId: app.id, workspaceId: p.workspaceId, accountId: p.accountId, createdAt: now } });
    await tx.oAuthAuthorizationCode.create({
      data: {
        id: newId('authorizationCode'),
        codeHash: sha256Hex(code),
        appId: app.id,
        grantId: grant.id,
        workspaceId: p.workspaceId,
        redirectUri: input.redirectUri,
        expiresAt: new Date(now.getTime() + AUTHORIZATION_CODE_TTL_MS),
        createdAt: now,
      },
    });
  });
  return { code, expiresAt: new Date(now.getTime() + AUTHORIZATION_CODE_TTL_MS) };
}

/** Authenticates a client by id and secret (constant-time); invalid_client (401) otherwise. */
export async function authenticateClient(deps: Deps, clientId: string | null, clientSecret: string | null): Promise<OAuthApp> {
  if (!clientId || !clientSecret) throw new DomainError('OAUTH_INVALID_CLIENT', { message: 'Client authentication is required (HTTP Basic or client_id and client_secret).' });
  const app = isId('oauthApp', clientId) ? await deps.prisma.oAuthApp.findUnique({ where: { id: clientId } }) : null;
  const ok = safeEqual(sha256Hex(clientSecret), app?.clientSecretHash ?? sha256Hex('no app'));
  if (!app || app.deletedAt || !ok) throw new DomainError('OAUTH_INVALID_CLIENT', { message: 'Client authentication failed.' });
  return app;
}

/**
 * The token endpoint (authorization_code grant): a code is used once (a conditional update), within 10 minutes, by
 * the app it was issued to, with the same redirect_uri. Reusing a code revokes the tokens it produced (RFC 6749 §4.1.2).
 */
export async function exchangeAuthorizationCode(deps: Deps, app: OAuthApp, params: { grant_type?: string | null; code?: string | null; redirect_uri?: string | null }) {
  if (!params.grant_type) throw new DomainError('OAUTH_INVALID_REQUEST', { message: 'grant_type is required.' });
  if (params.grant_type !== 'authorization_code') throw new DomainError('OAUTH_UNSUPPORTED_GRANT_TYPE', { message: 'Only authorization_code is supported.' });
  if (!params.code) throw new DomainError('OAUTH_INVALID_REQUEST', { message: 'code is required.' });
  if (!params.redirect_uri) throw new DomainError('OAUTH_INVALID_REQUEST', { message: 'redirect_uri is required.' });
  const now = deps.clock.now();
  const codeHash = sha256Hex(params.code);
  const REUSED = Symbol('reused');
  const out = await deps.prisma.$transaction(async (tx) => {
    const code = await tx.oAuthAuthorizationCode.findUnique({ where: { codeHash } });
    if (!code || code.appId !== app.id) throw new DomainError('OAUTH_INVALID_GRANT', { message: 'The authorization code is invalid.' });
    if (code.usedAt) {
      // Committed before answering (a throw here would roll it back).
      await tx.oAuthAccessToken.updateMany({ where: { grantId: code.grantId, createdAt: { gte: code.createdAt }, revokedAt: null }, data: { revokedAt: now } });
      return REUSED;
    }
    if (code.expiresAt <= now) throw new DomainError('OAUTH_INVALID_GRANT', { message: 'The authorization code has expired.' });
    if (code.redirectUri !== params.redirect_uri) throw new DomainError('OAUTH_INVALID_GRANT', { message: 'redirect_uri does not match the authorization request.' });
    const claimed = await tx.oAuthAuthorizationCode.updateMany({ where: { id: code.id, usedAt: null }, data: { usedAt: now } });
    if (claimed.count === 0) throw new DomainError('OAUTH_INVALID_GRANT', { message: 'The authorization code was already used.' });
    const grant = await tx.oAuthGrant.findUnique({ where: { id: code.grantId } });
    if (!grant || grant.revokedAt) throw new DomainError('OAUTH_INVALID_GRANT', { message: 'The authorization was revoked.' });
    const accessToken = newSecret('oauthAccessToken');
    await tx.oAuthAccessToken.create({
      data: { id: newId('oauthAccessToken'), tokenHash: sha256Hex(accessToken), appId: app.id, grantId: grant.id, workspaceId: grant.workspaceId, createdAt: now },
    });
    return { access_token: accessToken, token_type: 'Bearer' as const };
  });
  if (out === REUSED) throw new DomainError('OAUTH_INVALID_GRANT', { message: 'The authorization code was already used.' });
  return out;
}

/**
 * Revocation (RFC 7009, spec: POST /v2/oauth-apps/revoke): a token of this app is revoked and its workspace link cut
 * (every token of the link stops); unknown, already revoked or other apps' tokens change nothing. Always 200 {}.
 */
export async function revokeToken(deps: Deps, app: OAuthApp, token: string): Promise<void> {
  const t = await deps.prisma.oAuthAccessToken.findUnique({ where: { tokenHash: sha256Hex(token) } });
  if (!t || t.appId !== app.id) return;
  const now = deps.clock.now();
  await deps.prisma.$transaction([
    deps.prisma.oAuthAccessToken.updateMany({ where: { grantId: t.grantId, revokedAt: null }, data: { revokedAt: now } }),
    deps.prisma.oAuthGrant.updateMany({ where: { id: t.grantId, revokedAt: null }, data: { revokedAt: now } }),
  ]);
}
