/**
 * Shop connections (README, Shop integrations): starting an install (the platform's OAuth authorization-code request,
 * bound to the connection by a state nonce whose hash alone is stored), completing it (the code exchanged for tokens,
 * sealed at once), listing and disconnecting; and every call to a shop through `callShop`, which keeps the access
 * token fresh. A refresh runs under the connection row's lock, so two instances never spend the same (single-use)
 * refresh token.
 */
import { randomBytes } from 'node:crypto';
import type { ShopConnection } from '../../generated/prisma/client.ts';
import type { Principal } from '../auth/principal.ts';
import { requirePrincipal, requireSession } from '../auth/rules.ts';
import { assertUsableReceivingAccounts } from '../bank-accounts/bank-accounts.ts';
import { inTransaction, type Deps } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { newId } from '../ids.ts';
import { decryptSecret, encryptSecret, sha256Hex } from '../secrets.ts';
import { findInWorkspace } from '../workspace-rows.ts';
import { SHOP_PLATFORMS, ShopApiError, type ShopAdapter, type ShopPlatform, type ShopSession, type ShopTokens } from './shop-port.ts';

/** How long a started install waits for the merchant's approval. */
export const INSTALL_TTL_MS = 30 * 60_000;
/** An access token this close to its expiry is refreshed before use. */
const REFRESH_MARGIN_MS = 60_000;

const sealContext = (connectionId: string, which: 'access' | 'refresh') => `shop:${connectionId}:${which}`;

function adapterFor(deps: Deps, platform: ShopPlatform): ShopAdapter {
  const adapter = deps.shops.get(platform);
  if (!adapter) throw new DomainError('SHOP_PLATFORM_NOT_CONFIGURED');
  return adapter;
}

function parsePlatform(raw: unknown): ShopPlatform {
  if (typeof raw !== 'string' || !(SHOP_PLATFORMS as readonly string[]).includes(raw)) throw new DomainError('VALIDATION_FAILED', { message: `platform must be one of ${SHOP_PLATFORMS.join(', ')}.`, path: ['platform'] });
  return raw as ShopPlatform;
}

/**
 * Shops are the whole workspace's: their orders become invoices on any receiving account. A key limited to some bank
 * accounts may not see or touch them (OUT_OF_SCOPE), as it may not see invoices outside its accounts.
 */
export function assertWholeWorkspace(p: Principal): void {
  if (p.bankAccountIds !== null) throw new DomainError('OUT_OF_SCOPE');
}

/** A connection of the principal's workspace (SHOP_CONNECTION_NOT_FOUND for a missing or foreign id). */
export async function loadShopConnectionFor(deps: Deps, p: Principal, id: unknown): Promise<ShopConnection> {
  assertWholeWorkspace(p);
  return findInWorkspace(p, 'shopConnection', id, { invalid: 'SHOP_CONNECTION_NOT_FOUND', notFound: 'SHOP_CONNECTION_NOT_FOUND', foreign: 'SHOP_CONNECTION_NOT_FOUND' }, (id) =>
    deps.prisma.shopConnection.findUnique({ where: { id } }),
  );
}

/**
 * startShopInstall: a connection INSTALLING (or a connected one being authorized again) and the URL where the
 * merchant approves the install. The state nonce is in the URL only; the row keeps its SHA-256.
 */
export async function startShopInstall(deps: Deps, principal: Principal | null, args: { platform: unknown; shopId: unknown; bankAccountIds?: readonly string[] | null }) {
  const p = requireSession(principal);
  const platform = parsePlatform(args.platform);
  const adapter = adapterFor(deps, platform);
  const shopId = typeof args.shopId === 'string' ? adapter.normalizeShopId(args.shopId) : null;
  if (!shopId) throw new DomainError('INVALID_SHOP_ID', { path: ['shopId'] });
  const bankAccountIds = [...new Set(args.bankAccountIds ?? [])];
  await assertUsableReceivingAccounts(deps.prisma, p.workspaceId, bankAccountIds);
  const state = randomBytes(32).toString('base64url');
  const now = deps.clock.now();
  const installExpiresAt = new Date(now.getTime() + INSTALL_TTL_MS);
  // One row per (workspace, platform, shop): installing the same shop again reuses it (a connected one stays
  // connected, with its tokens, until the new approval replaces them).
  const [connection] = await deps.sql.query<ShopConnection>(
    `INSERT INTO "ShopConnection" (id, "workspaceId", platform, "shopId", state, "installStateHash", "installExpiresAt", "bankAccountIds", "createdAt", "updatedAt")
     VALUES ($1, $2, $3::"ShopPlatform", $4, 'INSTALLING', $5, $6::timestamptz, $7::text[], $8::timestamptz, $8::timestamptz)
     ON CONFLICT ("workspaceId", platform, "shopId") DO UPDATE
       SET "installStateHash" = EXCLUDED."installStateHash", "installExpiresAt" = EXCLUDED."installExpiresAt", "bankAccountIds" = EXCLUDED."bankAccountIds",
           state = CASE WHEN "ShopConnection".state = 'DISCONNECTED' THEN 'INSTALLING'::"ShopConnectionState" ELSE "ShopConnection".state END,
           "updatedAt" = EXCLUDED."updatedAt"
     RETURNING *`,
    [newId('shopConnection'), p.workspaceId, platform, shopId, sha256Hex(state), installExpiresAt.toISOString(), bankAccountIds, now.toISOString()],
  );
  if (!connection) throw new Error('shop connection upsert returned nothing');
  return { connection, authorizeUrl: adapter.authorizeUrl(shopId, state), state, expiresAt: installExpiresAt };
}

/**
 * completeShopInstall: the platform sent the merchant back with `code` and `state`. The state is single-use (claimed
 * by the update that clears it); the code is exchanged for tokens, which are sealed before they are stored. With a
 * principal (GraphQL), the install must be of its workspace; the redirect endpoint has none (the nonce is the proof).
 */
export async function completeShopInstall(deps: Deps, principal: Principal | null, args: { state: unknown; code: unknown }): Promise<ShopConnection> {
  const p = principal ? requireSession(principal) : null;
  if (typeof args.state !== 'string' || typeof args.code !== 'string' || !args.state || !args.code || args.code.length > 2000 || args.state.length > 200) {
    throw new DomainError('SHOP_INSTALL_INVALID');
  }
  const now = deps.clock.now();
  const [claimed] = await deps.sql.query<ShopConnection>(
    `UPDATE "ShopConnection" SET "installStateHash" = NULL, "installExpiresAt" = NULL, "updatedAt" = $3::timestamptz
      WHERE "installStateHash" = $1 AND "installExpiresAt" > $3::timestamptz AND ($2::text IS NULL OR "workspaceId" = $2)
      RETURNING *`,
    [sha256Hex(args.state), p?.workspaceId ?? null, now.toISOString()],
  );
  if (!claimed) throw new DomainError('SHOP_INSTALL_INVALID');
  const adapter = adapterFor(deps, claimed.platform);
  let tokens: ShopTokens;
  try {
    tokens = await adapter.exchangeCode(claimed.shopId, args.code);
  } catch (e) {
    if (e instanceof ShopApiError) throw new DomainError('SHOP_API_FAILED', { data: { shop: { code: e.code, message: e.message } } });
    throw e;
  }
  return storeTokens(deps, claimed.id, tokens, { connected: true });
}

/** Seals and stores new tokens; `connected`: the install just completed (CONNECTED, a sync due now). */
async function storeTokens(deps: Deps, id: string, tokens: ShopTokens, opts: { connected: boolean }): Promise<ShopConnection> {
  const now = deps.clock.now();
  const data = {
    accessTokenSealed: encryptSecret(tokens.accessToken, deps.encryptionKey, sealContext(id, 'access')),
    accessTokenExpiresAt: tokens.accessTokenExpiresAt,
    refreshTokenSealed: tokens.refreshToken === null ? null : encryptSecret(tokens.refreshToken, deps.encryptionKey, sealContext(id, 'refresh')),
    refreshTokenExpiresAt: tokens.refreshTokenExpiresAt,
    updatedAt: now,
    ...(opts.connected
      ? { state: 'CONNECTED' as const, connectedAt: now, disconnectedAt: null, nextSyncAt: now, syncFailures: 0, lastSyncError: null }
      : {}),
  };
  const connection = await deps.prisma.shopConnection.update({ where: { id }, data });
  if (opts.connected) {
    deps.onShopSyncDue?.();
    // Confirmations that waited for the connection (a payment while it needed re-authorization) go out now, not at the
    // end of their backoff (up to an hour; and their attempts would run out while the merchant takes their time).
    const due = await deps.sql.query<{ id: string }>(
      `UPDATE "Job" j SET "runAt" = $2::timestamptz FROM "ShopOrder" o
        WHERE j.kind = 'shop.confirm' AND j.status = 'PENDING' AND j."runAt" > $2::timestamptz
          AND o.id = j.payload->>'shopOrderId' AND o."connectionId" = $1 AND o.state = 'CONFIRMING'
       RETURNING j.id`,
      [id, now.toISOString()],
    );
    if (due.length > 0) deps.onJobsQueued();
  }
  return connection;
}

/** shopConnections: the workspace's connections, newest first (any credential of the workspace may read them). */
export async function listShopConnections(deps: Deps, principal: Principal | null): Promise<ShopConnection[]> {
  const p = requirePrincipal(principal);
  assertWholeWorkspace(p);
  return deps.prisma.shopConnection.findMany({ where: { workspaceId: p.workspaceId }, orderBy: { createdAt: 'desc' } });
}

/**
 * disconnectShop: tokens erased, nothing imported or confirmed from now on (a pending confirmation fails with
 * SHOP_DISCONNECTED). Invoices and their links stay; connecting the same shop again resumes.
 */
export async function disconnectShop(deps: Deps, principal: Principal | null, id: unknown): Promise<ShopConnection> {
  const p = requireSession(principal);
  const connection = await loadShopConnectionFor(deps, p, id);
  const now = deps.clock.now();
  return deps.prisma.shopConnection.update({
    where: { id: connection.id },
    data: {
      state: 'DISCONNECTED',
      disconnectedAt: now,
      installStateHash: null,
      installExpiresAt: null,
      accessTokenSealed: null,
      accessTokenExpiresAt: null,
      refreshTokenSealed: null,
      refreshTokenExpiresAt: null,
      nextSyncAt: null,
      updatedAt: now,
    },
  });
}

const NOT_CONNECTED_TEXT: Record<string, string> = {
  NEEDS_REAUTHORIZATION: 'The shop must be installed again (startShopInstall with the same shop)',
  INSTALLING: "The shop's install has not been approved yet",
  DISCONNECTED: 'The shop is disconnected',
};

/**
 * The connection cannot call its shop now (not connected, or its tokens were refused for good). `reason`: what the
 * shop said when it refused the grant (kept in the message, so the merchant sees why on the connection and the order).
 */
export class ShopNotConnected extends Error {
  constructor(
    readonly state: string,
    readonly reason: string | null = null,
  ) {
    super(`${NOT_CONNECTED_TEXT[state] ?? `The shop connection is ${state.toLowerCase().replace(/_/g, ' ')}`}${reason ? `: ${reason}` : '.'}`);
    this.name = 'ShopNotConnected';
  }
}

const notConnected = (c: Pick<ShopConnection, 'state' | 'lastSyncError'> | null | undefined) =>
  new ShopNotConnected(c?.state ?? 'DISCONNECTED', c?.state === 'NEEDS_REAUTHORIZATION' ? c.lastSyncError : null);

/**
 * A session with a valid access token. `failedToken`: the token the shop just refused (401): refresh unless another
 * instance already replaced it. The refresh holds the row's lock for the call, so concurrent refreshes of one shop
 * wait for each other and reuse the first one's tokens.
 */
async function sessionFor(deps: Deps, connectionId: string, failedToken?: string): Promise<ShopSession> {
  const now = deps.clock.now();
  const usable = (c: ShopConnection) =>
    c.state === 'CONNECTED' && c.accessTokenSealed !== null && (c.accessTokenExpiresAt === null || c.accessTokenExpiresAt.getTime() > now.getTime() + REFRESH_MARGIN_MS);
  const open = (c: ShopConnection): ShopSession => ({
    shopId: c.shopId,
    connectionId: c.id,
    accessToken: decryptSecret(c.accessTokenSealed!, deps.encryptionKey, sealContext(c.id, 'access')),
  });
  const current = await deps.prisma.shopConnection.findUnique({ where: { id: connectionId } });
  if (!current || current.state !== 'CONNECTED') throw notConnected(current);
  if (usable(current) && (failedToken === undefined || open(current).accessToken !== failedToken)) return open(current);
  let refused: ShopApiError | null = null;
  const session = await inTransaction(deps, async (tx) => {
    const [locked] = await tx.$queryRawUnsafe<ShopConnection[]>(`SELECT * FROM "ShopConnection" WHERE id = $1 FOR UPDATE`, connectionId);
    if (!locked || locked.state !== 'CONNECTED') throw notConnected(locked);
    if (usable(locked) && (failedToken === undefined || open(locked).accessToken !== failedToken)) return open(locked);
    if (!locked.refreshTokenSealed) {
      refused = new ShopApiError('NO_REFRESH_TOKEN', 'The shop gave no refresh token; install again.', { retryable: false, reauthorize: true });
      return null;
    }
    const refreshToken = decryptSecret(locked.refreshTokenSealed, deps.encryptionKey, sealContext(locked.id, 'refresh'));
    try {
      const tokens = await adapterFor(deps, locked.platform).refresh(locked.shopId, refreshToken);
      const stored = await tx.shopConnection.update({
        where: { id: locked.id },
        data: {
          accessTokenSealed: encryptSecret(tokens.accessToken, deps.encryptionKey, sealContext(locked.id, 'access')),
          accessTokenExpiresAt: tokens.accessTokenExpiresAt,
          refreshTokenSealed: tokens.refreshToken === null ? locked.refreshTokenSealed : encryptSecret(tokens.refreshToken, deps.encryptionKey, sealContext(locked.id, 'refresh')),
          refreshTokenExpiresAt: tokens.refreshToken === null ? locked.refreshTokenExpiresAt : tokens.refreshTokenExpiresAt,
          updatedAt: deps.clock.now(),
        },
      });
      return open(stored);
    } catch (e) {
      if (e instanceof ShopApiError && e.reauthorize) {
        refused = e;
        return null;
      }
      throw e;
    }
  });
  if (session) return session;
  // The refresh token was refused for good: the merchant must install again (recorded outside the lock's transaction).
  return needsReauthorization(deps, connectionId, (refused as ShopApiError | null)?.message ?? 'The shop refused the refresh token.');
}

/**
 * The shop refused the install's grant (refresh token refused, app removed, scope withdrawn): the merchant must install
 * again. The shop's reason is kept on the connection (lastSyncError) and in the error.
 */
async function needsReauthorization(deps: Deps, connectionId: string, why: string): Promise<never> {
  await deps.prisma.shopConnection.updateMany({
    where: { id: connectionId, state: 'CONNECTED' },
    data: { state: 'NEEDS_REAUTHORIZATION', lastSyncError: why.slice(0, 1000), updatedAt: deps.clock.now() },
  });
  throw new ShopNotConnected('NEEDS_REAUTHORIZATION', why.slice(0, 900));
}

/**
 * Calls the connection's shop with a fresh access token; a 401 refreshes the token and tries once more. Throws
 * ShopNotConnected when the connection cannot call (not connected, re-authorization needed), ShopApiError otherwise.
 */
export async function callShop<T>(deps: Deps, connection: Pick<ShopConnection, 'id' | 'platform'>, fn: (adapter: ShopAdapter, session: ShopSession) => Promise<T>): Promise<T> {
  const adapter = deps.shops.get(connection.platform);
  if (!adapter) throw new ShopApiError('PLATFORM_NOT_CONFIGURED', `${connection.platform} is not configured on this service.`, { retryable: false });
  const session = await sessionFor(deps, connection.id);
  try {
    try {
      return await fn(adapter, session);
    } catch (e) {
      if (!(e instanceof ShopApiError) || !e.authExpired) throw e;
      return await fn(adapter, await sessionFor(deps, connection.id, session.accessToken));
    }
  } catch (e) {
    if (e instanceof ShopApiError && e.reauthorize) return needsReauthorization(deps, connection.id, `${e.code}: ${e.message}`);
    throw e;
  }
}
