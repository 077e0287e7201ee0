/**
 * A Pothos plugin that refuses, before any field's resolver runs, what coercion lets through and the domain does not:
 * text the database cannot store (U+0000, lone surrogates) and a refused DateTime. Each is VALIDATION_FAILED at its
 * argument; inside the errors plugin, so a mutation with a result union returns it in-band.
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
