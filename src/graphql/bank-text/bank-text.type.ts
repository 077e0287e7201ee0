/** Forwarded bank texts (btx_; README, "Bank texts"): what each text became, for the merchant to see. */
import { dismissBankText, enterBankTextDeposit, listBankTexts } from '../../domain/deposits/bank-text-intake.ts';
import type { BankText, Transaction } from '../../generated/prisma/client.ts';
import { domainErrors } from '../common/error-types.ts';
import type { BankTextOutcome } from '../../generated/prisma/enums.ts';
import { builder } from '../builder.ts';
import { describedEnum } from '../common/enums.ts';

const BankTextOutcomeEnum = describedEnum<BankTextOutcome>('BankTextOutcome', 'What became of a forwarded bank text.', {
  DEPOSIT: 'A new deposit (transactionId).',
  DUPLICATE: 'A deposit already stored: the same deposit announced again (SMS and push, a retry).',
  NOT_A_DEPOSIT: 'A withdrawal, a balance notice, a card payment, an advertisement (kind, reason).',
  UNRECOGNIZED: 'No parser understood it (reason); kept as received.',
  REFUSED: "A deposit text of another bank (BANK_MISMATCH) or another account number (ACCOUNT_MISMATCH).",
});

export const BankTextType = builder.prismaObject('BankText', {
  description: "A bank's text as the merchant's phone forwarded it (btx_), stored as received whatever it said.",
  fields: (t) => ({
    id: t.exposeID('id', { description: 'btx_ id.' }),
    bankAccountId: t.exposeID('bankAccountId', { description: 'The account whose notification token forwarded it.' }),
    text: t.exposeString('text', { description: 'The text exactly as received.' }),
    channel: t.exposeString('channel', { description: 'SMS or PUSH, as the forwarder said.' }),
    sender: t.exposeString('sender', { nullable: true, description: 'The sender number or app, when the forwarder knew it.' }),
    receivedAt: t.expose('phoneReceivedAt', { type: 'DateTime', description: 'When the phone received it.' }),
    outcome: t.expose('outcome', { type: BankTextOutcomeEnum, description: 'What became of it.' }),
    kind: t.exposeString('kind', { nullable: true, description: 'NOT_A_DEPOSIT: WITHDRAWAL, BALANCE, ADVERTISEMENT or OTHER; REFUSED: BANK_MISMATCH or ACCOUNT_MISMATCH.' }),
    reason: t.exposeString('reason', { nullable: true, description: 'Why it is not a deposit, in words.' }),
    provider: t.exposeString('provider', { nullable: true, description: 'The bank it was read as, when it was.' }),
    transactionId: t.exposeID('transactionId', { nullable: true, description: 'The deposit it announced (DEPOSIT, DUPLICATE), or the one entered by hand from it (resolution ENTERED).' }),
    resolution: t.exposeString('resolution', {
      nullable: true,
      description: 'A text the service could not take (UNRECOGNIZED, REFUSED), dealt with by the merchant: ENTERED (a deposit entered by hand from it: transactionId) or DISMISSED; null while open.',
    }),
    resolvedAt: t.expose('resolvedAt', { type: 'DateTime', nullable: true, description: 'When it was entered or dismissed.' }),
    resolvedBy: t.exposeString('resolvedBy', { nullable: true, description: 'Who entered or dismissed it (the dashboard user).' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the service stored it.' }),
  }),
});

builder.queryField('bankTexts', (t) =>
  t.prismaField({
    type: [BankTextType],
    description: "The workspace's forwarded bank texts, newest first (a key limited to some accounts: those accounts' texts).",
    authScopes: { authenticated: true },
    args: {
      outcomes: t.arg({ type: [BankTextOutcomeEnum], required: false, description: 'Only these outcomes (e.g. UNRECOGNIZED: the texts to look at).' }),
      open: t.arg.boolean({ required: false, description: 'true = only the texts still to deal with (UNRECOGNIZED or REFUSED, neither entered nor dismissed); false = all the others.' }),
      first: t.arg.int({ description: '1-100, default 50.' }),
    },
    resolve: async (query, _r, args, ctx) => {
      const rows = await listBankTexts(ctx.deps, ctx.principal, args);
      return ctx.prisma.bankText.findMany({ ...query, where: { id: { in: rows.map((r) => r.id) } }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
    },
  }),
);

const EnterBankTextDepositInput = builder.inputType('EnterBankTextDepositInput', {
  description: 'The deposit a text announces, as the merchant reads it.',
  fields: (t) => ({
    bankTextId: t.id({ required: true, description: 'btx_ id of an UNRECOGNIZED or REFUSED text not yet dealt with.' }),
    amount: t.int({ required: true, description: 'Won, greater than 0.' }),
    depositorName: t.string({ required: true, description: 'The depositor name, as the text shows it.' }),
    receivedAt: t.field({ type: 'DateTime', required: false, description: "When the bank booked it (the text's time); default: when the phone received the text." }),
    balanceAfter: t.float({ required: false, description: 'The balance after it, when the text shows one (whole won): it tells the deposit apart from another of the same amount and minute.' }),
  }),
});

const BankTextDepositPayload = builder.objectRef<{ bankText: BankText; transaction: Transaction }>('BankTextDepositPayload').implement({
  description: 'The text, now ENTERED, and the deposit it stands for (new, or the one a poll or another text already stored).',
  fields: (t) => ({
    bankText: t.field({ type: BankTextType, description: 'The text.', resolve: (p) => p.bankText }),
    transaction: t.prismaField({
      type: 'Transaction',
      description: 'The deposit, matched like any other.',
      resolve: (query, p, _a, ctx) => ctx.prisma.transaction.findUniqueOrThrow({ ...query, where: { id: p.transaction.id } }),
    }),
  }),
});

builder.mutationField('enterBankTextDeposit', (t) =>
  t.field({
    errors: domainErrors,
    type: BankTextDepositPayload,
    description: "Dashboard: turns a text the service could not take into the deposit it announces, on the text's account (stored once, like a text's deposit, and matched).",
    authScopes: { dashboard: true },
    args: { input: t.arg({ type: EnterBankTextDepositInput, required: true, description: 'The text and its deposit.' }) },
    resolve: (_r, { input }, ctx) => enterBankTextDeposit(ctx.deps, ctx.principal, { ...input, receivedAt: input.receivedAt?.toISOString() ?? undefined }),
  }),
);

const BankTextPayload = builder.objectRef<BankText>('BankTextPayload').implement({
  description: 'The text after the change.',
  fields: (t) => ({ bankText: t.field({ type: BankTextType, description: 'The text.', resolve: (b) => b }) }),
});

builder.mutationField('dismissBankText', (t) =>
  t.field({
    errors: domainErrors,
    type: BankTextPayload,
    description: 'Dashboard: marks a text the service could not take as looked at, announcing no deposit (DISMISSED).',
    authScopes: { dashboard: true },
    args: { id: t.arg.id({ required: true, description: 'btx_ id.' }) },
    resolve: (_r, { id }, ctx) => dismissBankText(ctx.deps, ctx.principal, id),
  }),
);
