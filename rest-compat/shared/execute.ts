/**
 * Runs a GraphQL operation for a REST face through the same schema and context as /graphql, and turns its errors
 * back into DomainErrors: a domain error keeps its code; a variable that GraphQL could not coerce is BAD_REQUEST
 * (the spec's "enum value outside the list"); anything else is an internal error.
 */
import { execute, GraphQLError, parse, validate, type DocumentNode, type ExecutionResult } from 'graphql';
import { DomainError } from '../../src/domain/errors.ts';
import type { GraphQLContext } from '../../src/graphql/context.ts';
import { schema } from '../../src/graphql/schema.ts';
import { domainErrorOf, inBandDomainError } from '../../src/graphql/common/errors.ts';

const cache = new Map<string, DocumentNode>();

/** Parses and validates an operation once; a REST route's document is fixed, so this happens at first use. */
export function operation(source: string): DocumentNode {
  let doc = cache.get(source);
  if (!doc) {
    doc = parse(source);
    const errors = validate(schema, doc);
    if (errors.length) throw new Error(`REST operation does not validate: ${errors.map((e) => e.message).join('; ')}`);
    cache.set(source, doc);
  }
  return doc;
}

export class InternalOperationError extends Error {
  constructor(readonly causes: readonly unknown[]) {
    // The first cause as `cause`: the log shows where it was thrown (its stack), not only this wrapper's.
    super('GraphQL operation failed: ' + causes.map((c) => (c as Error)?.message).join('; '), { cause: causes[0] });
  }
}

/** The selection a REST document adds to a mutation returning a result union, so refusals come back as DomainErrors. */
export const ON_ERROR = '__typename ... on DomainError { code message field data }';

/** Executes and returns `data`, or throws the DomainError (or BAD_REQUEST / internal error) behind the first error. */
export async function run<T = Record<string, unknown>>(ctx: GraphQLContext, source: string, variables: Record<string, unknown>): Promise<T> {
  const result = (await execute({ schema, document: operation(source), contextValue: ctx, variableValues: variables })) as ExecutionResult;
  if (result.errors?.length) {
    for (const e of result.errors) {
      const d = domainErrorOf(e);
      if (d) throw d;
    }
    const first = result.errors[0];
    // An error without a path stopped the operation before it ran: a variable that does not coerce (an enum value
    // outside the list, a scalar that refuses its value) is the caller's, whatever GraphQL attached as its cause.
    if (!first.path && (!first.originalError || first.originalError instanceof GraphQLError)) throw new DomainError('BAD_REQUEST', { message: first.message });
    const code = first.extensions?.code;
    if (code === 'UNAUTHENTICATED' || code === 'DASHBOARD_ONLY') throw new DomainError(code);
    throw new InternalOperationError(result.errors.map((e) => e.originalError ?? e));
  }
  const refused = inBandDomainError(result.data as Record<string, unknown> | null);
  if (refused) throw refused;
  return result.data as T;
}
