/**
 * Errors for GraphQL: a DomainError becomes a GraphQLError rendered by graphQLErrorBody; anything else is masked.
 * Masking does not log: the faces log each error of a result (face-errors.ts), a masked one's cause via maskedCause.
 */
import { GraphQLError, type ExecutionResult } from 'graphql';
import { DomainError, graphQLErrorBody, isErrorCode } from '../../domain/errors.ts';
import { dateTimeRefusalError, isDatabaseUnavailable } from '../../domain/prisma-errors.ts';

/** The error behind each masked INTERNAL_SERVER_ERROR, for the log (the caller sees only the mask). */
const MASKED_CAUSES = new WeakMap<GraphQLError, unknown>();

/** The unexpected error a masked GraphQL error stands for (undefined for any other error). */
export function maskedCause(error: GraphQLError): unknown {
  return MASKED_CAUSES.get(error);
}

/** The DomainError behind a GraphQL error, if any (a database's refusal of a date/time is VALIDATION_FAILED). */
export function domainErrorOf(error: unknown): DomainError | null {
  let e: unknown = error;
  for (let i = 0; i < 5 && e; i++) {
    if (e instanceof DomainError) return e;
    e = (e as { originalError?: unknown }).originalError;
  }
  return dateTimeRefusalError(error);
}

/**
 * A DomainError as a GraphQLError, rendered by graphQLErrorBody (another workspace's resource reads as a missing one);
 * the REST faces read originalError, the domain's own code.
 */
export function toGraphQLError(e: DomainError, source?: GraphQLError): GraphQLError {
  const { status, body } = graphQLErrorBody(e);
  return new GraphQLError(body.message, {
    nodes: source?.nodes,
    source: source?.source,
    positions: source?.positions,
    path: source?.path,
    originalError: e,
    extensions: { ...body.extensions, http: { status } },
  });
}

/**
 * What one error of an operation's result stands for: the DomainError behind it; BAD_REQUEST for GraphQL's refusal of
 * the request itself (no path, no cause of its own: a variable that does not coerce); else the unexpected error behind it.
 */
export function operationErrorOf(error: unknown): unknown {
  const domain = domainErrorOf(error);
  if (domain) return domain;
  if (!(error instanceof GraphQLError)) return error;
  if (!error.path && (!error.originalError || error.originalError instanceof GraphQLError)) return new DomainError('BAD_REQUEST', { message: error.message });
  return error.originalError ?? error;
}

/** A refusal a result-union mutation returned in-band (a DomainError member), turned back into the DomainError it was. */
export function inBandDomainError(data: Record<string, unknown> | null | undefined): DomainError | null {
  for (const value of Object.values(data ?? {})) {
    // With __typename (the REST faces select it) or without (sofa selects the members' fields only: the DomainError is
    // the member with a domain code and a message).
    const v = value as { __typename?: string; code?: unknown; message?: unknown; field?: string[] | null; data?: Record<string, unknown> | null } | null;
    if (!v || typeof v !== 'object' || (v.__typename !== undefined && v.__typename !== 'DomainError')) continue;
    if (isErrorCode(v.code) && typeof v.message === 'string') return new DomainError(v.code, { message: v.message, path: v.field ?? undefined, data: v.data ?? null });
  }
  return null;
}

/** A result whose field returned a refusal in-band, as the GraphQL error it stands for (the result as it is otherwise). */
export function inBandAsError(result: ExecutionResult): ExecutionResult {
  if (result.errors?.length || !result.data) return result;
  const refused = inBandDomainError(result.data);
  return refused ? { errors: [toGraphQLError(refused)] } : result;
}

/** A masked error: the caller sees INTERNAL_SERVER_ERROR and `message`; the cause is kept for the log (maskedCause). */
function masked(message: string, cause: unknown, source?: GraphQLError): GraphQLError {
  const e = new GraphQLError(message, { nodes: source?.nodes, source: source?.source, positions: source?.positions, path: source?.path, extensions: { code: 'INTERNAL_SERVER_ERROR' } });
  MASKED_CAUSES.set(e, cause);
  return e;
}

/** Yoga's maskError: domain errors pass with their code; GraphQL's own errors pass; the rest is masked. */
export function maskError(error: unknown, message: string): Error {
  const domain = domainErrorOf(error);
  if (domain) return toGraphQLError(domain, error instanceof GraphQLError ? error : undefined);
  if (isDatabaseUnavailable(error)) {
    const source = error instanceof GraphQLError ? error : undefined;
    return toGraphQLError(new DomainError('SERVICE_UNAVAILABLE'), source);
  }
  if (error instanceof GraphQLError) {
    const original = error.originalError;
    if (!original || original instanceof GraphQLError) {
      const code = error.extensions?.code;
      if (isErrorCode(code) || typeof code === 'string') return error;
      // GraphQL's and the plugins' own refusals without a code (document limits, CSRF prevention): give them one, so
      // every error a client sees carries extensions.code.
      return new GraphQLError(error.message, {
        nodes: error.nodes,
        source: error.source,
        positions: error.positions,
        path: error.path,
        originalError: original,
        extensions: { ...error.extensions, code: fallbackCode(error) },
      });
    }
    return masked(message, original, error);
  }
  // A stack overflow that no resolver raised (resolver errors arrive wrapped, with a path) comes from reading the
  // request: a document nested beyond what the parser's recursion can hold. The caller's document is at fault.
  if (error instanceof RangeError && /call stack/i.test(error.message)) {
    return new GraphQLError('The document is nested too deeply.', { extensions: { code: 'GRAPHQL_PARSE_FAILED' } });
  }
  // JSON that does not parse, thrown (unwrapped) while reading the request: a GET's `variables` or `extensions`
  // parameter that is not JSON. The request is wrong; the parser's message (it quotes the input) is not passed on.
  if (error instanceof SyntaxError) {
    return toGraphQLError(new DomainError('BAD_REQUEST', { message: 'The request parameters (variables, extensions) are not valid JSON.' }));
  }
  return masked(message, error);
}

/** The code of a GraphQL refusal that came without one: a request refused over HTTP, a document that does not parse or is refused. */
function fallbackCode(error: GraphQLError): string {
  const status = (error.extensions?.http as { status?: number } | undefined)?.status;
  if (status && status >= 400 && status < 500) return 'BAD_REQUEST';
  return error.message.startsWith('Syntax Error') ? 'GRAPHQL_PARSE_FAILED' : 'GRAPHQL_VALIDATION_FAILED';
}
