/** Account, Workspace and the viewer. */
import { builder } from '../builder.ts';
import { NodeInterface } from '../common/node.ts';

export const AccountType = builder.prismaObject('Account', {
  description: 'A person who signs in to the dashboard (acc_).',
  interfaces: [NodeInterface],
  fields: (t) => ({
    email: t.exposeString('email', { description: 'Sign-in e-mail.' }),
    name: t.exposeString('name', { description: 'Display name.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the account was created.' }),
  }),
});

export const WorkspaceType = builder.prismaObject('Workspace', {
  description: "A merchant's workspace; invoices, deposits, keys and settings belong to one workspace.",
  interfaces: [NodeInterface],
  fields: (t) => ({
    name: t.exposeString('name', { description: 'Workspace name.' }),
    ownerId: t.exposeID('ownerId', { description: "The owner's account id (v1 issuerId/ownerId)." }),
    owner: t.relation('owner', { description: 'The owner account.' }),
    paidEmailEnabled: t.exposeBoolean('paidEmailEnabled', { description: 'Whether buyers get an e-mail when a deposit pays their invoice.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the workspace was created.' }),
    businessInfo: t.relation('businessInfo', { nullable: true, description: 'Registered business information and agency link, if any.' }),
  }),
});
