/**
 * `/api`: every GraphQL query and mutation as a REST route (sofa-api), with its own OpenAPI document at
 * `/api/openapi.json`. Same schema and same context builder as /graphql, so the same keys, scopes and rules apply.
 * Queries are GET (arguments in the query string or path), mutations POST with a JSON body of the arguments.
 * Refusals come back as HTTP errors `{errors: [{message, extensions: {code, field?, data?}}]}` with the status of
 * ERROR_TABLE (the v1 one), whether the field threw or returned a DomainError in-band (result unions); anything
 * unexpected is masked and logged. Sofa's subscription webhooks (`/api/webhook`) are not served: they would POST to
 * any URL a caller names.
 */
import { execute, type ExecutionArgs, type ExecutionResult, GraphQLError } from 'graphql';
import { useSofa } from 'sofa-api';
import { DomainError, ERROR_TABLE, isErrorCode } from '../domain/errors.ts';
import { domainErrorOf, toGraphQLError } from '../graphql/common/errors.ts';
import type { GraphQLContext } from '../graphql/context.ts';
import { schema } from '../graphql/schema.ts';
import { OPENAPI_VERSION } from '../../rest-compat/openapi/document.ts';
import { readTextBody } from '../../rest-compat/shared/http.ts';

export const SOFA_BASE = '/api';

type ContextFor = (request: Request, authorization: string | null, requestId: string) => Promise<GraphQLContext>;

function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers } });
}

/** Sofa's subscriptions-as-webhooks routes (POST /webhook, POST and DELETE /webhook/:id); GET /webhook/:id is the webhook query. */
function isSubscriptionWebhook(method: string, path: string): boolean {
  const m = method.toUpperCase();
  return (m === 'POST' || m === 'DELETE') && (path === `${SOFA_BASE}/webhook` || path.startsWith(`${SOFA_BASE}/webhook/`));
}

export function createSofaApi(contextFor: ContextFor, onUnexpected: (requestId: string) => (e: unknown) => void, maxBodyBytes: number) {
  /**
   * Runs an operation: a DomainError a result-union mutation returned in-band becomes the GraphQL error it stands for;
   * an unexpected error is logged here, where the request id is known (errorHandler masks it).
   */
  async function run(args: ExecutionArgs): Promise<ExecutionResult> {
    const result = (await execute(args)) as ExecutionResult;
    for (const e of result.errors ?? []) if (!domainErrorOf(e) && e.originalError && !(e.originalError instanceof GraphQLError)) onUnexpected((args.contextValue as GraphQLContext).requestId)(e.originalError);
    if (result.errors?.length || !result.data) return result;
    for (const value of Object.values(result.data)) {
      // Sofa selects the union's members without __typename: a DomainError is the member with a code and a message.
      const v = value as { code?: unknown; message?: string; field?: string[] | null; data?: Record<string, unknown> | null } | null;
      if (v && typeof v === 'object' && typeof v.message === 'string' && isErrorCode(v.code)) {
        return { errors: [toGraphQLError(new DomainError(v.code, { message: v.message, path: v.field ?? undefined, data: v.data ?? null }))] };
      }
    }
    return result;
  }

  const errorHandler = (errors: ReadonlyArray<unknown>): Response => {
    let status = 0;
    const rendered = errors.map((error) => {
      const domain = domainErrorOf(error);
      if (domain) {
        status = Math.max(status, ERROR_TABLE[domain.code].v1.status);
        return { message: domain.message, extensions: { code: domain.code, ...(domain.path ? { field: domain.path } : {}), ...(domain.data ? { data: domain.data } : {}) } };
      }
      // GraphQL's own refusals (an argument that does not coerce, sofa's unreadable body): the request is wrong.
      if (error instanceof GraphQLError && (!error.originalError || error.originalError instanceof GraphQLError)) {
        const http = (error.extensions?.http as { status?: number } | undefined)?.status;
        status = Math.max(status, http ?? 400);
        return { message: error.message, extensions: { code: 'BAD_REQUEST' } };
      }
      if (!(error instanceof GraphQLError)) onUnexpected('')(error);
      status = Math.max(status, 500);
      return { message: ERROR_TABLE.INTERNAL_SERVER_ERROR.message, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
    });
    return jsonResponse(status || 500, { errors: rendered });
  };

  const router = useSofa({
    basePath: SOFA_BASE,
    schema,
    execute: run as typeof execute,
    context: async ({ request, requestId }: { request: Request; requestId?: string }) => contextFor(request, request.headers.get('authorization'), requestId ?? ''),
    errorHandler,
    customScalars: { DateTime: { type: 'string', format: 'date-time' }, JSON: {} },
    openAPI: {
      endpoint: '/openapi.json',
      info: {
        title: 'Bank-transfer payments: GraphQL operations as REST',
        version: OPENAPI_VERSION,
        description: 'Every GraphQL query (GET) and mutation (POST) of /graphql as a route under /api, generated by sofa-api from the same schema.',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key, an OAuth access token or a dashboard session token.' } } },
      security: [{ bearer: [] }],
    },
    swaggerUI: { endpoint: false as unknown as `/${string}` },
  } as Parameters<typeof useSofa>[0]);

  /** Answers a request under /api. */
  return async function handleSofa(request: Request, path: string, requestId: string): Promise<Response> {
    const notFound = () => jsonResponse(404, { errors: [{ message: 'No such endpoint.', extensions: { code: 'NOT_FOUND' } }] });
    if (isSubscriptionWebhook(request.method, path)) return notFound();
    // sofa routes GET (queries) and POST (mutations); anything else (HEAD, TRACE, PROPFIND ...) is refused here, before
    // a Request is rebuilt with a method undici may not accept.
    if (request.method !== 'GET' && request.method !== 'POST') {
      return jsonResponse(405, { errors: [{ message: ERROR_TABLE.METHOD_NOT_ALLOWED.message, extensions: { code: 'METHOD_NOT_ALLOWED' } }] }, { allow: 'GET, POST' });
    }
    let bounded = request;
    if (request.body) {
      // The same body limit as everywhere else (sofa would read any size).
      let text: string | null;
      try {
        text = await readTextBody(request, maxBodyBytes);
      } catch (e) {
        const code = domainErrorOf(e)?.code === 'PAYLOAD_TOO_LARGE' ? 'PAYLOAD_TOO_LARGE' : 'BAD_REQUEST';
        return jsonResponse(ERROR_TABLE[code].v1.status, { errors: [{ message: ERROR_TABLE[code].message, extensions: { code } }] });
      }
      bounded = new Request(request.url, { method: request.method, headers: request.headers, body: text });
    }
    const response = (await router.fetch(bounded, { requestId })) as Response | undefined;
    // No route matched (a path without its id, a trailing slash ...): sofa gives nothing back.
    if (!response) return notFound();
    if (path === `${SOFA_BASE}/openapi.json` && response.ok) {
      const doc = (await response.json()) as { paths?: Record<string, Record<string, unknown>> };
      const paths = (doc.paths ?? {}) as Record<string, Record<string, unknown>>;
      for (const [p, ops] of Object.entries(paths)) {
        for (const method of Object.keys(ops)) if (isSubscriptionWebhook(method, SOFA_BASE + p.replace(/\{[^}]+\}/g, 'x'))) delete ops[method];
        if (Object.keys(ops).length === 0) delete paths[p];
      }
      return jsonResponse(200, doc);
    }
    return response;
  };
}
