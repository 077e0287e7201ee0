/** Webhooks (contract: createWebhook) and their deliveries: list, update, disable/enable, delete, rotate, redeliver. */
import { clampedSize } from '../../domain/paging.ts';
import { createWebhook, deleteWebhook, getWebhook, redeliverWebhookEvent, rotateWebhookSecret, setWebhookEnabled, updateWebhookUrl } from '../../domain/webhooks/webhooks.ts';
import type { Webhook } from '../../generated/prisma/client.ts';
import type { DeliveryStatus, WebhookVersion } from '../../generated/prisma/enums.ts';
import { builder } from '../builder.ts';
import { liveRowsOfWorkspace } from '../common/dashboard-lists.ts';
import { NodeInterface } from '../common/node.ts';
import { domainErrors } from '../common/error-types.ts';
import { describedEnum } from '../common/enums.ts';

const WebhookVersionEnum = describedEnum<WebhookVersion>('WebhookVersion', 'Which events and payload format a webhook receives.', {
  V1: 'invoice.created, invoice.paid, invoice.deleted (also for a cancel); v1 objects and timestamps.',
  V2: 'invoice.created, invoice.paid, invoice.updated, invoice.canceled, receipt.issued, receipt.failed, shop_order.confirmed, shop_order.confirmation_failed, shop_order.attention_needed, transaction.received; v2 objects, Unix seconds.',
});

const DeliveryStatusEnum = describedEnum<DeliveryStatus>('WebhookDeliveryStatus', 'Outcome of one delivery attempt.', {
  SUCCEEDED: 'The endpoint answered 2xx.',
  FAILED: 'No 2xx answer (status, error or timeout recorded).',
});

export const WebhookDeliveryType = builder.prismaObject('WebhookDelivery', {
  description: 'One attempt (whm_) to deliver an event to a webhook.',
  interfaces: [NodeInterface],
  fields: (t) => ({
    eventId: t.exposeID('eventId', { description: 'The event delivered (its id is the webhook-id header).' }),
    attempt: t.exposeInt('attempt', { description: 'Attempt number, 1-7.' }),
    status: t.expose('status', { type: DeliveryStatusEnum, description: 'SUCCEEDED or FAILED.' }),
    responseStatus: t.exposeInt('responseStatus', { nullable: true, description: 'HTTP status answered, if any.' }),
    durationMs: t.exposeInt('durationMs', { description: 'Time until the answer or the error.' }),
    error: t.exposeString('error', { nullable: true, description: 'What went wrong (timeout, refused address, HTTP status...).' }),
    nextAttemptAt: t.expose('nextAttemptAt', { type: 'DateTime', nullable: true, description: 'When the next attempt is due; null when this was the last.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the attempt finished.' }),
  }),
});

export const WebhookType = builder.prismaObject('Webhook', {
  description: 'A webhook endpoint (whd_). Deliveries are signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature).',
  interfaces: [NodeInterface],
  fields: (t) => ({
    url: t.exposeString('url', { description: 'Where events are POSTed.' }),
    version: t.expose('version', { type: WebhookVersionEnum, description: 'V1 or V2.' }),
    enabled: t.boolean({ description: 'Whether it receives events.', select: { disabledAt: true }, resolve: (w) => !w.disabledAt }),
    disabledAt: t.expose('disabledAt', { type: 'DateTime', nullable: true, description: 'When it was disabled (by hand, or after a 410 Gone answer).' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'Registration time.' }),
    previousSecretExpiresAt: t.expose('previousSecretExpiresAt', { type: 'DateTime', nullable: true, description: 'Until when the secret before the last rotation still signs.' }),
    deliveries: t.relation('deliveries', {
      description: 'Delivery attempts, newest first (at most 100).',
      args: { first: t.arg.int({ description: '1-100, default 50.' }) },
      query: (args) => ({ orderBy: { createdAt: 'desc' }, take: clampedSize(args.first, 50) }),
    }),
  }),
});

builder.queryField('webhooks', (t) =>
  t.prismaField({
    type: [WebhookType],
    description: 'Webhooks of the workspace (dashboard).',
    authScopes: { dashboard: true },
    resolve: (query, _r, _a, ctx) => ctx.prisma.webhook.findMany({ ...query, ...liveRowsOfWorkspace(ctx) }),
  }),
);

builder.queryField('webhook', (t) =>
  t.prismaField({
    type: WebhookType,
    description: 'One webhook with its deliveries (dashboard).',
    authScopes: { dashboard: true },
    args: { id: t.arg.id({ required: true, description: 'whd_ id.' }) },
    resolve: async (query, _r, { id }, ctx) => {
      const hook = await getWebhook(ctx.deps, ctx.principal, id);
      return ctx.prisma.webhook.findUniqueOrThrow({ ...query, where: { id: hook.id } });
    },
  }),
);

const CreateWebhookInput = builder.inputType('CreateWebhookInput', {
  description: 'A webhook endpoint.',
  fields: (t) => ({
    url: t.string({ required: true, description: 'http(s) URL; must not resolve to loopback, private, link-local or metadata addresses.' }),
    version: t.field({ type: WebhookVersionEnum, required: true, description: 'V1 or V2.' }),
  }),
});

const WebhookSecretPayload = builder.objectRef<{ webhook: Webhook; signingSecret: string }>('WebhookSecretPayload').implement({
  description: 'The webhook and its signing secret, shown this once.',
  fields: (t) => ({
    webhook: t.field({ type: WebhookType, description: 'The webhook.', resolve: (p) => p.webhook }),
    signingSecret: t.exposeString('signingSecret', { description: 'whsec_... secret for verifying webhook-signature. Store it now: it is never shown again.' }),
  }),
});

const WebhookPayload = builder.objectRef<Webhook>('WebhookPayload').implement({
  description: 'The webhook after the change.',
  fields: (t) => ({ webhook: t.field({ type: WebhookType, description: 'The webhook.', resolve: (w) => w }) }),
});

builder.mutationField('createWebhook', (t) =>
  t.field({
    type: WebhookSecretPayload,
    description: 'Registers a webhook endpoint (dashboard); returns its signing secret once.',
    authScopes: { dashboard: true },
    args: { input: t.arg({ type: CreateWebhookInput, required: true, description: 'URL and version.' }) },
    resolve: (_r, { input }, ctx) => createWebhook(ctx.deps, ctx.principal, input),
  }),
);

builder.mutationField('updateWebhook', (t) =>
  t.field({
    errors: domainErrors,
    type: WebhookPayload,
    description: 'Changes the URL of a webhook.',
    authScopes: { dashboard: true },
    args: { id: t.arg.id({ required: true, description: 'whd_ id.' }), url: t.arg.string({ required: true, description: 'New URL.' }) },
    resolve: (_r, { id, url }, ctx) => updateWebhookUrl(ctx.deps, ctx.principal, id, url),
  }),
);

for (const [name, enabled, description] of [
  ['disableWebhook', false, 'Stops deliveries to a webhook (pending retries are dropped).'],
  ['enableWebhook', true, 'Resumes deliveries to a disabled webhook (events from now on).'],
] as const) {
  builder.mutationField(name, (t) =>
    t.field({
      errors: domainErrors,
      type: WebhookPayload,
      description,
      authScopes: { dashboard: true },
      args: { id: t.arg.id({ required: true, description: 'whd_ id.' }) },
      resolve: (_r, { id }, ctx) => setWebhookEnabled(ctx.deps, ctx.principal, id, enabled),
    }),
  );
}

builder.mutationField('deleteWebhook', (t) =>
  t.field({
    errors: domainErrors,
    type: WebhookPayload,
    description: 'Deletes a webhook.',
    authScopes: { dashboard: true },
    args: { id: t.arg.id({ required: true, description: 'whd_ id.' }) },
    resolve: (_r, { id }, ctx) => deleteWebhook(ctx.deps, ctx.principal, id),
  }),
);

builder.mutationField('rotateWebhookSecret', (t) =>
  t.field({
    errors: domainErrors,
    type: WebhookSecretPayload,
    description: 'A new signing secret (shown once); deliveries carry signatures by both secrets for 24 hours.',
    authScopes: { dashboard: true },
    args: { id: t.arg.id({ required: true, description: 'whd_ id.' }) },
    resolve: (_r, { id }, ctx) => rotateWebhookSecret(ctx.deps, ctx.principal, id),
  }),
);

const RedeliverPayload = builder.objectRef<{ webhookId: string; eventId: string }>('RedeliverWebhookEventPayload').implement({
  description: 'The replay was scheduled.',
  fields: (t) => ({
    webhookId: t.exposeID('webhookId', { description: 'The webhook.' }),
    eventId: t.exposeID('eventId', { description: 'The event being delivered again.' }),
  }),
});

builder.mutationField('redeliverWebhookEvent', (t) =>
  t.field({
    errors: domainErrors,
    type: RedeliverPayload,
    description: 'Delivers an event to a webhook again, now, with a fresh round of attempts (replay).',
    authScopes: { dashboard: true },
    args: { webhookId: t.arg.id({ required: true, description: 'whd_ id.' }), eventId: t.arg.id({ required: true, description: 'evt_ id.' }) },
    resolve: async (_r, { webhookId, eventId }, ctx) => {
      const d = await redeliverWebhookEvent(ctx.deps, ctx.principal, webhookId, eventId);
      return { webhookId: d.webhookId, eventId: d.eventId };
    },
  }),
);
