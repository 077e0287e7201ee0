/** The context every GraphQL execution gets (HTTP, WebSocket, SSE and the REST faces alike). */
import type { Principal } from '../domain/auth/principal.ts';
import type { Deps } from '../domain/deps.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { EventBus } from '../events/event-bus.ts';

export interface GraphQLContext {
  deps: Deps;
  prisma: PrismaClient;
  principal: Principal | null;
  requestId: string;
  /** Live events for subscriptions. */
  bus: EventBus;
  /** Set by the REST faces: in-band errors carry the domain's own codes, not the public GraphQL ones. */
  domainCodes?: boolean;
}

/** The context of one operation run for `principal` (null: no credential, or one that does not authenticate). */
export function operationContext(deps: Deps, bus: EventBus, principal: Principal | null, requestId: string): GraphQLContext {
  return { deps, prisma: deps.prisma, principal, requestId, bus };
}
