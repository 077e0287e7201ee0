/** Credentials a test makes through the service's own API: API keys (dashboard), OAuth access tokens (code grant). */
import { expect } from 'vitest';
import type { ServiceClient } from '../../src/cli/client.ts';

/** A form-urlencoded body. */
export const formBody = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

/** HTTP Basic client authentication (OAuth clients). */
export const basicAuth = (id: string, secret: string) => 'Basic ' + Buffer.from(`${id}:${secret}`).toString('base64');

/** createApiKey with a dashboard session: the key's id and its secret (shown once). */
export async function createApiKey(client: ServiceClient, session: string, input: Record<string, unknown>): Promise<{ id: string; secret: string }> {
  const r = await client.gql<{ createApiKey: { apiKey: { id: string }; secret: string } }>(
    `mutation($i: CreateApiKeyInput!) { createApiKey(input: $i) { apiKey { id } secret } }`,
    { i: input },
    session,
  );
  return { id: r.createApiKey.apiKey.id, secret: r.createApiKey.secret };
}

/** An `oat_` access token of `app` for the session's workspace: the merchant consents, the app exchanges the code. */
export async function oauthAccessToken(client: ServiceClient, session: string, app: { id: string; secret: string }, redirectUri: string): Promise<string> {
  const consent = await client.gql<{ authorizeOAuthApp: { code: string } }>(
    `mutation($i: AuthorizeOAuthAppInput!) { authorizeOAuthApp(input: $i) { code } }`,
    { i: { clientId: app.id, redirectUri } },
    session,
  );
  const r = await client.request('POST', '/v2/oauth-apps/token', {
    rawBody: formBody({ grant_type: 'authorization_code', code: consent.authorizeOAuthApp.code, redirect_uri: redirectUri }),
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuth(app.id, app.secret) },
  });
  expect(r.status).toBe(200);
  return r.body.access_token;
}
