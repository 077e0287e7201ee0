/** BankAccount (bac_), its registration (contract: registerBankAccount) and its alias and use (updateBankAccount). */
import { awaitedVerificationCode, registerBankAccount, updateBankAccount } from '../../domain/bank-accounts/bank-accounts.ts';
import { BANK_PROVIDERS } from '../../domain/bank-accounts/bank-providers.ts';
import { requirePrincipal } from '../../domain/auth/rules.ts';
import type { BankAccount } from '../../generated/prisma/client.ts';
import { builder } from '../builder.ts';
import { NodeInterface } from '../common/node.ts';
import { BankAccountTypeEnum } from '../common/enums.ts';
import { domainErrors } from '../common/error-types.ts';

export const BankAccountType = builder.prismaObject('BankAccount', {
  description: 'A receiving bank account (bac_). Deposits to it are matched to invoices once it is verified.',
  interfaces: [NodeInterface],
  fields: (t) => ({
    active: t.exposeBoolean('active', { description: 'In use.' }),
    ownerId: t.exposeID('ownerId', { description: 'Account id of the workspace owner who registered it.' }),
    alias: t.exposeString('alias', { description: 'Dashboard alias.' }),
    provider: t.exposeString('provider', { description: 'Bank identifier (see bankProviders).' }),
    type: t.expose('type', { type: BankAccountTypeEnum, description: 'PERSONAL or CORPORATE.' }),
    number: t.exposeString('number', { description: 'Account number without hyphens.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'Registration time.' }),
    verifiedAt: t.expose('verifiedAt', { type: 'DateTime', nullable: true, description: 'When the 1-won verification completed; null until then.' }),
    verificationCode: t.string({
      nullable: true,
      description: 'The depositor name of the 1-won verification deposit still awaited; null once the account is verified.',
      resolve: awaitedVerificationCode,
    }),
    deletedAt: t.expose('deletedAt', { type: 'DateTime', nullable: true, description: 'Null for a non-deleted account.' }),
  }),
});

const BankProviderInfo = builder.objectRef<(typeof BANK_PROVIDERS)[number]>('BankProviderInfo').implement({
  description: 'A bank accepted for receiving accounts.',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'Identifier used as `provider`.' }),
    displayName: t.exposeString('displayName', { description: 'Korean name of the bank.' }),
    depositorNameLength: t.exposeInt('depositorNameLength', { description: 'Characters of the depositor name this bank keeps in its notifications (NAME_PREFIX matching).' }),
  }),
});

builder.queryField('bankProviders', (t) =>
  t.field({
    type: [BankProviderInfo],
    description: 'The seven bank providers accepted for `registerBankAccount`.',
    resolve: () => [...BANK_PROVIDERS],
  }),
);

builder.queryField('bankAccounts', (t) =>
  t.prismaField({
    type: [BankAccountType],
    description: 'Bank accounts of the workspace (for an account-limited key: only its accounts).',
    resolve: (query, _root, _args, ctx) => {
      const p = requirePrincipal(ctx.principal);
      return ctx.prisma.bankAccount.findMany({
        ...query,
        where: { workspaceId: p.workspaceId, deletedAt: null, ...(p.bankAccountIds ? { id: { in: p.bankAccountIds } } : {}) },
        orderBy: { createdAt: 'desc' },
      });
    },
  }),
);

const RegisterBankAccountInput = builder.inputType('RegisterBankAccountInput', {
  description: 'A receiving account to register.',
  fields: (t) => ({
    provider: t.string({ required: true, description: 'Bank identifier, one of bankProviders (e.g. SHINHAN).' }),
    type: t.field({ type: BankAccountTypeEnum, required: true, description: 'PERSONAL or CORPORATE.' }),
    number: t.string({ required: true, description: 'Account number, 10-16 digits; hyphens are removed.' }),
    alias: t.string({ required: true, description: 'Dashboard alias, 1-50 characters.' }),
  }),
});

const RegisterBankAccountPayload = builder
  .objectRef<{ bankAccount: BankAccount; verificationCode: string; notificationToken: string }>('RegisterBankAccountPayload')
  .implement({
    description: 'The registered (unverified) account, the code for its 1-won verification and its notification token (shown once).',
    fields: (t) => ({
      bankAccount: t.field({ type: BankAccountType, description: 'The new account.', resolve: (p) => p.bankAccount }),
      verificationCode: t.exposeString('verificationCode', {
        description: 'Send 1 won to the account with this code as the depositor name; the account is verified when that deposit is notified.',
      }),
      notificationToken: t.exposeString('notificationToken', {
        description: 'Bearer token the bank-notification feed uses for POST /bank-notifications on this account. Shown once.',
      }),
    }),
  });

builder.mutationField('registerBankAccount', (t) =>
  t.field({
    type: RegisterBankAccountPayload,
    description: 'Registers a receiving bank account (dashboard). It is usable once its 1-won verification deposit arrives.',
    authScopes: { dashboard: true },
    args: { input: t.arg({ type: RegisterBankAccountInput, required: true, description: 'The account.' }) },
    resolve: (_root, { input }, ctx) => registerBankAccount(ctx.deps, ctx.principal, input),
  }),
);

const UpdateBankAccountInput = builder.inputType('UpdateBankAccountInput', {
  description: 'What to change of a receiving account; absent fields stay as they are (at least one is sent).',
  fields: (t) => ({
    bankAccountId: t.id({ required: true, description: 'bac_ id of an account of the workspace.' }),
    alias: t.string({ description: 'New dashboard alias, 1-50 characters.' }),
    active: t.boolean({
      description: 'false: out of use (its deposits are recorded but not matched, and no new invoice may name it); true: back in use.',
    }),
  }),
});

const BankAccountPayload = builder.objectRef<{ bankAccountId: string }>('BankAccountPayload').implement({
  description: 'The account after the change.',
  fields: (t) => ({
    bankAccount: t.prismaField({
      type: BankAccountType,
      description: 'The account.',
      resolve: (query, parent, _args, ctx) => ctx.prisma.bankAccount.findUniqueOrThrow({ ...query, where: { id: parent.bankAccountId } }),
    }),
  }),
});

builder.mutationField('updateBankAccount', (t) =>
  t.field({
    errors: domainErrors,
    type: BankAccountPayload,
    description:
      'Renames a receiving account or takes it out of use and back (dashboard). Deposits to an account out of use are recorded but not matched; new invoices may not name it (BANK_ACCOUNT_INACTIVE).',
    authScopes: { dashboard: true },
    args: { input: t.arg({ type: UpdateBankAccountInput, required: true, description: 'The account and its changes.' }) },
    resolve: (_root, { input }, ctx) => updateBankAccount(ctx.deps, ctx.principal, input),
  }),
);
