/**
 * Forwarded bank texts (POST /bank-texts; README, "Bank texts"): the deposit SMS or app push a merchant's phone
 * received, posted by a forwarder with the account's notification token. Every text is stored as received (BankText),
 * whatever it says; a deposit text of this account becomes a deposit through the same intake as a bank notification.
 *
 * The deposit a text announces is stored once, whichever of its texts (SMS, push, a forwarder's retry) or the account's
 * polled history tells first: see announced-deposits.ts for the identity and the rule.
 */
import { z } from 'zod';
import type { BankAccount, BankText, Transaction } from '../../generated/prisma/client.ts';
import type { BankTextOutcome } from '../../generated/prisma/enums.ts';
import { timestampSchema } from '../dates.ts';
import type { Principal } from '../auth/principal.ts';
import { actorOf, assertCanWrite, bankAccountInScope, requirePrincipal, requireSession } from '../auth/rules.ts';
import type { Deps } from '../deps.ts';
import { clampedSize } from '../paging.ts';
import { DomainError } from '../errors.ts';
import { newId } from '../ids.ts';
import { fail, parseRequest } from '../request-schema.ts';
import { sha256Hex } from '../secrets.ts';
import { accountMatchesMask } from './bank-texts/account-mask.ts';
import { parseBankText, type BankTextParse } from './bank-texts/parse-bank-text.ts';
import { storeAnnouncedDeposit } from './announced-deposits.ts';
import { parseBankNotification } from './bank-notification.ts';

/** The largest text stored (UTF-16 code units): what no phone sends; longer is refused, not stored. */
export const MAX_STORED_TEXT = 20_000;

const invalid = (field: string, rule: string) => ({ error: fail('VALIDATION_FAILED', `${field} must be ${rule}.`) });

/** The body of POST /bank-texts. */
export const bankTextSchema = z.object(
  {
    text: z
      .string(invalid('text', `a string of 1-${MAX_STORED_TEXT} characters`))
      .min(1, invalid('text', `a string of 1-${MAX_STORED_TEXT} characters`))
      .max(MAX_STORED_TEXT, invalid('text', `a string of 1-${MAX_STORED_TEXT} characters`))
      .meta({ description: 'The text exactly as the phone received it (SMS/LMS body, or the push notification\'s title and text).' }),
    receivedAt: timestampSchema('receivedAt').meta({ description: 'When the phone received it, ISO 8601 with a zone (the text itself carries no year).' }),
    channel: z.enum(['SMS', 'PUSH'], invalid('channel', 'SMS or PUSH')).meta({ description: 'SMS (also LMS/MMS) or PUSH (a banking app\'s notification).' }),
    sender: z
      .string(invalid('sender', 'a string of at most 100 characters'))
      .max(100, invalid('sender', 'a string of at most 100 characters'))
      .nullish()
      .transform((v) => v ?? null)
      .meta({ description: 'The sender number, or the app that posted the notification, when the forwarder knows it.' }),
  },
  { error: fail('BAD_REQUEST') },
);

export type BankTextRequest = z.output<typeof bankTextSchema>;

export interface BankTextIntake {
  bankText: BankText;
  /** The deposit it announced (new or already stored), for DEPOSIT and DUPLICATE. */
  transaction: Transaction | null;
}

/** Why a deposit text is not this account's, or null when it may be. */
function refusalFor(account: BankAccount, parsed: Extract<BankTextParse, { kind: 'DEPOSIT' }>): { kind: string; reason: string } | null {
  if (parsed.provider !== account.provider) {
    return { kind: 'BANK_MISMATCH', reason: `A ${parsed.provider} text, forwarded with the token of a ${account.provider} account.` };
  }
  if (parsed.account && !accountMatchesMask(account.number, parsed.account.masked)) {
    return { kind: 'ACCOUNT_MISMATCH', reason: `The text's account (${parsed.account.masked}) is not this account's number.` };
  }
  return null;
}

/**
 * ingestBankText (POST /bank-texts), authenticated by the account's notification token: the text stored with its
 * outcome, and the deposit it announced.
 */
export async function ingestBankText(deps: Deps, token: string | null, raw: unknown): Promise<BankTextIntake> {
  if (!token) throw new DomainError('UNAUTHENTICATED');
  let request: BankTextRequest | null = null;
  let invalidBody: unknown = null;
  try {
    request = parseRequest(bankTextSchema, raw);
  } catch (e) {
    invalidBody = e;
  }
  // Authentication first: a bad token never learns about the body.
  const [account] = await deps.sql.query<BankAccount>(`SELECT * FROM "BankAccount" WHERE "notificationTokenHash" = $1 AND "deletedAt" IS NULL`, [sha256Hex(token)]);
  if (!account) throw new DomainError('UNAUTHENTICATED');
  if (invalidBody || !request) throw invalidBody;

  // The text's date is read against when the phone received it, but never past the service's own clock: a phone whose
  // clock runs ahead must not date a deposit in the future (where no history row would ever meet it).
  const readAt = new Date(Math.min(request.receivedAt.getTime(), deps.clock.now().getTime()));
  const parsed = parseBankText({ text: request.text, receivedAt: readAt, channel: request.channel, sender: request.sender });
  const base = {
    id: newId('bankText'),
    workspaceId: account.workspaceId,
    bankAccountId: account.id,
    text: request.text,
    channel: request.channel,
    sender: request.sender,
    phoneReceivedAt: request.receivedAt,
    createdAt: deps.clock.now(),
  };
  const store = (data: Partial<BankText> & Pick<BankText, 'outcome'>) => deps.prisma.bankText.create({ data: { ...base, ...data } });

  if (parsed.kind === 'UNRECOGNIZED') return { bankText: await store({ outcome: 'UNRECOGNIZED', reason: parsed.reason }), transaction: null };
  if (parsed.kind === 'NOT_A_DEPOSIT') {
    return { bankText: await store({ outcome: 'NOT_A_DEPOSIT', kind: parsed.what, reason: parsed.reason, provider: parsed.provider }), transaction: null };
  }
  const read = { provider: parsed.provider, format: parsed.format };
  const refused = refusalFor(account, parsed);
  if (refused) return { bankText: await store({ outcome: 'REFUSED', ...refused, ...read }), transaction: null };

  const { transaction, created } = await storeAnnouncedDeposit(deps, account, parsed, { source: 'TEXT', balanceAfter: parsed.balanceAfter, channel: request.channel });
  return { bankText: await store({ outcome: created ? 'DEPOSIT' : 'DUPLICATE', transactionId: transaction.id, ...read }), transaction };
}

export const BANK_TEXT_OUTCOMES = ['DEPOSIT', 'DUPLICATE', 'NOT_A_DEPOSIT', 'UNRECOGNIZED', 'REFUSED'] as const;

/**
 * bankTexts: the workspace's forwarded texts, newest first (at most `first`, 1-100, default 50), optionally of some
 * outcomes, optionally only the open ones (OPEN_BANK_TEXT: still to enter or dismiss) or only the others; a key limited
 * to some bank accounts sees those accounts' texts only.
 */
export async function listBankTexts(deps: Deps, principal: Principal | null, f: { outcomes?: readonly string[] | null; open?: boolean | null; first?: number | null }): Promise<BankText[]> {
  const p = requirePrincipal(principal);
  const outcomes = (f.outcomes ?? []).filter((o): o is (typeof BANK_TEXT_OUTCOMES)[number] => (BANK_TEXT_OUTCOMES as readonly string[]).includes(o));
  return deps.prisma.bankText.findMany({
    where: {
      workspaceId: p.workspaceId,
      ...(p.bankAccountIds !== null ? { bankAccountId: { in: [...p.bankAccountIds] } } : {}),
      ...(outcomes.length ? { outcome: { in: outcomes } } : {}),
      ...(f.open === true ? OPEN_BANK_TEXT : f.open === false ? { NOT: OPEN_BANK_TEXT } : {}),
    },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: clampedSize(f.first, 50),
  });
}

/** How long before its text a deposit entered by hand may have been made. */
const ENTERED_DEPOSIT_MAX_AGE_MS = 7 * 86_400_000;

/** A text the merchant may still deal with ("open"): one the service could not take, not yet entered or dismissed. */
const OPEN_OUTCOMES: BankTextOutcome[] = ['UNRECOGNIZED', 'REFUSED'];
const OPEN_BANK_TEXT = { outcome: { in: OPEN_OUTCOMES }, resolution: null };

function isOpen(text: BankText): boolean {
  return OPEN_OUTCOMES.includes(text.outcome) && text.resolution === null;
}

/** Loads an open text (OPEN_BANK_TEXT) of the principal's workspace and accounts. */
async function loadOpenBankText(deps: Deps, p: Principal, id: unknown): Promise<BankText> {
  const text = typeof id === 'string' ? await deps.prisma.bankText.findUnique({ where: { id } }) : null;
  if (!text || text.workspaceId !== p.workspaceId) throw new DomainError('BANK_TEXT_NOT_FOUND');
  if (!bankAccountInScope(p, text.bankAccountId)) throw new DomainError('OUT_OF_SCOPE');
  if (!isOpen(text)) throw new DomainError('BANK_TEXT_NOT_OPEN');
  return text;
}

/** Marks an open text resolved (a conditional update: of two merchants at once, one wins); false when it was not open. */
async function claimBankText(deps: Deps, id: string, resolution: 'ENTERED' | 'DISMISSED', by: string): Promise<boolean> {
  const { count } = await deps.prisma.bankText.updateMany({
    where: { id, resolution: null, outcome: { in: ['UNRECOGNIZED', 'REFUSED'] } },
    data: { resolution, resolvedAt: deps.clock.now(), resolvedBy: by },
  });
  return count === 1;
}

export interface EnterBankTextDepositRequest {
  bankTextId: unknown;
  amount: unknown;
  depositorName: unknown;
  /** When the deposit was made, per the bank (ISO 8601 with a zone; a transaction's receivedAt); default: when the phone received the text. */
  receivedAt?: unknown;
  balanceAfter?: unknown;
}

/**
 * enterBankTextDeposit (dashboard): the merchant reads a text the service could not (UNRECOGNIZED), or accepts one it
 * refused (REFUSED), and enters the deposit it announces; it is stored on the text's account like a text's deposit —
 * the same identity, so a deposit polling or another text already stored is found, not doubled — and matched.
 */
export async function enterBankTextDeposit(deps: Deps, principal: Principal | null, r: EnterBankTextDepositRequest): Promise<{ bankText: BankText; transaction: Transaction }> {
  const p = requireSession(principal);
  assertCanWrite(p);
  const text = await loadOpenBankText(deps, p, r.bankTextId);
  const n = parseBankNotification({
    notificationId: text.id,
    amount: r.amount,
    depositorName: r.depositorName,
    receivedAt: r.receivedAt ?? text.phoneReceivedAt.toISOString(),
  });
  // A deposit a text announced was made before the phone received the text, and not long before.
  const earliest = text.phoneReceivedAt.getTime() - ENTERED_DEPOSIT_MAX_AGE_MS;
  if (n.receivedAt.getTime() > deps.clock.now().getTime() || n.receivedAt.getTime() < earliest) {
    throw new DomainError('VALIDATION_FAILED', { message: 'receivedAt must be within the 7 days before the text was received, and not in the future.', path: ['receivedAt'] });
  }
  if (r.balanceAfter != null && (typeof r.balanceAfter !== 'number' || !Number.isSafeInteger(r.balanceAfter))) {
    throw new DomainError('VALIDATION_FAILED', { message: 'balanceAfter must be a whole number of won.', path: ['balanceAfter'] });
  }
  const balanceAfter = (r.balanceAfter as number | null | undefined) ?? null;
  const account = await deps.prisma.bankAccount.findUnique({ where: { id: text.bankAccountId } });
  if (!account || account.deletedAt) throw new DomainError('BANK_ACCOUNT_NOT_FOUND', { message: "The text's bank account was deleted." });
  if (!(await claimBankText(deps, text.id, 'ENTERED', actorOf(p).name))) throw new DomainError('BANK_TEXT_NOT_OPEN');
  try {
    const { transaction } = await storeAnnouncedDeposit(
      deps,
      account,
      { amount: n.amount, depositorName: n.depositorName, occurredAt: n.receivedAt, balanceAfter },
      { source: 'TEXT', balanceAfter, channel: text.channel === 'PUSH' ? 'PUSH' : 'SMS' },
    );
    const bankText = await deps.prisma.bankText.update({ where: { id: text.id }, data: { transactionId: transaction.id } });
    return { bankText, transaction };
  } catch (e) {
    // Not stored: the text is open again, for another try.
    await deps.prisma.bankText.updateMany({ where: { id: text.id, resolution: 'ENTERED', transactionId: null }, data: { resolution: null, resolvedAt: null, resolvedBy: null } });
    throw e;
  }
}

/** dismissBankText (dashboard): the merchant looked at a text the service could not take and it announces no deposit. */
export async function dismissBankText(deps: Deps, principal: Principal | null, id: unknown): Promise<BankText> {
  const p = requireSession(principal);
  assertCanWrite(p);
  const text = await loadOpenBankText(deps, p, id);
  if (!(await claimBankText(deps, text.id, 'DISMISSED', actorOf(p).name))) throw new DomainError('BANK_TEXT_NOT_OPEN');
  return deps.prisma.bankText.findUniqueOrThrow({ where: { id: text.id } });
}
