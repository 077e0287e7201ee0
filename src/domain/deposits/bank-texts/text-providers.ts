/**
 * Which of our seven banks (src/domain/bank-accounts/bank-providers.ts) a text or its sender names (issue 19). A
 * deposit text's own layout names its bank (`[KB]`, `농협 입금`, `하나,07/04`); these markers serve the texts no format
 * reads (withdrawals, balance notices) and the two layouts that carry no bank name at all (KakaoBank's push, Hana's
 * labelled text), which are attributed from a title line before them or from the sender the forwarder reports.
 */
import type { BankProviderId } from '../../bank-accounts/bank-providers.ts';

/** Words a text uses for a bank, in canonical form (see canonical-text.ts). Card companies (`KB국민카드`, `하나카드`) are not banks. */
const TEXT_MARKERS: [BankProviderId, RegExp][] = [
  ['KB_KOOKMIN', /\[KB\]|KB국민(?:은행)?(?!카드)|국민은행|KB스타뱅킹/u],
  ['SHINHAN', /신한은행|신한 ?SOL|\[신한\]|신한 ?\d{1,2}\/\d{1,2}/u],
  ['WOORI', /우리은행|우리 ?WON|\[우리\]|우리 ?\d{1,2}\/\d{1,2}/u],
  ['HANA', /하나은행|KEB ?하나|하나원큐|하나 ?1Q|\[하나\]|하나 ?,? ?\d{1,2}\/\d{1,2}/u],
  ['NH_NONGHYUP', /(?:NH)?농협(?!카드)|\[NH\]|NH ?스마트뱅킹/u],
  ['IBK', /IBK(?! ?카드)|기업은행|(?:^|\n)기업(?:\n|$)/u],
  ['KAKAOBANK', /카카오뱅크/u],
];

/** The one bank a text mentions, or null when it mentions none or more than one. */
export function providerMentioned(text: string): BankProviderId | null {
  const found = TEXT_MARKERS.filter(([, re]) => re.test(text)).map(([id]) => id);
  return found.length === 1 ? found[0]! : null;
}

/**
 * Bank SMS sender numbers. Seen as senders of deposit and withdrawal texts in public SMS parsers: NH 1588-2100,
 * Shinhan 1577-8000, KB 1644-9999 (rohn0619/depo2 frontend/src/MessageTest.js, `보낸사람 : 15882100`), Woori
 * 1588-5000 (kinghama-ledger/home-ledger-example scripts/test_cross_sweep_live.mts). The others are the banks'
 * customer-centre numbers, not seen on a sample: they only attribute the two layouts that name no bank.
 */
const SENDER_NUMBERS: Record<string, BankProviderId> = {
  '15882100': 'NH_NONGHYUP',
  '15778000': 'SHINHAN',
  '16449999': 'KB_KOOKMIN',
  '15885000': 'WOORI',
  '15991111': 'HANA',
  '15881111': 'HANA',
  '15662566': 'IBK',
  '15882588': 'IBK',
  '15993333': 'KAKAOBANK',
};

/** App names and package ids a push forwarder may report as the sender. */
const SENDER_NAMES: [BankProviderId, RegExp][] = [
  ['KB_KOOKMIN', /kbstar|kbbank|kb ?스타|국민은행/i],
  ['SHINHAN', /shinhan|신한/i],
  ['WOORI', /woori|우리/i],
  ['HANA', /hana|하나/i],
  ['NH_NONGHYUP', /nonghyup|nh\.?smart|농협/i],
  ['IBK', /ibk|i-?one|기업은행/i],
  ['KAKAOBANK', /kakaobank|카카오뱅크/i],
];

/** The bank a sender (a phone number, an app name or package id) stands for, or null. */
export function senderProvider(sender: string | null | undefined): BankProviderId | null {
  if (!sender) return null;
  const digits = sender.replace(/\D/g, '');
  const byNumber = SENDER_NUMBERS[digits];
  if (byNumber && digits.length >= 8 && /^[\d\s\-+()]+$/.test(sender.trim())) return byNumber;
  const found = SENDER_NAMES.filter(([, re]) => re.test(sender)).map(([id]) => id);
  return found.length === 1 ? found[0]! : null;
}
