/**
 * GraphQL over WebSocket on /graphql: each operation through Yoga's envelop, under HTTP's limits (message size, rate
 * limit, operations per connection, connections per client) and logged like HTTP's. The limits: src/http/README.md.
 */
import { randomUUID } from 'node:crypto';
import { GraphQLError, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { Context, OperationResult, SubscribePayload } from 'graphql-ws';
import { useServer, type Extra } from 'graphql-ws/use/ws';
import type { Logger } from 'pino';
import type { WebSocket, WebSocketServer } from 'ws';
import type { Principal } from '../domain/auth/principal.ts';
import { DomainError } from '../domain/errors.ts';
import { maskError, toGraphQLError } from '../graphql/common/errors.ts';
import type { GraphQLContext } from '../graphql/context.ts';
import { dashboardSessionToken } from './dashboard-session.ts';
import { errorLog, logGraphQLErrors } from '../../rest-compat/shared/face-errors.ts';
import { rateLimitKey, takeRateLimit, type RateLimiter } from './rate-limit.ts';
import type { GraphQLYoga } from './yoga.ts';

/** Operations running at once on one connection. */
export const MAX_OPERATIONS_PER_CONNECTION = 100;
/** Connections at once per credential (or client address), per instance. */
export const MAX_CONNECTIONS_PER_CLIENT = 20;
/** The close code of a connection over MAX_CONNECTIONS_PER_CLIENT (RFC 6455 registry: Try Again Later). */
export const CLOSE_TRY_AGAIN_LATER = 1013;

export interface GraphQLWsOptions {
  yoga: GraphQLYoga;
  log: Logger;
  /** The principal of a connection's `authorization` (null: none, or it does not authenticate). */
  resolvePrincipal(authorization: string | null): Promise<Principal | null>;
  /** The context of one operation run for `principal`. */
  operationContext(principal: Principal | null, requestId: string): GraphQLContext;
  rateLimiter: RateLimiter | null;
  /** Counts an operation refused by the rate limit (http_rate_limited_total). */
  onRateLimited?(): void;
}

/** How Yoga's envelop runs an operation: passed to graphql-ws as the operation's root value. */
interface Runner {
  execute(args: ExecutionArgs): OperationResult;
  subscribe(args: ExecutionArgs): OperationResult;
}

/** One connection's state: its client's key for the connection cap, and its operations' request ids. */
interface Connection {
  clientKey?: string;
  requestIds: Map<string, string>;
}

type Ctx = Context<Record<string, unknown> | undefined, Extra>;

/**
 * The connection's credential: `authorization` of its connection_init, else the dashboard's session cookie of the
 * upgrade request when that came from the service's own pages (dashboard-session.ts).
 */
const authorizationOf = (ctx: Ctx): string | null => {
  if (typeof ctx.connectionParams?.authorization === 'string') return ctx.connectionParams.authorization;
  const h = ctx.extra.request.headers;
  const one = (v: string | string[] | undefined) => (Array.isArray(v) ? (v[0] ?? null) : (v ?? null));
  const token = dashboardSessionToken({ origin: one(h.origin), host: one(h.host), secFetchSite: one(h['sec-fetch-site']), cookie: one(h.cookie) });
  return token ? `Bearer ${token}` : null;
};
const addressOf = (ctx: Ctx): string | undefined => ctx.extra.request.socket.remoteAddress;

/** Serves graphql-ws on `wss` (created with maxPayload = MAX_BODY_BYTES). */
export function serveGraphQLOverWebSocket(wss: WebSocketServer, o: GraphQLWsOptions): void {
  const { yoga, log } = o;
  const connections = new WeakMap<object, Connection>();
  const openPerClient = new Map<string, number>();
  const stateOf = (ctx: Ctx): Connection => {
    let c = connections.get(ctx);
    if (!c) connections.set(ctx, (c = { requestIds: new Map() }));
    return c;
  };
  const logFor = (ctx: Ctx, id?: string) => errorLog(log, (id && stateOf(ctx).requestIds.get(id)) || randomUUID(), 'WS', '/graphql');

  useServer(
    {
      execute: (args) => (args.rootValue as Runner).execute(args),
      subscribe: (args) => (args.rootValue as Runner).subscribe(args),
      onConnect: async (ctx: Ctx) => {
        // The connection cap: per credential when it authenticates, else per client address.
        let principal: Principal | null;
        try {
          principal = await o.resolvePrincipal(authorizationOf(ctx));
        } catch (e) {
          logFor(ctx).failed('SERVICE_UNAVAILABLE', e);
          ctx.extra.socket.close(CLOSE_TRY_AGAIN_LATER, 'SERVICE_UNAVAILABLE');
          return false;
        }
        // Gone while its credential was looked up: onClose has run, nothing to count.
        if (ctx.extra.socket.readyState !== ctx.extra.socket.OPEN) return false;
        const key = rateLimitKey(principal ? authorizationOf(ctx) : null, addressOf(ctx));
        const open = openPerClient.get(key) ?? 0;
        if (open >= MAX_CONNECTIONS_PER_CLIENT) {
          logFor(ctx).refused('TOO_MANY_CONNECTIONS');
          // graphql-ws then closes it 4403; the close already begun (1013) is the one the client gets.
          ctx.extra.socket.close(CLOSE_TRY_AGAIN_LATER, 'TOO_MANY_CONNECTIONS');
          return false;
        }
        openPerClient.set(key, open + 1);
        stateOf(ctx).clientKey = key;
        return true;
      },
      onClose: (ctx: Ctx) => {
        const key = connections.get(ctx)?.clientKey;
        if (key === undefined) return;
        const open = (openPerClient.get(key) ?? 1) - 1;
        if (open > 0) openPerClient.set(key, open);
        else openPerClient.delete(key);
      },
      onSubscribe: async (ctx: Ctx, id: string, params: SubscribePayload) => {
        const requestId = randomUUID();
        stateOf(ctx).requestIds.set(id, requestId);
        // This operation is already counted in ctx.subscriptions.
        if (Object.keys(ctx.subscriptions).length > MAX_OPERATIONS_PER_CONNECTION) return [toGraphQLError(new DomainError('TOO_MANY_SUBSCRIPTIONS'))];
        const authorization = authorizationOf(ctx);
        let principal: Promise<Principal | null> | undefined;
        const principalOf = () => (principal ??= o.resolvePrincipal(authorization));
        try {
          if (o.rateLimiter) {
            const decision = await takeRateLimit(o.rateLimiter, authorization, addressOf(ctx), async () => (await principalOf()) !== null);
            if (!decision.allowed) {
              o.onRateLimited?.();
              return [toGraphQLError(new DomainError('RATE_LIMITED'))];
            }
          }
          const enveloped = yoga.getEnveloped({ ...ctx, req: ctx.extra.request, socket: ctx.extra.socket, params });
          const { schema, execute, subscribe, contextFactory, parse, validate } = enveloped;
          let document: DocumentNode;
          try {
            document = parse(params.query);
          } catch (e) {
            // A document that does not parse (or is over the token limit): the caller's error, not the server's.
            return [e instanceof GraphQLError ? e : new GraphQLError('The document does not parse.')];
          }
          const errors = validate(schema, document);
          if (errors.length) return [...errors];
          const graphQLContext = async () => o.operationContext(await principalOf(), requestId);
          const contextValue = await contextFactory({ graphQLContext });
          const rootValue: Runner = { execute: execute as Runner['execute'], subscribe: subscribe as Runner['subscribe'] };
          return { schema, operationName: params.operationName, document, variableValues: params.variables, contextValue, rootValue };
        } catch (e) {
          // The database could not be reached (SERVICE_UNAVAILABLE), or an error of the service's own (masked).
          return [maskError(e, 'Unexpected error.') as GraphQLError];
        }
      },
      // Each error of an operation over WebSocket logged like an HTTP request's, with the operation's request id.
      onNext: (ctx: Ctx, id: string, _payload: SubscribePayload, _args: ExecutionArgs, result: ExecutionResult) => {
        if (result.errors?.length) logGraphQLErrors(logFor(ctx, id), result.errors);
      },
      onError: (ctx: Ctx, id: string, _payload: SubscribePayload, errors: readonly GraphQLError[]) => {
        logGraphQLErrors(logFor(ctx, id), errors);
        connections.get(ctx)?.requestIds.delete(id);
      },
      onComplete: (ctx: Ctx, id: string) => void connections.get(ctx)?.requestIds.delete(id),
    },
    wss,
  );

  // graphql-ws reports a socket's errors on the console and closes it 4500. They are the client's (a message over
  // maxPayload, which ws has already answered by closing 1009; an invalid frame, 1002) or the network's: logged as
  // refusals, at info, instead.
  wss.on('connection', (socket: WebSocket) => {
    socket.removeAllListeners('error');
    socket.on('error', (err: Error & { code?: string }) =>
      errorLog(log, randomUUID(), 'WS', '/graphql').refused(err.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH' ? 'PAYLOAD_TOO_LARGE' : 'BAD_REQUEST'),
    );
  });
}
