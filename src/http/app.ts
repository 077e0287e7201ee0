/**
 * Composes the service: database and migrations, the domain's dependencies, the workers, the GraphQL face (Yoga,
 * graphql-ws), the routes and the HTTP server. `buildApp(config)` returns `{ start, stop, fetch }`; tests start it on port 0.
 */
import { lookup } from 'node:dns/promises';
import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import { openDatabase, serviceDatabaseOptions, type Database } from '../db/database.ts';
import { migrate } from '../db/migrate.ts';
import { importPGliteDataDir } from '../db/pglite-import.ts';
import { bearerToken, resolvePrincipal } from '../domain/auth/principal.ts';
import type { CashReceiptAgency } from '../domain/cash-receipts/agency.ts';
import { mailReceiptThroughService } from '../domain/cash-receipts/send-email.ts';
import { systemClock, type Clock } from '../domain/clock.ts';
import type { Deps } from '../domain/deps.ts';
import type { EmailPort } from '../domain/email/email.ts';
import { httpAgency } from '../events/agency/http-agency.ts';
import { simulatedAgency } from '../events/agency/simulated-agency.ts';
import { cafe24Shop } from '../events/shops/cafe24.ts';
import { simulatedShop } from '../events/shops/simulated-shop.ts';
import type { ShopAdapters } from '../domain/shops/shop-port.ts';
import type { AggregatorAdapters } from '../domain/deposits/history/aggregator-port.ts';
import { PopbillAggregator } from '../events/aggregators/popbill.ts';
import { simulatedAggregator } from '../events/aggregators/simulated-aggregator.ts';
import { busEventOfCommitted } from '../events/outbox-dispatcher.ts';
import { operationContext } from '../graphql/context.ts';
import { loadEncryptionKey } from './encryption-key.ts';
import { serveGraphQLOverWebSocket } from './graphql-ws.ts';
import { createLogger } from './logger.ts';
import { Metrics } from './metrics.ts';
import { memoryRateLimiter, redisRateLimiter, type RateLimiter } from './rate-limit.ts';
import { createRouter } from './router.ts';
import { routes } from './routes.ts';
import { createHttpServer } from './server.ts';
import { buildWorkers, type Workers } from './workers.ts';
import { createGraphQLYoga } from './yoga.ts';

export type { Workers } from './workers.ts';

export interface AppOptions {
  clock?: Clock;
  logger?: Logger;
  /** Use this database instead of opening one from the config (tests). */
  database?: Database;
  /** Replace the cash-receipt agency (tests). */
  agency?: CashReceiptAgency;
  /** Replace the shop platforms' adapters (tests). */
  shops?: ShopAdapters;
  /** Replace the account-history aggregators' adapters (tests). */
  aggregators?: AggregatorAdapters;
  /** Replace the e-mail adapter (tests). */
  email?: EmailPort;
  /** Replace DNS resolution for webhook URL checks (tests). */
  resolveHost?: (hostname: string) => Promise<string[]>;
}

export interface App {
  deps: Deps;
  db: Database;
  config: Config;
  workers: Workers;
  /** In-process request handling (no socket). */
  fetch(request: Request): Promise<Response>;
  start(): Promise<{ port: number; url: string }>;
  /** What start() does besides listening: runs the workers (when WORKERS is on), for in-process use of `fetch`. */
  startWorkers(): void;
  /** Graceful stop: in-flight requests finish (up to graceMs, default 10 s), subscribers are told to reconnect. */
  stop(opts?: { graceMs?: number }): Promise<void>;
}

export async function buildApp(config: Config, opts: AppOptions = {}): Promise<App> {
  const log = opts.logger ?? createLogger(config.LOG_LEVEL);
  const db =
    opts.database ??
    (await openDatabase(serviceDatabaseOptions(config)));
  const applied = await migrate(db);
  if (applied.length) log.info({ applied }, 'migrations applied');
  // An earlier release's embedded data (DATA_DIR/pglite) is imported once, before anything is served.
  if (db.kind === 'embedded') await importPGliteDataDir(db, config.DATA_DIR, log);

  const metrics = new Metrics({ outboxLagSeconds: () => outboxLagSeconds(db, deps.clock) });
  // After a commit the workers run at once (the events' live subscribers are told by the committing process).
  const deps = domainDeps(config, opts, db, log, metrics, {
    onEventsCommitted: (committed) => (committed ? workers.dispatcher.publishedAtCommit(committed.map(busEventOfCommitted)) : workers.dispatcher.wake()),
    onJobsQueued: () => workers.jobs.wake(),
    onShopSyncDue: () => workers.shopSync.wake(),
    onHistoryPollDue: () => workers.historyPolls.wake(),
  });
  const workers = buildWorkers(config, db, deps, metrics, log, opts.email);

  const rateOptions = { perSecond: config.RATE_LIMIT_PER_SECOND, burst: config.RATE_LIMIT_BURST };
  const rateLimiter: RateLimiter | null =
    config.RATE_LIMIT_PER_SECOND === 0 ? null : config.REDIS_URL ? redisRateLimiter(rateOptions, config.REDIS_URL, log) : memoryRateLimiter(rateOptions);
  const yoga = createGraphQLYoga(log, metrics);
  const route = createRouter(routes({ config, db, deps, yoga, metrics }), { deps, bus: workers.bus, log, metrics, rateLimiter, rateOptions });
  const server = createHttpServer(config, route);

  const startWorkers = () => void (config.WORKERS && workers.start());
  return {
    deps,
    db,
    config,
    workers,
    fetch: (request) => server.fetch(request),
    startWorkers,
    async start() {
      const listening = await server.start((wss) =>
        // GraphQL over WebSocket, under the limits of HTTP (graphql-ws.ts).
        serveGraphQLOverWebSocket(wss, {
          yoga,
          log,
          resolvePrincipal: (authorization) => resolvePrincipal(deps, bearerToken(authorization)),
          operationContext: (principal, requestId) => operationContext(deps, workers.bus, principal, requestId),
          rateLimiter,
          onRateLimited: () => metrics.rateLimited.inc(),
        }),
      );
      startWorkers();
      log.info({ port: listening.port }, 'listening');
      return listening;
    },
    async stop({ graceMs = 10_000 } = {}) {
      await server.drain(graceMs);
      await workers.stop();
      await server.close();
      await workers.close();
      await rateLimiter?.close();
      await db.close();
    },
  };
}

/** The domain's dependencies: database, clock, encryption key, settings, the cash-receipt agency, metrics and the workers' wake-ups. */
function domainDeps(config: Config, opts: AppOptions, db: Database, log: Logger, metrics: Metrics, afterCommit: Pick<Deps, 'onEventsCommitted' | 'onJobsQueued' | 'onShopSyncDue' | 'onHistoryPollDue'>): Deps {
  const clock = opts.clock ?? systemClock;
  const { key: encryptionKey, source } = loadEncryptionKey(config.ENCRYPTION_KEY, config.DATA_DIR);
  if (source === 'file' && config.DATABASE_URL) log.warn('ENCRYPTION_KEY is not set: using a key file under DATA_DIR; set ENCRYPTION_KEY when several instances share the database');
  // A Popbill-style HTTP agency when AGENCY_URL is set, else the simulated one. A real agency hears from the tax
  // authority the next day, so its settle job polls for longer. The simulated one's receipt e-mails go through the
  // service's own e-mail (it is called only after `deps` below exists).
  const agency =
    opts.agency ??
    (config.AGENCY_URL
      ? httpAgency({ baseUrl: config.AGENCY_URL, linkId: config.AGENCY_LINK_ID!, secretKey: config.AGENCY_SECRET_KEY! })
      : simulatedAgency(clock, config.AGENCY_SIM_DELAY_MS, (mail) => mailReceiptThroughService(deps, mail)));
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
      // Prepared batches save planning (~0.3 ms of database CPU per deposit at 600/s) and cost each connection its
      // plans (~75 MB over the embedded database's connections under load): on an external PostgreSQL only.
      preparedDepositBatchMax: db.kind === 'postgres' ? 16 : 1,
      shopSyncIntervalMs: config.SHOP_SYNC_INTERVAL_MS,
      historyPollIntervalMs: config.HISTORY_POLL_INTERVAL_MS,
    },
    agency,
    shops: opts.shops ?? shopAdapters(config, db, clock),
    aggregators: opts.aggregators ?? aggregatorAdapters(config, db),
    agencyResultDelayMs: config.AGENCY_URL && !opts.agency ? 60_000 : config.AGENCY_SIM_DELAY_MS,
    resolveHost: opts.resolveHost ?? (async (host) => (await lookup(host, { all: true })).map((a) => a.address)),
    ...afterCommit,
    observe: { matchOutcome: (o) => metrics.matchOutcomes.inc({ outcome: o }), matchedDepositBatch: (n) => metrics.matchedDepositBatch.observe(n) },
  };
  return deps;
}

/** The shop platforms offered: the simulated shop always, Cafe24 when its app credentials are configured. */
function shopAdapters(config: Config, db: Database, clock: Clock): ShopAdapters {
  const simulated = simulatedShop(db.sql, clock);
  const cafe24 = config.CAFE24_CLIENT_ID
    ? cafe24Shop({
        clientId: config.CAFE24_CLIENT_ID,
        clientSecret: config.CAFE24_CLIENT_SECRET!,
        redirectUri: config.CAFE24_REDIRECT_URI!,
        apiBaseUrl: (mallId) => config.CAFE24_API_URL.replaceAll('{mallid}', mallId),
        timeoutMs: config.CAFE24_TIMEOUT_MS,
      })
    : null;
  return { get: (platform) => (platform === 'SIMULATED' ? simulated : platform === 'CAFE24' ? cafe24 : null) };
}

/** The account-history aggregators offered: the simulated one always, Popbill when its credentials are configured. */
function aggregatorAdapters(config: Config, db: Database): AggregatorAdapters {
  const simulated = simulatedAggregator(db.sql);
  const popbill = config.POPBILL_LINK_ID
    ? new PopbillAggregator({
        linkId: config.POPBILL_LINK_ID,
        secretKey: config.POPBILL_SECRET_KEY!,
        test: config.POPBILL_TEST,
        timeoutMs: config.POPBILL_TIMEOUT_MS,
        ...(config.POPBILL_API_URL ? { apiUrl: config.POPBILL_API_URL } : {}),
        ...(config.POPBILL_AUTH_URL ? { authUrl: config.POPBILL_AUTH_URL } : {}),
      })
    : null;
  return { get: (name) => (name === 'SIMULATED' ? simulated : name === 'POPBILL' ? popbill : null) };
}

/** Seconds since the oldest event still queued in the outbox was written (0 when none is). */
async function outboxLagSeconds(db: Database, clock: Clock): Promise<number> {
  const rows = await db.sql.query<{ at: Date | null }>(`SELECT min("createdAt") AS at FROM "OutboxEntry"`);
  return rows[0]?.at ? Math.max(0, (clock.now().getTime() - new Date(rows[0].at).getTime()) / 1000) : 0;
}
