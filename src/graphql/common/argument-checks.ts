/**
 * A Pothos plugin that checks, on every field with arguments (queries, mutations, subscriptions and nested fields),
 * what GraphQL's own coercion lets through and the domain refuses, before the resolver (or subscribe) runs:
 *  - text the database cannot store: a string argument (or a key or string inside a JSON argument) holding U+0000 or
 *    a lone surrogate (src/domain/request-schema.ts). Without it such text reached PostgreSQL and came back as an
 *    internal error;
 *  - a DateTime the domain's timestamp rule refuses (./date-time.ts: the scalar marks it, the check names its path).
 * Each becomes VALIDATION_FAILED at that argument. The plugin sits inside the errors plugin, so a mutation with a result
 * union returns the refusal in-band like its other validation errors, and REST v1/v2 and /api (which run the same
 * schema) render it in their own envelopes. Like a variable that does not coerce, it is judged before the field runs
 * (so before the resolver's own authentication); the REST faces authenticate before they run an operation.
 */
import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from '@pothos/core';
import type { GraphQLFieldResolver, GraphQLResolveInfo } from 'graphql';
import { assertStorableText } from '../../domain/request-schema.ts';
import { assertDateTimeArgs } from './date-time.ts';

/** The checks, in order: the first that throws decides. */
const CHECKS: ((args: Record<string, unknown>, info: GraphQLResolveInfo) => void)[] = [(args) => assertStorableText(args), assertDateTimeArgs];

function checkArguments(args: object, info: GraphQLResolveInfo): void {
  for (const check of CHECKS) check(args as Record<string, unknown>, info);
}

export class ArgumentChecksPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override wrapResolve(resolver: GraphQLFieldResolver<unknown, Types['Context'], object>, fieldConfig: PothosOutputFieldConfig<Types>): GraphQLFieldResolver<unknown, Types['Context'], object> {
    if (Object.keys(fieldConfig.args).length === 0) return resolver;
    return (parent, args, context, info) => {
      checkArguments(args, info);
      return resolver(parent, args, context, info);
    };
  }

  override wrapSubscribe(
    subscribe: GraphQLFieldResolver<unknown, Types['Context'], object> | undefined,
    fieldConfig: PothosOutputFieldConfig<Types>,
  ): GraphQLFieldResolver<unknown, Types['Context'], object> | undefined {
    if (!subscribe || Object.keys(fieldConfig.args).length === 0) return subscribe;
    return (parent, args, context, info) => {
      checkArguments(args, info);
      return subscribe(parent, args, context, info);
    };
  }
}

declare global {
  export namespace PothosSchemaTypes {
    interface Plugins<Types extends SchemaTypes> {
      argumentChecks: ArgumentChecksPlugin<Types>;
    }
  }
}

SchemaBuilder.registerPlugin('argumentChecks', ArgumentChecksPlugin);

export default 'argumentChecks' as const;
