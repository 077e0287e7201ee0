/** The GraphQL face's Yoga server on /graphql: GraphiQL, error masking, abuse limits, per-error logging and timing. */
import { createYoga, isAsyncIterable, mapAsyncIterator } from 'graphql-yoga';
import type { DefinitionNode, DocumentNode, ExecutionResult } from 'graphql';
import type { Logger } from 'pino';
import { useCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { costLimitPlugin } from '@escape.tech/graphql-armor-cost-limit';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesPlugin } from '@escape.tech/graphql-armor-max-directives';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import { maskError } from '../graphql/common/errors.ts';
import type { GraphQLContext } from '../graphql/context.ts';
import { schema } from '../graphql/schema.ts';
import { logGraphQLErrors, type ErrorLog } from '../../rest-compat/shared/face-errors.ts';
import { GRAPHIQL_OPTIONS, renderGraphiQLPage, useGraphiQLHeaders } from './graphiql.ts';
import { useIdempotencyGuard, type IdempotencyGuardContext } from './idempotency.ts';
import type { Metrics } from './metrics.ts';

/** What each operation brings to Yoga (over HTTP from the router, over WebSocket from graphql-ws.ts). */
export interface YogaServerContext extends IdempotencyGuardContext {
  /** The operation's context, made once per request (or per WebSocket operation). */
  graphQLContext: () => Promise<GraphQLContext>;
  /** Where the result's errors are logged, with the request id (HTTP; graphql-ws.ts logs its own). */
  errorLog?: ErrorLog;
}

export function createGraphQLYoga(log: Logger, metrics: Metrics) {
  return createYoga<YogaServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    // Any site's scripts may call the API with a key in the Authorization header, but never with the browser's
    // credentials: the dashboard's session cookie is SameSite=Strict, and no Origin is answered with
    // Access-Control-Allow-Credentials (README, "The dashboard's session").
    cors: { origin: '*', credentials: false },
    // GraphiQL's scripts and styles from this service (/graphql/assets/), not from a CDN: it works offline.
    graphiql: GRAPHIQL_OPTIONS,
    renderGraphiQL: renderGraphiQLPage,
    // Masked errors are logged once by the plugin below, with the request id; Yoga's own report of them only at trace.
    logging: { debug: (...a) => log.debug(a), info: (...a) => log.info(a), warn: (...a) => log.warn(a), error: (...a) => log.trace(a) },
    maskedErrors: { maskError: (error, message) => maskError(error, message) },
    context: ({ graphQLContext }) => graphQLContext(),
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
      // A request whose Idempotency-Key was decided on its parameters runs only those (idempotency.ts).
      useIdempotencyGuard(),
      {
        // Every error of a result, as the caller sees it, logged with the request id; subscription events one by one.
        onResultProcess({ result, setResult, serverContext }: { result: unknown; setResult(r: unknown): void; serverContext: Partial<YogaServerContext> }) {
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
}

export type GraphQLYoga = ReturnType<typeof createGraphQLYoga>;
