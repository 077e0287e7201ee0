/**
 * Composes the service: database and migrations, domain dependencies, the GraphQL face (Yoga over HTTP, graphql-ws
 * and SSE on /graphql), the REST v1/v2 faces, bank notifications and health checks. `buildApp(config)` returns
 * `{ start, stop, fetch }`; tests start it on port 0.
 */
import { randomUUID } from 'node:crypto';
import { createServer, STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { createServerAdapter } from '@whatwg-node/server';
import { createYoga, isAsyncIterable, mapAsyncIterator } from 'graphql-yoga';
import type { DefinitionNode, DocumentNode, ExecutionResult } from 'graphql';
import type { Logger } from 'pino';
import { WebSocketServer } from 'ws';
import type { Config } from '../config/config.ts';
import { openDatabase, pgliteDirFor, type Database } from '../db/database.ts';
import { migrate, pendingMigrations } from '../db/migrate.ts';
import { bearerToken, resolvePrincipal, type Principal } from '../domain/auth/principal.ts';
import { systemClock, type Clock } from '../domain/clock.ts';
import type { Deps } from '../domain/deps.ts';
import { maskError } from '../graphql/common/errors.ts';
import type { GraphQLContext } from '../graphql/context.ts';
import { schema } from '../graphql/schema.ts';
import { handleV1 } from '../../rest-compat/v1/handler.ts';
import { handleV2 } from '../../rest-compat/v2/handler.ts';
import { handleOAuth } from '../../rest-compat/v2/oauth.ts';
import { json } from '../../rest-compat/shared/http.ts';
import { handleBankNotification } from './bank-notifications.ts';
import { handleApiDocs } from './docs.ts';
import { GRAPHIQL_ASSETS_PREFIX, GRAPHIQL_OPTIONS, handleGraphiQLAsset, renderGraphiQLPage, useGraphiQLHeaders } from './graphiql.ts';
import { createSofaApi, SOFA_BASE } from './sofa-api.ts';
import { loadEncryptionKey } from './encryption-key.ts';
import { createLogger } from './logger.ts';
import { lookup } from 'node:dns/promises';
import { createEventBus, type EventBus } from '../events/event-bus.ts';
import { busEventOfCommitted, OutboxDispatcher } from '../events/outbox-dispatcher.ts';
import { WebhookWorker } from '../events/webhook-worker.ts';
import { WebhookHttpClient } from '../events/http-post.ts';
import { JobRunner, type JobHandler } from '../events/job-runner.ts';
import { outboxEmail, smtpEmail } from '../events/email/adapters.ts';
import { emailJob } from '../events/email/email-job.ts';
import type { EmailPort } from '../domain/email/email.ts';
import { DEFAULT_RETRY_DELAYS_MS } from '../domain/webhooks/routing.ts';
import type { CashReceiptAgency } from '../domain/cash-receipts/agency.ts';
import { simulatedAgency } from '../events/agency/simulated-agency.ts';
import { httpAgency } from '../events/agency/http-agency.ts';
import { receiptJobs } from '../events/agency/receipt-jobs.ts';
import { useCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { costLimitPlugin } from '@escape.tech/graphql-armor-cost-limit';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesPlugin } from '@escape.tech/graphql-armor-max-directives';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import { bankNotificationBody, DomainError } from '../domain/errors.ts';
import { answerError, errorLog, errorResponse, logGraphQLErrors, type ErrorLog, type Face } from '../../rest-compat/shared/face-errors.ts';
import { Metrics, routeLabel } from './metrics.ts';
import { graphQLIdempotency, idempotent, useIdempotencyGuard, type IdempotencyGuardContext } from './idempotency.ts';
import { serveGraphQLOverWebSocket } from './graphql-ws.ts';
import { memoryRateLimiter, rateLimitHeaders, redisRateLimiter, takeRateLimit, type RateLimiter } from './rate-limit.ts';

export interface AppOptions {
  clock?: Clock;
  logger?: Logger;
  /** Use this database instead of opening one from the config (tests). */
  database?: Database;
  /** Replace the cash-receipt agency (tests). */
  agency?: CashReceiptAgency;
  /** Replace the e-mail adapter (tests). */
  email?: EmailPort;
  /** Replace DNS resolution for webhook URL checks (tests). */
  resolveHost?: (hostname: string) => Promise<string[]>;
}

export interface Workers {
  bus: EventBus;
  dispatcher: OutboxDispatcher;
  webhooks: WebhookWorker;
  jobs: JobRunner;
  email: EmailPort;
}

export interface App {
  deps: Deps;
  db: Database;
  config: Config;
  workers: Workers;
  /** In-process request handling (no socket). */
  fetch(request: Request): Promise<Response>;
  start(): Promise<{ port: number; url: string }>;
  /** Graceful stop: in-flight requests finish (up to graceMs, default 10 s), subscribers are told to reconnect. */
  stop(opts?: { graceMs?: number }): Promise<void>;
}

const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;

export async function buildApp(config: Config, opts: AppOptions = {}): Promise<App> {
  const log = opts.logger ?? createLogger(config.LOG_LEVEL);
  const clock = opts.clock ?? systemClock;
  const db =
    opts.database ??
    (await openDatabase({ databaseUrl: config.DATABASE_URL, pgliteDataDir: config.DATABASE_URL ? undefined : pgliteDirFor(config.DATA_DIR), poolSize: config.DATABASE_POOL_SIZE }));
  const applied = await migrate(db);
  if (applied.length) log.info({ applied }, 'migrations applied');
  const { key: encryptionKey, source } = loadEncryptionKey(config.ENCRYPTION_KEY, config.DATA_DIR);
  if (source === 'file' && config.DATABASE_URL) log.warn('ENCRYPTION_KEY is not set: using a key file under DATA_DIR; set ENCRYPTION_KEY when several instances share the database');

  // The cash-receipt agency: a Popbill-style HTTP API when AGENCY_URL is set, else the simulated one. The tax
  // authority answers a real agency the next day, so its settle job polls for longer.
  const agency =
    opts.agency ??
    (config.AGENCY_URL
      ? httpAgency({ baseUrl: config.AGENCY_URL, linkId: config.AGENCY_LINK_ID!, secretKey: config.AGENCY_SECRET_KEY! })
      : simulatedAgency(clock, config.AGENCY_SIM_DELAY_MS));
  const deps: Deps = {
    prisma: db.prisma,
    sql: db.sql,
    clock,
    log,
    encryptionKey,
    settings: {
      sessionTtlHours: config.SESSION_TTL_HOURS,
      agencyName: agency.name,
      maxLoginFailures: 10,
      loginWindowMinutes: 15,
      webhookAllowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
    },
    agency,
    agencyResultDelayMs: config.AGENCY_URL && !opts.agency ? 60_000 : config.AGENCY_SIM_DELAY_MS,
    resolveHost: opts.resolveHost ?? (async (host) => (await lookup(host, { all: true })).map((a) => a.address)),
    onEventsCommitted: (committed) => (committed ? workers.dispatcher.publishedAtCommit(committed.map(busEventOfCommitted)) : workers.dispatcher.wake()),
    onJobsQueued: () => workers.jobs.wake(),
  };

  const metrics = new Metrics({
    outboxLagSeconds: async () => {
      const rows = await db.sql.query<{ at: Date | null }>(`SELECT min("createdAt") AS at FROM "OutboxEntry"`);
      return rows[0]?.at ? Math.max(0, (clock.now().getTime() - new Date(rows[0].at).getTime()) / 1000) : 0;
    },
  });
  deps.observe = { matchOutcome: (o) => metrics.matchOutcomes.inc({ outcome: o }), matchedDepositBatch: (n) => metrics.matchedDepositBatch.observe(n) };

  const bus = createEventBus(config.REDIS_URL);
  const email = opts.email ?? (config.SMTP_URL ? smtpEmail(config.SMTP_URL, config.MAIL_FROM) : outboxEmail(log));
  const webhookHttp = new WebhookHttpClient({ allowPrivate: config.WEBHOOK_ALLOW_PRIVATE, timeoutMs: config.WEBHOOK_TIMEOUT_MS });
  const jobHandlers: Record<string, JobHandler> = { 'email.send': emailJob(db.prisma, clock, email), ...receiptJobs(deps) };
  const jobs = new JobRunner(db.prisma, clock, log, jobHandlers);
  const webhooks = new WebhookWorker(db.prisma, clock, webhookHttp, encryptionKey, log, {
    retryDelaysMs: config.WEBHOOK_RETRY_DELAYS_MS ?? DEFAULT_RETRY_DELAYS_MS,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    batch: 100,
    concurrency: 32,
    pollMs: 1000,
    onAttempt: (ok) => metrics.webhookAttempts.inc({ result: ok ? 'success' : 'failure' }),
  });
  const dispatcher = new OutboxDispatcher(db.sql, clock, bus, log, { webhooks: () => webhooks.wake(), jobs: () => jobs.wake() });
  const workers: Workers = { bus, dispatcher, webhooks, jobs, email };

  const rateOptions = { perSecond: config.RATE_LIMIT_PER_SECOND, burst: config.RATE_LIMIT_BURST };
  const rateLimiter: RateLimiter | null =
    config.RATE_LIMIT_PER_SECOND === 0 ? null : config.REDIS_URL ? redisRateLimiter(rateOptions, config.REDIS_URL, log) : memoryRateLimiter(rateOptions);

  /** The context of an operation; `known` is the principal already resolved for this request (else `authorization`'s). */
  async function contextFor(request: Request | undefined, authorization: string | null | undefined, requestId: string, known?: Promise<Principal | null>): Promise<GraphQLContext> {
    const principal: Principal | null = await (known ?? resolvePrincipal(deps, bearerToken(authorization)));
    return { deps, prisma: db.prisma, principal, requestId, bus };
  }

  const yoga = createYoga<{ requestId?: string; errorLog?: ErrorLog; principal?: Promise<Principal | null> } & IdempotencyGuardContext, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    // GraphiQL's scripts and styles from this service (/graphql/assets/), not from a CDN: it works offline.
    graphiql: GRAPHIQL_OPTIONS,
    renderGraphiQL: renderGraphiQLPage,
    // Yoga reports each error it masks at `error`, without the request: those errors are logged once instead, with the
    // request id and at the level of whose fault they are (logGraphQLErrors in the plugin below), so here only at trace.
    logging: { debug: (...a) => log.debug(a), info: (...a) => log.info(a), warn: (...a) => log.warn(a), error: (...a) => log.trace(a) },
    maskedErrors: { maskError: (error, message) => maskError(error, message) },
    context: async ({ request, requestId, connectionParams, principal }: { request: Request; requestId?: string; connectionParams?: Record<string, unknown>; principal?: Promise<Principal | null> }) => {
      if (principal) return contextFor(request, null, requestId ?? randomUUID(), principal);
      const fromParams = connectionParams && typeof connectionParams.authorization === 'string' ? connectionParams.authorization : undefined;
      return contextFor(request, fromParams ?? request.headers.get('authorization'), requestId ?? randomUUID());
    },
    plugins: [
      useGraphiQLHeaders(),
      // Browser requests that a cross-site form could forge (GET, form posts) must carry a custom header.
      useCSRFPrevention({ requestHeaders: ['x-graphql-csrf', 'graphql-preflight', 'apollo-require-preflight'] }),
      // Hostile documents: bounded depth, aliases, directives, tokens and cost (introspection stays allowed).
      maxDepthPlugin({ n: 12, ignoreIntrospection: true, exposeLimits: true }),
      maxAliasesPlugin({ n: 30, exposeLimits: true }),
      maxDirectivesPlugin({ n: 50, exposeLimits: true }),
      maxTokensPlugin({ n: 5000, exposeLimits: true }),
      costLimitPlugin({ maxCost: 20000, ignoreIntrospection: true, exposeLimits: true }),
      // A request whose Idempotency-Key was decided on its parameters runs only those (src/http/idempotency.ts).
      useIdempotencyGuard(),
      {
        // Every error of a result (as the caller sees it, masked) logged with the request id: refusals at info, the
        // service's own errors at error with their cause (rest-compat/shared/face-errors.ts); subscription events one by one.
        onResultProcess({ result, setResult, serverContext }: { result: unknown; setResult(r: unknown): void; serverContext: { errorLog?: ErrorLog } }) {
          const errors = serverContext.errorLog;
          if (!errors) return;
          if (isAsyncIterable(result)) setResult(mapAsyncIterator(result as AsyncIterable<ExecutionResult>, (r) => (logGraphQLErrors(errors, r.errors), r)));
          else for (const r of (Array.isArray(result) ? result : [result]) as ExecutionResult[]) logGraphQLErrors(errors, r.errors);
        },
      },
      {
        onExecute({ args }: { args: { document: DocumentNode; operationName?: string | null } }) {
          const started = performance.now();
          const op = args.document.definitions.find((d: DefinitionNode) => d.kind === 'OperationDefinition') as { operation?: string; name?: { value: string } } | undefined;
          return {
            onExecuteDone() {
              metrics.graphqlDuration.observe({ operation: args.operationName ?? op?.name?.value ?? 'anonymous', type: op?.operation ?? 'unknown' }, (performance.now() - started) / 1000);
            },
          };
        },
      },
    ],
  });

  // The API description (/openapi.json, /docs) and the GraphQL operations as REST (/api), through the same context.
  const sofa = createSofaApi(contextFor, config.MAX_BODY_BYTES);
  const parseGraphQLRequest = yoga.parseRequest as (request: Request, serverContext: object) => unknown;

  let inFlight = 0;
  async function handle(request: Request, serverContext?: { req?: { socket?: { remoteAddress?: string } } }): Promise<Response> {
    inFlight++;
    try {
      return await handleRequest(request, serverContext?.req?.socket?.remoteAddress);
    } finally {
      inFlight--;
    }
  }

  async function handleRequest(request: Request, clientAddress: string | undefined): Promise<Response> {
    const incoming = request.headers.get('x-request-id');
    const requestId = incoming && REQUEST_ID_RE.test(incoming) ? incoming : randomUUID();
    const started = performance.now();
    const url = new URL(request.url);
    const path = url.pathname;
    const errors = errorLog(log, requestId, request.method, path);
    /** A refusal decided here rather than by a face: logged, and answered in the envelope of the path's face. */
    const refuse = (e: DomainError, headers?: Record<string, string>) => {
      errors.domain(e);
      return errorResponse(faceOf(path), e, { headers });
    };
    // The request's principal, resolved once (for the rate limit and the face's context alike).
    let principal: Promise<Principal | null> | undefined;
    const principalOf = () => {
      if (!principal) {
        principal = resolvePrincipal(deps, bearerToken(request.headers.get('authorization')));
        // Handled where it is awaited; a response that never needed it (a 415, say) must not leave it unhandled.
        principal.catch(() => {});
      }
      return principal;
    };
    let response: Response;
    let limitHeaders: Record<string, string> | null = null;
    try {
      if (rateLimiter && isRateLimited(path)) {
        const decision = await takeRateLimit(rateLimiter, rateLimitedCredential(request, path), clientAddress, async () => path === '/bank-notifications' || (await principalOf()) !== null);
        limitHeaders = rateLimitHeaders(decision, rateOptions);
        if (!decision.allowed) metrics.rateLimited.inc();
      }
      if (limitHeaders?.['retry-after']) {
        response = refuse(new DomainError('RATE_LIMITED'));
      } else if (path === '/graphql') {
        const declared = Number(request.headers.get('content-length') ?? NaN);
        if (Number.isFinite(declared) && declared > config.MAX_BODY_BYTES) {
          response = refuse(new DomainError('PAYLOAD_TOO_LARGE'));
        } else if (request.method === 'POST' && request.headers.has('idempotency-key')) {
          const idem = graphQLIdempotency(parseGraphQLRequest);
          response = await idempotent(deps, request, await principalOf(), config.MAX_BODY_BYTES, async (r) => yoga.fetch(r, { requestId, errorLog: errors, principal: principalOf(), ...idem.guard() }), refuse, idem.classify);
        } else {
          response = await yoga.fetch(request, { requestId, errorLog: errors, principal: principalOf() });
        }
      } else if (path === '/metrics') {
        const m = await metrics.render();
        response = new Response(m.body, { status: 200, headers: { 'content-type': m.contentType } });
      } else if (path === '/v1' || path.startsWith('/v1/')) {
        const ctx = { ...(await contextFor(request, null, requestId, principalOf())), maxBodyBytes: config.MAX_BODY_BYTES, domainCodes: true };
        response = await idempotent(deps, request, ctx.principal, config.MAX_BODY_BYTES, (r) => handleV1(r, ctx, errors), refuse);
      } else if (path.startsWith('/v2/oauth-apps/')) {
        response =
          (await handleOAuth(request, path, deps, config.MAX_BODY_BYTES, errors)) ??
          (await handleV2(request, { ...(await contextFor(request, null, requestId, principalOf())), maxBodyBytes: config.MAX_BODY_BYTES, domainCodes: true }, errors));
      } else if (path === '/v2' || path.startsWith('/v2/')) {
        const ctx = { ...(await contextFor(request, null, requestId, principalOf())), maxBodyBytes: config.MAX_BODY_BYTES, domainCodes: true };
        response = await idempotent(deps, request, ctx.principal, config.MAX_BODY_BYTES, (r) => handleV2(r, ctx, errors), refuse);
      } else if (path === '/bank-notifications') {
        response = await handleBankNotification(request, deps, config.MAX_BODY_BYTES, errors);
      } else if (path.startsWith(GRAPHIQL_ASSETS_PREFIX)) {
        response = await handleGraphiQLAsset(request, path);
      } else if (path === '/openapi.json' || path === '/docs' || path.startsWith('/docs/')) {
        response = (await handleApiDocs(request, path)) ?? refuse(new DomainError('ROUTE_NOT_FOUND'));
      } else if (path === SOFA_BASE || path.startsWith(`${SOFA_BASE}/`)) {
        response = await sofa(request, path, requestId, errors, principalOf());
      } else if (path === '/healthz') {
        response = json(200, { status: 'ok' });
      } else if (path === '/readyz') {
        response = await readiness(db);
      } else {
        response = refuse(new DomainError('ROUTE_NOT_FOUND'));
      }
      // (Yoga may answer with @whatwg-node's Response, not the global one: check the shape, not the class.)
      if (!response || typeof (response as Response).headers?.set !== 'function') throw new Error(`no response for ${request.method} ${path}`);
      // Yoga refuses an unsupported Accept (406) or POST Content-Type (415) with an empty body: give it the envelope.
      if (path === '/graphql' && (response.status === 406 || response.status === 415) && !response.headers.get('content-type')?.includes('json')) {
        response = refuse(
          response.status === 415
            ? new DomainError('UNSUPPORTED_MEDIA_TYPE', { message: 'POST /graphql needs Content-Type: application/json (or application/graphql+json).' })
            : new DomainError('NOT_ACCEPTABLE', { message: 'Accept must allow application/json, application/graphql-response+json or text/event-stream.' }),
        );
      }
    } catch (e) {
      response = answerError(faceOf(path), e, errors);
    }
    response.headers.set('x-request-id', requestId);
    if (limitHeaders) for (const [k, v] of Object.entries(limitHeaders)) response.headers.set(k, v);
    metrics.httpDuration.observe({ method: request.method, route: routeLabel(path), status: String(response.status) }, (performance.now() - started) / 1000);
    // The per-request line is built only when it will be written.
    if (log.isLevelEnabled('debug')) log.debug({ requestId, method: request.method, path, status: response.status, ms: Math.round(performance.now() - started) }, 'request');
    return response;
  }

  let server: Server | null = null;
  let wss: WebSocketServer | null = null;

  return {
    deps,
    db,
    config,
    workers,
    fetch: handle,
    async start() {
      const adapter = createServerAdapter(handle as (r: Request, ctx: object) => Promise<Response>);
      // Slow-loris protection: headers and the whole request must arrive in time (checked every second), else 408.
      // Idle keep-alive connections stay open 65 s, longer than a load balancer's usual 60 s idle timeout, so the client
      // side closes first and never sends a request on a socket the server is closing (ECONNRESET).
      server = createServer(
        { headersTimeout: config.HTTP_HEADERS_TIMEOUT_MS, requestTimeout: config.HTTP_REQUEST_TIMEOUT_MS, connectionsCheckingInterval: 1000, keepAliveTimeout: 65_000 },
        adapter,
      );
      server.on('clientError', answerMalformedRequest);
      // GraphQL over WebSocket, under the limits of HTTP: message size, rate limit, operations and connections
      // (graphql-ws.ts).
      wss = new WebSocketServer({ server, path: '/graphql', maxPayload: config.MAX_BODY_BYTES });
      serveGraphQLOverWebSocket(wss, {
        yoga,
        log,
        resolvePrincipal: (authorization) => resolvePrincipal(deps, bearerToken(authorization)),
        rateLimiter,
        onRateLimited: () => metrics.rateLimited.inc(),
      });
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject);
        server!.listen(config.PORT, config.HOST, () => resolve());
      });
      if (config.WORKERS) {
        dispatcher.start();
        webhooks.start();
        jobs.start();
      }
      const port = (server.address() as AddressInfo).port;
      const url = `http://127.0.0.1:${port}`;
      log.info({ port }, 'listening');
      return { port, url };
    },
    async stop(opts: { graceMs?: number } = {}) {
      // Graceful: stop accepting, let in-flight requests finish (up to graceMs), tell subscribers to go elsewhere
      // (1001 Going Away), let the workers finish their current step, then close everything.
      const graceMs = opts.graceMs ?? 10_000;
      const closed = server ? new Promise<void>((r) => server!.close(() => r())) : Promise.resolve();
      server?.closeIdleConnections?.();
      if (wss) for (const client of wss.clients) client.close(1001, 'Server shutting down');
      const deadline = Date.now() + graceMs;
      while (inFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      await Promise.all([dispatcher.stop(), webhooks.stop(), jobs.stop()]);
      if (wss) {
        for (const client of wss.clients) client.terminate();
        await new Promise<void>((r) => wss!.close(() => r()));
      }
      server?.closeAllConnections?.();
      await closed;
      webhookHttp.close();
      (email as { close?: () => void }).close?.();
      await bus.close();
      await rateLimiter?.close();
      await db.close();
    },
  };
}

/**
 * The face whose error body a path answers with: errors decided outside the faces' own handling (a rate limit, a body
 * too large, resolving the credential while the database is down) are rendered in it. Paths of no API face (health,
 * documents, an unknown path) answer `{code, message}`, the bank notifications' body.
 */
function faceOf(path: string): Face {
  if (path === '/v2/oauth-apps/token' || path === '/v2/oauth-apps/revoke') return 'oauth';
  if (path === '/v1' || path.startsWith('/v1/')) return 'v1';
  if (path === '/v2' || path.startsWith('/v2/')) return 'v2';
  if (path === '/graphql' || path === SOFA_BASE || path.startsWith(`${SOFA_BASE}/`)) return 'graphql';
  return 'bank';
}

/** The paths whose calls count against a credential's rate limit (not health checks, metrics or documentation). */
/**
 * A request Node's HTTP parser refused before any handler saw it — an unreadable request line or header, headers
 * over the size limit, or a request that did not arrive in time (slow-loris) — is answered in the JSON error envelope
 * ({code, message}) with its status, instead of a bare status line, and the connection is closed.
 */
function answerMalformedRequest(err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const { status, body: answer } = bankNotificationBody(
    err.code === 'HPE_HEADER_OVERFLOW'
      ? 'REQUEST_HEADER_FIELDS_TOO_LARGE'
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? 'REQUEST_TIMEOUT'
        : new DomainError('BAD_REQUEST', { message: 'The request is not readable HTTP/1.1.' }),
  );
  const body = JSON.stringify(answer);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * The credential a request's rate limit is keyed by: its Authorization header, but on the OAuth token and revoke
 * endpoints, which authenticate the client otherwise (HTTP Basic or form fields), none: they take the client address's
 * bucket whatever bearer comes along.
 */
function rateLimitedCredential(request: Request, path: string): string | null {
  return faceOf(path) === 'oauth' ? null : request.headers.get('authorization');
}

function isRateLimited(path: string): boolean {
  return path === '/graphql' || path.startsWith('/v1') || path.startsWith('/v2') || path === '/bank-notifications' || path.startsWith(SOFA_BASE);
}

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
