/**
 * The dashboard's session (README, "The dashboard's session"). The browser logs in at `POST /dashboard/session` and
 * holds the session in a cookie, never in localStorage. The cookie is:
 * - HttpOnly: no script reads it;
 * - SameSite=Strict: no other site's page sends it;
 * - Secure, except on plain-http loopback (cookies.ts);
 * - for the session's lifetime.
 *
 * `/graphql` accepts the cookie when the request carries no Authorization header and comes from this service's own
 * origin (dashboardSessionToken), and so does GraphQL over WebSocket when `connection_init` carries no authorization
 * (the upgrade request's Origin and cookie: graphql-ws.ts). `DELETE /dashboard/session` logs out: the session ends and the cookie is cleared.
 * Both refuse a request from another origin.
 */
import { logIn, logOut, signUp } from '../domain/accounts/accounts.ts';
import type { Deps } from '../domain/deps.ts';
import { DomainError } from '../domain/errors.ts';
import { SECRET_PREFIXES } from '../domain/secrets.ts';
import { json, readTextBody } from '../../rest-compat/shared/http.ts';
import { cookieSecure, cookieValue, cookieValueIn } from './cookies.ts';

export const SESSION_COOKIE = 'btp_session';
const BODY_MAX_BYTES = 4096;
const NO_STORE = { 'cache-control': 'no-store' };

/** The request headers that tell where a browser request comes from, and its cookie. */
export interface BrowserHeaders {
  origin: string | null;
  host: string | null;
  secFetchSite: string | null;
  cookie: string | null;
}

const headersOf = (request: Request): BrowserHeaders => ({
  origin: request.headers.get('origin'),
  host: new URL(request.url).host,
  secFetchSite: request.headers.get('sec-fetch-site'),
  cookie: request.headers.get('cookie'),
});

/**
 * Whether a browser request comes from this service's own pages. The Origin's host must be the request's Host; the
 * scheme is not compared, since a TLS-terminating proxy forwards https as http. With no Origin (a same-origin GET),
 * Sec-Fetch-Site, when the browser sends it, must say the same origin or a typed address.
 */
export function fromOwnOrigin(h: BrowserHeaders): boolean {
  if (h.origin !== null) {
    try {
      return h.host !== null && new URL(h.origin).host === h.host.toLowerCase();
    } catch {
      return false;
    }
  }
  return h.secFetchSite === null || h.secFetchSite === 'same-origin' || h.secFetchSite === 'none';
}

/** The session token of the dashboard's cookie, when the request may use it (see the header); else null. */
export function dashboardSessionToken(request: Request | BrowserHeaders): string | null {
  // A fetch Request (of whichever implementation served it), or the headers of a WebSocket upgrade.
  const h = 'url' in request ? headersOf(request) : request;
  const token = cookieValueIn(h.cookie, SESSION_COOKIE);
  if (!token || !token.startsWith(SECRET_PREFIXES.session) || !fromOwnOrigin(h)) return null;
  return token;
}

function sessionCookie(request: Request, token: string, maxAgeSeconds: number): string {
  return `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${cookieSecure(request) ? '; Secure' : ''}`;
}

/** What the handler needs of the router's request context (router.ts imports this module). */
interface SessionRequest {
  request: Request;
  refuse(e: DomainError, headers?: Record<string, string>): Response;
}

/**
 * POST /dashboard/session (log in), DELETE /dashboard/session (log out), and POST /dashboard/sign-up (a new account and
 * workspace, logged in at once: the same cookie; the session token never reaches the page's scripts, as the GraphQL
 * signUp mutation's payload would).
 */
export async function handleDashboardSession(rc: SessionRequest, deps: Deps, action: 'session' | 'sign-up' = 'session'): Promise<Response> {
  const request = rc.request;
  const allowed = action === 'session' ? ['POST', 'DELETE'] : ['POST'];
  if (!allowed.includes(request.method)) return rc.refuse(new DomainError('METHOD_NOT_ALLOWED'), { allow: allowed.join(', ') });
  if (!fromOwnOrigin(headersOf(request))) return rc.refuse(new DomainError('CROSS_ORIGIN_REFUSED'));
  if (request.method === 'DELETE') {
    await logOut(deps, cookieValue(request, SESSION_COOKIE));
    return new Response(null, { status: 204, headers: { ...NO_STORE, 'set-cookie': sessionCookie(request, '', 0) } });
  }
  if (!/^application\/json\b/i.test(request.headers.get('content-type') ?? '')) {
    return rc.refuse(new DomainError('UNSUPPORTED_MEDIA_TYPE', { message: `POST /dashboard/${action} needs Content-Type: application/json.` }));
  }
  try {
    const { email, password, name } = credentialsOf(await readTextBody(request, BODY_MAX_BYTES), action === 'sign-up');
    const session = action === 'sign-up' ? await signUp(deps, { email, password, name: name ?? '' }) : await logIn(deps, { email, password });
    // The cookie lasts as long as the session it carries.
    const maxAge = Math.max(0, Math.floor((session.expiresAt.getTime() - deps.clock.now().getTime()) / 1000));
    return json(200, { accountId: session.accountId, workspaceId: session.workspaceId, expiresAt: session.expiresAt.toISOString() }, { ...NO_STORE, 'set-cookie': sessionCookie(request, session.token, maxAge) });
  } catch (e) {
    if (e instanceof DomainError) return rc.refuse(e);
    throw e;
  }
}

/** The log-in body: {"email": "...", "password": "..."}, and "name" to sign up (BAD_REQUEST otherwise). */
function credentialsOf(text: string | null, withName: boolean): { email: string; password: string; name?: string } {
  let body: unknown = null;
  try {
    body = text === null ? null : JSON.parse(text);
  } catch {
    body = null;
  }
  const { email, password, name } = (body ?? {}) as { email?: unknown; password?: unknown; name?: unknown };
  if (withName && typeof name !== 'string') throw new DomainError('BAD_REQUEST', { message: 'The body must be {"email": "...", "password": "...", "name": "..."}.' });
  if (typeof email !== 'string' || typeof password !== 'string') throw new DomainError('BAD_REQUEST', { message: 'The body must be {"email": "...", "password": "..."}.' });
  return { email, password, ...(withName ? { name: name as string } : {}) };
}
