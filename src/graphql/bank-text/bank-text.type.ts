/** Forwarded bank texts (btx_; README, "Bank texts"): what each text became, for the merchant to see. */
import { listBankTexts } from '../../domain/deposits/bank-text-intake.ts';
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
    transactionId: t.exposeID('transactionId', { nullable: true, description: 'The deposit it announced (DEPOSIT, DUPLICATE).' }),
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
      first: t.arg.int({ description: '1-100, default 50.' }),
    },
    resolve: async (query, _r, args, ctx) => {
      const rows = await listBankTexts(ctx.deps, ctx.principal, args);
      return ctx.prisma.bankText.findMany({ ...query, where: { id: { in: rows.map((r) => r.id) } }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
    },
  }),
);
