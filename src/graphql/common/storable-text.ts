/**
 * A Pothos plugin that refuses, on every field with arguments (queries, mutations, subscriptions and nested fields),
 * text the database cannot store: a string argument (or a key or string inside a JSON argument) holding U+0000 or a
 * lone surrogate becomes VALIDATION_FAILED at that argument, before the resolver runs. Without it such text reached
 * PostgreSQL and came back as an internal error. It sits inside the errors plugin, so a mutation with a result union
 * returns the refusal in-band like its other validation errors, and REST v1/v2 and /api (which run the same schema)
 * render it in their own envelopes. Like a variable that does not coerce, it is judged before the field runs (so before
 * the resolver's own authentication); the REST faces authenticate before they run an operation.
 */
import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from '@pothos/core';
import type { GraphQLFieldResolver } from 'graphql';
import { assertStorableText } from '../../domain/request-schema.ts';

export class StorableTextPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override wrapResolve(resolver: GraphQLFieldResolver<unknown, Types['Context'], object>, fieldConfig: PothosOutputFieldConfig<Types>): GraphQLFieldResolver<unknown, Types['Context'], object> {
    if (Object.keys(fieldConfig.args).length === 0) return resolver;
    return (parent, args, context, info) => {
      assertStorableText(args);
      return resolver(parent, args, context, info);
    };
  }

  override wrapSubscribe(
    subscribe: GraphQLFieldResolver<unknown, Types['Context'], object> | undefined,
    fieldConfig: PothosOutputFieldConfig<Types>,
  ): GraphQLFieldResolver<unknown, Types['Context'], object> | undefined {
    if (!subscribe || Object.keys(fieldConfig.args).length === 0) return subscribe;
    return (parent, args, context, info) => {
      assertStorableText(args);
      return subscribe(parent, args, context, info);
    };
  }
}

declare global {
  export namespace PothosSchemaTypes {
    interface Plugins<Types extends SchemaTypes> {
      storableText: StorableTextPlugin<Types>;
    }
  }
}

SchemaBuilder.registerPlugin('storableText', StorableTextPlugin);

export default 'storableText' as const;
