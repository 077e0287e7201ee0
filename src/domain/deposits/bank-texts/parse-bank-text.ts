/**
 * Deposit texts as Korean banks announce them (issue 19): the SMS or app push a merchant's phone forwards, read into a
 * deposit (bank, amount, depositor name, time, masked account, balance) or answered as surely no deposit, or left
 * unrecognized to be stored as received. Pure: no database, no clock but the receipt time it is given.
 */
import type { BankProviderId } from '../../bank-accounts/bank-providers.ts';
import { nameLength } from '../depositor-name.ts';
import { BANK_TEXT_FORMATS, type BankTextFormat, type BankTextFormatId } from './bank-text-formats.ts';
import { canonicalize, dropRange, sourceSlice, type CanonicalText } from './canonical-text.ts';
import { classifyNonDeposit, isAdvertisement, type NotADepositWhat } from './non-deposit-texts.ts';
import { resolveTextDate } from './text-date.ts';
import { providerMentioned, senderProvider } from './text-providers.ts';
import { parseBalance, parseDepositAmount } from './won-amount.ts';

/** The largest text read, in UTF-8 bytes after NFC (an LMS is at most 2,000 bytes of EUC-KR: ~3,000 here). */
export const MAX_BANK_TEXT_BYTES = 4096;
/** The longest depositor name taken (as POST /bank-notifications takes it). */
const MAX_NAME_LENGTH = 100;

/** How the text reached the phone: a bank's SMS/LMS, or a banking app's push notification. */
export type BankTextChannel = 'SMS' | 'PUSH';

/**
 * A forwarded text: what the phone received, when, how, and from whom (a number, or an app's name or package id).
 * `channel` is recorded, not relied on: every layout is read whichever way the forwarder labels it.
 */
export interface BankTextInput {
  text: string;
  receivedAt: Date;
  channel: BankTextChannel;
  sender?: string | null;
}

/** A deposit read from a text. */
export interface BankTextDeposit {
  kind: 'DEPOSIT';
  provider: BankProviderId;
  /** Whole won, 1..MAX_WON. */
  amount: number;
  /** As the bank shows it (maybe truncated, brackets kept, NFC); matching normalises it. */
  depositorName: string;
  /** The text's KST time; receipt time for a layout that prints none. */
  occurredAt: Date;
  /** The account as the text masks it (`352-****-4273-63`, `(8205)`); see accountMatchesMask. */
  account: { masked: string } | null;
  /** The balance after the deposit, negative on an overdraft account. */
  balanceAfter: number | null;
  format: BankTextFormatId;
}

/** A text surely about something else; answered so the forwarder stops retrying. */
export interface BankTextNotADeposit {
  kind: 'NOT_A_DEPOSIT';
  provider: BankProviderId | null;
  what: NotADepositWhat;
  reason: string;
}

/** A text no parser understands, to be stored as received for the merchant. */
export interface BankTextUnrecognized {
  kind: 'UNRECOGNIZED';
  reason: string;
}

export type BankTextParse = BankTextDeposit | BankTextNotADeposit | BankTextUnrecognized;

const unrecognized = (reason: string): BankTextUnrecognized => ({ kind: 'UNRECOGNIZED', reason });
const notADeposit = (provider: BankProviderId | null, what: NotADepositWhat, reason: string): BankTextNotADeposit => ({
  kind: 'NOT_A_DEPOSIT',
  provider,
  what,
  reason,
});

/** The line some forwarders put first, naming the sender (`보낸사람 : 15882100`). */
const SENDER_LINE = /^(?:보낸 ?사람|보낸 ?번호|발신 ?번호|발신자|from) ?: ?([^\n]*)(?:\n|$)/iu;

/**
 * Reads a forwarded bank text (issue 19): a deposit in one of the seven banks' layouts (bank-text-formats.ts), or
 * NOT_A_DEPOSIT for a withdrawal, balance notice, card payment, advertisement or security code, or UNRECOGNIZED for
 * anything else — a text over MAX_BANK_TEXT_BYTES, a date that does not exist or lies after receipt, an amount outside
 * 1..MAX_WON, two notices in one text. Never throws.
 */
export function parseBankText(input: BankTextInput): BankTextParse {
  const { text, receivedAt, sender } = input ?? ({} as BankTextInput);
  if (typeof text !== 'string') return unrecognized('the text is not a string');
  if (!(receivedAt instanceof Date) || Number.isNaN(receivedAt.getTime())) return unrecognized('receivedAt is not a valid date');
  // A cheap refusal before normalising: NFC composes at most 4 code points into one, and every character is a byte or more.
  if (text.length > MAX_BANK_TEXT_BYTES * 4) return unrecognized(`the text is over ${MAX_BANK_TEXT_BYTES} bytes`);
  let c = canonicalize(text);
  if (Buffer.byteLength(c.source, 'utf8') > MAX_BANK_TEXT_BYTES) return unrecognized(`the text is over ${MAX_BANK_TEXT_BYTES} bytes`);
  let senderHint = typeof sender === 'string' ? sender : null;
  for (let line = SENDER_LINE.exec(c.text); line; line = SENDER_LINE.exec(c.text)) {
    senderHint ??= line[1]!;
    c = dropRange(c, 0, line[0].length);
  }
  if (c.text === '') return unrecognized('the text is empty');
  if (isAdvertisement(c.text)) return notADeposit(providerMentioned(c.text), 'ADVERTISEMENT', 'an advertisement ((광고))');

  const found = findNotices(c.text);
  if (found.length > 1) return unrecognized('the text holds more than one notice');
  if (found.length === 1) return readNotice(c, found[0]!.format, found[0]!.match, receivedAt, senderHint);

  const other = classifyNonDeposit(c.text);
  if (other) return notADeposit(providerMentioned(c.text), other.what, other.reason);
  return unrecognized(c.text.includes('입금') ? 'a text about 입금 in no known layout' : 'no parser understands the text');
}

interface Notice {
  format: BankTextFormat;
  match: RegExpExecArray;
}

/** Every notice in the text: each layout's matches, those overlapping an earlier-listed layout's dropped. */
function findNotices(text: string): Notice[] {
  const notices: Notice[] = [];
  for (const format of BANK_TEXT_FORMATS) {
    for (const match of text.matchAll(format.pattern)) {
      const end = match.index + match[0].length;
      if (!notices.some((n) => match.index < n.match.index + n.match[0].length && n.match.index < end)) notices.push({ format, match });
    }
  }
  return notices;
}

/** A notice a layout matched: a deposit, or what else it is, or why it cannot be read. */
function readNotice(c: CanonicalText, format: BankTextFormat, match: RegExpExecArray, receivedAt: Date, sender: string | null): BankTextParse {
  const g = match.groups!;
  const kind = g.kind!;
  const attributed = format.namesBank ? format.provider : (providerMentioned(c.text.slice(0, match.index)) ?? senderProvider(sender));
  const provider = attributed === format.provider ? format.provider : null;
  if (kind.endsWith('취소')) return notADeposit(provider, 'OTHER', `a cancellation (${kind})`);
  if (!kind.endsWith('입금')) return notADeposit(provider, 'WITHDRAWAL', `a withdrawal (${kind})`);
  if (provider === null) {
    return unrecognized(`a ${format.id} layout, but ${attributed ? `the sender or title names ${attributed}` : 'no title line or sender names the bank'}`);
  }

  const amount = parseDepositAmount(g.amount!);
  if (!amount.ok) return unrecognized(amount.reason);
  let occurredAt = receivedAt;
  if (g.month !== undefined) {
    const at = resolveTextDate(
      {
        year: g.year === undefined ? undefined : Number(g.year),
        month: Number(g.month),
        day: Number(g.day),
        hour: Number(g.hour),
        minute: Number(g.minute),
        second: g.second === undefined ? undefined : Number(g.second),
      },
      receivedAt,
    );
    if (!at.ok) return unrecognized(at.reason);
    occurredAt = at.at;
  }
  const [nameStart, nameEnd] = match.indices!.groups!.name!;
  const depositorName = sourceSlice(c, nameStart, nameEnd);
  if (depositorName === '' || nameLength(depositorName) > MAX_NAME_LENGTH) return unrecognized(`the depositor name is not 1-${MAX_NAME_LENGTH} characters`);
  if (/잔액 ?-?[0-9]/u.test(c.text.slice(nameStart, nameEnd))) return unrecognized('the depositor name runs into a balance');
  const balance = g.balance ?? g.balance2;
  return {
    kind: 'DEPOSIT',
    provider,
    amount: amount.amount,
    depositorName,
    occurredAt,
    account: g.account !== undefined && /\d/.test(g.account) ? { masked: g.account } : null,
    balanceAfter: balance === undefined ? null : parseBalance(balance),
    format: format.id,
  };
}
