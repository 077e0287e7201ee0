/**
 * Rendering errors for GraphQL: a DomainError becomes a GraphQLError whose `extensions.code` is the domain code (with
 * `data` and the field `path` where there are any); anything else is masked and logged with the request id.
 */
import { GraphQLError } from 'graphql';
import { DomainError, ERROR_TABLE, isErrorCode, publicCode } from '../../domain/errors.ts';
import { dateTimeRefusalError, isDatabaseUnavailable } from '../../domain/prisma-errors.ts';

/** The DomainError behind a GraphQL error, if any (a database's refusal of a date/time is VALIDATION_FAILED). */
export function domainErrorOf(error: unknown): DomainError | null {
  let e: unknown = error;
  for (let i = 0; i < 5 && e; i++) {
    if (e instanceof DomainError) return e;
    e = (e as { originalError?: unknown }).originalError;
  }
  return dateTimeRefusalError(error);
}

export function toGraphQLError(e: DomainError, source?: GraphQLError): GraphQLError {
  return new GraphQLError(e.message, {
    nodes: source?.nodes,
    source: source?.source,
    positions: source?.positions,
    path: source?.path,
    originalError: e,
    // GraphQL shows the public code (another workspace's resource reads as missing); the REST faces read
    // originalError, the domain's own code.
    extensions: {
      code: publicCode(e.code),
      ...(e.data ? { data: e.data } : {}),
      ...(e.path ? { field: e.path } : {}),
      http: { status: ERROR_TABLE[publicCode(e.code)].v1.status },
    },
  });
}

/** Yoga's maskError: domain errors pass with their code; GraphQL's own errors pass; the rest is masked. */
export function maskError(error: unknown, message: string, log?: (e: unknown) => void): Error {
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
    log?.(original);
    return new GraphQLError(message, {
      nodes: error.nodes,
      source: error.source,
      positions: error.positions,
      path: error.path,
      extensions: { code: 'INTERNAL_SERVER_ERROR' },
    });
  }
  // A stack overflow that no resolver raised (resolver errors arrive wrapped, with a path) comes from reading the
  // request: a document nested beyond what the parser's recursion can hold. The caller's document is at fault.
  if (error instanceof RangeError && /call stack/i.test(error.message)) {
    return new GraphQLError('The document is nested too deeply.', { extensions: { code: 'GRAPHQL_PARSE_FAILED' } });
  }
  // JSON that does not parse, thrown (unwrapped) while reading the request: a GET's `variables` or `extensions`
  // parameter that is not JSON. The request is wrong; the parser's message (it quotes the input) is not passed on.
  if (error instanceof SyntaxError) {
    return new GraphQLError('The request parameters (variables, extensions) are not valid JSON.', { extensions: { code: 'BAD_REQUEST', http: { status: 400 } } });
  }
  log?.(error);
  return new GraphQLError(message, { extensions: { code: 'INTERNAL_SERVER_ERROR' } });
}

/** The code of a GraphQL refusal that came without one: a request refused over HTTP, a document that does not parse or is refused. */
function fallbackCode(error: GraphQLError): string {
  const status = (error.extensions?.http as { status?: number } | undefined)?.status;
  if (status && status >= 400 && status < 500) return 'BAD_REQUEST';
  return error.message.startsWith('Syntax Error') ? 'GRAPHQL_PARSE_FAILED' : 'GRAPHQL_VALIDATION_FAILED';
}
