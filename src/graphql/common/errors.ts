/**
 * Rendering errors for GraphQL: a DomainError becomes a GraphQLError whose `extensions.code` is the domain code (with
 * `data` and the field `path` where there are any); anything else is masked and logged with the request id.
 */
import { GraphQLError } from 'graphql';
import { DomainError, ERROR_TABLE, isErrorCode } from '../../domain/errors.ts';
import { isDatabaseUnavailable } from '../../domain/prisma-errors.ts';

/** The DomainError behind a GraphQL error, if any. */
export function domainErrorOf(error: unknown): DomainError | null {
  let e: unknown = error;
  for (let i = 0; i < 5 && e; i++) {
    if (e instanceof DomainError) return e;
    e = (e as { originalError?: unknown }).originalError;
  }
  return null;
}

export function toGraphQLError(e: DomainError, source?: GraphQLError): GraphQLError {
  return new GraphQLError(e.message, {
    nodes: source?.nodes,
    source: source?.source,
    positions: source?.positions,
    path: source?.path,
    originalError: e,
    extensions: {
      code: e.code,
      ...(e.data ? { data: e.data } : {}),
      ...(e.path ? { field: e.path } : {}),
      http: { status: ERROR_TABLE[e.code].v1.status },
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
      return error;
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
  log?.(error);
  return new GraphQLError(message, { extensions: { code: 'INTERNAL_SERVER_ERROR' } });
}
