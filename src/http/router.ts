/**
 * The router: a table of routes (an exact path, or a path and everything below it) and what every request goes
 * through around its route: one RequestContext, the rate limit, the x-request-id and rate-limit headers, the
 * route's face for an error no handler answered, the request metric and the debug line.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { bearerToken, resolvePrincipal, type Principal } from '../domain/auth/principal.ts';
import { dashboardSessionToken } from './dashboard-session.ts';
import type { Deps } from '../domain/deps.ts';
import { DomainError } from '../domain/errors.ts';
import { operationContext, type GraphQLContext } from '../graphql/context.ts';
import type { EventBus } from '../events/event-bus.ts';
import { answerError, errorLog, errorResponse, type ErrorLog, type Face } from '../../rest-compat/shared/face-errors.ts';
import { routeLabel, type Metrics } from './metrics.ts';
import { rateLimitHeaders, takeRateLimit, type RateLimiter, type RateLimitOptions } from './rate-limit.ts';

/** One request as its handler sees it; the principal and the GraphQL context are made at most once, when first asked for. */
export interface RequestContext {
  request: Request;
  path: string;
  requestId: string;
  /** The request's error log (each line with the request id, method and path). */
  errors: ErrorLog;
  principal(): Promise<Principal | null>;
  graphQLContext(): Promise<GraphQLContext>;
  /** A refusal decided outside the faces' own handling: logged, and answered in the route's face. */
  refuse(e: DomainError, headers?: Record<string, string>): Response;
}

export interface Route {
  /** An exact path; with `below`, also every path under it (`/v1` then matches `/v1/invoices`). */
  path: string;
  below?: boolean;
  /** The error body this route answers in when the router refuses a request or a handler throws. */
  face: Face;
  /**
   * Whether calls count against the rate limit: per credential (a bearer that does not authenticate is charged to the
   * client address too), per bearer as sent (the bank feed's notification tokens), or per client address only.
   */
  rateLimit?: 'credential' | 'bearer' | 'address';
  handle(rc: RequestContext): Promise<Response> | Response;
}

export interface RouterOptions {
  deps: Deps;
  bus: EventBus;
  log: Logger;
  metrics: Metrics;
  rateLimiter: RateLimiter | null;
  rateOptions: RateLimitOptions;
}

/** Answers an unknown path. */
const NOT_FOUND: Route = { path: '', face: 'bank', handle: (rc) => rc.refuse(new DomainError('ROUTE_NOT_FOUND')) };
const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;

export function matchRoute(routes: readonly Route[], path: string): Route {
  return routes.find((r) => path === r.path || (r.below && path.startsWith(r.path.endsWith('/') ? r.path : `${r.path}/`))) ?? NOT_FOUND;
}

/** The request handler over `routes` (the first that matches a path answers it). */
export function createRouter(routes: readonly Route[], o: RouterOptions) {
  return async function route(request: Request, clientAddress: string | undefined): Promise<Response> {
    const started = performance.now();
    const path = new URL(request.url).pathname;
    const route = matchRoute(routes, path);
    const rc = requestContext(request, path, route.face, o);
    let response: Response;
    let limitHeaders: Record<string, string> | null = null;
    try {
      if (o.rateLimiter && route.rateLimit) {
        const credential = route.rateLimit === 'address' ? null : request.headers.get('authorization');
        const decision = await takeRateLimit(o.rateLimiter, credential, clientAddress, async () => route.rateLimit === 'bearer' || (await rc.principal()) !== null);
        limitHeaders = rateLimitHeaders(decision, o.rateOptions);
        if (!decision.allowed) o.metrics.rateLimited.inc();
      }
      response = limitHeaders?.['retry-after'] ? rc.refuse(new DomainError('RATE_LIMITED')) : await route.handle(rc);
      // (Yoga may answer with @whatwg-node's Response, not the global one: check the shape, not the class.)
      if (!response || typeof (response as Response).headers?.set !== 'function') throw new Error(`no response for ${request.method} ${path}`);
    } catch (e) {
      response = answerError(route.face, e, rc.errors);
    }
    response.headers.set('x-request-id', rc.requestId);
    if (limitHeaders) for (const [k, v] of Object.entries(limitHeaders)) response.headers.set(k, v);
    o.metrics.httpDuration.observe({ method: request.method, route: routeLabel(path), status: String(response.status) }, (performance.now() - started) / 1000);
    if (o.log.isLevelEnabled('debug')) o.log.debug({ requestId: rc.requestId, method: request.method, path, status: response.status, ms: Math.round(performance.now() - started) }, 'request');
    return response;
  };
}

function requestContext(request: Request, path: string, face: Face, o: RouterOptions): RequestContext {
  const incoming = request.headers.get('x-request-id');
  const requestId = incoming && REQUEST_ID_RE.test(incoming) ? incoming : randomUUID();
  const errors = errorLog(o.log, requestId, request.method, path);
  let principal: Promise<Principal | null> | undefined;
  let context: Promise<GraphQLContext> | undefined;
  const rc: RequestContext = {
    request,
    path,
    requestId,
    errors,
    principal() {
      if (!principal) {
        // The dashboard's session cookie stands in for an Authorization header on /graphql only, from this service's own
        // pages (dashboard-session.ts); every other face takes its credential from the header alone.
        const token = bearerToken(request.headers.get('authorization')) ?? (path === '/graphql' ? dashboardSessionToken(request) : null);
        principal = resolvePrincipal(o.deps, token);
        // Handled where it is awaited; a response that never needed it (a 415, say) must not leave it unhandled.
        principal.catch(() => {});
      }
      return principal;
    },
    graphQLContext: () => (context ??= rc.principal().then((p) => operationContext(o.deps, o.bus, p, requestId))),
    refuse(e, headers) {
      errors.domain(e);
      return errorResponse(face, e, { headers });
    },
  };
  return rc;
}
