/**
 * Idempotency keys (`Idempotency-Key` header on every POST of REST v1/v2 and on GraphQL mutations): the first
 * response to a key is stored for 24 hours and replayed for a retry with the same request by the same credential; the
 * same key with a different request is refused (IDEMPOTENCY_KEY_REUSED); a duplicate that arrives while the first is
 * still running waits for it and gets its response (one execution). Server errors (5xx) are not stored, so a retry
 * runs again.
 *
 * Who may get a stored answer: only the credential that made the first request (API key, OAuth access token or
 * dashboard session: `Principal.credentialId`), after it has been authenticated again like any call (a disabled,
 * deleted, expired or revoked credential never gets here: the caller has no principal), and only while its permissions
 * are those of the first request (they are part of the request's fingerprint). A key is scoped by (workspace,
 * credential, key): another credential sending the same key makes a fresh call, with every check of one. A credential
 * that can write nothing (a read-only key) never has an answer stored: every write refuses it, so its call runs fresh.
 *
 * Stored answers are sealed (AES-256-GCM under the service's encryption key, bound to their row): some carry a secret
 * shown once (an API key's secret, a bank account's notification token, a webhook signing secret).
 */
import { createHash } from 'node:crypto';
import type { Principal } from './auth/principal.ts';
import type { Deps } from './deps.ts';
import { DomainError } from './errors.ts';
import { isUniqueViolation } from './prisma-errors.ts';
import { decryptSecret, encryptSecret } from './secrets.ts';

export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
const KEY_RE = /^[\x21-\x7e]{1,255}$/;

export interface StoredResponse {
  status: number;
  body: string;
}

/** Whether a key is usable: 1-255 visible ASCII characters. */
export function validIdempotencyKey(key: string): boolean {
  return KEY_RE.test(key);
}

/** The fingerprint of a request: method, path and body. */
export function requestFingerprint(method: string, path: string, body: string): string {
  return createHash('sha256').update(`${method}\n${path}\n${body}`).digest('hex');
}

/** Whether a principal's calls are made idempotent at all: not a read-only key's (every write refuses it). */
export function storesAnswersFor(p: Principal): boolean {
  return !p.readOnly;
}

/** What a principal may do, as the checks of a fresh call see it: a stored answer is replayed only while it holds. */
function permissionsOf(p: Principal): string {
  return JSON.stringify([p.kind, p.workspaceId, p.accountId, p.oauthAppId, p.readOnly, p.bankAccountIds === null ? null : [...p.bankAccountIds].sort()]);
}

/** The stored answer's body; one sealed under another encryption key is a clear refusal, never a 500 or a second run. */
function openAnswer(sealed: string | null, key: Buffer, context: string): string {
  if (sealed === null) return '';
  try {
    return decryptSecret(sealed, key, context);
  } catch {
    throw new DomainError('IDEMPOTENCY_ANSWER_UNREADABLE');
  }
}

/**
 * Runs `execute` at most once per (workspace, credential, key) within 24 hours and returns its response, or the stored
 * response of the first execution (`replayed: true`) when the same credential, with the same permissions, retries the
 * same request.
 */
export async function withIdempotency(
  deps: Deps,
  args: { principal: Principal; key: string; fingerprint: string; waitMs?: number },
  execute: () => Promise<StoredResponse>,
): Promise<StoredResponse & { replayed: boolean }> {
  if (!validIdempotencyKey(args.key)) throw new DomainError('BAD_REQUEST', { message: 'Idempotency-Key must be 1-255 visible ASCII characters.' });
  const p = args.principal;
  const scope = { workspaceId: p.workspaceId, credentialId: p.credentialId, key: args.key };
  const id = { workspaceId_credentialId_key: scope };
  // The sealed answer is bound to its row: copied to another credential's row, it does not decrypt.
  const sealContext = `idempotency\n${scope.workspaceId}\n${scope.credentialId}\n${scope.key}`;
  const requestHash = createHash('sha256').update(`${args.fingerprint}\n${permissionsOf(p)}`).digest('hex');
  const deadline = Date.now() + (args.waitMs ?? 30_000);
  for (;;) {
    const now = deps.clock.now();
    try {
      await deps.prisma.idempotencyKey.create({
        data: { ...scope, requestHash, state: 'IN_PROGRESS', createdAt: now, expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS) },
      });
      break;
    } catch (e) {
      if (!isUniqueViolation(e)) throw e;
    }
    const existing = await deps.prisma.idempotencyKey.findUnique({ where: id });
    if (!existing) continue;
    if (existing.expiresAt <= now) {
      await deps.prisma.idempotencyKey.deleteMany({ where: { ...scope, expiresAt: { lte: now } } });
      continue;
    }
    if (existing.requestHash !== requestHash) throw new DomainError('IDEMPOTENCY_KEY_REUSED');
    if (existing.state === 'COMPLETED' && existing.responseStatus !== null) {
      return { status: existing.responseStatus, body: openAnswer(existing.sealedResponse, deps.encryptionKey, sealContext), replayed: true };
    }
    if (Date.now() > deadline) throw new DomainError('IDEMPOTENCY_KEY_IN_PROGRESS');
    await new Promise((r) => setTimeout(r, 25));
  }
  let response: StoredResponse;
  try {
    response = await execute();
  } catch (e) {
    await deps.prisma.idempotencyKey.deleteMany({ where: { ...scope, state: 'IN_PROGRESS' } });
    throw e;
  }
  if (response.status >= 500) {
    await deps.prisma.idempotencyKey.deleteMany({ where: { ...scope, state: 'IN_PROGRESS' } });
  } else {
    await deps.prisma.idempotencyKey.update({
      where: id,
      data: { state: 'COMPLETED', responseStatus: response.status, sealedResponse: encryptSecret(response.body, deps.encryptionKey, sealContext) },
    });
  }
  return { ...response, replayed: false };
}
