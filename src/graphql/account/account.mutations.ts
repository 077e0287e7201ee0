/** signUp and logIn (contract names), and the viewer query. */
import { logIn, signUp } from '../../domain/accounts/accounts.ts';
import { requirePrincipal } from '../../domain/auth/rules.ts';
import { builder } from '../builder.ts';
import { AccountType, WorkspaceType } from './account.type.ts';

interface SessionResult {
  token: string;
  accountId: string;
  workspaceId: string;
}

const SessionPayload = builder.objectRef<SessionResult>('SessionPayload').implement({
  description: 'A new dashboard session. The token is shown once; send it as `Authorization: Bearer <token>`.',
  fields: (t) => ({
    token: t.exposeString('token', { description: 'Session token (sess_...).' }),
    account: t.prismaField({
      type: AccountType,
      description: 'The signed-in account.',
      resolve: (query, parent, _args, ctx) => ctx.prisma.account.findUniqueOrThrow({ ...query, where: { id: parent.accountId } }),
    }),
    workspace: t.prismaField({
      type: WorkspaceType,
      description: 'The workspace the session acts in.',
      resolve: (query, parent, _args, ctx) => ctx.prisma.workspace.findUniqueOrThrow({ ...query, where: { id: parent.workspaceId } }),
    }),
  }),
});

const SignUpInput = builder.inputType('SignUpInput', {
  description: 'A new account and its workspace.',
  fields: (t) => ({
    email: t.string({ required: true, description: 'Sign-in e-mail, 5-255 characters.' }),
    password: t.string({ required: true, description: 'Password, 8-200 characters.' }),
    name: t.string({ required: true, description: 'Display name, 1-100 characters.' }),
  }),
});

const LogInInput = builder.inputType('LogInInput', {
  description: 'Credentials.',
  fields: (t) => ({
    email: t.string({ required: true, description: 'Sign-in e-mail.' }),
    password: t.string({ required: true, description: 'Password.' }),
  }),
});

builder.mutationField('signUp', (t) =>
  t.field({
    type: SessionPayload,
    description: 'Creates an account (acc_) owning a new workspace, and signs in.',
    args: { input: t.arg({ type: SignUpInput, required: true, description: 'Account details.' }) },
    resolve: (_root, { input }, ctx) => signUp(ctx.deps, input),
  }),
);

builder.mutationField('logIn', (t) =>
  t.field({
    type: SessionPayload,
    description: 'Signs in; repeated failures for one e-mail are refused for a while (TOO_MANY_ATTEMPTS).',
    args: { input: t.arg({ type: LogInInput, required: true, description: 'Credentials.' }) },
    resolve: (_root, { input }, ctx) => logIn(ctx.deps, input),
  }),
);

const ViewerType = builder.objectRef<{ kind: string; workspaceId: string; accountId: string | null; apiKeyId: string | null; readOnly: boolean; bankAccountIds: string[] | null }>('Viewer').implement({
  description: 'Who is calling.',
  fields: (t) => ({
    kind: t.exposeString('kind', { description: 'API_KEY, OAUTH_TOKEN or SESSION.' }),
    readOnly: t.exposeBoolean('readOnly', { description: 'Whether writes are refused.' }),
    bankAccountIds: t.exposeStringList('bankAccountIds', { nullable: true, description: 'Allowed bank accounts; null = all.' }),
    apiKeyId: t.exposeID('apiKeyId', { nullable: true, description: 'The API key, when calling with one.' }),
    account: t.prismaField({
      type: AccountType,
      nullable: true,
      description: 'The signed-in account (sessions only).',
      resolve: (query, parent, _args, ctx) => (parent.accountId ? ctx.prisma.account.findUnique({ ...query, where: { id: parent.accountId } }) : null),
    }),
    workspace: t.prismaField({
      type: WorkspaceType,
      description: 'The workspace being acted in.',
      resolve: (query, parent, _args, ctx) => ctx.prisma.workspace.findUniqueOrThrow({ ...query, where: { id: parent.workspaceId } }),
    }),
  }),
});

builder.queryField('viewer', (t) =>
  t.field({
    type: ViewerType,
    description: 'The caller: kind of credential, scope, workspace.',
    resolve: (_root, _args, ctx) => {
      const p = requirePrincipal(ctx.principal);
      return { kind: p.kind, workspaceId: p.workspaceId, accountId: p.accountId, apiKeyId: p.apiKeyId, readOnly: p.readOnly, bankAccountIds: p.bankAccountIds };
    },
  }),
);
