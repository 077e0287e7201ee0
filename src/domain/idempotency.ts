/**
 * Idempotency keys (`Idempotency-Key` header on every POST of REST v1/v2 and on GraphQL mutations): the first
 * response to a key is stored for 24 hours per key and workspace and replayed for a retry with the same request; the
 * same key with a different request is refused (IDEMPOTENCY_KEY_REUSED); a duplicate that arrives while the first is
 * still running waits for it and gets its response (one execution). Server errors (5xx) are not stored, so a retry
 * runs again.
 */
import { createHash } from 'node:crypto';
import type { Deps } from './deps.ts';
import { DomainError } from './errors.ts';
import { isUniqueViolation } from './prisma-errors.ts';

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

/**
 * Runs `execute` at most once per (workspace, key) within 24 hours and returns its response, or the stored response of
 * the first execution (`replayed: true`).
 */
export async function withIdempotency(
  deps: Deps,
  args: { workspaceId: string; key: string; fingerprint: string; waitMs?: number },
  execute: () => Promise<StoredResponse>,
): Promise<StoredResponse & { replayed: boolean }> {
  if (!validIdempotencyKey(args.key)) throw new DomainError('BAD_REQUEST', { message: 'Idempotency-Key must be 1-255 visible ASCII characters.' });
  const id = { workspaceId_key: { workspaceId: args.workspaceId, key: args.key } };
  const deadline = Date.now() + (args.waitMs ?? 30_000);
  for (;;) {
    const now = deps.clock.now();
    try {
      await deps.prisma.idempotencyKey.create({
        data: { workspaceId: args.workspaceId, key: args.key, requestHash: args.fingerprint, state: 'IN_PROGRESS', createdAt: now, expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS) },
      });
      break;
    } catch (e) {
      if (!isUniqueViolation(e)) throw e;
    }
    const existing = await deps.prisma.idempotencyKey.findUnique({ where: id });
    if (!existing) continue;
    if (existing.expiresAt <= now) {
      await deps.prisma.idempotencyKey.deleteMany({ where: { ...id.workspaceId_key, expiresAt: { lte: now } } });
      continue;
    }
    if (existing.requestHash !== args.fingerprint) throw new DomainError('IDEMPOTENCY_KEY_REUSED');
    if (existing.state === 'COMPLETED' && existing.responseStatus !== null) {
      return { status: existing.responseStatus, body: existing.responseBody ?? '', replayed: true };
    }
    if (Date.now() > deadline) throw new DomainError('IDEMPOTENCY_KEY_IN_PROGRESS');
    await new Promise((r) => setTimeout(r, 25));
  }
  let response: StoredResponse;
  try {
    response = await execute();
  } catch (e) {
    await deps.prisma.idempotencyKey.deleteMany({ where: { ...id.workspaceId_key, state: 'IN_PROGRESS' } });
    throw e;
  }
  if (response.status >= 500) {
    await deps.prisma.idempotencyKey.deleteMany({ where: { ...id.workspaceId_key, state: 'IN_PROGRESS' } });
  } else {
    await deps.prisma.idempotencyKey.update({ where: id, data: { state: 'COMPLETED', responseStatus: response.status, responseBody: response.body } });
  }
  return { ...response, replayed: false };
}
