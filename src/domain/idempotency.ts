/**
 * Idempotency keys (REST POSTs, GraphQL mutations): a first non-5xx answer is stored 24 h, sealed (it may hold a secret
 * shown once), and replayed only to the same authenticated credential with the same request and permissions; another
 * request under the key is IDEMPOTENCY_KEY_REUSED, and a duplicate in flight waits for the first (one execution).
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
