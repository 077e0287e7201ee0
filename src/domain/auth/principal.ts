/**
 * One principal resolver for GraphQL, REST v1 and v2 (spec: Authentication). A bearer token is an API key
 * (`sk_live_`), an OAuth access token (`oat_`) or a dashboard session token (`sess_`); only its SHA-256 is looked up.
 */
import type { Deps } from '../deps.ts';
import { SECRET_PREFIXES, sha256Hex } from '../secrets.ts';

export type PrincipalKind = 'API_KEY' | 'OAUTH_TOKEN' | 'SESSION';

export interface Principal {
  kind: PrincipalKind;
  workspaceId: string;
  /** The workspace owner's account id (v1 `issuerId`/`ownerId`). */
  workspaceOwnerId: string;
  /** The signed-in account (sessions only). */
  accountId: string | null;
  apiKeyId: string | null;
  oauthAppId: string | null;
  /** Session id or access-token id. */
  credentialId: string;
  /** Key name, app name or account name: who did it, in history and `canceledBy`. */
  name: string;
  readOnly: boolean;
  /** Allowed bank accounts; null = all accounts of the workspace. */
  bankAccountIds: string[] | null;
}

/** Extracts the token of an `Authorization: Bearer <token>` header value; null when absent or malformed. */
export function bearerToken(header: string | null | undefined): string | null {
  if (!header) return null;
  const m = /^\s*Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1] : null;
}

/**
 * Resolves a bearer token to a principal; null when unknown, expired, disabled, deleted or revoked. An API key that
 * resolves has its use noted (ApiKey.lastUsedAt, to the minute).
 */
export async function resolvePrincipal(deps: Deps, token: string | null): Promise<Principal | null> {
  if (!token || token.length > 512) return null;
  const now = deps.clock.now();
  const hash = sha256Hex(token);

  if (token.startsWith(SECRET_PREFIXES.apiKey)) {
    // One statement (every API call starts here), kept prepared like every lookup below (fixed text): the key and its
    // workspace's owner. Nothing is cached: a key disabled, deleted or expired a moment ago is refused now.
    const rows = await deps.sql.query<
      { id: string; workspaceId: string; ownerId: string; name: string; readOnly: boolean; allBankAccounts: boolean; bankAccountIds: string[]; expiresAt: Date | null; disabledAt: Date | null; deletedAt: Date | null; lastUsedAt: Date | null }
    >(
      `SELECT k.id, k."workspaceId", w."ownerId", k.name, k."readOnly", k."allBankAccounts", k."bankAccountIds", k."expiresAt", k."disabledAt", k."deletedAt", k."lastUsedAt"
         FROM "ApiKey" k JOIN "Workspace" w ON w.id = k."workspaceId" WHERE k."secretHash" = $1`,
      [hash],
      { prepare: true },
    );
    const key = rows[0];
    if (!key || key.deletedAt || key.disabledAt || (key.expiresAt && new Date(key.expiresAt) <= now)) return null;
    await noteKeyUse(deps, key.id, key.lastUsedAt, now);
    return {
      kind: 'API_KEY',
      workspaceId: key.workspaceId,
      workspaceOwnerId: key.ownerId,
      accountId: null,
      apiKeyId: key.id,
      oauthAppId: null,
      credentialId: key.id,
      name: key.name,
      readOnly: key.readOnly,
      bankAccountIds: key.allBankAccounts ? null : key.bankAccountIds,
    };
  }

  if (token.startsWith(SECRET_PREFIXES.oauthAccessToken)) {
    // One statement: the token, its grant, its app and its workspace's owner (the token names its workspace without a
    // foreign key, hence the outer join: no workspace, no principal).
    const rows = await deps.sql.query<
      { id: string; workspaceId: string; appId: string; appName: string; ownerId: string | null; expiresAt: Date | null; revokedAt: Date | null; grantRevokedAt: Date | null; appDeletedAt: Date | null }
    >(
      `SELECT t.id, t."workspaceId", t."appId", a.name AS "appName", w."ownerId", t."expiresAt", t."revokedAt", g."revokedAt" AS "grantRevokedAt", a."deletedAt" AS "appDeletedAt"
         FROM "OAuthAccessToken" t
         JOIN "OAuthGrant" g ON g.id = t."grantId"
         JOIN "OAuthApp" a ON a.id = t."appId"
         LEFT JOIN "Workspace" w ON w.id = t."workspaceId"
        WHERE t."tokenHash" = $1`,
      [hash],
      { prepare: true },
    );
    const t = rows[0];
    if (!t || t.revokedAt || t.grantRevokedAt || t.appDeletedAt || (t.expiresAt && new Date(t.expiresAt) <= now)) return null;
    if (!t.ownerId) return null;
    return {
      kind: 'OAUTH_TOKEN',
      workspaceId: t.workspaceId,
      workspaceOwnerId: t.ownerId,
      accountId: null,
      apiKeyId: null,
      oauthAppId: t.appId,
      credentialId: t.id,
      name: t.appName,
      readOnly: false,
      bankAccountIds: null,
    };
  }

  if (token.startsWith(SECRET_PREFIXES.session)) {
    // One statement: the session, its account's name and its workspace's owner.
    const rows = await deps.sql.query<
      { id: string; accountId: string; workspaceId: string; accountName: string; ownerId: string; expiresAt: Date; revokedAt: Date | null }
    >(
      `SELECT s.id, s."accountId", s."workspaceId", a.name AS "accountName", w."ownerId", s."expiresAt", s."revokedAt"
         FROM "Session" s
         JOIN "Account" a ON a.id = s."accountId"
         JOIN "Workspace" w ON w.id = s."workspaceId"
        WHERE s."tokenHash" = $1`,
      [hash],
      { prepare: true },
    );
    const s = rows[0];
    if (!s || s.revokedAt || new Date(s.expiresAt) <= now) return null;
    return {
      kind: 'SESSION',
      workspaceId: s.workspaceId,
      workspaceOwnerId: s.ownerId,
      accountId: s.accountId,
      apiKeyId: null,
      oauthAppId: null,
      credentialId: s.id,
      name: s.accountName,
      readOnly: false,
      bankAccountIds: null,
    };
  }
  return null;
}

/** How stale a key's "last used" may grow: it is written at most once per key in this time, not on every call. */
export const KEY_USE_PRECISION_MS = 60_000;

/**
 * Records that a key was used (ApiKey.lastUsedAt, shown in the dashboard), to the minute: a write only when the stored
 * time is older than KEY_USE_PRECISION_MS, so a busy key costs one UPDATE a minute, not one per call. Calls that race
 * past the check are no-ops once the first has written (the condition is re-read under the row lock).
 */
async function noteKeyUse(deps: Deps, keyId: string, lastUsedAt: Date | null, now: Date): Promise<void> {
  const staleBefore = new Date(now.getTime() - KEY_USE_PRECISION_MS);
  if (lastUsedAt && new Date(lastUsedAt) > staleBefore) return;
  await deps.sql.query(`UPDATE "ApiKey" SET "lastUsedAt" = $2 WHERE id = $1 AND ("lastUsedAt" IS NULL OR "lastUsedAt" <= $3)`, [keyId, now, staleBefore], { prepare: true });
}
