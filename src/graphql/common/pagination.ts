/** Offset pages (REST parity) and Relay connections over id lists the domain computes. */
import { queryFromInfo } from '@pothos/plugin-prisma';
import type { GraphQLResolveInfo } from 'graphql';
import { DomainError } from '../../domain/errors.ts';
import { MAX_PAGE_SIZE } from '../../domain/paging.ts';
import type { GraphQLContext } from '../context.ts';
import { builder } from '../builder.ts';

/** Orders rows as `ids` lists them. */
export function inIdOrder<T extends { id: string }>(ids: string[], rows: T[]): T[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => byId.get(id)).filter((r): r is T => r !== undefined);
}

/** The Prisma selection for the objects at `path` of the current field (one query for the whole list). */
export function selectionAt(ctx: GraphQLContext, info: GraphQLResolveInfo, path: string[]): Record<string, unknown> {
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

export interface ConnectionArgs {
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

export function encodeCursor(offset: number): string {
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

export function buildConnection<T>(nodes: T[], offset: number, total: number) {
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

export const connectionArgsDoc = 'Relay pagination: first (1-100, default 20) and after, or last and before.';

export { builder };
