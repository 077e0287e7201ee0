/** The dashboard's short lists (API keys, OAuth apps, webhooks): the session's workspace's rows not deleted, newest first. */
import { requireSession } from '../../domain/auth/rules.ts';
import type { GraphQLContext } from '../context.ts';

/** `where` and `orderBy` of such a list, to spread into its findMany (DASHBOARD_ONLY without a session). */
export function liveRowsOfWorkspace(ctx: GraphQLContext) {
  const p = requireSession(ctx.principal);
  return { where: { workspaceId: p.workspaceId, deletedAt: null }, orderBy: { createdAt: 'desc' as const } };
}
