/** Workspace settings and the e-mail outbox (dashboard). */
import { listEmails, updateWorkspaceSettings } from '../../domain/workspaces/settings.ts';
import { builder } from '../builder.ts';
import { NodeInterface } from '../common/node.ts';
import { domainErrors } from '../common/error-types.ts';
import { describedEnum } from '../common/enums.ts';
import type { EmailStatus } from '../../generated/prisma/enums.ts';
import { WorkspaceType } from '../account/account.type.ts';

const EmailStatusEnum = describedEnum<EmailStatus>('EmailStatus', 'Sending state of an e-mail.', {
  QUEUED: 'Waiting to be sent.',
  SENT: 'Handed to SMTP or kept in the local outbox.',
  FAILED: 'Gave up after retries.',
});

const EmailMessageType = builder.prismaObject('EmailMessage', {
  description: 'An e-mail the service sent or will send.',
  interfaces: [NodeInterface],
  fields: (t) => ({
    kind: t.exposeString('kind', { description: 'invoice_paid, payment_guide, cash_receipt, ...' }),
    to: t.exposeString('to', { description: 'Recipient.' }),
    subject: t.exposeString('subject', { description: 'Subject.' }),
    text: t.exposeString('text', { description: 'Plain-text body.' }),
    status: t.expose('status', { type: EmailStatusEnum, description: 'QUEUED, SENT or FAILED.' }),
    error: t.exposeString('error', { nullable: true, description: 'Why sending failed.' }),
    invoiceId: t.exposeID('invoiceId', { nullable: true, description: 'The invoice it is about.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was queued.' }),
    sentAt: t.expose('sentAt', { type: 'DateTime', nullable: true, description: 'When it was sent.' }),
  }),
});

builder.queryField('emails', (t) =>
  t.prismaField({
    type: [EmailMessageType],
    description: 'E-mails of the workspace, newest first (dashboard; the local outbox when no SMTP server is configured).',
    authScopes: { dashboard: true },
    args: { first: t.arg.int({ description: '1-100, default 50.' }) },
    resolve: async (_query, _r, args, ctx) => listEmails(ctx.deps, ctx.principal, args.first ?? 50),
  }),
);

const SettingsInput = builder.inputType('WorkspaceSettingsInput', {
  description: 'Settings to change; absent fields stay as they are.',
  fields: (t) => ({
    paidEmailEnabled: t.boolean({ description: 'E-mail the buyer when a deposit pays their invoice (never on mark-as-paid).' }),
  }),
});

const WorkspacePayload = builder.objectRef<{ id: string }>('WorkspacePayload').implement({
  description: 'The workspace after the change.',
  fields: (t) => ({
    workspace: t.prismaField({
      type: WorkspaceType,
      description: 'The workspace.',
      resolve: (query, w, _a, ctx) => ctx.prisma.workspace.findUniqueOrThrow({ ...query, where: { id: w.id } }),
    }),
  }),
});

builder.mutationField('updateWorkspaceSettings', (t) =>
  t.field({
    errors: domainErrors,
    type: WorkspacePayload,
    description: 'Changes workspace settings (dashboard).',
    authScopes: { dashboard: true },
    args: { input: t.arg({ type: SettingsInput, required: true, description: 'Settings.' }) },
    resolve: (_r, { input }, ctx) => updateWorkspaceSettings(ctx.deps, ctx.principal, input),
  }),
);
