/**
 * Webhook endpoints (contract: createWebhook; plus list, update url, disable/enable, delete, rotate secret, deliveries,
 * redeliver). The signing secret `whsec_...` is shown once and stored sealed (AES-256-GCM) because signing needs it;
 * rotating keeps the old secret signing for 24 hours. URLs must be http(s) and must not resolve to private addresses.
 */
import type { Webhook } from '../../generated/prisma/client.ts';
import type { Principal } from '../auth/principal.ts';
import { requireSession } from '../auth/rules.ts';
import type { Deps } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { isId, newId } from '../ids.ts';
import { decryptSecret, encryptSecret, newWebhookSecret } from '../secrets.ts';
import { checkWebhookUrlShape, describeRefusal, isForbiddenAddress, isIpLiteral, judgeAddress } from './address-policy.ts';
import { SECRET_ROTATION_OVERLAP_MS } from './signing.ts';

export const MAX_WEBHOOKS_PER_WORKSPACE = 20;

/** Checks a webhook URL: shape, and (unless private addresses are allowed) every address its host resolves to. */
export async function assertDeliverableUrl(deps: Pick<Deps, 'resolveHost' | 'settings'>, raw: string): Promise<URL> {
  const shape = checkWebhookUrlShape(raw);
  if (!shape.ok) throw new DomainError('WEBHOOK_URL_FORBIDDEN', { message: shape.reason, path: ['url'] });
  if (deps.settings.webhookAllowPrivate) return shape.url;
  const host = shape.url.hostname.replace(/^\[|\]$/g, '');
  if (isIpLiteral(host)) {
    // Judged as written (every spelling of an IPv4 address, including those an IPv6 address carries), no lookup.
    const verdict = judgeAddress(host);
    if (!verdict.allowed) throw new DomainError('WEBHOOK_URL_FORBIDDEN', { message: `url host ${shape.url.hostname} is not allowed: ${describeRefusal(verdict)}.`, path: ['url'] });
    return shape.url;
  }
  let addresses: string[];
  try {
    addresses = await deps.resolveHost(host);
  } catch {
    throw new DomainError('WEBHOOK_URL_FORBIDDEN', { message: `url host ${host} does not resolve.`, path: ['url'] });
  }
  // The general message: which address and range would tell what internal names resolve to.
  if (addresses.length === 0 || addresses.some(isForbiddenAddress)) {
    throw new DomainError('WEBHOOK_URL_FORBIDDEN', { path: ['url'] });
  }
  return shape.url;
}

async function ownWebhook(deps: Deps, p: Principal, id: unknown): Promise<Webhook> {
  const hook = isId('webhook', id) ? await deps.prisma.webhook.findUnique({ where: { id } }) : null;
  if (!hook || hook.workspaceId !== p.workspaceId || hook.deletedAt) throw new DomainError('NOT_FOUND', { message: 'Webhook not found.' });
  return hook;
}

/** createWebhook: registers an endpoint for V1 or V2 events; returns its signing secret once. */
export async function createWebhook(deps: Deps, principal: Principal | null, input: { url: string; version: 'V1' | 'V2' }) {
  const p = requireSession(principal);
  if (input.version !== 'V1' && input.version !== 'V2') throw new DomainError('VALIDATION_FAILED', { path: ['version'], message: 'version must be V1 or V2.' });
  const url = await assertDeliverableUrl(deps, input.url);
  const count = await deps.prisma.webhook.count({ where: { workspaceId: p.workspaceId, deletedAt: null } });
  if (count >= MAX_WEBHOOKS_PER_WORKSPACE) throw new DomainError('WEBHOOK_LIMIT_REACHED');
  const signingSecret = newWebhookSecret();
  const now = deps.clock.now();
  const webhook = await deps.prisma.webhook.create({
    data: { id: newId('webhook'), workspaceId: p.workspaceId, url: url.toString(), version: input.version, secretEncrypted: encryptSecret(signingSecret, deps.encryptionKey), createdAt: now, updatedAt: now },
  });
  return { webhook, signingSecret };
}

/** updateWebhook: changes the URL (checked like at registration). */
export async function updateWebhookUrl(deps: Deps, principal: Principal | null, id: unknown, rawUrl: string) {
  const p = requireSession(principal);
  await ownWebhook(deps, p, id);
  const url = await assertDeliverableUrl(deps, rawUrl);
  return deps.prisma.webhook.update({ where: { id: id as string }, data: { url: url.toString(), updatedAt: deps.clock.now() } });
}

/** disableWebhook / enableWebhook: a disabled webhook receives nothing new (pending retries stop). */
export async function setWebhookEnabled(deps: Deps, principal: Principal | null, id: unknown, enabled: boolean) {
  const p = requireSession(principal);
  await ownWebhook(deps, p, id);
  return deps.prisma.webhook.update({ where: { id: id as string }, data: { disabledAt: enabled ? null : deps.clock.now(), updatedAt: deps.clock.now() } });
}

/** deleteWebhook: the webhook disappears and receives nothing more. */
export async function deleteWebhook(deps: Deps, principal: Principal | null, id: unknown) {
  const p = requireSession(principal);
  await ownWebhook(deps, p, id);
  return deps.prisma.webhook.update({ where: { id: id as string }, data: { deletedAt: deps.clock.now(), updatedAt: deps.clock.now() } });
}

/** rotateWebhookSecret: a new secret (shown once); the previous one keeps signing for 24 hours. */
export async function rotateWebhookSecret(deps: Deps, principal: Principal | null, id: unknown) {
  const p = requireSession(principal);
  const hook = await ownWebhook(deps, p, id);
  const signingSecret = newWebhookSecret();
  const now = deps.clock.now();
  const webhook = await deps.prisma.webhook.update({
    where: { id: hook.id },
    data: {
      secretEncrypted: encryptSecret(signingSecret, deps.encryptionKey),
      previousSecretEncrypted: hook.secretEncrypted,
      previousSecretExpiresAt: new Date(now.getTime() + SECRET_ROTATION_OVERLAP_MS),
      updatedAt: now,
    },
  });
  return { webhook, signingSecret };
}

/** The secrets that sign a delivery now: the current one, and the previous one during its 24-hour overlap. */
export function activeSigningSecrets(hook: Pick<Webhook, 'secretEncrypted' | 'previousSecretEncrypted' | 'previousSecretExpiresAt'>, key: Buffer, now: Date): string[] {
  const secrets = [decryptSecret(hook.secretEncrypted, key)];
  if (hook.previousSecretEncrypted && hook.previousSecretExpiresAt && hook.previousSecretExpiresAt > now) {
    secrets.push(decryptSecret(hook.previousSecretEncrypted, key));
  }
  return secrets;
}

/** Loads a webhook of the session's workspace (for its deliveries). */
export async function getWebhook(deps: Deps, principal: Principal | null, id: unknown) {
  return ownWebhook(deps, requireSession(principal), id);
}

/** redeliverWebhookEvent: replays an event to a webhook now (a new round of attempts), whatever happened before. */
export async function redeliverWebhookEvent(deps: Deps, principal: Principal | null, webhookId: unknown, eventId: unknown) {
  const p = requireSession(principal);
  const hook = await ownWebhook(deps, p, webhookId);
  const event = isId('event', eventId) ? await deps.prisma.event.findUnique({ where: { id: eventId } }) : null;
  if (!event || event.workspaceId !== p.workspaceId) throw new DomainError('NOT_FOUND', { message: 'Event not found.' });
  const now = deps.clock.now();
  const dispatch = await deps.prisma.webhookDispatch.upsert({
    where: { webhookId_eventId: { webhookId: hook.id, eventId: event.id } },
    create: { id: newId('dispatch'), webhookId: hook.id, eventId: event.id, status: 'PENDING', attempts: 0, nextAttemptAt: now, createdAt: now, updatedAt: now },
    update: { status: 'PENDING', attempts: 0, nextAttemptAt: now, lockedUntil: null, updatedAt: now },
  });
  deps.onEventsCommitted();
  return dispatch;
}
