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
import { isId, newId } from '../ids.ts';
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

/** What SHOP_CONNECTED_ELSEWHERE tells the owner (their shop is another workspace's here; they cannot act there). */
const CONNECTED_ELSEWHERE_TEXT = 'This shop is connected to another workspace of this service; disconnect it there, or contact support.';

/**
 * A real shop may be connected to one workspace at a time (the install's owner sees its buyers and confirms its
 * orders): another workspace's connection of the same shop that is CONNECTED or NEEDS_REAUTHORIZATION refuses it,
 * SHOP_CONNECTED_ELSEWHERE. Checked only when an install completes (its completer has proven control of the shop at
 * the platform), never when one starts: that would tell anyone whether a mall is a customer here. An install merely
 * started or waiting for its approval elsewhere does not count (it may be a stranger's). A simulated shop is a sandbox
 * of its connection's own (its orders are keyed by the connection): any number of workspaces may use the same name.
 */
async function assertNotConnectedElsewhere(q: { query: Deps['sql']['query'] }, c: { workspaceId: string; platform: ShopPlatform; shopId: string }) {
  if (c.platform === 'SIMULATED') return;
  const [other] = await q.query<{ id: string }>(
    `SELECT id FROM "ShopConnection" WHERE platform = $1::"ShopPlatform" AND "shopId" = $2 AND "workspaceId" <> $3 AND state IN ('CONNECTED', 'NEEDS_REAUTHORIZATION') LIMIT 1`,
    [c.platform, c.shopId, c.workspaceId],
  );
  if (other) throw new DomainError('SHOP_CONNECTED_ELSEWHERE', { message: CONNECTED_ELSEWHERE_TEXT });
}

/** At most this many simulated connections per workspace, and this many in all (connected or being installed). */
export const MAX_SIMULATED_CONNECTIONS = 10;
export const MAX_SHOP_CONNECTIONS = 50;

/**
 * The workspace's cap on connections (each is synced on schedule like a real shop): live ones count — CONNECTED,
 * NEEDS_REAUTHORIZATION, or an install started or approved and not yet expired — not DISCONNECTED ones or abandoned
 * installs. The shop being installed again does not count against itself. Run under the workspace's lock.
 */
async function assertUnderConnectionCap(q: { query: Deps['sql']['query'] }, c: { workspaceId: string; platform: ShopPlatform; shopId: string }, now: Date) {
  const [n] = await q.query<{ simulated: number; total: number }>(
    `SELECT count(*) FILTER (WHERE platform = 'SIMULATED')::int AS simulated, count(*)::int AS total FROM "ShopConnection"
      WHERE "workspaceId" = $1 AND NOT (platform = $2::"ShopPlatform" AND "shopId" = $3)
        AND (state IN ('CONNECTED', 'NEEDS_REAUTHORIZATION') OR "installExpiresAt" > $4::timestamptz OR "approvalExpiresAt" > $4::timestamptz)`,
    [c.workspaceId, c.platform, c.shopId, now.toISOString()],
  );
  const refuse = (message: string) => new DomainError('SHOP_CONNECTION_LIMIT_REACHED', { message });
  if (c.platform === 'SIMULATED' && (n?.simulated ?? 0) >= MAX_SIMULATED_CONNECTIONS) {
    throw refuse(`A workspace may have at most ${MAX_SIMULATED_CONNECTIONS} simulated shops connected or being installed; disconnect one first.`);
  }
  if ((n?.total ?? 0) >= MAX_SHOP_CONNECTIONS) throw refuse(`A workspace may have at most ${MAX_SHOP_CONNECTIONS} shops connected or being installed; disconnect one first.`);
}

/** The columns of an approval waiting for the merchant's confirmation, cleared. */
const NO_PENDING_APPROVAL = `"pendingTokensSealed" = NULL, "approvalHash" = NULL, "approvalExpiresAt" = NULL`;

/**
 * startShopInstall: a connection INSTALLING (or a connected one being authorized again) and the URL where the
 * merchant approves the install. The state nonce is in the URL only; the row keeps its SHA-256. The receiving
 * accounts asked for apply when the install completes. An approval still waiting from an earlier install of the same
 * connection is dropped (its tokens erased): the new install replaces it.
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
  const connection = await deps.sql.transaction(async (sql) => {
    // The workspace's installs one at a time, so two at once cannot both pass the cap.
    await sql.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 12))::text`, [p.workspaceId]);
    await assertUnderConnectionCap(sql, { workspaceId: p.workspaceId, platform, shopId }, now);
    // One row per (workspace, platform, shop): installing the same shop again reuses it (a connected one stays
    // connected, with its tokens and accounts, until the new install completes).
    const [row] = await sql.query<ShopConnection>(
      `INSERT INTO "ShopConnection" (id, "workspaceId", platform, "shopId", state, "installStateHash", "installExpiresAt", "bankAccountIds", "pendingBankAccountIds", "createdAt", "updatedAt")
       VALUES ($1, $2, $3::"ShopPlatform", $4, 'INSTALLING', $5, $6::timestamptz, $7::text[], $7::text[], $8::timestamptz, $8::timestamptz)
       ON CONFLICT ("workspaceId", platform, "shopId") DO UPDATE
         SET "installStateHash" = EXCLUDED."installStateHash", "installExpiresAt" = EXCLUDED."installExpiresAt", "pendingBankAccountIds" = EXCLUDED."pendingBankAccountIds",
             state = CASE WHEN "ShopConnection".state = 'DISCONNECTED' THEN 'INSTALLING'::"ShopConnectionState" ELSE "ShopConnection".state END,
             ${NO_PENDING_APPROVAL}, "updatedAt" = EXCLUDED."updatedAt"
       RETURNING *`,
      [newId('shopConnection'), p.workspaceId, platform, shopId, sha256Hex(state), installExpiresAt.toISOString(), bankAccountIds, now.toISOString()],
    );
    return row;
  });
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
  return activate(deps, claimed, { tokens });
}

/** How long an install approved at the platform waits for the merchant's confirmation in the browser. */
export const APPROVAL_TTL_MS = 10 * 60_000;
/** How many characters of the workspace's name the approval page shows. */
export const APPROVAL_NAME_MAX = 40;

/**
 * A workspace's name as the approval page shows it: its owner chose it freely, and the page is where a shop's owner
 * decides whom to trust. Runs of white space (line breaks, tabs) made one space; control, format (bidi overrides and
 * isolates, zero-width characters), private-use and lone surrogate characters removed; at most
 * APPROVAL_NAME_MAX characters (longer ones cut, with "…").
 */
export function approvalWorkspaceName(name: string): string {
  const clean = name
    .normalize('NFC')
    .replace(/[\s\p{Zl}\p{Zp}]+/gu, ' ')
    .replace(/[\p{Cc}\p{Cf}\p{Co}\p{Cs}]/gu, '')
    .replace(/ {2,}/g, ' ')
    .trim();
  const chars = Array.from(clean);
  if (chars.length === 0) return '(unnamed)';
  return chars.length > APPROVAL_NAME_MAX ? `${chars.slice(0, APPROVAL_NAME_MAX - 1).join('')}…` : clean;
}

/** An e-mail address masked for the approval page: `merchant@example.com` → `me***@ex***.com`. */
export function maskEmail(email: string): string {
  const clean = email.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cs}\s]/gu, '');
  const at = clean.lastIndexOf('@');
  const head = (s: string) => Array.from(s).slice(0, 2).join('');
  if (at < 0) return `${head(clean)}***`;
  const labels = clean.slice(at + 1).split('.');
  const top = labels.length > 1 ? labels.pop()! : '';
  return `${head(clean.slice(0, at))}***@${head(labels.join('.'))}***${top ? `.${top}` : ''}`;
}

/**
 * The platform's redirect (GET /shops/{platform}/callback, no login): the state is claimed and the code exchanged at
 * once (Cafe24's codes live a minute). A real shop's install is not active yet: the tokens wait, sealed, for the
 * merchant to confirm in this same browser (an approval cookie of this install whose hash is kept) by logging in to
 * the workspace that started the install (approveShopInstall). Else an install started by someone else and approved
 * by a shop's owner — sent a genuine consent link — would hand that shop to the stranger's workspace. The simulated
 * shop, a sandbox of the connection's own, is active at once. `approval.workspaceName` is the name as the page may
 * show it (approvalWorkspaceName), `approval.ownerEmail` the workspace owner's address masked.
 */
export async function receiveShopInstall(deps: Deps, args: { platform: ShopPlatform; state: unknown; code: unknown }) {
  checkInstallAnswer(args);
  const { claimed, tokens } = await claimAndExchange(deps, args, { platform: args.platform });
  if (claimed.platform === 'SIMULATED') return { connection: await activate(deps, claimed, { tokens }), approval: null };
  const nonce = randomBytes(32).toString('base64url');
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + APPROVAL_TTL_MS);
  // Not on a connection disconnected meanwhile (its install is void).
  const [connection] = await deps.sql.query<ShopConnection>(
    `UPDATE "ShopConnection" SET "pendingTokensSealed" = $2, "approvalHash" = $3, "approvalExpiresAt" = $4::timestamptz, "updatedAt" = $5::timestamptz
      WHERE id = $1 AND state <> 'DISCONNECTED' RETURNING *`,
    [
      claimed.id,
      encryptSecret(JSON.stringify(tokens), deps.encryptionKey, sealContext(claimed.id, 'pending')),
      sha256Hex(nonce),
      expiresAt.toISOString(),
      now.toISOString(),
    ],
  );
  if (!connection) throw new DomainError('SHOP_INSTALL_INVALID');
  const workspace = await deps.prisma.workspace.findUniqueOrThrow({ where: { id: connection.workspaceId }, select: { name: true, owner: { select: { email: true } } } });
  return { connection, approval: { nonce, expiresAt, workspaceName: approvalWorkspaceName(workspace.name), ownerEmail: maskEmail(workspace.owner.email) } };
}

/**
 * approveShopInstall: the browser that came back from the platform (the approval cookie of the install its page
 * showed: `connectionId`, the page's hidden field, must be the approval's), on the path of the install's platform,
 * and the credentials of a member of the workspace that started the install: the install completes. Wrong
 * credentials count against the log-in limit like a log-in; an account of another workspace is
 * SHOP_APPROVAL_WRONG_WORKSPACE; the shop connected to another workspace meanwhile is SHOP_CONNECTED_ELSEWHERE, and
 * the approval stays (it is spent only by the install it completes). A connection disconnected since is never
 * connected again by it.
 */
export async function approveShopInstall(
  deps: Deps,
  args: { platform: ShopPlatform; connectionId: unknown; nonce: unknown; email: unknown; password: unknown },
): Promise<ShopConnection> {
  if (typeof args.nonce !== 'string' || !args.nonce || args.nonce.length > 200 || !isId('shopConnection', args.connectionId)) throw new DomainError('SHOP_INSTALL_INVALID');
  const now = deps.clock.now();
  const approvalHash = sha256Hex(args.nonce);
  const pending = await deps.prisma.shopConnection.findUnique({ where: { approvalHash } });
  if (
    !pending ||
    pending.id !== args.connectionId ||
    pending.platform !== args.platform ||
    pending.state === 'DISCONNECTED' ||
    !pending.approvalExpiresAt ||
    pending.approvalExpiresAt <= now ||
    !pending.pendingTokensSealed
  ) {
    throw new DomainError('SHOP_INSTALL_INVALID');
  }
  const account = await verifyCredentials(deps, { email: String(args.email ?? ''), password: String(args.password ?? '') });
  const member = await deps.prisma.workspaceMember.findFirst({ where: { accountId: account.id, workspaceId: pending.workspaceId } });
  if (!member) throw new DomainError('SHOP_APPROVAL_WRONG_WORKSPACE');
  return activate(deps, pending, { approval: { hash: approvalHash, platform: args.platform } });
}

/**
 * Approvals whose time ran out: their tokens (live grants of the shop) erased with the approval's hash. Run by the
 * shop-sync worker; returns how many were cleared.
 */
export async function clearExpiredApprovals(deps: Pick<Deps, 'sql' | 'clock'>): Promise<number> {
  const cleared = await deps.sql.query<{ id: string }>(
    `UPDATE "ShopConnection" SET ${NO_PENDING_APPROVAL}
      WHERE ("approvalHash" IS NOT NULL OR "pendingTokensSealed" IS NOT NULL OR "approvalExpiresAt" IS NOT NULL)
        AND ("approvalExpiresAt" IS NULL OR "approvalExpiresAt" <= $1::timestamptz) RETURNING id`,
    [deps.clock.now().toISOString()],
  );
  return cleared.length;
}

type ActivateFrom = { tokens: ShopTokens } | { approval: { hash: string; platform: ShopPlatform } };

/**
 * The install completes: the tokens sealed and stored, the receiving accounts asked for applied, CONNECTED and a sync
 * due now — unless the connection was disconnected meanwhile (SHOP_INSTALL_INVALID), or another workspace holds the
 * same real shop (SHOP_CONNECTED_ELSEWHERE; checked under a lock on the shop, so two workspaces completing at once
 * cannot both win). From an approval (`from.approval`), the approval is claimed in the same transaction, after those
 * checks: a refusal leaves it as it was, and it is single-use (the row is locked, and the update clears it).
 */
async function activate(deps: Deps, ref: Pick<ShopConnection, 'id' | 'platform' | 'shopId'>, from: ActivateFrom): Promise<ShopConnection> {
  const now = deps.clock.now();
  const connection = await deps.sql.transaction(async (sql) => {
    // The shop's lock, then the row's (always in this order).
    if (ref.platform !== 'SIMULATED') await sql.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 11))::text`, [`${ref.platform}\u0001${ref.shopId}`]);
    const [c] = await sql.query<ShopConnection>(`SELECT * FROM "ShopConnection" WHERE id = $1 FOR UPDATE`, [ref.id]);
    if (!c || c.state === 'DISCONNECTED') throw new DomainError('SHOP_INSTALL_INVALID');
    let tokens: ShopTokens;
    if ('approval' in from) {
      const expires = c.approvalExpiresAt ? new Date(c.approvalExpiresAt) : null;
      if (c.approvalHash !== from.approval.hash || c.platform !== from.approval.platform || !expires || expires <= now || !c.pendingTokensSealed) {
        throw new DomainError('SHOP_INSTALL_INVALID');
      }
      const t = JSON.parse(decryptSecret(c.pendingTokensSealed, deps.encryptionKey, sealContext(c.id, 'pending'))) as ShopTokens;
      tokens = {
        ...t,
        accessTokenExpiresAt: t.accessTokenExpiresAt ? new Date(t.accessTokenExpiresAt) : null,
        refreshTokenExpiresAt: t.refreshTokenExpiresAt ? new Date(t.refreshTokenExpiresAt) : null,
      };
    } else {
      tokens = from.tokens;
    }
    await assertNotConnectedElsewhere(sql, c);
    const [done] = await sql.query<ShopConnection>(
      `UPDATE "ShopConnection" SET state = 'CONNECTED', "bankAccountIds" = "pendingBankAccountIds",
              "accessTokenSealed" = $2, "accessTokenExpiresAt" = $3::timestamptz, "refreshTokenSealed" = $4, "refreshTokenExpiresAt" = $5::timestamptz,
              "refreshLeaseUntil" = NULL, ${NO_PENDING_APPROVAL},
              "connectedAt" = $6::timestamptz, "disconnectedAt" = NULL, "nextSyncAt" = $6::timestamptz, "syncFailures" = 0, "lastSyncError" = NULL,
              "updatedAt" = $6::timestamptz
        WHERE id = $1 RETURNING *`,
      [
        c.id,
        encryptSecret(tokens.accessToken, deps.encryptionKey, sealContext(c.id, 'access')),
        tokens.accessTokenExpiresAt?.toISOString() ?? null,
        tokens.refreshToken === null ? null : encryptSecret(tokens.refreshToken, deps.encryptionKey, sealContext(c.id, 'refresh')),
        tokens.refreshTokenExpiresAt?.toISOString() ?? null,
        now.toISOString(),
      ],
    );
    return done!;
  });
  const id = connection.id;
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
 * SHOP_DISCONNECTED). An install in progress is void: its state, and an approval waiting for the merchant (its tokens
 * erased), so neither can connect it again; a token refresh running now stores nothing (its lease is dropped).
 * Invoices and their links stay; connecting the same shop again resumes.
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
      pendingTokensSealed: null,
      approvalHash: null,
      approvalExpiresAt: null,
      accessTokenSealed: null,
      accessTokenExpiresAt: null,
      refreshTokenSealed: null,
      refreshTokenExpiresAt: null,
      refreshLeaseUntil: null,
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

/** A session, and the access token's sealed column it was opened from (what a refusal of that token is checked against). */
type OpenSession = { session: ShopSession; accessTokenSealed: string };

/**
 * A session with a valid access token. `failedToken`: the token the shop just refused (401): refresh unless another
 * caller already replaced it. A refresh runs under a lease on the row (refreshOnce); this instance's other callers of
 * the same connection wait for it and share its outcome, its failure included (they do not each try again).
 */
async function sessionFor(deps: Deps, connectionId: string, failedToken?: string): Promise<OpenSession> {
  const open = (c: ShopConnection): OpenSession => ({
    session: { shopId: c.shopId, connectionId: c.id, accessToken: decryptSecret(c.accessTokenSealed!, deps.encryptionKey, sealContext(c.id, 'access')) },
    accessTokenSealed: c.accessTokenSealed!,
  });
  const fresh = (c: ShopConnection) => {
    const now = deps.clock.now().getTime();
    const usable = c.accessTokenSealed !== null && (c.accessTokenExpiresAt === null || c.accessTokenExpiresAt.getTime() > now + REFRESH_MARGIN_MS);
    return usable && (failedToken === undefined || open(c).session.accessToken !== failedToken);
  };
  const waitUntil = Date.now() + REFRESH_LEASE_MS + 5_000;
  for (;;) {
    const current = await deps.prisma.shopConnection.findUnique({ where: { id: connectionId } });
    if (!current || current.state !== 'CONNECTED') throw notConnected(current);
    if (fresh(current)) return open(current);
    // This instance refreshes this connection once at a time; its other callers share the outcome: the new tokens
    // (read again), or the refresh's error, rethrown.
    const refreshing = refreshingIn(deps);
    const inFlight = refreshing.get(connectionId);
    if (inFlight) {
      await inFlight;
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
    // Another instance holds the refresh lease (or has just stored new tokens): read again when it is done.
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
 * instances spend the same (single-use, rotating) refresh token while the lease lasts. The lease's times are the
 * database's (now()), not each instance's clock, so instances whose clocks differ still agree on it.
 *
 * The new tokens are stored if the connection is still CONNECTED with the refresh token spent (whoever holds the
 * lease by then: a refresh that outlived its lease still keeps its good tokens); a connection disconnected meanwhile
 * gets none (null: the caller reads it again and finds it not connected). Returns the connection with its new tokens,
 * or null when the lease was not taken (another instance is refreshing, or has just refreshed) or the tokens were not
 * stored. A refresh token the platform refuses makes the connection NEEDS_REAUTHORIZATION only while it is still the
 * stored one: refused because another refresh spent it first (and stored its successor) is not a refused grant.
 */
async function refreshOnce(deps: Deps, c: ShopConnection): Promise<ShopConnection | null> {
  const [leased] = await deps.sql.query<ShopConnection>(
    `UPDATE "ShopConnection" SET "refreshLeaseUntil" = now() + make_interval(secs => $3::int)
      WHERE id = $1 AND state = 'CONNECTED' AND "accessTokenSealed" IS NOT DISTINCT FROM $2 AND ("refreshLeaseUntil" IS NULL OR "refreshLeaseUntil" < now())
      RETURNING *`,
    [c.id, c.accessTokenSealed, REFRESH_LEASE_MS / 1000],
  );
  if (!leased) return null;
  const lease = new Date(leased.refreshLeaseUntil!).toISOString();
  const spent = leased.refreshTokenSealed;
  const release = () => deps.sql.query(`UPDATE "ShopConnection" SET "refreshLeaseUntil" = NULL WHERE id = $1 AND "refreshLeaseUntil" = $2::timestamptz`, [c.id, lease]);
  if (!spent) {
    await release();
    await needsReauthorization(deps, c.id, 'The shop gave no refresh token; install again.', { refreshTokenSealed: null });
    return null;
  }
  let tokens: ShopTokens;
  try {
    tokens = await adapterFor(deps, leased.platform).refresh(leased.shopId, decryptSecret(spent, deps.encryptionKey, sealContext(leased.id, 'refresh')));
  } catch (e) {
    await release();
    if (e instanceof ShopApiError && e.reauthorize) {
      await needsReauthorization(deps, c.id, e.message, { refreshTokenSealed: spent });
      return null;
    }
    throw e;
  }
  const [stored] = await deps.sql.query<ShopConnection>(
    `UPDATE "ShopConnection" SET "accessTokenSealed" = $3, "accessTokenExpiresAt" = $4::timestamptz,
            "refreshTokenSealed" = COALESCE($5, "refreshTokenSealed"), "refreshTokenExpiresAt" = CASE WHEN $5::text IS NULL THEN "refreshTokenExpiresAt" ELSE $6::timestamptz END,
            "refreshLeaseUntil" = CASE WHEN "refreshLeaseUntil" = $7::timestamptz THEN NULL ELSE "refreshLeaseUntil" END, "updatedAt" = $8::timestamptz
      WHERE id = $1 AND state = 'CONNECTED' AND "refreshTokenSealed" = $2 RETURNING *`,
    [
      c.id,
      spent,
      encryptSecret(tokens.accessToken, deps.encryptionKey, sealContext(c.id, 'access')),
      tokens.accessTokenExpiresAt?.toISOString() ?? null,
      tokens.refreshToken === null ? null : encryptSecret(tokens.refreshToken, deps.encryptionKey, sealContext(c.id, 'refresh')),
      tokens.refreshTokenExpiresAt?.toISOString() ?? null,
      lease,
      deps.clock.now().toISOString(),
    ],
  );
  if (!stored) await release();
  return stored ?? null;
}

/**
 * The shop refused the install's grant (refresh token refused, app removed, scope withdrawn): the merchant must install
 * again. The shop's reason is kept on the connection (lastSyncError) and in the error. Only while the token refused is
 * still the connection's (`still`: the sealed column as it was read): refused because another caller had just replaced
 * it, the connection stays as it is, and this returns (the caller reads it again).
 */
async function needsReauthorization(
  deps: Deps,
  connectionId: string,
  why: string,
  still: { refreshTokenSealed: string | null } | { accessTokenSealed: string },
): Promise<void> {
  const [column, value] = 'refreshTokenSealed' in still ? ['refreshTokenSealed', still.refreshTokenSealed] : ['accessTokenSealed', still.accessTokenSealed];
  const downgraded = await deps.sql.query<{ id: string }>(
    `UPDATE "ShopConnection" SET state = 'NEEDS_REAUTHORIZATION', "lastSyncError" = $2, "updatedAt" = $3::timestamptz
      WHERE id = $1 AND state = 'CONNECTED' AND "${column}" IS NOT DISTINCT FROM $4 RETURNING id`,
    [connectionId, why.slice(0, 1000), deps.clock.now().toISOString(), value],
  );
  if (downgraded.length > 0) throw new ShopNotConnected('NEEDS_REAUTHORIZATION', why.slice(0, 900));
}

/**
 * Calls the connection's shop with a fresh access token; a 401 refreshes the token and tries once more. Throws
 * ShopNotConnected when the connection cannot call (not connected, re-authorization needed), ShopApiError otherwise.
 */
export async function callShop<T>(deps: Deps, connection: Pick<ShopConnection, 'id' | 'platform'>, fn: (adapter: ShopAdapter, session: ShopSession) => Promise<T>): Promise<T> {
  const adapter = deps.shops.get(connection.platform);
  if (!adapter) throw new ShopApiError('PLATFORM_NOT_CONFIGURED', `${connection.platform} is not configured on this service.`, { retryable: false });
  let used = await sessionFor(deps, connection.id);
  try {
    try {
      return await fn(adapter, used.session);
    } catch (e) {
      if (!(e instanceof ShopApiError) || !e.authExpired) throw e;
      used = await sessionFor(deps, connection.id, used.session.accessToken);
      return await fn(adapter, used.session);
    }
  } catch (e) {
    if (e instanceof ShopApiError && e.reauthorize) {
      await needsReauthorization(deps, connection.id, `${e.code}: ${e.message}`, { accessTokenSealed: used.accessTokenSealed });
      // The token refused was replaced meanwhile (a refresh, a new install): the grant may be fine; try again later.
      throw new ShopApiError('TOKEN_REPLACED', "The shop's tokens changed during the call; try again.", { retryable: true });
    }
    throw e;
  }
}
