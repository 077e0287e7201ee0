/**
 * The browser's side of a shop install (README, Shop integrations).
 *
 * - `GET /shops/{platform}/callback?code=…&state=…`: where the platform sends the merchant back after the approval.
 *   The state (single-use, 30 minutes) names the install; the code is exchanged at once. A simulated shop is then
 *   connected. A real shop waits for the merchant's confirmation in this same browser: the answer sets an approval
 *   cookie of this install (`shop_install_approval_<shc id>`: HttpOnly, SameSite=Lax, path /shops, 10 minutes;
 *   Secure unless the page was reached over plain http on a loopback host) and asks for the log-in of the workspace
 *   that started the install — so a shop owner tricked into approving someone else's install link cannot hand the
 *   shop over. The page names the workspace (its name cleaned of control and bidi characters, at most 40 characters)
 *   and its owner's e-mail, masked.
 * - `POST /shops/{platform}/approve` (form: connection — the page's hidden field —, email, password; that install's
 *   cookie): completes it, and clears that install's cookie only (other installs in the same browser keep theirs).
 * - `GET /shops/simulated/authorize`: the simulated shop's approval screen, which approves at once.
 *
 * Pages are small HTML documents (no script; CSP `default-src 'none'`), or JSON when the client asks for it.
 */
import type { ShopConnection } from '../generated/prisma/client.ts';
import { approveShopInstall, APPROVAL_TTL_MS, receiveShopInstall } from '../domain/shops/connections.ts';
import type { ShopPlatform } from '../domain/shops/shop-port.ts';
import type { Deps } from '../domain/deps.ts';
import { DomainError } from '../domain/errors.ts';
import { SIMULATED_APPROVAL_CODE } from '../events/shops/simulated-shop.ts';
import type { RequestContext } from './router.ts';
import { errorResponse } from '../../rest-compat/shared/face-errors.ts';
import { readTextBody } from '../../rest-compat/shared/http.ts';
import { cookieSecure, cookieValue } from './cookies.ts';

const PLATFORM_BY_PATH: Record<string, ShopPlatform> = { cafe24: 'CAFE24', simulated: 'SIMULATED' };
const PLATFORM_NAME: Record<ShopPlatform, string> = { CAFE24: 'Cafe24', SIMULATED: 'Simulated' };
/** The approval cookie of one install: one per connection, so installs in several tabs of a browser keep their own. */
export const approvalCookieName = (connectionId: string) => `shop_install_approval_${connectionId}`;
/** What a connection id may look like to name a cookie (the domain checks it is the approval's). */
const CONNECTION_ID_RE = /^shc_[a-z0-9]{24}$/;
const FORM_MAX_BYTES = 4096;

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const NO_STORE = { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' };

function page(status: number, title: string, body: string, headers: Record<string, string> = {}): Response {
  const html = `<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(title)}</title><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
  return new Response(html, {
    status,
    headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': "default-src 'none'; form-action 'self'", ...NO_STORE, ...headers },
  });
}

const paragraph = (text: string) => `<p>${escapeHtml(text)}</p>`;

function approvalCookie(request: Request, connectionId: string, value: string, maxAgeSeconds: number): string {
  const secure = cookieSecure(request) ? '; Secure' : '';
  return `${approvalCookieName(connectionId)}=${value}; Path=/shops; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure}`;
}


function connectedSummary(c: ShopConnection) {
  return { id: c.id, platform: c.platform, shopId: c.shopId, state: c.state };
}

export async function handleShopInstall(rc: RequestContext, deps: Deps): Promise<Response> {
  const url = new URL(rc.request.url);
  const m = /^\/shops\/([a-z0-9]+)\/(callback|authorize|approve)$/.exec(rc.path);
  const platform = m ? PLATFORM_BY_PATH[m[1]!] : undefined;
  if (!m || !platform) throw new DomainError('ROUTE_NOT_FOUND');
  const step = m[2]!;
  if (rc.request.method !== (step === 'approve' ? 'POST' : 'GET')) throw new DomainError('METHOD_NOT_ALLOWED');
  const wantsJson = (rc.request.headers.get('accept') ?? '').includes('application/json');
  const json = (body: unknown, headers: Record<string, string> = {}) => Response.json(body, { headers: { ...NO_STORE, ...headers } });

  if (step === 'authorize') {
    if (platform !== 'SIMULATED') throw new DomainError('ROUTE_NOT_FOUND');
    const back = new URLSearchParams({ code: SIMULATED_APPROVAL_CODE, state: url.searchParams.get('state') ?? '' });
    return new Response(null, { status: 302, headers: { location: `/shops/simulated/callback?${back}`, 'cache-control': 'no-store' } });
  }

  try {
    if (step === 'callback') {
      // The merchant declined at the platform (OAuth error=access_denied): nothing to complete.
      if (url.searchParams.get('error')) throw new DomainError('SHOP_INSTALL_DECLINED');
      const received = await receiveShopInstall(deps, { platform, state: url.searchParams.get('state'), code: url.searchParams.get('code') });
      if (!received.approval) return done(received.connection);
      const { approval, connection } = received;
      const cookie = approvalCookie(rc.request, connection.id, approval.nonce, Math.floor(APPROVAL_TTL_MS / 1000));
      if (wantsJson) {
        return json(
          {
            approval: {
              connection: connectedSummary(connection),
              workspace: approval.workspaceName,
              workspaceOwner: approval.ownerEmail,
              approveUrl: `/shops/${m[1]}/approve`,
              expiresAt: approval.expiresAt.toISOString(),
            },
          },
          { 'set-cookie': cookie },
        );
      }
      const form =
        paragraph(
          `${PLATFORM_NAME[platform]} approved connecting shop ${connection.shopId} to the workspace “${approval.workspaceName}” (owner ${approval.ownerEmail}) of this service.`,
        ) +
        paragraph('To finish, log in with an account of that workspace. If you did not start this install, or do not know this workspace, close this page: nothing is connected.') +
        `<form method="post" action="/shops/${escapeHtml(m[1]!)}/approve"><input type="hidden" name="connection" value="${escapeHtml(connection.id)}">` +
        `<p><label>E-mail <input type="email" name="email" autocomplete="username" required></label></p>` +
        `<p><label>Password <input type="password" name="password" autocomplete="current-password" required></label></p><p><button type="submit">Connect the shop</button></p></form>`;
      return page(200, `Connect ${PLATFORM_NAME[platform]} shop ${connection.shopId}?`, form, { 'set-cookie': cookie });
    }
    // approve
    const text = (await readTextBody(rc.request, FORM_MAX_BYTES)) ?? '';
    const type = rc.request.headers.get('content-type') ?? '';
    const fields: Record<string, unknown> = type.includes('application/json') ? safeJson(text) : Object.fromEntries(new URLSearchParams(text));
    // The install the page showed (its hidden field), and that install's cookie: the domain checks they are one.
    const connectionId = typeof fields.connection === 'string' && CONNECTION_ID_RE.test(fields.connection) ? fields.connection : null;
    if (!connectionId) throw new DomainError('SHOP_INSTALL_INVALID');
    const connection = await approveShopInstall(deps, {
      platform,
      connectionId,
      nonce: cookieValue(rc.request, approvalCookieName(connectionId)),
      email: fields.email,
      password: fields.password,
    });
    return done(connection, { 'set-cookie': approvalCookie(rc.request, connection.id, '', 0) });
  } catch (e) {
    // The merchant's browser lands here: the domain's refusal, as JSON in the face's envelope or as a page.
    if (!(e instanceof DomainError)) throw e;
    rc.errors.domain(e);
    const answer = errorResponse('bank', e);
    return wantsJson ? answer : page(answer.status, 'Shop not connected', paragraph(e.message));
  }

  function done(connection: ShopConnection, headers: Record<string, string> = {}): Response {
    return wantsJson
      ? json({ connection: connectedSummary(connection) }, headers)
      : page(
          200,
          'Shop connected',
          paragraph(`${PLATFORM_NAME[connection.platform]} shop ${connection.shopId} is connected (${connection.id}). Its bank-transfer orders become invoices from now on; you can close this window.`),
          headers,
        );
  }
}

function safeJson(text: string): Record<string, unknown> {
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
