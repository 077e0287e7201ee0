/** Business information and agency link (contract: registerBusinessInfo). */
import { registerBusinessInfo } from '../../domain/business/business-info.ts';
import { builder } from '../builder.ts';
import { WorkspaceType } from '../account/account.type.ts';

builder.prismaObject('BusinessInfo', {
  description: 'The business a workspace issues cash receipts as, and its link to the issuing agency.',
  fields: (t) => ({
    corpNum: t.exposeString('corpNum', { description: 'Business registration number, 10 digits.' }),
    companyName: t.exposeString('companyName', { description: 'Company name.' }),
    representativeName: t.exposeString('representativeName', { description: 'Name of the representative.' }),
    agency: t.exposeString('agency', { description: 'Issuing agency linked (SIMULATED when no real agency is configured).' }),
    agencyLinkedAt: t.expose('agencyLinkedAt', { type: 'DateTime', nullable: true, description: 'When the agency link was made.' }),
  }),
});

const RegisterBusinessInfoInput = builder.inputType('RegisterBusinessInfoInput', {
  description: 'Business details for cash receipts.',
  fields: (t) => ({
    corpNum: t.string({ required: true, description: 'Business registration number, 10 digits (hyphens allowed).' }),
    companyName: t.string({ required: true, description: 'Company name, 1-100 characters.' }),
    representativeName: t.string({ required: true, description: 'Representative, 1-50 characters.' }),
  }),
});

const RegisterBusinessInfoPayload = builder.objectRef<{ workspaceId: string }>('RegisterBusinessInfoPayload').implement({
  description: 'The workspace with its business info registered.',
  fields: (t) => ({
    workspace: t.prismaField({
      type: WorkspaceType,
      description: 'The workspace.',
      resolve: (query, parent, _args, ctx) => ctx.prisma.workspace.findUniqueOrThrow({ ...query, where: { id: parent.workspaceId } }),
    }),
  }),
});

builder.mutationField('registerBusinessInfo', (t) =>
  t.field({
    type: RegisterBusinessInfoPayload,
    description: 'Registers (or replaces) the business information and links the configured cash-receipt agency (dashboard).',
    authScopes: { dashboard: true },
    args: { input: t.arg({ type: RegisterBusinessInfoInput, required: true, description: 'Business details.' }) },
    resolve: (_root, { input }, ctx) => registerBusinessInfo(ctx.deps, ctx.principal, input),
  }),
);
