/** Workspace settings (dashboard): whether buyers get a "payment received" e-mail on a deposit match. */
import type { Principal } from '../auth/principal.ts';
import { requireSession } from '../auth/rules.ts';
import type { Deps } from '../deps.ts';
import { clampedSize } from '../paging.ts';

export async function updateWorkspaceSettings(deps: Deps, principal: Principal | null, input: { paidEmailEnabled?: boolean | null }) {
  const p = requireSession(principal);
  return deps.prisma.workspace.update({
    where: { id: p.workspaceId },
    data: { ...(typeof input.paidEmailEnabled === 'boolean' ? { paidEmailEnabled: input.paidEmailEnabled } : {}), updatedAt: deps.clock.now() },
  });
}

/** E-mails of the workspace, newest first (the local outbox when no SMTP is configured). */
export async function listEmails(deps: Deps, principal: Principal | null, first: number | null | undefined) {
  const p = requireSession(principal);
  return deps.prisma.emailMessage.findMany({ where: { workspaceId: p.workspaceId }, orderBy: { createdAt: 'desc' }, take: clampedSize(first, 50) });
}
