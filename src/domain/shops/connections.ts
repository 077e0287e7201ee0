/**
 * Shop connections (README, Shop integrations): starting an install (the platform's OAuth authorization-code request,
 * bound to the connection by a state nonce whose hash alone is stored), completing it (the code exchanged for tokens,
 * sealed at once), listing and disconnecting; and every call to a shop through `callShop`, which keeps the access
 * token fresh. A refresh runs under a lease on the connection (refreshLeaseUntil), so two instances never spend the
 * same (single-use) refresh token, and no row lock or database connection is held across the platform's answer.
 */
import { randomBytes } from 'node:crypto';
import type { ShopConnection } from '../../generated/prisma/client.ts';
import type { Principal } from '../auth/principal.ts';
import { requirePrincipal, requireSession } from '../auth/rules.ts';
import { assertUsableReceivingAccounts } from '../bank-accounts/bank-accounts.ts';
import type { Deps } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { newId } from '../ids.ts';
import { decryptSecret, encryptSecret, sha256Hex } from '../secrets.ts';
import { findInWorkspace } from '../workspace-rows.ts';
import { verifyCredentials } from '../accounts/accounts.ts';
import { SHOP_PLATFORMS, ShopApiError, type ShopAdapter, type ShopPlatform, type ShopSession, type ShopTokens } from './shop-port.ts';

/** How long a started install waits for the merchant's approval. */
export const INSTALL_TTL_MS = 30 * 60_000;
/** An access token this close to its expiry is refreshed before use. */
const REFRESH_MARGIN_MS = 60_000;

const sealContext = (connectionId: string, which: 'access' | 'refresh' | 'pending') => `shop:${connectionId}:${which}`;

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
 * A shop may be connected to one workspace at a time (the install's owner sees its buyers and confirms its orders):
 * another workspace's live connection of the same shop (connected, needing re-authorization, or waiting for its
 * approval) refuses it, SHOP_CONNECTED_ELSEWHERE.
 */
async function assertNotConnectedElsewhere(q: { query: Deps['sql']['query'] }, c: { workspaceId: string; platform: ShopPlatform; shopId: string }, now: Date) {
  const [other] = await q.query<{ id: string }>(
    `SELECT id FROM "ShopConnection" WHERE platform = $1::"ShopPlatform" AND "shopId" = $2 AND "workspaceId" <> $3
        AND (state IN ('CONNECTED', 'NEEDS_REAUTHORIZATION') OR "approvalExpiresAt" > $4::timestamptz) LIMIT 1`,
    [c.platform, c.shopId, c.workspaceId, now.toISOString()],
  );
  if (other) throw new DomainError('SHOP_CONNECTED_ELSEWHERE');
}

/**
 * startShopInstall: a connection INSTALLING (or a connected one being authorized again) and the URL where the
 * merchant approves the install. The state nonce is in the URL only; the row keeps its SHA-256. The receiving
 * accounts asked for apply when the install completes.
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
  await assertNotConnectedElsewhere(deps.sql, { workspaceId: p.workspaceId, platform, shopId }, now);
  const installExpiresAt = new Date(now.getTime() + INSTALL_TTL_MS);
  // One row per (workspace, platform, shop): installing the same shop again reuses it (a connected one stays
  // connected, with its tokens and accounts, until the new install completes).
  const [connection] = await deps.sql.query<ShopConnection>(
    `INSERT INTO "ShopConnection" (id, "workspaceId", platform, "shopId", state, "installStateHash", "installExpiresAt", "bankAccountIds", "pendingBankAccountIds", "createdAt", "updatedAt")
     VALUES ($1, $2, $3::"ShopPlatform", $4, 'INSTALLING', $5, $6::timestamptz, $7::text[], $7::text[], $8::timestamptz, $8::timestamptz)
     ON CONFLICT ("workspaceId", platform, "shopId") DO UPDATE
       SET "installStateHash" = EXCLUDED."installStateHash", "installExpiresAt" = EXCLUDED."installExpiresAt", "pendingBankAccountIds" = EXCLUDED."pendingBankAccountIds",
           state = CASE WHEN "ShopConnection".state = 'DISCONNECTED' THEN 'INSTALLING'::"ShopConnectionState" ELSE "ShopConnection".state END,
           "updatedAt" = EXCLUDED."updatedAt"
     RETURNING *`,
    [newId('shopConnection'), p.workspaceId, platform, shopId, sha256Hex(state), installExpiresAt.toISOString(), bankAccountIds, now.toISOString()],
  );
  if (!connection) throw new Error('shop connection upsert returned nothing');
  return { connection, authorizeUrl: adapter.authorizeUrl(shopId, state), state, expiresAt: installExpiresAt };
}

function checkInstallAnswer(args: { state: unknown; code: unknown }): asserts args is { state: string; code: string } {
  if (typeof args.state !== 'string' || typeof args.code !== 'string' || !args.state || !args.code || args.code.length > 2000 || args.state.length > 200) {
    throw new DomainError('SHOP_INSTALL_INVALID');
  }
}

/** Claims an install's state (single-use: the update that clears it) and exchanges the code for tokens. */
async function claimAndExchange(deps: Deps, args: { state: string; code: string }, scope: { workspaceId?: string; platform?: ShopPlatform }) {
  const now = deps.clock.now();
  const [claimed] = await deps.sql.query<ShopConnection>(
    `UPDATE "ShopConnection" SET "installStateHash" = NULL, "installExpiresAt" = NULL, "updatedAt" = $4::timestamptz
      WHERE "installStateHash" = $1 AND "installExpiresAt" > $4::timestamptz AND ($2::text IS NULL OR "workspaceId" = $2) AND ($3::text IS NULL OR platform::text = $3)
      RETURNING *`,
    [sha256Hex(args.state), scope.workspaceId ?? null, scope.platform ?? null, now.toISOString()],
  );
  if (!claimed) throw new DomainError('SHOP_INSTALL_INVALID');
  try {
    return { claimed, tokens: await adapterFor(deps, claimed.platform).exchangeCode(claimed.shopId, args.code) };
  } catch (e) {
    if (e instanceof ShopApiError) throw new DomainError('SHOP_API_FAILED', { data: { shop: { code: e.code, message: e.message } } });
    throw e;
  }
}

/**
 * completeShopInstall (GraphQL): a dashboard that receives the platform's redirect itself completes the install with
 * its session, which must be of the workspace that started it: the session is the proof that the merchant who
 * approved at the platform is this workspace's.
 */
export async function completeShopInstall(deps: Deps, principal: Principal | null, args: { state: unknown; code: unknown }): Promise<ShopConnection> {
  const p = requireSession(principal);
  checkInstallAnswer(args);
  const { claimed, tokens } = await claimAndExchange(deps, args, { workspaceId: p.workspaceId });
  return activate(deps, claimed.id, tokens);
}

/** How long an install approved at the platform waits for the merchant's confirmation in the browser. */
export const APPROVAL_TTL_MS = 10 * 60_000;

/**
 * The platform's redirect (GET /shops/{platform}/callback, no login): the state is claimed and the code exchanged at
 * once (Cafe24's codes live a minute). A real shop's install is not active yet: the tokens wait, sealed, for the
 * merchant to confirm in this same browser (an approval cookie whose hash is kept) by logging in to the workspace
 * that started the install (approveShopInstall). Else an install started by someone else and approved by a shop's
 * owner — sent a genuine consent link — would hand that shop to the stranger's workspace. The simulated shop, a
 * sandbox of the connection's own, is active at once.
 */
export async function receiveShopInstall(deps: Deps, args: { platform: ShopPlatform; state: unknown; code: unknown }) {
  checkInstallAnswer(args);
  const { claimed, tokens } = await claimAndExchange(deps, args, { platform: args.platform });
  if (claimed.platform === 'SIMULATED') return { connection: await activate(deps, claimed.id, tokens), approval: null };
  const nonce = randomBytes(32).toString('base64url');
  const expiresAt = new Date(deps.clock.now().getTime() + APPROVAL_TTL_MS);
  const connection = await deps.prisma.shopConnection.update({
    where: { id: claimed.id },
    data: {
      pendingTokensSealed: encryptSecret(JSON.stringify(tokens), deps.encryptionKey, sealContext(claimed.id, 'pending')),
      approvalHash: sha256Hex(nonce),
      approvalExpiresAt: expiresAt,
      updatedAt: deps.clock.now(),
    },
  });
  const workspace = await deps.prisma.workspace.findUniqueOrThrow({ where: { id: connection.workspaceId }, select: { name: true } });
  return { connection, approval: { nonce, expiresAt, workspaceName: workspace.name } };
}

/**
 * approveShopInstall: the browser that came back from the platform (its approval cookie) and the credentials of a
 * member of the workspace that started the install: the install completes. Wrong credentials count against the
 * log-in limit like a log-in; an account of another workspace is SHOP_APPROVAL_WRONG_WORKSPACE.
 */
export async function approveShopInstall(deps: Deps, args: { nonce: unknown; email: unknown; password: unknown }): Promise<ShopConnection> {
  if (typeof args.nonce !== 'string' || !args.nonce || args.nonce.length > 200) throw new DomainError('SHOP_INSTALL_INVALID');
  const now = deps.clock.now();
  const pending = await deps.prisma.shopConnection.findUnique({ where: { approvalHash: sha256Hex(args.nonce) } });
  if (!pending || !pending.approvalExpiresAt || pending.approvalExpiresAt <= now || !pending.pendingTokensSealed) throw new DomainError('SHOP_INSTALL_INVALID');
  const account = await verifyCredentials(deps, { email: String(args.email ?? ''), password: String(args.password ?? '') });
  const member = await deps.prisma.workspaceMember.findFirst({ where: { accountId: account.id, workspaceId: pending.workspaceId } });
  if (!member) throw new DomainError('SHOP_APPROVAL_WRONG_WORKSPACE');
  // Single-use: the approval is claimed by the update that clears it.
  const [claimed] = await deps.sql.query<ShopConnection>(
    `UPDATE "ShopConnection" SET "approvalHash" = NULL, "approvalExpiresAt" = NULL, "pendingTokensSealed" = NULL, "updatedAt" = $3::timestamptz
      WHERE id = $1 AND "approvalHash" = $2 AND "approvalExpiresAt" > $3::timestamptz RETURNING *`,
    [pending.id, pending.approvalHash, now.toISOString()],
  );
  if (!claimed) throw new DomainError('SHOP_INSTALL_INVALID');
  const tokens = JSON.parse(decryptSecret(pending.pendingTokensSealed, deps.encryptionKey, sealContext(pending.id, 'pending'))) as ShopTokens;
  return activate(deps, claimed.id, {
    ...tokens,
    accessTokenExpiresAt: tokens.accessTokenExpiresAt ? new Date(tokens.accessTokenExpiresAt) : null,
    refreshTokenExpiresAt: tokens.refreshTokenExpiresAt ? new Date(tokens.refreshTokenExpiresAt) : null,
  });
}

/**
 * The install completes: the tokens sealed and stored, the receiving accounts asked for applied, CONNECTED and a sync
 * due now — unless another workspace connected the same shop meanwhile (checked under a lock on the shop, so two
 * workspaces completing at once cannot both win).
 */
async function activate(deps: Deps, id: string, tokens: ShopTokens): Promise<ShopConnection> {
  const now = deps.clock.now();
  const connection = await deps.sql.transaction(async (sql) => {
    const [c] = await sql.query<ShopConnection>(`SELECT * FROM "ShopConnection" WHERE id = $1`, [id]);
    if (!c) throw new DomainError('SHOP_INSTALL_INVALID');
    await sql.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 11))::text`, [`${c.platform}\u0001${c.shopId}`]);
    await assertNotConnectedElsewhere(sql, c, now);
    const [done] = await sql.query<ShopConnection>(
      `UPDATE "ShopConnection" SET state = 'CONNECTED', "bankAccountIds" = "pendingBankAccountIds",
              "accessTokenSealed" = $2, "accessTokenExpiresAt" = $3::timestamptz, "refreshTokenSealed" = $4, "refreshTokenExpiresAt" = $5::timestamptz,
              "connectedAt" = $6::timestamptz, "disconnectedAt" = NULL, "nextSyncAt" = $6::timestamptz, "syncFailures" = 0, "lastSyncError" = NULL,
              "updatedAt" = $6::timestamptz
        WHERE id = $1 RETURNING *`,
      [
        id,
        encryptSecret(tokens.accessToken, deps.encryptionKey, sealContext(id, 'access')),
        tokens.accessTokenExpiresAt?.toISOString() ?? null,
        tokens.refreshToken === null ? null : encryptSecret(tokens.refreshToken, deps.encryptionKey, sealContext(id, 'refresh')),
        tokens.refreshTokenExpiresAt?.toISOString() ?? null,
        now.toISOString(),
      ],
    );
    return done!;
  });
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
  const open = (c: ShopConnection): ShopSession => ({
    shopId: c.shopId,
    connectionId: c.id,
    accessToken: decryptSecret(c.accessTokenSealed!, deps.encryptionKey, sealContext(c.id, 'access')),
  });
  const fresh = (c: ShopConnection) => {
    const now = deps.clock.now().getTime();
    const usable = c.accessTokenSealed !== null && (c.accessTokenExpiresAt === null || c.accessTokenExpiresAt.getTime() > now + REFRESH_MARGIN_MS);
    return usable && (failedToken === undefined || open(c).accessToken !== failedToken);
  };
  const waitUntil = Date.now() + REFRESH_LEASE_MS + 5_000;
  for (;;) {
    const current = await deps.prisma.shopConnection.findUnique({ where: { id: connectionId } });
    if (!current || current.state !== 'CONNECTED') throw notConnected(current);
    if (fresh(current)) return open(current);
    // This instance refreshes this connection once at a time; its other callers share the result.
    const refreshing = refreshingIn(deps);
    const inFlight = refreshing.get(connectionId);
    if (inFlight) {
      await inFlight.catch(() => undefined);
      continue;
    }
    const attempt = refreshOnce(deps, current);
    refreshing.set(connectionId, attempt);
    try {
      const refreshed = await attempt;
      if (refreshed) return open(refreshed);
    } finally {
      refreshing.delete(connectionId);
    }
    // Another instance holds the refresh lease: its new tokens are read when it is done.
    if (Date.now() > waitUntil) throw new ShopApiError('REFRESH_BUSY', 'Another instance is refreshing the shop access token; try again.', { retryable: true });
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The token refreshes in progress in an instance (its database handle), per connection. */
const refreshesByInstance = new WeakMap<object, Map<string, Promise<ShopConnection | null>>>();
function refreshingIn(deps: Deps): Map<string, Promise<ShopConnection | null>> {
  let m = refreshesByInstance.get(deps.sql);
  if (!m) refreshesByInstance.set(deps.sql, (m = new Map()));
  return m;
}
/** How long a refresh may hold its lease (longer than the platform call's time limit). */
const REFRESH_LEASE_MS = 30_000;

/**
 * One refresh of `c`'s tokens, under a lease taken by a conditional update (its access token still the one read, no
 * lease running) and committed at once: no row lock or connection is held across the platform call, and no two
 * instances spend the same single-use refresh token. Returns the connection with its new tokens, or null when the
 * lease was not taken (another instance is refreshing, or has just refreshed). The tokens are stored only while the
 * lease is still this refresh's.
 */
async function refreshOnce(deps: Deps, c: ShopConnection): Promise<ShopConnection | null> {
  const now = deps.clock.now();
  const leaseUntil = new Date(now.getTime() + REFRESH_LEASE_MS);
  const [leased] = await deps.sql.query<ShopConnection>(
    `UPDATE "ShopConnection" SET "refreshLeaseUntil" = $3::timestamptz
      WHERE id = $1 AND state = 'CONNECTED' AND "accessTokenSealed" IS NOT DISTINCT FROM $2 AND ("refreshLeaseUntil" IS NULL OR "refreshLeaseUntil" < $4::timestamptz)
      RETURNING *`,
    [c.id, c.accessTokenSealed, leaseUntil.toISOString(), now.toISOString()],
  );
  if (!leased) return null;
  const release = () =>
    deps.sql.query(`UPDATE "ShopConnection" SET "refreshLeaseUntil" = NULL WHERE id = $1 AND "refreshLeaseUntil" = $2::timestamptz`, [c.id, leaseUntil.toISOString()]);
  if (!leased.refreshTokenSealed) {
    await release();
    return needsReauthorization(deps, c.id, 'The shop gave no refresh token; install again.');
  }
  let tokens: ShopTokens;
  try {
    tokens = await adapterFor(deps, leased.platform).refresh(leased.shopId, decryptSecret(leased.refreshTokenSealed, deps.encryptionKey, sealContext(leased.id, 'refresh')));
  } catch (e) {
    await release();
    if (e instanceof ShopApiError && e.reauthorize) return needsReauthorization(deps, c.id, e.message);
    throw e;
  }
  const [stored] = await deps.sql.query<ShopConnection>(
    `UPDATE "ShopConnection" SET "accessTokenSealed" = $3, "accessTokenExpiresAt" = $4::timestamptz,
            "refreshTokenSealed" = COALESCE($5, "refreshTokenSealed"), "refreshTokenExpiresAt" = CASE WHEN $5::text IS NULL THEN "refreshTokenExpiresAt" ELSE $6::timestamptz END,
            "refreshLeaseUntil" = NULL, "updatedAt" = $7::timestamptz
      WHERE id = $1 AND "refreshLeaseUntil" = $2::timestamptz RETURNING *`,
    [
      c.id,
      leaseUntil.toISOString(),
      encryptSecret(tokens.accessToken, deps.encryptionKey, sealContext(c.id, 'access')),
      tokens.accessTokenExpiresAt?.toISOString() ?? null,
      tokens.refreshToken === null ? null : encryptSecret(tokens.refreshToken, deps.encryptionKey, sealContext(c.id, 'refresh')),
      tokens.refreshTokenExpiresAt?.toISOString() ?? null,
      deps.clock.now().toISOString(),
    ],
  );
  // The lease ran out during the call (and another refresh may have taken over): the platform call's tokens are this
  // refresh's only if still stored; else the caller reads the connection again.
  return stored ?? null;
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
