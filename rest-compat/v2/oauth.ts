/**
 * POST /v2/oauth-apps/token (RFC 6749 authorization_code grant) and POST /v2/oauth-apps/revoke (RFC 7009). Bodies are
 * application/x-www-form-urlencoded; client authentication by HTTP Basic or by client_id/client_secret form fields.
 * Errors use the OAuth body `{error, error_description}` (oauthErrorBody over the error table): 400 invalid_request,
 * 401 invalid_client, 400 invalid_grant, 400 unsupported_grant_type.
 */
import { z } from 'zod';
import { authenticateClient, exchangeAuthorizationCode, revokeToken } from '../../src/domain/oauth/oauth.ts';
import type { Deps } from '../../src/domain/deps.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { idOf, OAuthRevoked, OAuthToken } from '../openapi/components.ts';
import { answerError, type ErrorLog } from '../shared/face-errors.ts';
import { readTextBody } from '../shared/http.ts';
import type { RouteDoc } from '../shared/route.ts';

const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };
const invalidRequest = (message: string) => new DomainError('OAUTH_INVALID_REQUEST', { message });

function oauthJson(status: number, body: unknown, extra: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8', ...NO_STORE, ...extra } });
}

async function readForm(request: Request, maxBytes: number): Promise<URLSearchParams> {
  const type = (request.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') throw invalidRequest('The body must be application/x-www-form-urlencoded.');
  let text: string | null;
  try {
    text = await readTextBody(request, maxBytes);
  } catch (e) {
    if (e instanceof DomainError && e.code === 'PAYLOAD_TOO_LARGE') throw e;
    throw invalidRequest('The body is not readable.');
  }
  const form = new URLSearchParams(text ?? '');
  for (const [k] of form) if (form.getAll(k).length > 1) throw invalidRequest(`${k} is repeated.`);
  return form;
}

/** client_id and client_secret from HTTP Basic (URL-encoded parts, RFC 6749 §2.3.1) or from the form; never both. */
function clientCredentials(request: Request, form: URLSearchParams): { id: string | null; secret: string | null; basic: boolean } {
  const header = request.headers.get('authorization');
  const fromForm = { id: form.get('client_id'), secret: form.get('client_secret') };
  if (header && /^basic\s+/i.test(header)) {
    if (fromForm.secret) throw invalidRequest('Use HTTP Basic or form parameters for client authentication, not both.');
    let decoded = '';
    try {
      decoded = Buffer.from(header.replace(/^basic\s+/i, '').trim(), 'base64').toString('utf8');
    } catch {
      /* empty */
    }
    const i = decoded.indexOf(':');
    if (i < 0) return { id: null, secret: null, basic: true };
    const dec = (s: string) => {
      try {
        return decodeURIComponent(s.replace(/\+/g, ' '));
      } catch {
        return s;
      }
    };
    return { id: dec(decoded.slice(0, i)), secret: dec(decoded.slice(i + 1)), basic: true };
  }
  return { ...fromForm, basic: false };
}

const clientAuthFields = {
  client_id: idOf('oauthApp', 'The app id (`oap_...`), when HTTP Basic is not used.').optional(),
  client_secret: z.string().optional().meta({ description: 'The client secret (`oas_...`), when HTTP Basic is not used.' }),
};

/** An OAuth app endpoint: after client authentication, answers the form for `app`. */
export interface OAuthRoute extends RouteDoc {
  /** The `error` values of its 400 answers (RFC 6749 §5.2). */
  badRequest: string[];
  answer(deps: Deps, app: Awaited<ReturnType<typeof authenticateClient>>, form: URLSearchParams): Promise<unknown>;
}

export const OAUTH_ROUTES: OAuthRoute[] = [
  {
    method: 'post',
    path: '/v2/oauth-apps/token',
    operationId: 'oauthToken',
    summary: 'Exchange an authorization code for an access token',
    description:
      'The merchant consents in the dashboard (GraphQL `authorizeOAuthApp`), which returns a code bound to a redirect URI. The `oat_` token works wherever an API key does, for the consenting workspace. A reused code fails (`invalid_grant`) and revokes the token it produced.',
    tag: 'OAuth apps',
    face: 'oauth',
    body: {
      schema: z
        .object({
          grant_type: z.literal('authorization_code'),
          code: z.string().meta({ description: 'The code from the dashboard consent (single use, 10 minutes).' }),
          redirect_uri: z.string().meta({ description: 'The redirect URI the code was issued for.' }),
          ...clientAuthFields,
        })
        .meta({ id: 'OAuthTokenRequest', description: 'RFC 6749 §4.1.3 authorization-code grant.' }),
      required: true,
      form: true,
    },
    ok: { status: 200, description: 'The access token.', schema: OAuthToken },
    errorCodes: [],
    badRequest: ['invalid_request', 'invalid_grant', 'unsupported_grant_type'],
    answer: (deps, app, form) => exchangeAuthorizationCode(deps, app, { grant_type: form.get('grant_type'), code: form.get('code'), redirect_uri: form.get('redirect_uri') }),
  },
  {
    method: 'post',
    path: '/v2/oauth-apps/revoke',
    operationId: 'oauthRevoke',
    summary: 'Revoke an access token (RFC 7009)',
    description:
      'After client authentication: a token of this app is revoked and the workspace link is cut, so every token of it stops at once. Unknown, revoked or other apps\' tokens give the same 200.',
    tag: 'OAuth apps',
    face: 'oauth',
    body: {
      schema: z
        .object({ token: z.string().meta({ description: 'The access token (`oat_...`) to revoke.' }), ...clientAuthFields })
        .meta({ id: 'OAuthRevokeRequest', description: 'RFC 7009 token revocation.' }),
      required: true,
      form: true,
    },
    ok: { status: 200, description: 'Done (or nothing to do).', schema: OAuthRevoked },
    errorCodes: [],
    badRequest: ['invalid_request'],
    answer: async (deps, app, form) => {
      const token = form.get('token');
      if (!token) throw invalidRequest('token is required.');
      await revokeToken(deps, app, token);
      return {};
    },
  },
];

/** Answers the OAuth app endpoints of OAUTH_ROUTES; null for any other path. */
export async function handleOAuth(request: Request, path: string, deps: Deps, maxBodyBytes: number, log: ErrorLog): Promise<Response | null> {
  const route = OAUTH_ROUTES.find((r) => r.path === path);
  if (!route) return null;
  let basic = false;
  try {
    if (request.method !== route.method.toUpperCase()) throw new DomainError('METHOD_NOT_ALLOWED', { message: 'Use POST.' });
    const form = await readForm(request, maxBodyBytes);
    const creds = clientCredentials(request, form);
    basic = creds.basic;
    const app = await authenticateClient(deps, creds.id, creds.secret);
    return oauthJson(route.ok.status, await route.answer(deps, app, form));
  } catch (e) {
    const response = answerError('oauth', e, log, { headers: NO_STORE });
    if (response.status === 405) response.headers.set('allow', 'POST');
    if (response.status === 401 && basic) response.headers.set('www-authenticate', 'Basic realm="oauth"');
    return response;
  }
}
