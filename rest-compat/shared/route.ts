/**
 * A REST route is one entry of its face's table: what /openapi.json says about it (method, path, query and body
 * schemas, permission, success, the errors it can answer) and what it runs (a GraphQL operation, its variables, the
 * result in the face's wire format). The face's router and the document are both read from the tables.
 */
import type { z } from 'zod';
import { assertCanWrite, assertNotSession, requirePrincipal } from '../../src/domain/auth/rules.ts';
import type { Principal } from '../../src/domain/auth/principal.ts';
import { DomainError, type ErrorCode } from '../../src/domain/errors.ts';
import type { GraphQLContext } from '../../src/graphql/context.ts';
import { run } from './execute.ts';
import { answerError, type ErrorLog } from './face-errors.ts';
import { json, readJsonBody, type RouteTable } from './http.ts';

export type RouteFace = 'v1' | 'v2' | 'oauth' | 'bank';

/** The kinds of resource a path's `{id}` names. */
export type PathIdKind = 'invoice' | 'transaction' | 'cashReceipt';

/** What a route answers on success: its status, the envelope's code where the face has several, and the body's schema. */
export interface Success {
  status: number;
  description: string;
  schema: z.ZodType;
  /** The envelope's success code (v1 OK, CREATED, DELETED; v2 10001); none for the OAuth and bank bodies. */
  code?: string;
  /** A second success status with the same body (bank notifications: 200 for a repeat). */
  alsoStatus?: { status: number; description: string };
}

/** What the document says about a route. */
export interface RouteDoc {
  method: 'get' | 'post' | 'patch' | 'delete';
  /** OpenAPI path template; the router matches it too. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  face: RouteFace;
  /** The kind of id in `{id}`, if the path has one. */
  pathId?: PathIdKind;
  /** Query parameters: an object schema, one parameter per key (required as the schema says). */
  query?: z.ZodObject;
  body?: { schema: z.ZodType; required: boolean; form?: boolean };
  /** Permission: a write needs a writable credential (READ_ONLY_KEY otherwise). */
  write?: boolean;
  ok: Success;
  /** Domain codes this route can answer with (rendered through ERROR_TABLE for v1/v2). */
  errorCodes: readonly ErrorCode[];
}

export interface FaceContext extends GraphQLContext {
  maxBodyBytes: number;
}

/** One call of a route: the checked path id, the request's URL and parsed JSON body, the caller. */
export interface Call<C extends FaceContext = FaceContext> {
  ctx: C;
  id: string;
  url: URL;
  body: unknown;
  principal: Principal;
  /** A query-string value, or undefined when absent. */
  query(name: string): string | undefined;
}

/** What a route renders: the envelope's `data` (absent: an envelope of only the code) and a list's `totalItems`. */
export interface Rendered {
  data?: unknown;
  totalItems?: number;
}

/** A route of a face that runs a GraphQL operation (src/graphql, through the same schema and context). */
export interface GraphQLRoute<C extends FaceContext = FaceContext, R = any> extends RouteDoc {
  operation: string;
  variables(call: Call<C>): Record<string, unknown>;
  render(result: R, call: Call<C>): Rendered;
}

/** How a face reads a path id, wraps a success and answers an error. */
export interface FaceConfig<C extends FaceContext> {
  face: 'v1' | 'v2';
  /** The path id, or the face's error when it cannot name a resource of `kind`. */
  pathId(raw: string, kind: PathIdKind): string;
  /** The `data` a v2 error carries. */
  errorData?(e: DomainError, ctx: C): unknown;
}

/** REST calls need an API key or OAuth token (dashboard tokens are refused); writes need a writable key. */
function principalFor(ctx: FaceContext, write: boolean): Principal {
  const p = requirePrincipal(ctx.principal);
  assertNotSession(p);
  if (write) assertCanWrite(p);
  return p;
}

/** The request handler of a face: route by its table, check the caller, the id and the body, run, answer in the envelope. */
export function faceHandler<C extends FaceContext>(table: RouteTable<GraphQLRoute<C>>, config: FaceConfig<C>) {
  return async (request: Request, ctx: C, log: ErrorLog): Promise<Response> => {
    const url = new URL(request.url);
    try {
      const match = table.match(request.method, url.pathname);
      if (match === null) throw new DomainError('ROUTE_NOT_FOUND');
      if (match === 'METHOD_NOT_ALLOWED') throw new DomainError('METHOD_NOT_ALLOWED');
      const { route, params } = match;
      const principal = principalFor(ctx, route.write === true);
      const id = route.pathId ? config.pathId(params.id, route.pathId) : '';
      let body: unknown;
      if (route.body) {
        body = await readJsonBody(request, ctx.maxBodyBytes);
        if (body === undefined && route.body.required) throw new DomainError('BAD_REQUEST', { message: 'A JSON body is required.' });
      }
      const call: Call<C> = { ctx, id, url, body, principal, query: (name) => url.searchParams.get(name) ?? undefined };
      const result = await run(ctx, route.operation, route.variables(call));
      return json(route.ok.status, { code: route.ok.code, ...route.render(result, call) });
    } catch (e) {
      return answerError(config.face, e, log, config.errorData ? { v2Data: (d) => config.errorData!(d, ctx) } : {});
    }
  };
}
