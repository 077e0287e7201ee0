/**
 * The browser's side of a shop install (README, Shop integrations): the platform sends the merchant back to
 * `/shops/{platform}/callback?code=…&state=…` after the approval; the state nonce (single-use, 30 minutes) names the
 * connection, so the page needs no login. `/shops/simulated/authorize` is the simulated shop's approval screen, which
 * approves at once. Answers a small HTML page, or JSON when the client asks for it.
 */
import { completeShopInstall } from '../domain/shops/connections.ts';
import type { Deps } from '../domain/deps.ts';
import { DomainError } from '../domain/errors.ts';
import { SIMULATED_APPROVAL_CODE } from '../events/shops/simulated-shop.ts';
import type { RequestContext } from './router.ts';
import { errorResponse } from '../../rest-compat/shared/face-errors.ts';

const PLATFORM_BY_PATH: Record<string, 'CAFE24' | 'SIMULATED'> = { cafe24: 'CAFE24', simulated: 'SIMULATED' };

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(status: number, title: string, text: string): Response {
  const body = `<!doctype html><html lang="en"><meta charset="utf-8"><title>${escapeHtml(title)}</title><body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></body></html>`;
  return new Response(body, {
    status,
    headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'content-security-policy': "default-src 'none'", 'referrer-policy': 'no-referrer' },
  });
}

export async function handleShopInstall(rc: RequestContext, deps: Deps): Promise<Response> {
  if (rc.request.method !== 'GET') throw new DomainError('METHOD_NOT_ALLOWED');
  const url = new URL(rc.request.url);
  const m = /^\/shops\/([a-z0-9]+)\/(callback|authorize)$/.exec(rc.path);
  const platform = m ? PLATFORM_BY_PATH[m[1]!] : undefined;
  if (!m || !platform) throw new DomainError('ROUTE_NOT_FOUND');
  const state = url.searchParams.get('state') ?? '';
  if (m[2] === 'authorize') {
    if (platform !== 'SIMULATED') throw new DomainError('ROUTE_NOT_FOUND');
    const back = new URLSearchParams({ code: SIMULATED_APPROVAL_CODE, state });
    return new Response(null, { status: 302, headers: { location: `/shops/simulated/callback?${back}`, 'cache-control': 'no-store' } });
  }
  const wantsJson = (rc.request.headers.get('accept') ?? '').includes('application/json');
  const denied = url.searchParams.get('error');
  let connection;
  try {
    // The merchant declined at the platform (OAuth error=access_denied): nothing to complete.
    if (denied) throw new DomainError('SHOP_INSTALL_DECLINED');
    connection = await completeShopInstall(deps, null, { state, code: url.searchParams.get('code') ?? '' });
    if (connection.platform !== platform) throw new DomainError('SHOP_INSTALL_INVALID');
  } catch (e) {
    // The merchant's browser lands here: the domain's refusal, as JSON in the face's envelope or as a page.
    if (!(e instanceof DomainError)) throw e;
    rc.errors.refused(e.code);
    const answer = errorResponse('bank', e);
    return wantsJson ? answer : page(answer.status, 'Shop not connected', e.message);
  }
  const summary = { id: connection.id, platform: connection.platform, shopId: connection.shopId, state: connection.state };
  return wantsJson
    ? Response.json({ connection: summary })
    : page(200, 'Shop connected', `${platform === 'CAFE24' ? 'Cafe24' : 'Simulated'} shop ${connection.shopId} is connected (${connection.id}). Its bank-transfer orders become invoices from now on; you can close this window.`);
}
