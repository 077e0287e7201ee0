/** The Pothos schema builder: Prisma-backed objects, Relay connections, scope auth, dataloaders. */
import SchemaBuilder from '@pothos/core';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import ErrorsPlugin from '@pothos/plugin-errors';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import { GraphQLError, Kind, type ValueNode } from 'graphql';
import type PrismaTypes from '../generated/pothos-types.ts';
import { getDatamodel } from '../generated/pothos-types.ts';
import type { GraphQLContext } from './context.ts';
import { DomainError } from '../domain/errors.ts';
import { toGraphQLError } from './common/errors.ts';
import ArgumentChecksPlugin from './common/argument-checks.ts';
import { parseDateTimeInput } from './common/date-time.ts';

export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  PrismaTypes: PrismaTypes;
  DefaultFieldNullability: false;
  DefaultInputFieldRequiredness: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
    ID: { Input: string; Output: string };
  };
  AuthScopes: { authenticated: boolean; dashboard: boolean };
}>({
  // Order matters: scope auth wraps everything (401/403 first); argument checks sit inside the errors plugin (in-band refusals).
  plugins: [ScopeAuthPlugin, ErrorsPlugin, ArgumentChecksPlugin, PrismaPlugin, RelayPlugin, DataloaderPlugin],
  errors: { directResult: true, defaultUnionOptions: { description: 'The result of the operation: its payload, or a DomainError saying why it was refused.' } },
  defaultFieldNullability: false,
  scopeAuth: {
    authScopes: (ctx) => ({
      authenticated: ctx.principal !== null,
      dashboard: ctx.principal?.kind === 'SESSION',
    }),
    // The same refusal as the domain's (requireSession / requirePrincipal): a DomainError under the GraphQL error, so
    // every face renders it alike (HTTP 401/403 on /graphql, the domain code on /api and the REST faces).
    unauthorizedError: (_parent, ctx) =>
      toGraphQLError(
        ctx.principal
          ? new DomainError('DASHBOARD_ONLY')
          : new DomainError('UNAUTHENTICATED', { message: 'Authentication required: send Authorization: Bearer <API key or token>.' }),
      ),
  },
  prisma: {
    client: (ctx) => ctx.prisma,
    dmmf: getDatamodel(),
    filterConnectionTotalCount: true,
    exposeDescriptions: false,
    onUnusedQuery: null,
    maxConnectionSize: 100,
    defaultConnectionSize: 20,
  },
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    nodeQueryOptions: false,
    nodesQueryOptions: false,
    pageInfoTypeOptions: { description: 'Where a page sits in the whole list.' },
    hasNextPageFieldOptions: { description: 'Whether more items follow.' },
    hasPreviousPageFieldOptions: { description: 'Whether items precede.' },
    startCursorFieldOptions: { description: 'Cursor of the first item of the page.' },
    endCursorFieldOptions: { description: 'Cursor of the last item of the page; pass it as `after` for the next page.' },
    pageInfoFieldOptions: { description: 'Position of this page.' },
    edgesFieldOptions: { description: 'The items of this page with their cursors.' },
    nodeFieldOptions: { description: 'The item.' },
    cursorFieldOptions: { description: 'Opaque cursor of this item.' },
    beforeArgOptions: { description: 'Items before this cursor (with last).' },
    afterArgOptions: { description: 'Items after this cursor (with first).' },
    firstArgOptions: { description: 'How many items from the start (1-100, default 20).' },
    lastArgOptions: { description: 'How many items before `before` (1-100).' },
    defaultEdgeTypeOptions: { description: 'An item of a connection and its cursor.' },
  },
});

builder.scalarType('DateTime', {
  description:
    'An instant as an ISO 8601 string in UTC with milliseconds, e.g. 2026-11-21T10:00:00.000Z. As input: `YYYY-MM-DDTHH:MM[:SS[.fraction]]` with `Z` or an offset `±HH:MM` (within ±23:59), a real calendar date and time, between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z; any other string is VALIDATION_FAILED at its argument.',
  serialize: (v) => (v instanceof Date ? v.toISOString() : new Date(v).toISOString()),
  parseValue: parseDateTimeInput,
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING) throw new GraphQLError('DateTime must be a string.');
    return parseDateTimeInput(ast.value);
  },
});

function literalToJson(ast: ValueNode, variables?: Record<string, unknown> | null): unknown {
  switch (ast.kind) {
    case Kind.STRING:
    case Kind.BOOLEAN:
      return ast.value;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(ast.value);
    case Kind.NULL:
      return null;
    case Kind.LIST:
      return ast.values.map((v) => literalToJson(v, variables));
    case Kind.OBJECT: {
      const out: Record<string, unknown> = {};
      for (const f of ast.fields) Object.defineProperty(out, f.name.value, { value: literalToJson(f.value, variables), enumerable: true, writable: true, configurable: true });
      return out;
    }
    case Kind.VARIABLE:
      return variables?.[ast.name.value];
    default:
      throw new GraphQLError('Unsupported JSON literal.');
  }
}

builder.scalarType('JSON', {
  description: 'Any JSON value.',
  serialize: (v) => v,
  parseValue: (v) => v,
  parseLiteral: (ast, variables) => literalToJson(ast, variables),
});

builder.queryType({ description: 'Reads. Every field needs `Authorization: Bearer <API key, OAuth token or dashboard session>`.' });
builder.mutationType({ description: 'Writes. Dashboard operations need a session token (from signUp or logIn).' });
