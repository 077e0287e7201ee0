/**
 * POST /v2/oauth-apps/token (RFC 6749 authorization_code grant) and POST /v2/oauth-apps/revoke (RFC 7009). Bodies are
 * application/x-www-form-urlencoded; client authentication by HTTP Basic or by client_id/client_secret form fields.
 * Errors use the OAuth body `{error, error_description}` (oauthErrorBody over the error table): 400 invalid_request,
 * 401 invalid_client, 400 invalid_grant, 400 unsupported_grant_type.
 */
import { authenticateClient, exchangeAuthorizationCode, revokeToken } from '../../src/domain/oauth/oauth.ts';
import type { Deps } from '../../src/domain/deps.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { answerError, type ErrorLog } from '../shared/face-errors.ts';
import { readTextBody } from '../shared/http.ts';

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

export async function handleOAuth(request: Request, path: string, deps: Deps, maxBodyBytes: number, log: ErrorLog): Promise<Response | null> {
  if (path !== '/v2/oauth-apps/token' && path !== '/v2/oauth-apps/revoke') return null;
  let basic = false;
  try {
    if (request.method !== 'POST') throw new DomainError('METHOD_NOT_ALLOWED', { message: 'Use POST.' });
    const form = await readForm(request, maxBodyBytes);
    const creds = clientCredentials(request, form);
    basic = creds.basic;
    const app = await authenticateClient(deps, creds.id, creds.secret);
    if (path === '/v2/oauth-apps/token') {
      const token = await exchangeAuthorizationCode(deps, app, { grant_type: form.get('grant_type'), code: form.get('code'), redirect_uri: form.get('redirect_uri') });
      return oauthJson(200, token);
    }
    const token = form.get('token');
    if (!token) throw invalidRequest('token is required.');
    await revokeToken(deps, app, token);
    return oauthJson(200, {});
  } catch (e) {
    const response = answerError('oauth', e, log, { headers: NO_STORE });
    if (response.status === 405) response.headers.set('allow', 'POST');
    if (response.status === 401 && basic) response.headers.set('www-authenticate', 'Basic realm="oauth"');
    return response;
  }
}
