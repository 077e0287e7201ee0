/**
 * The deposit-text layouts of our seven banks (issue 19), one row each, read over the canonical text (canonical-text.ts:
 * only ' ' and '\n' as whitespace, `[Web발신]` gone). Every layout is matched whether the forwarder kept its line
 * breaks or turned them into spaces, so each separator is `[ \n]`; a name never spans a line.
 *
 * Sources (names, accounts and amounts in them are the samples' own placeholders; ours are placeholders too):
 * - NH_NONGHYUP_SMS — issue 19 (`농협 입금10,000원\n07/04 15:18 352-****-4273-63 홍길동 잔액3,710,000원`);
 *   rohn0619/depo2 frontend/src/MessageTest.js (the same, plus `[Web발신]\n농협 출금780,500원\n07/06 15:27
 *   352-****-7417-43 (주)재호 잔액505,010원` and a name cut inside a bracket, `088-조휘서(`); kiko9987/itglobal
 *   tests/unit/test_pin_deposit_summary.py (forwarded from real phones: without the balance,
 *   `농협 입금3,825,000원\n08/11 14:48 352-****-1682-33 장동선`).
 * - SHINHAN_SMS — issue 19 (`[Web발신]\n신한07/04 15:28\n110-496-922482\n입금 100,000\n잔액 870,045\n 홍길동`, no 원);
 *   rohn0619/depo2 (withdrawal `출금   7,900,000`); the tests of a public Apps Script ledger whose
 *   repository the search index did not name (`...\n입금     250,000\n홍길동(테스트상`: no balance line, the name cut at
 *   seven characters inside a bracket).
 * - KB_KOOKMIN_SMS — issue 19 (`[KB]07/04 15:24\n942902**347\n홍길동\n입금\n600,000\n잔액1,320,000`); rohn0619/depo2
 *   (withdrawal `...\n박인호\n출금\n2,960,000\n...`); hsh7097/MoneyTalk app/src/main/assets/sms_rules_v1.json (sender
 *   16449999: the kind line may be longer than `입금`/`출금`, e.g. `체크카드출금`, `출금취소`).
 * - KB_KOOKMIN_STAR_PUSH — issue 19 (`홍*동님 07/15 18:39 582102-**-***852\n홍길동 FBS입금 10,000 잔액10,000`); the word
 *   before 입금 is the transfer channel (FBS, 전자금융, ...). Only this one sample: the layout names no bank, and is
 *   read as KB's from its shape (`<holder>님 MM/DD HH:MM <masked account>`).
 * - KAKAOBANK_SMS — issue 19 (`[Web발신] [카카오뱅크] 홍*동(8205) 01/23 11:59 입금 450,000원 홍길동 잔액 9,851,574원`),
 *   also ryanshim10/pinehillmanager .../util/SmsParser.kt (same layout, in a comment).
 * - KAKAOBANK_PUSH — hsh7097/MoneyTalk app/src/test/.../SmsIncomeParserTest.kt ("카카오뱅크 입금 알림":
 *   `입금 100,000원\n하상현 → 입출금통장(9103)\n잔액 4,514,631원`, also on one line). It prints no time (the push comes
 *   at once: the time is receivedAt) and no bank name: it is KakaoBank's only with `카카오뱅크` on a line before it
 *   (the notification title) or a KakaoBank sender.
 * - WOORI_SMS — Ofcourse-DaytoCourse/Backend controllers/sms_controller.py (`[Web발신]\n우리 07/21 02:27\n*420576\n
 *   입금 1000원\n주노9013`, no thousands separator, no balance); kinghama-ledger/home-ledger-example
 *   scripts/test_cross_sweep_live.mts (sender 1588-5000: `[Web발신]\n우리 MM/DD HH:MM\n*000000\n출금 917,000원\n<name>\n
 *   잔액 1,234원`). The deposit with a balance line is built from the withdrawal's: not seen on a sample.
 * - HANA_SMS — kiko9987/itglobal tests/unit/test_pin_deposit_summary.py (`[Web발신]\n하나,08/07, 15:33\n255******31304
 *   \n입금5,115,000원\n(주)클리어윈코\n잔액239,612,486원`); nic004/DropIt DropIt/DITPasteSNSViewController.swift
 *   (`[Web발신]\n하나,04/06,14:24\r\n445******08907\r\n출금6,120원\r\n네이버_LGU+\r\n잔액3,438,883원`: \r\n breaks, no
 *   space after the comma); more public parsers whose repositories the index did not name (`하나,08/27 13:58`; a
 *   balance without 원; `출금55,000원\n티머니\u3000\u3000\u3000` — names padded with ideographic spaces;
 *   `잔액-55,279,562원` on an overdraft account);
 *   nabaho/pureun-erp functions/hana-message.js and its tests (one line, a space for the comma, account optional:
 *   `하나 08/24 08:09 352-910123-45678 입금 165,000원 주식회사열음테 잔액 53,709,193원`).
 * - HANA_LABELED — kiko9987/itglobal (a backtest on 146 real texts: `일시 08/07, 10:55\n입금 275,000원\n계좌번호
 *   255******31304\n적요 더밸런스짐`). It names no bank: Hana's only with a Hana title line or sender.
 * - IBK_SMS — kiko9987/itglobal tests/unit/test_pin_deposit_summary.py and test_payment_memo_parse.py (forwarded from
 *   real phones: `[Web발신]\n2026/08/10 14:49\n입금 407,000원\n잔액 144,153,377원\n㈜시프트업\n452***38801011\n기업`, and
 *   the same without the balance line). The only layout with a year. No IBK withdrawal was found: `출금` in its place
 *   is assumed.
 *
 * Not found anywhere: a Woori, Hana or IBK push layout (but Hana's labelled one), and any bank's balance-notice text;
 * those are classified by words (non-deposit-texts.ts) or left UNRECOGNIZED.
 */
import type { BankProviderId } from '../../bank-accounts/bank-providers.ts';

/** The id of a layout, reported with each parsed deposit. */
export type BankTextFormatId =
  | 'NH_NONGHYUP_SMS'
  | 'SHINHAN_SMS'
  | 'KB_KOOKMIN_SMS'
  | 'KB_KOOKMIN_STAR_PUSH'
  | 'KAKAOBANK_SMS'
  | 'KAKAOBANK_PUSH'
  | 'WOORI_SMS'
  | 'HANA_SMS'
  | 'HANA_LABELED'
  | 'IBK_SMS';

/**
 * One layout. Its pattern's named groups: `kind` (a word ending in 입금 or 출금, maybe followed by 취소), `amount`,
 * `name`, `month`, `day`, `hour`, `minute` (absent: the text prints no time), optional `year`, `second`, `account`,
 * `balance`, `balance2` (a balance printed after the name).
 */
export interface BankTextFormat {
  id: BankTextFormatId;
  provider: BankProviderId;
  /** False for the layouts that print no bank name: those need a title line or sender that names `provider`. */
  namesBank: boolean;
  pattern: RegExp;
}

const START = '(?:^|\\n)';
const END = '(?=\\n|$)';
const SEP = '[ \\n]';
const DATE = '(?<month>\\d{1,2}) ?/ ?(?<day>\\d{1,2})';
const TIME = '(?<hour>\\d{1,2}) ?: ?(?<minute>\\d{2})(?: ?: ?(?<second>\\d{2}))?';
const DATE_TIME = `${DATE}(?: ?, ?| )${TIME}`;
const KIND = '(?<kind>입금취소|출금취소|입금|출금)';
/** KB's kind words: the channel or cause before 입금/출금 (`FBS입금`, `체크카드출금`). */
const KB_KIND = '(?<kind>[^ \\n]*?(?:입금|출금)(?:취소)?)';
const AMOUNT = '(?<amount>[0-9][0-9,.]*) ?원?';
const balance = (group: 'balance' | 'balance2') => `잔액 ?(?<${group}>-?[0-9][0-9,.]*) ?원?`;
const ACCOUNT = '(?<account>[0-9*][0-9*-]*[0-9*])';
const NAME = '(?<name>[^\\n]+?)';

/** Global (every notice in a text is found, so two in one are refused), with match indices (the name is cut from the source). */
const re = (...parts: string[]) => new RegExp(parts.join(''), 'dgu');

/** The layouts, tried in this order; the first that matches reads the text. */
export const BANK_TEXT_FORMATS: readonly BankTextFormat[] = [
  {
    id: 'NH_NONGHYUP_SMS',
    provider: 'NH_NONGHYUP',
    namesBank: true,
    pattern: re(START, '(?:NH ?)?농협(?:은행)? ?', KIND, ' ?', AMOUNT, SEP, DATE_TIME, ' ', ACCOUNT, ' ', NAME, `(?: ?${balance('balance')})?`, END),
  },
  {
    id: 'SHINHAN_SMS',
    provider: 'SHINHAN',
    namesBank: true,
    pattern: re(START, '신한(?:은행)? ?', DATE_TIME, SEP, ACCOUNT, SEP, KIND, ' ?', AMOUNT, `(?:${SEP}${balance('balance')})?`, SEP, NAME, `(?:${SEP}${balance('balance2')})?`, END),
  },
  {
    id: 'KB_KOOKMIN_SMS',
    provider: 'KB_KOOKMIN',
    namesBank: true,
    pattern: re(START, '\\[KB\\] ?', DATE_TIME, SEP, ACCOUNT, SEP, NAME, SEP, KB_KIND, SEP, AMOUNT, `(?:${SEP}${balance('balance')})?`, END),
  },
  {
    id: 'KB_KOOKMIN_STAR_PUSH',
    provider: 'KB_KOOKMIN',
    namesBank: true,
    pattern: re(START, '(?<holder>[^\\n]+?)님 ?', DATE_TIME, ' ', ACCOUNT, SEP, NAME, ' ', KB_KIND, ' ', AMOUNT, `(?: ?${balance('balance')})?`, END),
  },
  {
    id: 'KAKAOBANK_SMS',
    provider: 'KAKAOBANK',
    namesBank: true,
    pattern: re(START, '\\[카카오뱅크\\] ?(?<holder>[^\\n()]*?) ?(?<account>\\(\\d{4}\\)) ?', DATE_TIME, SEP, KIND, ' ?', AMOUNT, SEP, NAME, `(?:${SEP}${balance('balance')})?`, END),
  },
  {
    id: 'KAKAOBANK_PUSH',
    provider: 'KAKAOBANK',
    namesBank: false,
    pattern: re('(?:^|\\n|(?<=카카오뱅크) )', KIND, ' ?', AMOUNT, SEP, NAME, ' ?(?:→|->) ?(?<accountName>[^\\n()]*?) ?(?<account>\\(\\d{4}\\))', `(?:${SEP}${balance('balance')})?`, END),
  },
  {
    id: 'WOORI_SMS',
    provider: 'WOORI',
    namesBank: true,
    pattern: re(START, '우리(?:은행)? ?', DATE_TIME, SEP, ACCOUNT, SEP, KIND, ' ?', AMOUNT, SEP, NAME, `(?:${SEP}${balance('balance')})?`, END),
  },
  {
    id: 'HANA_SMS',
    provider: 'HANA',
    namesBank: true,
    pattern: re(START, '(?:KEB ?)?하나(?:은행)? ?,? ?', DATE_TIME, SEP, `(?:${ACCOUNT}${SEP})?`, KIND, ' ?', AMOUNT, SEP, NAME, `(?:${SEP}${balance('balance')})?`, END),
  },
  {
    id: 'HANA_LABELED',
    provider: 'HANA',
    namesBank: false,
    pattern: re(START, '일시 ?', DATE_TIME, SEP, KIND, ' ?', AMOUNT, SEP, '계좌번호 ?', ACCOUNT, SEP, '적요 ?', NAME, `(?:${SEP}${balance('balance')})?`, END),
  },
  {
    id: 'IBK_SMS',
    provider: 'IBK',
    namesBank: true,
    pattern: re(START, '(?<year>\\d{4}) ?/ ?', DATE_TIME, SEP, KIND, ' ?', AMOUNT, `(?:${SEP}${balance('balance')})?`, SEP, NAME, SEP, ACCOUNT, SEP, '(?:IBK ?)?기업(?:은행)?', END),
  },
];
