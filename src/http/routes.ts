/** The service's routes: each path (or path and everything below it), its error face, its rate limit and its handler. */
import type { Config } from '../config/config.ts';
import { pendingMigrations } from '../db/migrate.ts';
import type { Database } from '../db/database.ts';
import type { Deps } from '../domain/deps.ts';
import { DomainError } from '../domain/errors.ts';
import type { GraphQLContext } from '../graphql/context.ts';
import { handleDashboardPage } from './dashboard.ts';
import { handleDashboardSession } from './dashboard-session.ts';
import { handleV1 } from '../../rest-compat/v1/handler.ts';
import { handleV2 } from '../../rest-compat/v2/handler.ts';
import { handleOAuth } from '../../rest-compat/v2/oauth.ts';
import { json } from '../../rest-compat/shared/http.ts';
import type { ErrorLog } from '../../rest-compat/shared/face-errors.ts';
import { handleBankNotification, handleBankText } from '../../rest-compat/bank/notifications.ts';
import { handleApiDocs } from './docs.ts';
import { handleShopInstall } from './shop-install.ts';
import { GRAPHIQL_ASSETS_PREFIX, handleGraphiQLAsset } from './graphiql.ts';
import { graphQLIdempotency, idempotent, type GraphQLRequestParser } from './idempotency.ts';
import type { Metrics } from './metrics.ts';
import type { RequestContext, Route } from './router.ts';
import { createSofaApi, SOFA_BASE } from './sofa-api.ts';
import type { GraphQLYoga, YogaServerContext } from './yoga.ts';

export interface RouteServices {
  config: Config;
  db: Database;
  deps: Deps;
  yoga: GraphQLYoga;
  metrics: Metrics;
}

export function routes({ config, db, deps, yoga, metrics }: RouteServices): Route[] {
  const maxBodyBytes = config.MAX_BODY_BYTES;
  const sofa = createSofaApi(maxBodyBytes);
  const parseGraphQLRequest = yoga.parseRequest as GraphQLRequestParser;

  /** A REST face: its handler in the request's GraphQL context, under the request's Idempotency-Key. */
  const rest =
    (handle: (request: Request, ctx: GraphQLContext & { maxBodyBytes: number }, log: ErrorLog) => Promise<Response>) =>
    async (rc: RequestContext): Promise<Response> => {
      const ctx = { ...(await rc.graphQLContext()), maxBodyBytes, domainCodes: true };
      return idempotent(deps, rc.request, ctx.principal, maxBodyBytes, (r) => handle(r, ctx, rc.errors), (e) => rc.refuse(e));
    };

  /** POST /graphql (and GET, GraphiQL): Yoga, under the body limit and the request's Idempotency-Key. */
  async function graphql(rc: RequestContext): Promise<Response> {
    const declared = Number(rc.request.headers.get('content-length') ?? NaN);
    if (Number.isFinite(declared) && declared > maxBodyBytes) return rc.refuse(new DomainError('PAYLOAD_TOO_LARGE'));
    const serverContext: YogaServerContext = { graphQLContext: rc.graphQLContext, errorLog: rc.errors };
    let response: Response;
    if (rc.request.method === 'POST' && rc.request.headers.has('idempotency-key')) {
      const idem = graphQLIdempotency(parseGraphQLRequest);
      response = await idempotent(deps, rc.request, await rc.principal(), maxBodyBytes, async (r) => yoga.fetch(r, { ...serverContext, ...idem.guard() }), (e) => rc.refuse(e), idem.classify);
    } else {
      response = await yoga.fetch(rc.request, serverContext);
    }
    // Yoga refuses an unsupported Accept (406) or POST Content-Type (415) with an empty body: give it the envelope.
    if ((response.status === 406 || response.status === 415) && !response.headers.get('content-type')?.includes('json')) {
      return rc.refuse(
        response.status === 415
          ? new DomainError('UNSUPPORTED_MEDIA_TYPE', { message: 'POST /graphql needs Content-Type: application/json (or application/graphql+json).' })
          : new DomainError('NOT_ACCEPTABLE', { message: 'Accept must allow application/json, application/graphql-response+json or text/event-stream.' }),
      );
    }
    return response;
  }

  const oauth = async (rc: RequestContext) => (await handleOAuth(rc.request, rc.path, deps, maxBodyBytes, rc.errors)) ?? rc.refuse(new DomainError('ROUTE_NOT_FOUND'));
  const dashboardPage = async (rc: RequestContext) => {
    try {
      return (await handleDashboardPage(rc.request, rc.path)) ?? rc.refuse(new DomainError('ROUTE_NOT_FOUND'));
    } catch (e) {
      if (e instanceof DomainError) return rc.refuse(e, e.code === 'METHOD_NOT_ALLOWED' ? { allow: 'GET, HEAD' } : undefined);
      throw e;
    }
  };
  const docs = async (rc: RequestContext) => (await handleApiDocs(rc.request, rc.path)) ?? rc.refuse(new DomainError('ROUTE_NOT_FOUND'));

  return [
    { path: '/graphql', face: 'graphql', rateLimit: 'credential', handle: graphql },
    { path: GRAPHIQL_ASSETS_PREFIX, below: true, face: 'bank', handle: (rc) => handleGraphiQLAsset(rc.request, rc.path) },
    { path: '/v1', below: true, face: 'v1', rateLimit: 'credential', handle: rest(handleV1) },
    // The token endpoints authenticate the client otherwise (HTTP Basic or form fields): the client address's bucket.
    { path: '/v2/oauth-apps/token', face: 'oauth', rateLimit: 'address', handle: oauth },
    { path: '/v2/oauth-apps/revoke', face: 'oauth', rateLimit: 'address', handle: oauth },
    { path: '/v2', below: true, face: 'v2', rateLimit: 'credential', handle: rest(handleV2) },
    { path: '/bank-notifications', face: 'bank', rateLimit: 'bearer', handle: (rc) => handleBankNotification(rc.request, deps, maxBodyBytes, rc.errors) },
    { path: '/bank-texts', face: 'bank', rateLimit: 'bearer', handle: (rc) => handleBankText(rc.request, deps, maxBodyBytes, rc.errors) },
    { path: SOFA_BASE, below: true, face: 'graphql', rateLimit: 'credential', handle: (rc) => sofa(rc.request, rc.path, rc.errors, rc.graphQLContext) },
    // A shop platform sends the merchant's browser back here after the install's approval (shop-install.ts).
    { path: '/shops', below: true, face: 'bank', rateLimit: 'address', handle: (rc) => handleShopInstall(rc, deps) },
    // The dashboard's log-in and log-out: its session in an HttpOnly cookie (dashboard-session.ts).
    { path: '/dashboard/session', face: 'bank', rateLimit: 'address', handle: (rc) => handleDashboardSession(rc, deps) },
    { path: '/dashboard/sign-up', face: 'bank', rateLimit: 'address', handle: (rc) => handleDashboardSession(rc, deps, 'sign-up') },
    // The dashboard's page and its assets (dashboard.ts); the app routes in the browser.
    { path: '/dashboard', below: true, face: 'bank', handle: dashboardPage },
    { path: '/openapi.json', face: 'bank', handle: docs },
    { path: '/docs', below: true, face: 'bank', handle: docs },
    { path: '/metrics', face: 'bank', handle: async () => metricsResponse(metrics) },
    { path: '/healthz', face: 'bank', handle: () => json(200, { status: 'ok' }) },
    { path: '/readyz', face: 'bank', handle: () => readiness(db) },
  ];
}

async function metricsResponse(metrics: Metrics): Promise<Response> {
  const m = await metrics.render();
  return new Response(m.body, { status: 200, headers: { 'content-type': m.contentType } });
}

/** 200 when the database answers and every migration is applied; 503 otherwise. */
async function readiness(db: Database): Promise<Response> {
  try {
    await db.sql.query('SELECT 1');
    const pending = await pendingMigrations(db);
    if (pending.length) return json(503, { status: 'migrating', pendingMigrations: pending });
    return json(200, { status: 'ready', database: db.kind });
  } catch {
    return json(503, { status: 'database unreachable' });
  }
}
