/**
 * Runs a GraphQL operation for a REST face through the same schema and context as /graphql; its errors become what they
 * stand for (operationErrorOf): a DomainError, BAD_REQUEST for a variable that does not coerce, else an internal error.
 */
import { execute, parse, validate, type DocumentNode, type ExecutionResult } from 'graphql';
import { isDomainError } from '../../src/domain/errors.ts';
import type { GraphQLContext } from '../../src/graphql/context.ts';
import { schema } from '../../src/graphql/schema.ts';
import { inBandDomainError, operationErrorOf } from '../../src/graphql/common/errors.ts';

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

/** Executes and returns `data`; throws the first DomainError behind its errors (in-band ones too), else an internal error. */
export async function run<T = Record<string, unknown>>(ctx: GraphQLContext, source: string, variables: Record<string, unknown>): Promise<T> {
  const result = (await execute({ schema, document: operation(source), contextValue: ctx, variableValues: variables })) as ExecutionResult;
  if (result.errors?.length) {
    const causes = result.errors.map(operationErrorOf);
    throw causes.find(isDomainError) ?? new InternalOperationError(causes);
  }
  const refused = inBandDomainError(result.data as Record<string, unknown> | null);
  if (refused) throw refused;
  return result.data as T;
}
