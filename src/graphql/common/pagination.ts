/** Offset pages (REST parity) and Relay connections over id lists the domain computes. */
import type { InputObjectRef, ObjectRef } from '@pothos/core';
import { queryFromInfo } from '@pothos/plugin-prisma';
import type { GraphQLResolveInfo } from 'graphql';
import { DomainError } from '../../domain/errors.ts';
import { MAX_PAGE_SIZE } from '../../domain/paging.ts';
import type { GraphQLContext } from '../context.ts';
import { builder } from '../builder.ts';

/** Orders rows as `ids` lists them. */
function inIdOrder<T extends { id: string }>(ids: string[], rows: T[]): T[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => byId.get(id)).filter((r): r is T => r !== undefined);
}

/** The Prisma selection for the objects at `path` of the current field (one query for the whole list). */
function selectionAt(ctx: GraphQLContext, info: GraphQLResolveInfo, path: string[]): Record<string, unknown> {
  return queryFromInfo({ context: ctx, info, path }) as Record<string, unknown>;
}

/**
 * Whether a Prisma selection from plugin-prisma asks for relations. A mutation payload already holds the full row it
 * wrote; it only needs to read again when relations (deposits, history, ...) were asked for.
 */
export function selectsRelations(query: { include?: Record<string, unknown>; select?: Record<string, unknown> }): boolean {
  if (query.include && Object.keys(query.include).length > 0) return true;
  if (query.select) return Object.values(query.select).some((v) => v !== true && v !== false);
  return false;
}

interface ConnectionArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

const CURSOR_PREFIX = 'offset:';

function decodeCursor(cursor: string): number {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const n = Number(text.slice(CURSOR_PREFIX.length));
  if (!text.startsWith(CURSOR_PREFIX) || !Number.isSafeInteger(n) || n < 0) {
    throw new DomainError('VALIDATION_FAILED', { message: 'Invalid cursor.', path: ['after'] });
  }
  return n;
}

function encodeCursor(offset: number): string {
  return Buffer.from(CURSOR_PREFIX + offset, 'utf8').toString('base64url');
}

/** Turns Relay arguments into an offset window (forward pagination; `last`/`before` page backwards). */
export function connectionWindow(args: ConnectionArgs, defaultSize = 20): { offset: number; limit: number } {
  if (args.first != null && args.last != null) throw new DomainError('VALIDATION_FAILED', { message: 'Use first or last, not both.' });
  const size = args.first ?? args.last ?? defaultSize;
  if (!Number.isInteger(size) || size < 0) throw new DomainError('INVALID_LIMIT');
  if (size > MAX_PAGE_SIZE) throw new DomainError('LIMIT_EXCEEDS_MAXIMUM');
  if (args.last != null) {
    const end = args.before ? decodeCursor(args.before) : null;
    if (end === null) throw new DomainError('VALIDATION_FAILED', { message: 'last needs before.', path: ['before'] });
    const offset = Math.max(0, end - size);
    return { offset, limit: end - offset };
  }
  const offset = args.after ? decodeCursor(args.after) + 1 : 0;
  return { offset, limit: size };
}

function buildConnection<T>(nodes: T[], offset: number, total: number) {
  return {
    totalCount: total,
    edges: nodes.map((node, i) => ({ cursor: encodeCursor(offset + i), node })),
    pageInfo: {
      hasPreviousPage: offset > 0,
      hasNextPage: offset + nodes.length < total,
      startCursor: nodes.length ? encodeCursor(offset) : null,
      endCursor: nodes.length ? encodeCursor(offset + nodes.length - 1) : null,
    },
  };
}

type Types = typeof builder.$inferSchemaTypes;

/** The ids of one page, filtered, scoped and ordered by the domain, and how many items match. */
export interface IdPage {
  ids: string[];
  total: number;
}

/** One list of the API: its item type, its filter, its domain read and one findMany; the texts are the SDL's. */
export interface IdList<Filter, Row extends { id: string }> {
  item: ObjectRef<Types, Row>;
  filter: InputObjectRef<Types, Filter>;
  listIds: (ctx: GraphQLContext, filter: Filter | null | undefined, offset: number, limit: number) => Promise<IdPage>;
  /** Reads the rows of `args.where` with the selection spread into `args` (one query for the whole page). */
  findMany: (ctx: GraphQLContext, args: { where: { id: { in: string[] } } }) => Promise<Row[]>;
  page: { type: string; typeDescription: string; totalItems: string; items: string; field: string; description: string };
  connection: { field: string; description: string; typeDescription: string; totalCount: string };
}

/** The rows of `ids` in that order, each with the selection the query asks for at `path`. */
async function loadInIdOrder<Row extends { id: string }>(findMany: IdList<unknown, Row>['findMany'], ctx: GraphQLContext, info: GraphQLResolveInfo, path: string[], ids: string[]): Promise<Row[]> {
  if (ids.length === 0) return [];
  return inIdOrder(ids, await findMany(ctx, { ...selectionAt(ctx, info, path), where: { id: { in: ids } } }));
}

/**
 * Defines a list's two query fields: an offset page (`invoicePage`, what the REST faces run; the domain checks offset
 * and limit) and a Relay connection (`invoices`), both over the domain's id list.
 */
export function defineIdList<Filter, Row extends { id: string }>(list: IdList<Filter, Row>): void {
  const Page = builder.objectRef<{ totalItems: number; ids: string[] }>(list.page.type).implement({
    description: list.page.typeDescription,
    fields: (t) => ({
      totalItems: t.exposeInt('totalItems', { description: list.page.totalItems }),
      items: t.field({ type: [list.item], description: list.page.items, resolve: (page, _a, ctx, info) => loadInIdOrder(list.findMany, ctx, info, [], page.ids) }),
    }),
  });

  builder.queryField(list.page.field, (t) =>
    t.field({
      type: Page,
      description: list.page.description,
      args: {
        offset: t.arg.int({ required: true, description: '0 or more.' }),
        limit: t.arg.int({ required: true, description: '1-100.' }),
        filter: t.arg({ type: list.filter, description: 'Filters.' }),
      },
      resolve: async (_root, args, ctx) => {
        // Pothos cannot spell the arguments of a generic input type; these are the ones declared above.
        const { filter, offset, limit } = args as unknown as { filter?: Filter | null; offset: number; limit: number };
        const { ids, total } = await list.listIds(ctx, filter, offset, limit);
        return { totalItems: total, ids };
      },
    }),
  );

  builder.queryField(list.connection.field, (t) =>
    t.connection(
      {
        type: list.item,
        description: list.connection.description,
        args: { filter: t.arg({ type: list.filter, description: 'Filters.' }) },
        resolve: async (_root, args, ctx, info) => {
          const { filter, ...window } = args as unknown as ConnectionArgs & { filter?: Filter | null };
          const { offset, limit } = connectionWindow(window);
          // The domain's limit is 1-100: a `first: 0` page still asks for one id (for the total) and returns no node.
          const { ids, total } = await list.listIds(ctx, filter, offset, Math.max(limit, 1));
          const nodes = limit === 0 ? [] : await loadInIdOrder(list.findMany, ctx, info, ['edges', 'node'], ids);
          return buildConnection(nodes, offset, total);
        },
      },
      {
        description: list.connection.typeDescription,
        fields: (c) => ({ totalCount: c.int({ description: list.connection.totalCount, resolve: (conn) => (conn as unknown as { totalCount: number }).totalCount }) }),
      },
    ),
  );
}
