/**
 * The dashboard's typed GraphQL: documents written with `graphql()` are checked against schema/schema.graphql (its
 * introspection in graphql-env.d.ts, written by `npm run schema:write`) when the dashboard is type-checked
 * (`npm run typecheck`), and their results are typed from it: no hand-written response types.
 */
import { initGraphQLTada } from 'gql.tada';
import type { introspection } from './graphql-env.d.ts';

export const graphql = initGraphQLTada<{
  introspection: introspection;
  scalars: { DateTime: string; JSON: unknown };
}>();

export type { FragmentOf, ResultOf, VariablesOf } from 'gql.tada';
