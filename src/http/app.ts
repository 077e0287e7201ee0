/**
 * Composes the service: database and migrations, domain dependencies, the GraphQL face (Yoga over HTTP, graphql-ws
 * and SSE on /graphql), the REST v1/v2 faces, bank notifications and health checks. `buildApp(config)` returns
 * `{ start, stop, fetch }`; tests start it on port 0.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServerAdapter } from '@whatwg-node/server';
import { createYoga } from 'graphql-yoga';
import { useServer } from 'graphql-ws/use/ws';
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
import { createSofaApi, SOFA_BASE } from './sofa-api.ts';
import { loadEncryptionKey } from './encryption-key.ts';
import { createLogger } from './logger.ts';
import { lookup } from 'node:dns/promises';
import { createEventBus, type EventBus } from '../events/event-bus.ts';
import { OutboxDispatcher } from '../events/outbox-dispatcher.ts';
import { WebhookWorker } from '../events/webhook-worker.ts';
import { WebhookHttpClient } from '../events/http-post.ts';
import { JobRunner, type JobHandler } from '../events/job-runner.ts';
import { outboxEmail, smtpEmail } from '../events/email/adapters.ts';
import { emailJob } from '../events/email/email-job.ts';
import type { EmailPort } from '../domain/email/email.ts';
import { DEFAULT_RETRY_DELAYS_MS } from '../domain/webhooks/routing.ts';
import type { CashReceiptAgency } from '../domain/cash-receipts/agency.ts';
import { simulatedAgency } from '../events/agency/simulated-agency.ts';
import { receiptJobs } from '../events/agency/receipt-jobs.ts';

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
  stop(): Promise<void>;
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

  const deps: Deps = {
    prisma: db.prisma,
    sql: db.sql,
    clock,
    log,
    encryptionKey,
    settings: {
      sessionTtlHours: config.SESSION_TTL_HOURS,
      agencyName: 'SIMULATED',
      maxLoginFailures: 10,
      loginWindowMinutes: 15,
      webhookAllowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
    },
    agency: opts.agency ?? simulatedAgency(clock, config.AGENCY_SIM_DELAY_MS),
    agencyResultDelayMs: config.AGENCY_SIM_DELAY_MS,
    resolveHost: opts.resolveHost ?? (async (host) => (await lookup(host, { all: true })).map((a) => a.address)),
    onEventsCommitted: () => workers.dispatcher.wake(),
    onJobsQueued: () => workers.jobs.wake(),
  };

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
  });
  const dispatcher = new OutboxDispatcher(db.prisma, clock, bus, log, { webhooks: () => webhooks.wake(), jobs: () => jobs.wake() });
  const workers: Workers = { bus, dispatcher, webhooks, jobs, email };

  const onUnexpected = (requestId: string) => (e: unknown) => log.error({ err: e, requestId }, 'unexpected error');

  async function contextFor(request: Request | undefined, authorization: string | null | undefined, requestId: string): Promise<GraphQLContext> {
    const principal: Principal | null = await resolvePrincipal(deps, bearerToken(authorization));
    return { deps, prisma: db.prisma, principal, requestId, bus };
  }

  const yoga = createYoga<{ requestId?: string }, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    graphiql: { title: 'Bank-transfer payments — GraphQL', subscriptionsProtocol: 'WS' },
    logging: { debug: (...a) => log.debug(a), info: (...a) => log.info(a), warn: (...a) => log.warn(a), error: (...a) => log.error(a) },
    maskedErrors: { maskError: (error, message) => maskError(error, message, (e) => log.error({ err: e }, 'unexpected GraphQL error')) },
    context: async ({ request, requestId, connectionParams }: { request: Request; requestId?: string; connectionParams?: Record<string, unknown> }) => {
      const fromParams = connectionParams && typeof connectionParams.authorization === 'string' ? connectionParams.authorization : undefined;
      return contextFor(request, fromParams ?? request.headers.get('authorization'), requestId ?? randomUUID());
    },
  });

  // The API description (/openapi.json, /docs) and the GraphQL operations as REST (/api), through the same context.
  const sofa = createSofaApi(contextFor, onUnexpected, config.MAX_BODY_BYTES);

  async function handle(request: Request): Promise<Response> {
    const incoming = request.headers.get('x-request-id');
    const requestId = incoming && REQUEST_ID_RE.test(incoming) ? incoming : randomUUID();
    const started = performance.now();
    const url = new URL(request.url);
    const path = url.pathname;
    let response: Response;
    try {
      if (path === '/graphql') {
        response = await yoga.fetch(request, { requestId });
      } else if (path === '/v1' || path.startsWith('/v1/')) {
        const ctx = { ...(await contextFor(request, request.headers.get('authorization'), requestId)), maxBodyBytes: config.MAX_BODY_BYTES };
        response = await handleV1(request, ctx, onUnexpected(requestId));
      } else if (path.startsWith('/v2/oauth-apps/')) {
        response =
          (await handleOAuth(request, path, deps, config.MAX_BODY_BYTES, onUnexpected(requestId))) ??
          (await handleV2(request, { ...(await contextFor(request, request.headers.get('authorization'), requestId)), maxBodyBytes: config.MAX_BODY_BYTES }, onUnexpected(requestId)));
      } else if (path === '/v2' || path.startsWith('/v2/')) {
        const ctx = { ...(await contextFor(request, request.headers.get('authorization'), requestId)), maxBodyBytes: config.MAX_BODY_BYTES };
        response = await handleV2(request, ctx, onUnexpected(requestId));
      } else if (path === '/bank-notifications') {
        response = await handleBankNotification(request, deps, config.MAX_BODY_BYTES, onUnexpected(requestId));
      } else if (path === '/openapi.json' || path === '/docs' || path.startsWith('/docs/')) {
        response = (await handleApiDocs(request, path)) ?? json(404, { code: 'NOT_FOUND', message: 'No such endpoint.' });
      } else if (path === SOFA_BASE || path.startsWith(`${SOFA_BASE}/`)) {
        response = await sofa(request, path, requestId);
      } else if (path === '/healthz') {
        response = json(200, { status: 'ok' });
      } else if (path === '/readyz') {
        response = await readiness(db);
      } else {
        response = json(404, { code: 'NOT_FOUND', message: 'No such endpoint.' });
      }
    } catch (e) {
      onUnexpected(requestId)(e);
      response = json(500, { code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error.' });
    }
    response.headers.set('x-request-id', requestId);
    log.debug({ requestId, method: request.method, path, status: response.status, ms: Math.round(performance.now() - started) }, 'request');
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
      const adapter = createServerAdapter(handle);
      server = createServer(adapter);
      wss = new WebSocketServer({ server, path: '/graphql' });
      useServer(
        {
          execute: (args: any) => args.rootValue.execute(args),
          subscribe: (args: any) => args.rootValue.subscribe(args),
          onSubscribe: async (ctx: any, _id: string, params: any) => {
            const { schema: s, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({
              ...ctx,
              req: ctx.extra.request,
              socket: ctx.extra.socket,
              params,
            });
            const args = {
              schema: s,
              operationName: params.operationName,
              document: parse(params.query),
              variableValues: params.variables,
              contextValue: await contextFactory({ connectionParams: ctx.connectionParams, request: new Request('http://ws/graphql', { headers: {} }) }),
              rootValue: { execute, subscribe },
            };
            const errors = validate(args.schema, args.document);
            if (errors.length) return errors;
            return args;
          },
        },
        wss,
      );
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
    async stop() {
      await Promise.all([dispatcher.stop(), webhooks.stop(), jobs.stop()]);
      if (wss) {
        for (const client of wss.clients) client.terminate();
        await new Promise<void>((r) => wss!.close(() => r()));
      }
      if (server) {
        server.closeAllConnections?.();
        await new Promise<void>((r) => server!.close(() => r()));
      }
      webhookHttp.close();
      (email as { close?: () => void }).close?.();
      await bus.close();
      await db.close();
    },
  };
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
